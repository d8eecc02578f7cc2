-- resolved_file_status: what the resolver made of one file of the bound commit.
-- Database: index
-- Params : :path the file's path in the commit
-- Returns: (language, status): status is 'resolved', 'unparsable', 'too_large' or 'failed'; no
--          row for a file the resolver does not read.
-- Bound  : at most one row (path is unique)
-- Order  : none (one row)
SELECT language, status FROM resolved_files WHERE path = :path
