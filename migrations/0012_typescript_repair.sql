-- Migration 0012 (schema version 12): a TypeScript file that tree-sitter misreads is read again.
--
-- An interface's generic call signatures on lines of their own (no `;`) made the pinned grammar's
-- error recovery drop the declarations after them; the resolver now parses such a file once more
-- with the `;` put back (index/tsrepair.py) and keeps the tree with fewer errors. The tables keep
-- their shape, but a version 11 index of such a repository lacks the rows the repair finds, so it
-- is derived again rather than migrated in place; this step exists so the numbered steps still
-- equal schema.sql.
PRAGMA user_version = 12;            -- the schema version; see migrations/
