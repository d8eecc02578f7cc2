-- census_lines: whether a path is tracked by the bound commit, and its line count.
-- Params : :path
-- Returns: zero rows (untracked) or one row (lines; NULL when never counted)
SELECT lines FROM census WHERE path = :path;
