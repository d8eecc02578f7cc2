-- Migration 0012 (schema version 12): a TypeScript file that tree-sitter misreads is read again.
--
-- Variance annotations (`<out A>`) and call signatures on lines of their own (no `;`) made the
-- pinned grammar's error recovery drop the declarations after them; the resolver now parses such
-- a file once more repaired (index/tsrepair.py) and keeps the tree with fewer errors; and a call's
-- result is typed by the class its function declares it returns (`make(): C`, so `make().m()`
-- binds). The tables keep their shape, but a version 11 index of a JS/TS repository lacks the rows
-- these find, so it is derived again rather than migrated in place; this step exists so the
-- numbered steps still equal schema.sql.
PRAGMA user_version = 12;            -- the schema version; see migrations/
