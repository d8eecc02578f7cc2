-- text_file_paths: the paths of text index files, by number (a name's postings carry numbers).
-- Database: index
-- Params : :files  a JSON array of file numbers
-- Returns: (file, path)
-- Order  : file.
-- Bound  : one primary-key lookup per number given.
SELECT file, path FROM text_files WHERE file IN (SELECT value FROM json_each(:files)) ORDER BY file;
