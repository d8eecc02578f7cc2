-- The fleet's members as the index was derived for them.
-- Params : none
-- Returns: member, repository, connection, reason ('' when covered), covered, generation, commit_id, package,
--          import_root
-- Order  : repository
SELECT member, repository, connection, reason, covered, generation, commit_id, package, import_root
FROM members ORDER BY repository;
