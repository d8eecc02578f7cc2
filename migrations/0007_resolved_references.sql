-- Migration 0007 (schema version 7): the resolved layer (resolved_files, definitions,
-- resolved_references: docs/resolver.md).
--
-- A version 6 index has no resolved rows, so it is derived again rather than migrated in place;
-- this step exists so the numbered steps still equal schema.sql.
PRAGMA user_version = 7;             -- the schema version; see migrations/

-- The resolved layer (docs/resolver.md): what the resolver, run once per generation from the
-- bound commit's blobs, found in every file of a language it reads (Python: every .py/.pyi file
-- a code node names). A file is numbered in path order, with the module name its path gives and
-- whether it could be read ('unparsable': not valid Python 3.11; 'too_large': over 2 MiB;
-- 'failed': the resolver itself failed on this commit, so no file of it has rows).
CREATE TABLE resolved_files (
  file     INTEGER PRIMARY KEY,              -- rank of the path (1-based)
  path     TEXT NOT NULL UNIQUE,
  language TEXT NOT NULL,                    -- 'python'
  module   TEXT NOT NULL,                    -- the dotted module name its path gives
  status   TEXT NOT NULL CHECK (status IN ('resolved', 'unparsable', 'too_large', 'failed'))
);

-- Every definition of a resolved file (its module too) with its range: start_line is its first
-- decorator's line (the def/class line when undecorated), line the def/class keyword's (the
-- provider's line), end_line its body's last. The enclosing definition of a line is the
-- innermost range holding it. Numbered in (file, start_line, end_line descending, column, line,
-- kind, qualname) order, so an enclosing definition comes before what it encloses; node is the provider's node for it (path, line and label agree), NULL where the
-- provider has none (its gap, kept).
CREATE TABLE definitions (
  definition INTEGER PRIMARY KEY,            -- rank (1-based)
  file       INTEGER NOT NULL REFERENCES resolved_files (file),
  parent     INTEGER REFERENCES definitions (definition),  -- the enclosing definition; NULL for a module
  kind       TEXT NOT NULL CHECK (kind IN ('module', 'class', 'function', 'method')),
  name       TEXT NOT NULL,
  qualname   TEXT NOT NULL,                  -- module-qualified: pkg.mod.Class.method
  start_line INTEGER NOT NULL,
  line       INTEGER NOT NULL,
  end_line   INTEGER NOT NULL,
  overload   INTEGER NOT NULL CHECK (overload IN (0, 1)),  -- an @overload stub
  node       INTEGER REFERENCES nodes (node)
);
CREATE INDEX definitions_by_file ON definitions (file, start_line, end_line);
CREATE INDEX definitions_by_node ON definitions (node) WHERE node IS NOT NULL;
CREATE INDEX definitions_by_name ON definitions (name, definition);

-- Every reference the resolver found: its site (file, line, 1-based column in UTF-8 bytes), its
-- role, the definition it binds to (NULL when the receiver's type is unknown: name is then all
-- that is known, and a call is kept only when some definition has that name), the name written
-- at the site, and the enclosing definition (the caller). Numbered in (file, line, col, role,
-- definition, name, enclosing) order.
CREATE TABLE resolved_references (
  reference  INTEGER PRIMARY KEY,            -- rank (1-based)
  file       INTEGER NOT NULL REFERENCES resolved_files (file),
  line       INTEGER NOT NULL,
  col        INTEGER NOT NULL,
  role       TEXT NOT NULL CHECK (role IN ('call', 'instantiate', 'reference', 'import', 'inherit',
                                           'decorate', 'override', 'fixture')),
  definition INTEGER REFERENCES definitions (definition),
  name       TEXT NOT NULL,
  enclosing  INTEGER NOT NULL REFERENCES definitions (definition)
);
CREATE INDEX references_by_definition ON resolved_references (definition, reference) WHERE definition IS NOT NULL;
CREATE INDEX references_by_enclosing ON resolved_references (enclosing, reference);
CREATE INDEX references_unbound_by_name ON resolved_references (name, reference) WHERE definition IS NULL;
