-- tests_among: which of the given nodes are tests (kind derived at import from the path).
-- Database: index
-- Params : :nodes JSON array of node numbers
-- Returns: (node) for each test among them
-- Order  : unordered (the caller uses it as a set).
-- Bound  : one primary-key lookup per given node.
SELECT n.node FROM json_each(:nodes) AS wanted JOIN nodes AS n ON n.node = wanted.value WHERE n.kind = 'test';
