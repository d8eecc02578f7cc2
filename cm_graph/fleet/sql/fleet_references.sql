-- cross_repo_usages: every reference a covered member makes to a name it does not define (each
-- citation is then checked against its member's own census).
-- Database: fleet
-- Params : :name the bare name
-- Returns: (member, repository, kind, path, line, module, receiver_type, family)
-- Order  : repository, path, line, kind, module, receiver_type
-- Bound  : the rows of one name
SELECT r.member, m.repository, r.kind, r.path, r.line, r.module, r.receiver_type, r.family
FROM references_out AS r
JOIN members AS m ON m.member = r.member
WHERE r.name = :name
ORDER BY m.repository, r.path, r.line, r.kind, r.module, r.receiver_type;
