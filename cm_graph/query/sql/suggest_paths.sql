-- suggest_paths: repository paths that end with a bare file name (or a path tail) the operator
-- typed, for "did you mean".
-- Database: index
-- Params : :tail (text without a leading '/'), :limit
-- Returns: (path): distinct paths ending with '/' || :tail, shortest first.
SELECT DISTINCT path
FROM nodes
WHERE path <> '' AND substr(path, -length(:tail) - 1) = '/' || :tail
ORDER BY length(path), path
LIMIT :limit;
