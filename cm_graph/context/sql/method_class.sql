-- method_class: the class a method is defined in (its resolved definition's parent), the
--          public way in a test reaches a method nothing calls by name (testrun.py, ``classes``).
-- Database: index
-- Params : :definition the method's definition number
-- Returns: (definition, node): the class, its graph node (NULL where the provider has none)
-- Order  : at most one row.
-- Bound  : two primary-key lookups.
SELECT p.definition, p.node
FROM definitions AS d
JOIN definitions AS p ON p.definition = d.parent
WHERE d.definition = :definition AND d.kind = 'method' AND p.kind = 'class';
