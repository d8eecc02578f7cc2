-- Declared non-code nodes (distinct id and file type), in id order.
-- Database: import
-- Params : none
-- Returns: nothing
INSERT INTO idx.exclusions (provider_id, file_type)
SELECT DISTINCT provider_id, file_type
FROM stage_exclusions
ORDER BY provider_id, file_type;
