-- suggest_spellings: the candidate labels an edit-distance ranking reads: each distinct label
-- whose length is within :slack of the target's (a callable's `()` counts in its length).
-- Database: index
-- Params : :length (the target's length), :slack, :limit
-- Returns: (label) distinct, sorted, at most :limit rows (the ranking itself is in suggest.py).
SELECT DISTINCT label
FROM nodes
WHERE abs(length(label) - :length) <= :slack
ORDER BY label
LIMIT :limit;
