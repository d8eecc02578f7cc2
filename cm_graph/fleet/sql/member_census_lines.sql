-- The counted line totals of a member's census (the files a citation can name).
-- Database: index
-- Params : none
-- Returns: (path, lines, blob, size)
-- Order  : path
SELECT path, lines, blob, size FROM census WHERE lines IS NOT NULL ORDER BY path;
