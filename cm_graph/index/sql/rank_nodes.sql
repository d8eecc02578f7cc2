-- Number the staged code nodes by provider id (code-point order), as insert_nodes will.
-- Database: import
-- Params : none
-- Returns: nothing
INSERT INTO res.node_rank (provider_id, node)
SELECT provider_id, row_number() OVER (ORDER BY provider_id)
FROM stage_nodes
ORDER BY provider_id;
