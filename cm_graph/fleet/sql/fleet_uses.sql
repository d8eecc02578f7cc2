-- cross_repo_usages: every resolved use of a definition of a name in another member (each
-- citation is then checked against its member's own census).
-- Database: fleet
-- Params : :name the definition's bare name
-- Returns: (member, repository, path, line, col, role, form, written, through, target_repository,
--          target_path, target_line, target_qualname, symbol)
-- Order  : repository, path, line, col, role, target repository, target path, target line
-- Bound  : the rows of one name
SELECT u.member, m.repository, u.path, u.line, u.col, u.role, u.form, u.written, u.through,
       t.repository AS target_repository,
       u.target_path, u.target_line, u.target_qualname, u.symbol
FROM uses AS u
JOIN members AS m ON m.member = u.member
JOIN members AS t ON t.member = u.target_member
WHERE u.name = :name
ORDER BY m.repository, u.path, u.line, u.col, u.role, t.repository, u.target_path, u.target_line;
