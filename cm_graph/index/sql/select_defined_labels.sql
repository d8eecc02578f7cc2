-- The labels of every symbol and test node: the names the text index looks for (mentions.py
-- turns a label into the name it is called by).
-- Database: import
-- Params : none
-- Returns: (label)
-- Order  : label, so the scan's input does not depend on the provider's order.
SELECT DISTINCT label FROM idx.nodes WHERE kind IN ('symbol', 'test') ORDER BY label;
