-- One file the resolver read (resolved_index.write_resolved, once per file in path order).
-- Database: import
-- Params : :file, :path, :language, :module, :status
-- Returns: nothing
INSERT INTO idx.resolved_files (file, path, language, module, status)
VALUES (:file, :path, :language, :module, :status)
