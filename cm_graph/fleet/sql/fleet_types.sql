-- cross_repo_usages: the declarations of a receiver type (symbols of that name that are not
-- members of a class) in one language family, for the single-definition guard.
-- Database: fleet
-- Params : :name the type's name, :family the language family
-- Returns: (member, path, line)
-- Order  : member, path, line
SELECT s.member, s.path, s.line FROM symbols AS s
WHERE s.name = :name AND s.owner = '' AND s.family = :family
ORDER BY s.member, s.path, s.line;
