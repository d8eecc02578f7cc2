"""Helpers that several test files share, written once (issue 14 item 5).

``cli`` invokes the typer application in process; ``files`` reads what a command left on disk;
``cases`` is the G0 checkout-and-state pair most CLI tests start from. The older shared modules
(``tests/helpers.py``, ``g0.py``, ``askkit.py``, ``contextkit.py``) stay where they are for now, so
that branches importing them keep working; ``tests/test_support.py`` holds that no helper is
written twice.
"""
