-- cross_repo_usages: every definition of a name across the covered members (each citation is
-- then checked against its member's own census).
-- Database: fleet
-- Params : :name the bare name (label's callable base, no leading '.')
-- Returns: (member, repository, import_root, label, owner, module, path, line, kind, family)
-- Order  : repository, path, line, label
-- Bound  : the rows of one name
SELECT s.member, m.repository, m.import_root, s.label, s.owner, s.module, s.path, s.line, s.kind, s.family
FROM symbols AS s
JOIN members AS m ON m.member = s.member
WHERE s.name = :name
ORDER BY m.repository, s.path, s.line, s.label;
