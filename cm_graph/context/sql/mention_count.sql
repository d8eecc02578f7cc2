-- mention_count: how many lines of the bound commit use a name (the text index's tally), whether
--          the index lists them (kept = 0: a common name, more than 2,000 lines, none listed) and
--          which (postings, see schema.sql), and how many definitions in the graph carry the name.
-- Params : :name  a defined name
-- Returns: one row (total, kept, postings, definitions); the first three are NULL when no line
--          uses the name
-- Order  : one row.
-- Bound  : one primary-key lookup and two index range scans.
SELECT
  (SELECT total FROM mention_names WHERE name = :name),
  (SELECT kept FROM mention_names WHERE name = :name),
  (SELECT postings FROM mention_names WHERE name = :name),
  (SELECT count(*) FROM (
     SELECT node FROM nodes WHERE callable_base IN (:name, '.' || :name)
     UNION
     SELECT node FROM nodes WHERE label IN (:name, '.' || :name)
  ));
