-- cm-graph fleet index, format version 4.
-- Database: fleet (schema)
--
-- One file per fleet and per digest of its members' generations (fleet/<name>/<digest>.sqlite),
-- derived from the members' own indexes and never written again: a member's new generation gives
-- a new digest and a new file. Rows are inserted in primary-key order and the file carries no
-- time of its own, so the same members give the same bytes. It is sealed like a member's index
-- (<digest>.sqlite.seal, cm_graph/index/seal.py); every citation it holds is checked again, when
-- it is answered, against the census of the member index it came from.
PRAGMA application_id = 1668114278;  -- 0x636d6766, "cmgf": marks fleet files this project wrote
PRAGMA user_version = 4;

-- The fleet and the digest this file was derived for.
CREATE TABLE fleet (
  fleet  TEXT NOT NULL PRIMARY KEY,
  digest TEXT NOT NULL
) WITHOUT ROWID;

-- Every member, covered or not: why it was not covered ('' when it was: fleet/judgement.py's
-- reason, or 'unreadable' when its index could not be read), and the generation and commit it
-- was read from (NULL when there was no usable one). Not its lifecycle state: a commit after the
-- build makes a member stale without changing what it answers, so the file is not derived again.
CREATE TABLE members (
  member      INTEGER PRIMARY KEY,           -- 1-based, in repository-name order
  repository  TEXT NOT NULL UNIQUE,
  connection  TEXT,
  reason      TEXT NOT NULL,                 -- '' covered; else a state, checkout_missing, unknown, ...
  covered     INTEGER NOT NULL CHECK (covered IN (0, 1)),
  generation  TEXT,
  commit_id   TEXT,
  ecosystem   TEXT NOT NULL,                 -- 'pypi', 'npm', 'cargo', 'go' or '' (no declared package)
  package     TEXT NOT NULL,                 -- the declared package name, '' for none
  version     TEXT NOT NULL,                 -- the declared version, '' for none (or a dynamic one)
  import_root TEXT NOT NULL                  -- the name code imports the package by
);

-- Every definition of a covered member whose line was verified against the member's census:
-- name is the label's callable base without the leading '.' of a member; owner the class a
-- method belongs to ('' for none); module the package-qualified module of its file ('' when the
-- member declares no package or the file is not under it); family the language family.
CREATE TABLE symbols (
  member INTEGER NOT NULL REFERENCES members (member),
  name   TEXT NOT NULL,
  label  TEXT NOT NULL,
  owner  TEXT NOT NULL,
  module TEXT NOT NULL,
  path   TEXT NOT NULL,
  line   INTEGER NOT NULL,
  kind   TEXT NOT NULL,
  family TEXT NOT NULL,
  PRIMARY KEY (name, member, path, line, label)
) WITHOUT ROWID;
CREATE INDEX symbols_by_owner ON symbols (owner, name) WHERE owner <> '';

-- What a covered member names and does not define, at a verified site: 'import' (a name
-- imported from a module its graph could not bind; name '' for a whole-module import),
-- 'member_call' (a parked call, with its receiver type) and 'name' (a call, reference or base
-- class onto a sourceless stub: a bare name, the weakest anchor).
CREATE TABLE references_out (
  name          TEXT NOT NULL,
  kind          TEXT NOT NULL CHECK (kind IN ('import', 'member_call', 'name')),
  member        INTEGER NOT NULL REFERENCES members (member),
  path          TEXT NOT NULL,
  line          INTEGER NOT NULL,
  module        TEXT NOT NULL,                -- import: the dotted module; name: a stub's qualifier
  receiver_type TEXT NOT NULL,                -- member_call: the receiver's type
  family        TEXT NOT NULL,
  PRIMARY KEY (name, kind, member, path, line, module, receiver_type)
) WITHOUT ROWID;

-- Every use a covered member makes of another member's definition, bound by resolving the
-- members' Python files together (fleet/resolved_uses.py: the index's own resolver, over the
-- union), and their JS/TS files (fleet/resolved_js.py: a bare specifier names the member whose
-- package.json declares it; symbol `npm <package> <version> <path>/<descriptor>`): the site (1-based byte column), the resolver's role, how the site names it (form:
-- 'import', 'module_attribute' as in pkg.X or m.X, 'imported_name', 'alias' as in Y for
-- `from pkg import X as Y`, 'member' as in obj.method on a typed value), the text written
-- there, the module it names when that is not the defining one (a re-export, else ''), the
-- definition, and its SCIP-style symbol (`<manager> <package> <version> <descriptor>`). Kept
-- only when the definition's module is under the package its member declares. A site with
-- several rows of one role binds to several members' copies of one module: ambiguous.
CREATE TABLE uses (
  name           TEXT NOT NULL,              -- the definition's name
  member         INTEGER NOT NULL REFERENCES members (member),
  path           TEXT NOT NULL,
  line           INTEGER NOT NULL,
  col            INTEGER NOT NULL,
  role           TEXT NOT NULL,
  form           TEXT NOT NULL,
  written        TEXT NOT NULL,
  through        TEXT NOT NULL,
  target_member  INTEGER NOT NULL REFERENCES members (member),
  target_path    TEXT NOT NULL,
  target_line    INTEGER NOT NULL,
  target_qualname TEXT NOT NULL,
  symbol         TEXT NOT NULL,
  PRIMARY KEY (name, member, path, line, col, role, target_member, target_path, target_line)
) WITHOUT ROWID;
