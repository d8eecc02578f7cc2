-- list_undeclared_endpoints: the endpoints the provider named but never declared, next to the
-- nodes an answer touched: what makes the answer provider_partial, for the reader to judge.
-- Database: index
-- Params : :nodes JSON array of node numbers, :limit
-- Returns: (missing_id): distinct missing provider ids, sorted, at most :limit rows.
SELECT DISTINCT u.missing_id
FROM undeclared_endpoints AS u
WHERE u.node IN (SELECT value FROM json_each(:nodes))
ORDER BY u.missing_id
LIMIT :limit;
