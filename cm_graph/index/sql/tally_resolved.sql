-- The resolved layer's tallies for the counts table (and so `cm-graph index --json`): how many
-- files, definitions and references, and how well the definitions and the provider's nodes meet.
-- Database: import
-- Params : none
-- Returns: (resolved_files, resolved_unparsable_files, resolved_definitions,
--          resolved_definitions_on_nodes, resolved_nodes, resolved_nodes_with_definitions,
--          resolved_references, resolved_unbound_references)
--          resolved_nodes counts the provider's symbol and test nodes in the resolved files,
--          resolved_nodes_with_definitions those some definition is bound to.
SELECT
  (SELECT count(*) FROM idx.resolved_files) AS resolved_files,
  (SELECT count(*) FROM idx.resolved_files WHERE status <> 'resolved') AS resolved_unparsable_files,
  (SELECT count(*) FROM idx.definitions) AS resolved_definitions,
  (SELECT count(*) FROM idx.definitions WHERE node IS NOT NULL) AS resolved_definitions_on_nodes,
  (SELECT count(*) FROM idx.nodes AS n JOIN idx.resolved_files AS f ON f.path = n.path
   WHERE n.kind IN ('symbol', 'test')) AS resolved_nodes,
  (SELECT count(DISTINCT d.node) FROM idx.definitions AS d JOIN idx.nodes AS n ON n.node = d.node
   WHERE n.kind IN ('symbol', 'test')) AS resolved_nodes_with_definitions,
  (SELECT count(*) FROM idx.resolved_references) AS resolved_references,
  (SELECT count(*) FROM idx.resolved_references WHERE definition IS NULL) AS resolved_unbound_references
