-- A member index's external references (imports it could not bind, parked member calls) at a
-- site the census confirms.
-- Database: index
-- Params : none
-- Returns: (kind, target, receiver_type, language, site_path, site_line)
-- Order  : site_path, site_line, kind, target, receiver_type
SELECT r.kind, r.target, r.receiver_type, r.language, r.site_path, r.site_line
FROM external_references AS r
JOIN census AS c ON c.path = r.site_path
WHERE c.lines IS NOT NULL AND r.site_line <= c.lines
ORDER BY r.site_path, r.site_line, r.kind, r.target, r.receiver_type;
