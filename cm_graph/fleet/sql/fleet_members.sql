-- The fleet's members as the index was derived for them.
-- Database: fleet
-- Params : none
-- Returns: (member, repository, connection, reason, covered, generation, commit_id, package,
--          import_root, version): reason is '' when the member is covered
-- Order  : repository
SELECT member, repository, connection, reason, covered, generation, commit_id, package, import_root, version
FROM members ORDER BY repository;
