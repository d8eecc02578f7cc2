-- mention_count: how many lines of the bound commit use a name (the text index's tally), whether
--          the index lists them (kept = 0: a common name, more than 2,000 lines, none listed) and
--          which (postings, see schema.sql), and how many definitions in the graph carry the name.
-- Database: index
-- Params : :name  a defined name
-- Returns: (total, kept, postings, definitions): one row; the first three are NULL when no line
--          uses the name
-- Order  : one row.
-- Bound  : one primary-key lookup and two index range scans.
SELECT
  (SELECT total FROM mention_names WHERE name = :name) AS total,
  (SELECT kept FROM mention_names WHERE name = :name) AS kept,
  (SELECT postings FROM mention_names WHERE name = :name) AS postings,
  (SELECT count(*) FROM (
     SELECT node FROM nodes WHERE callable_base IN (:name, '.' || :name)
     UNION
     SELECT node FROM nodes WHERE label IN (:name, '.' || :name)
  )) AS definitions;
