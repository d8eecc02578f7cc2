-- The paths the graph's nodes name: the Python modules among them are loaded by a string naming
-- them (mentions.module_names), which the text index looks for beside the labels.
-- Database: import
-- Params : none
-- Returns: (path)
-- Order  : path, so the scan's input does not depend on the provider's order.
SELECT DISTINCT path FROM idx.nodes WHERE path <> '' ORDER BY path;
