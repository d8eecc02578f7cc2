-- What the resolver made of one file of the bound commit: its language and status ('resolved',
-- 'unparsable', 'too_large', 'failed'); no row for a file it does not read.
SELECT language, status FROM resolved_files WHERE path = :path
