-- A member index's definitions for the fleet: every code node that is not a file, with a path and
-- a line the census confirms (the line is within the file's counted lines), and the class a
-- method hangs from by the provider's 'method' edge.
-- Database: index
-- Params : none
-- Returns: (label, callable_base, owner, path, line, kind); owner is '' for none
-- Order  : path, line, label (the fleet sorts again; this keeps the read deterministic)
SELECT n.label, n.callable_base,
       coalesce((SELECT min(o.label) FROM edges AS e JOIN nodes AS o ON o.node = e.source
                 WHERE e.target = n.node AND e.relation = 'method'), '') AS owner,
       n.path, n.line, n.kind
FROM nodes AS n
JOIN census AS c ON c.path = n.path
WHERE n.kind <> 'file' AND n.path <> '' AND n.line IS NOT NULL AND c.lines IS NOT NULL AND n.line <= c.lines
ORDER BY n.path, n.line, n.label;
