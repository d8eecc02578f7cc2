-- The fleet's members as the index was derived for them.
-- Database: fleet
-- Params : none
-- Returns: (member, repository, connection, state, covered, generation, commit_id, package,
--          import_root)
-- Order  : repository
SELECT member, repository, connection, state, covered, generation, commit_id, package, import_root FROM members ORDER BY repository;
