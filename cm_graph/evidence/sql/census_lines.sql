-- census_lines: whether a path is tracked by the bound commit, and its line count.
-- Database: index
-- Params : :path
-- Returns: (lines): zero rows when the path is untracked, else one row (NULL when never counted)
SELECT lines FROM census WHERE path = :path;
