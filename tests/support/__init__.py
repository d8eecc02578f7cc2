"""Helpers that several test files share, written once (issue 14 item 5).

``helpers`` makes the real parts (git repositories, the pinned provider's output, published
generations);
``g0`` is the reference's common fixture G0, read from ``fixtures/g0/``; ``fixturecases`` finds and
reads the case folders of ``fixtures/cases/``, ``golden`` and ``damaged`` regenerate their golden
answers and named damaged graphs;
``askkit``, ``contextkit``, ``fleetkit``, ``surfacekit`` and ``documentkit`` set up one surface's
questions (``documentkit``: the ``tests/index/test_document_*.py`` files); ``cli`` invokes the
typer application in process; ``files`` reads what a command left on disk; ``cases`` is the G0
checkout-and-state pair most CLI tests start from; ``reference_walk`` is the pure-Python walk the
SQL one is held to; ``lexer_reference`` the text index's rules a character at a time, which the
scanner is held to; ``network`` asks once whether the npm registry can be reached (tests that fetch
from it skip otherwise); ``adversarial`` is issue 12's sweep (``python -m tests.support.adversarial``);
``hostilenames`` the repository whose names hold terminal escapes, and what output may hold;
``removerace`` races readers against a ``remove`` + ``build`` loop in real processes
(``python -m tests.support.removerace``); ``adversarial2`` is issue 25's sweep
(``python -m tests.support.adversarial2``), one module per category: ``sweep_fleet``,
``sweep_feedback``, ``sweep_surfaces`` (MCP/REST and the bearer token), ``sweep_history``,
``sweep_terminal`` and ``sweep_git`` (programs a repository configures), with ``removerace`` for
the readers; ``hostile`` arms a repository with every program git can run.
``tests/project/test_support.py`` holds that no helper is written twice.
"""
