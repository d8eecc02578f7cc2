-- callables_named: the functions and methods whose label is a name plus an argument list
--          (`parse()` for the target `parse`): the seed's second tier, which it consults only
--          when no label matches exactly, read here when every exact match is a variable binding.
-- Database: index
-- Params : :name a bare name, :limit at most this many rows
-- Returns: (node) of each node whose callable_base is :name
-- Order  : node number.
-- Bound  : :limit rows, by the callable-base index.
SELECT node FROM nodes WHERE callable_base = :name ORDER BY node LIMIT :limit;
