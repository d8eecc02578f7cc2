"""``code_context``: one cited, bounded answer per intent (how / usage / impact / tests).

Built on the same index and citation checker as the seed's four questions, which stay exactly
as they are. The package composes bounded walks (``walks``) over a declared relation map
(``relations``), resolves a target the way an agent writes it (``resolve``), shapes every section
(``sections``), fits the answer into a character budget (``budget``) and stamps it with stable ids
(``shape``). ``compose`` ties one intent together; ``run`` binds it to a workspace.
"""
