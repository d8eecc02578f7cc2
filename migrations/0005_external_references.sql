-- Migration 0005 (schema version 5): the references a member makes to names it does not define,
-- kept for the fleet's cross-repository usages.
--
-- A version 3 index dropped them, so it is derived again rather than migrated in place; this step
-- exists so the numbered steps still equal schema.sql. (0004 is another branch's; the numbers
-- stay increasing, and the lead reconciles them.)
PRAGMA user_version = 5;             -- the schema version; see migrations/

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
