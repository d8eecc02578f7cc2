-- Migration 0012 (schema version 12): Python's resolver follows more values.
--
-- index/pyscope.py and index/pylink.py now bind calls through a class named by a string in
-- `type["X"]`, either operand of `or`/`and`/`x if c else y`, what `next()`/`iter()`/`enumerate()`
-- give, `list()`/`sorted()`/`deque()`... of an iterable, `typing.cast(X, v)`, `except E as e` and
-- `isinstance` narrowing, a function returning its first argument, and a tuple's members by position (`a, b = f()` of a `Tuple[A, B]` or
-- a literal `return a, b`, `for i, x in enumerate(xs)`). The tables keep their shape; a version 11
-- index holds the rows of the resolver before that (those calls unbound or absent), so it is derived
-- again rather than migrated in place; this step exists so the numbered steps still equal schema.sql.
PRAGMA user_version = 12;            -- the schema version; see migrations/
