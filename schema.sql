-- cm-graph index, schema version 7.
--
-- One file per published generation, derived from it once and never written again. Node and
-- edge numbers are ranks, not insertion order: nodes are numbered in provider-id order and edges
-- in full relationship-identity order, so the file's bytes do not depend on the order the
-- provider listed its records in. Text compares by code point (BINARY collation over UTF-8).
PRAGMA application_id = 1668114290;  -- 0x636d6772, "cmgr": marks files this project wrote
PRAGMA user_version = 13;            -- the schema version; see migrations/

-- The generation this file was derived from: the one row that names it and its digests.
CREATE TABLE generation (
  generation     TEXT NOT NULL PRIMARY KEY,  -- 32 lowercase hex
  commit_id      TEXT NOT NULL,              -- the bound commit (full object name)
  tree_id        TEXT NOT NULL,              -- its tree
  built_at       TEXT NOT NULL,              -- the manifest's build time (UTC, ISO-8601)
  completeness   TEXT NOT NULL CHECK (completeness IN ('complete', 'partial')),
  provider       TEXT NOT NULL,              -- "<distribution>==<version>" from the manifest
  graph_digest   TEXT NOT NULL,              -- SHA-256 of graph.bin
  graph_bytes    INTEGER NOT NULL,
  census_digest  TEXT NOT NULL,
  document_format TEXT NOT NULL CHECK (document_format IN ('raw_extraction', 'node_link'))
) WITHOUT ROWID;

-- Tallies taken while importing (raw_nodes, raw_edges, code_nodes, edges, call_sites, ...).
CREATE TABLE counts (
  name  TEXT NOT NULL PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;

-- Code nodes. Non-code corpora are in exclusions instead.
CREATE TABLE nodes (
  node          INTEGER PRIMARY KEY,         -- rank of provider_id (1-based)
  provider_id   TEXT NOT NULL UNIQUE,
  label         TEXT NOT NULL,
  callable_base TEXT,                        -- label minus a trailing argument list, or NULL
  path          TEXT NOT NULL,               -- '' for a sourceless stub (never cited)
  line          INTEGER,                     -- NULL when the provider recorded none
  kind          TEXT NOT NULL CHECK (kind IN ('file', 'symbol', 'test')),
  incomplete    INTEGER NOT NULL CHECK (incomplete IN (0, 1))  -- touches an undeclared endpoint
);
CREATE INDEX nodes_by_label ON nodes (label, node);
CREATE INDEX nodes_by_callable_base ON nodes (callable_base, node) WHERE callable_base IS NOT NULL;
CREATE INDEX nodes_by_path ON nodes (path, node);

-- Distinct relationships between two code nodes, numbered in identity order:
-- (source id, target id, relation, kind, confidence, call-site path, call-site line or -1).
CREATE TABLE edges (
  edge       INTEGER PRIMARY KEY,            -- rank of the identity (1-based)
  source     INTEGER NOT NULL REFERENCES nodes (node),
  target     INTEGER NOT NULL REFERENCES nodes (node),
  relation   TEXT NOT NULL,                  -- the provider's own word, verbatim
  kind       TEXT NOT NULL CHECK (kind IN ('calls', 'imports', 'defines', 'references',
                                            'inherits', 'tests', 'related')),
  confidence TEXT NOT NULL CHECK (confidence IN ('extracted', 'inferred', 'ambiguous')),
  site_path  TEXT NOT NULL,                  -- the call site's file, '' when none
  site_line  INTEGER,                        -- the call site's line, NULL when none
  records    INTEGER NOT NULL                -- provider records carrying this exact identity
);

-- Precomputed adjacency in both directions. A node's list in one direction is ordered by the
-- edge's identity rank, which is the order every traversal visits it in.
CREATE TABLE adjacency (
  node      INTEGER NOT NULL,
  direction INTEGER NOT NULL CHECK (direction IN (0, 1)),  -- 0: outgoing, 1: incoming
  position  INTEGER NOT NULL,                -- 0-based place in this node's list
  kind      TEXT NOT NULL,
  edge      INTEGER NOT NULL,
  neighbour INTEGER NOT NULL,                -- the edge's other endpoint
  PRIMARY KEY (node, direction, position)
) WITHOUT ROWID;

-- Nodes of a corpus the questions never query (document, paper, image, rationale, concept,
-- doc_ref). Edges onto them were pruned silently.
CREATE TABLE exclusions (
  provider_id TEXT NOT NULL,
  file_type   TEXT NOT NULL,
  PRIMARY KEY (provider_id, file_type)
) WITHOUT ROWID;

-- Endpoints the provider named in an edge but never declared, by the code node on the other
-- side. A walk that touches such a node reports provider_partial.
CREATE TABLE undeclared_endpoints (
  node        INTEGER NOT NULL REFERENCES nodes (node),
  missing_id  TEXT NOT NULL,
  PRIMARY KEY (node, missing_id)
) WITHOUT ROWID;

-- Code nodes next to a record no traversal passes: a code node whose source_file no citation
-- can carry (a legal file name holding '#', a control character, a backslash, an empty or '.'
-- segment), or an edge between two code nodes whose own call-site path is such a name. Those
-- records are not in nodes or edges at all; a walk that seeds or reaches a node listed here
-- reports provider_warning.
CREATE TABLE untraversable_borders (
  node INTEGER NOT NULL PRIMARY KEY REFERENCES nodes (node)
) WITHOUT ROWID;

-- What the code says about itself: the provider's rationale nodes (docstrings and NOTE/WHY/
-- HACK-style comments) by the code node their rationale_for edge explains. The text is the
-- provider's label, whitespace collapsed and cut to 300 characters (truncated says so); path and
-- line are the rationale's own location, cited like any other (checked against the census).
CREATE TABLE rationale (
  node      INTEGER NOT NULL REFERENCES nodes (node),
  path      TEXT NOT NULL,
  line      INTEGER NOT NULL,
  text      TEXT NOT NULL,
  truncated INTEGER NOT NULL CHECK (truncated IN (0, 1)),
  PRIMARY KEY (node, path, line, text)
) WITHOUT ROWID;

-- What a code node names that its own graph does not define, kept for the fleet (which matches
-- it against other repositories' definitions): an import whose target the provider could not
-- bind (kind 'import': target is the provider's unbound id, e.g. urllib3_poolmanager for
-- urllib3.poolmanager), and a member call the provider parked on its caller because the
-- receiver's type is declared nowhere in this build (kind 'member_call': the provider's
-- metadata.unresolved_calls, target the callee, with the receiver type and language). Only
-- citable sites are kept: every row is a path and line of the bound commit.
CREATE TABLE external_references (
  node          INTEGER NOT NULL REFERENCES nodes (node),  -- the code node making the reference
  kind          TEXT NOT NULL CHECK (kind IN ('import', 'member_call')),
  target        TEXT NOT NULL,
  receiver_type TEXT NOT NULL,               -- '' for an import
  language      TEXT NOT NULL,               -- the provider's language word; '' for an import
  site_path     TEXT NOT NULL,
  site_line     INTEGER NOT NULL,
  PRIMARY KEY (node, kind, target, receiver_type, language, site_path, site_line)
) WITHOUT ROWID;

-- The bound commit's tracked files (git ls-tree of the commit, never the working tree).
-- lines is counted for every blob a node or call site names, NULL for the rest.
CREATE TABLE census (
  path  TEXT NOT NULL PRIMARY KEY,
  mode  TEXT NOT NULL,
  blob  TEXT NOT NULL,
  size  INTEGER NOT NULL,
  lines INTEGER
) WITHOUT ROWID;

-- The files the text index read: every tracked blob a node or call site names (the code files
-- the provider extracted) and every template or config file no node names (read for the dynamic
-- uses of names only: docs/index-format.md#dynamic-uses), numbered in path order. Their lines
-- are counted in census.
CREATE TABLE text_files (
  file  INTEGER PRIMARY KEY,                 -- rank of the path (1-based)
  path  TEXT NOT NULL
);

-- Every name the graph defines (a symbol's or test's label without a leading dot or argument
-- list, and a Python module's name: its file's stem, a package's directory, which a string may
-- load it by) that some code line of the bound commit mentions, with how many lines mention it and
-- which (postings). kept = 0 when the name is too common to list: more than 2,000 lines
-- (total = 2001), no posting. A posting is a line that uses the name outside strings and
-- comments, other than a definition, an assignment target or keyword argument, or (outside `#`
-- languages) an object key: a little-endian unsigned 64-bit integer
-- file << 25 | line << 4 | form, ascending, with form 0 raise (`raise X`, `throw new X`), 1 catch
-- (`except X`, `catch (e: X)`), 2 qualified_call (`x.name(`), 3 call (`name(`), 4 qualified
-- (`x.name`), 5 name (a bare reference), the strongest on the line (migration 0008); and beside
-- it the line's strongest dynamic use (migration 0009): 8 decorator, 9 registry, 10 export,
-- 11 getattr, 12 dispatch (posted under the dispatch prefix, `visit_`, a name's leading part two
-- defined names share), 13 string, 14 template, 15 config. A name's row counts both kinds.
CREATE TABLE mention_names (
  name      TEXT NOT NULL PRIMARY KEY,
  total     INTEGER NOT NULL,
  kept      INTEGER NOT NULL CHECK (kept IN (0, 1)),
  postings  BLOB NOT NULL                    -- 8 bytes a line: see above ('' when kept = 0)
) WITHOUT ROWID;

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
