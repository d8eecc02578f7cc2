-- definition_labels: every file the graph holds a node of, and the labels of its symbols and
--          tests, to find the definitions its text holds that the graph does not (extraction
--          gaps, definition_gaps.py); a file with no symbol comes with a NULL label.
-- Database: index
-- Params : none
-- Returns: (path, label): label is NULL for a file's own node
-- Order  : path, then label.
-- Bound  : every node with a path, once (the build's own pass).
SELECT path, CASE WHEN kind = 'file' THEN NULL ELSE label END AS label FROM nodes
WHERE path <> ''
ORDER BY path, label;
