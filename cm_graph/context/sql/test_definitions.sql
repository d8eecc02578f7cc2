-- test_definitions: the definitions pytest could collect as tests, by name alone: functions and
--          methods whose name starts with `test` (testrun.pytest_ids then keeps those of a
--          collected file under `Test*` classes only, and names each as a node id).
-- Database: index
-- Params : none
-- Returns: (definition) for each such definition
-- Order  : definition.
-- Bound  : one pass over the definitions (the suite is counted once per answer that bounds
--          its tests by a share of it).
SELECT d.definition
FROM definitions AS d
WHERE d.kind IN ('function', 'method') AND d.name GLOB 'test*'
ORDER BY d.definition;
