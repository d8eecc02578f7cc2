-- borders_among: which of the given nodes border an untraversable record (a node or call site in
--          a file whose name no citation can carry, left out of every walk at import).
-- Database: index
-- Params : :nodes JSON array of node numbers
-- Returns: (node) for each such node among them
-- Order  : unordered (the caller uses it as a set).
-- Bound  : one primary-key lookup per given node.
SELECT b.node FROM json_each(:nodes) AS wanted JOIN untraversable_borders AS b ON b.node = wanted.value;
