-- definitions_named: the resolver's definitions carrying each given name, with their graph nodes.
-- Database: index
-- Params : :names JSON array of names
-- Returns: (name, definition, node): node NULL where the provider has none
-- Order  : name, then definition number.
-- Bound  : one indexed range of definitions_by_name per given name.
SELECT d.name, d.definition, d.node
FROM json_each(:names) AS wanted
JOIN definitions AS d ON d.name = wanted.value
ORDER BY d.name, d.definition;
