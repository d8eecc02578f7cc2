-- count_depth_frontier: how many nodes a walk stopped on at its depth limit still have an
-- eligible relationship behind them (this question's directions and kinds, not already
-- reported): the number behind "stopped at depth 2 on 7 nodes with more behind them".
-- Database: index
-- Params : :nodes JSON array of the nodes reached at the last hop, :directions, :kinds (as walk),
--          :edges JSON array of the reported edges
-- Returns: (frontier): one row, the count.
SELECT count(DISTINCT a.node) AS frontier
FROM adjacency AS a
WHERE a.node IN (SELECT value FROM json_each(:nodes))
  AND a.direction IN (SELECT value FROM json_each(:directions))
  AND a.kind IN (SELECT value FROM json_each(:kinds))
  AND a.edge NOT IN (SELECT value FROM json_each(:edges));
