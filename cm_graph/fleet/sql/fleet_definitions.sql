-- cross_repo_usages: every definition of a name across the covered members, with its file's
-- counted lines (the citation is checked against them).
-- Database: fleet
-- Params : :name the bare name (label's callable base, no leading '.')
-- Returns: (member, repository, import_root, label, owner, module, path, line, kind, family, lines)
-- Order  : repository, path, line, label
-- Bound  : the rows of one name
SELECT s.member, m.repository, m.import_root, s.label, s.owner, s.module, s.path, s.line, s.kind, s.family,
       coalesce(c.lines, 0) AS lines
FROM symbols AS s
JOIN members AS m ON m.member = s.member
LEFT JOIN census AS c ON c.member = s.member AND c.path = s.path
WHERE s.name = :name
ORDER BY m.repository, s.path, s.line, s.label;
