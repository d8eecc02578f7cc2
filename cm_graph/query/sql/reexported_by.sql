-- reexported_by: which of the given nodes a package's entry file imports or re-exports, so a
-- public import path (``httpx.Client``) names the definition it re-exports (``_client.Client``).
-- Database: index
-- Params : :nodes JSON array of node numbers, :paths JSON array of the package's entry files
--          (``httpx/__init__.py``, ``httpx.py``, ``httpx/index.ts`` ...)
-- Returns: (node, path) of each given node with an incoming imports/imports_from/re_exports edge
--          from a node of one of :paths, with that entry file's path
-- Order  : node number, then path.
-- Bound  : the given nodes' incoming adjacency.
SELECT DISTINCT a.node, o.path
FROM json_each(:nodes) AS wanted
CROSS JOIN adjacency AS a ON a.node = wanted.value AND a.direction = 1
CROSS JOIN edges AS e ON e.edge = a.edge
CROSS JOIN nodes AS o ON o.node = a.neighbour
WHERE e.relation IN ('imports', 'imports_from', 're_exports')
  AND o.path IN (SELECT value FROM json_each(:paths))
ORDER BY a.node, o.path;
