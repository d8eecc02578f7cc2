-- The JavaScript and TypeScript files a member's resolved layer covers (the files its provider
-- extracted; declaration files are not among them), with the census blob each is read from: the
-- fleet resolves them again, together with the other members'.
-- Database: index
-- Params : none
-- Returns: (path, blob, size)
-- Order  : path
SELECT f.path, c.blob, c.size
FROM resolved_files AS f
JOIN census AS c ON c.path = f.path
WHERE f.language IN ('javascript', 'typescript') AND c.lines IS NOT NULL
ORDER BY f.path;
