-- Migration 0011 (schema version 11): the resolved layer reads JavaScript and TypeScript.
--
-- Beside Python's resolver, a second one (index/jsscope.py, index/jsresolve.py; tree-sitter)
-- writes the definitions, ranges and references of the .js/.mjs/.cjs/.jsx/.ts/.tsx/.mts/.cts
-- files among the graph's node paths into the same tables, resolved_files.language 'javascript'
-- or 'typescript'. The tables keep their shape; a version 10 index of a repository with such files
-- lacks those rows (its answers would say no resolver reads them), so it is derived again rather
-- than migrated in place; this step exists so the numbered steps still equal schema.sql.
PRAGMA user_version = 11;            -- the schema version; see migrations/
