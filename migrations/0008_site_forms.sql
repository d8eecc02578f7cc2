-- Migration 0008 (schema version 8): the text index's postings carry raise and catch sites.
--
-- A posting's form takes three bits instead of two (file << 24 | line << 3 | form), with form 0
-- raise (`raise X`, `raise mod.X(...)`, `throw new X`), 1 catch (`except X`, `except (A, X)`,
-- `catch (e: X)`, `instanceof X` in a catch block), then 2 qualified_call, 3 call, 4 qualified,
-- 5 name, the strongest on the line. The tables keep their shape; a version 7 index's postings
-- read otherwise, so it is derived again rather than migrated in place; this step exists so the
-- numbered steps still equal schema.sql.
PRAGMA user_version = 8;             -- the schema version; see migrations/
