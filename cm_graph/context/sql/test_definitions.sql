-- test_definitions: the tests pytest collects by name, as testrun.pytest_ids names them: the
--          `test*` functions of a module, and the `test*` methods of a module's `Test*` classes
--          (a test nested deeper, or in a class nested in a class, is not counted).
-- Database: index
-- Params : none
-- Returns: (path, class, name): class '' for a module's function
-- Order  : unordered (the caller sorts the ids it makes).
-- Bound  : one pass over the definitions, two primary-key lookups each (the suite is counted
--          once per answer that bounds its tests by a share of it).
SELECT f.path, CASE WHEN p.kind = 'class' THEN p.name ELSE '' END AS class, d.name
FROM definitions AS d
JOIN definitions AS p ON p.definition = d.parent
JOIN resolved_files AS f ON f.file = d.file
WHERE d.kind IN ('function', 'method') AND d.name GLOB 'test*'
  AND (p.kind = 'module'
       OR (p.kind = 'class' AND p.name GLOB 'Test*'
           AND EXISTS (SELECT 1 FROM definitions AS g WHERE g.definition = p.parent AND g.kind = 'module')));
