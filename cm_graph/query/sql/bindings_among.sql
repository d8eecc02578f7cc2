-- bindings_among: which of the given nodes are variable bindings rather than definitions.
--          The pinned provider emits a JavaScript/TypeScript `const parse = require('./parse')`
--          (or any top-level `const x = ...`) as a symbol labelled with the bare name, without
--          the argument list a function or method label carries and without its `_callable` flag
--          (which the index does not keep); unlike a class (also labelled without an argument
--          list) it has no outgoing relationship: no method, member, base or call of its own.
--          So: a symbol without an argument list and without outgoing edges. (An empty class
--          with no base reads as a binding too; it is only ranked later, never hidden.)
-- Database: index
-- Params : :nodes JSON array of node numbers
-- Returns: (node) of each binding among them
-- Order  : node number.
-- Bound  : the given nodes' first outgoing adjacency row each.
SELECT n.node
FROM json_each(:nodes) AS wanted
JOIN nodes AS n ON n.node = wanted.value
WHERE n.kind = 'symbol' AND n.callable_base IS NULL
  AND NOT EXISTS (SELECT 1 FROM adjacency AS a WHERE a.node = n.node AND a.direction = 0)
ORDER BY n.node;
