-- census_paths_named: the bound commit's tracked files a task's path spelling names: the path
--          itself, or every tracked path that ends with it after a '/' (`sessions.py`,
--          `lib/core.js`), for prime to anchor on or to call ambiguous.
-- Database: index
-- Params : :path  a repository-relative path or its tail, as the task spells it
--          :limit how many paths to read at most (the candidate bound plus one)
-- Returns: (path): tracked paths, in path order, at most :limit rows
-- Order  : by path.
-- Bound  : the census primary key for the exact path; a scan of the census (one row per tracked
--          file) for a tail, stopped at :limit.
SELECT path FROM census
WHERE path = :path OR (length(path) > length(:path) AND substr(path, -length(:path) - 1) = '/' || :path)
ORDER BY path
LIMIT :limit;
