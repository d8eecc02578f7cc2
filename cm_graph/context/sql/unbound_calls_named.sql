-- unbound_calls_named: how many calls of each given name the resolver could bind to no
--          definition (the receiver's type unknown): uses of a definition of that name it cannot
--          rule in or out.
-- Database: index
-- Params : :names JSON array of names
-- Returns: (name, calls)
-- Order  : name.
-- Bound  : one range of the references_unbound_by_name partial index per given name.
SELECT r.name, count(*) AS calls
FROM json_each(:names) AS wanted
JOIN resolved_references AS r ON r.name = wanted.value AND r.definition IS NULL
WHERE r.role = 'call'
GROUP BY r.name
ORDER BY r.name;
