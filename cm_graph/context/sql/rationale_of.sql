-- rationale_of: what the code says about one node (the provider's docstrings and NOTE/WHY/HACK
-- comments whose rationale_for edge points at it), from the index's rationale table.
-- Database: index
-- Params : :node node number, :limit at most this many rows
-- Returns: (path, line, text, truncated)
-- Order  : path, line, text (the primary key after the node): total.
-- Bound  : :limit rows of one primary-key range.
SELECT path, line, text, truncated FROM rationale
WHERE node = :node
ORDER BY path, line, text
LIMIT :limit;
