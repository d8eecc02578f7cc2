-- resolve_target: the seeds a target names, in three tiers; a tier is consulted only when every
-- earlier one matched nothing.
--   1. the label exactly as written;
--   2. the label with only its syntactic trailing argument list removed (callable_base);
--   3. the path exactly as written (the file node and every symbol in it).
-- With :within set (`--in PATH`), only definitions in that file or under that directory count,
-- tier by tier: a tier with no definition under :within is empty.
-- Database: index
-- Params : :target (bounded text), :limit (the seed bound plus one, to detect overflow),
--          :within (a repository-relative path without a trailing '/', or NULL)
-- Returns: (node, tier): node numbers in node (provider id) order, at most :limit rows, each
--          with the tier that matched ('label', 'callable' or 'path'; one tier per answer).
WITH
  by_label AS (
    SELECT node FROM nodes
    WHERE label = :target
      AND (:within IS NULL OR path = :within OR substr(path, 1, length(:within) + 1) = :within || '/')
  ),
  by_callable AS (
    SELECT node FROM nodes
    WHERE callable_base = :target AND NOT EXISTS (SELECT 1 FROM by_label)
      AND (:within IS NULL OR path = :within OR substr(path, 1, length(:within) + 1) = :within || '/')
  ),
  by_path AS (
    SELECT node FROM nodes
    WHERE path = :target
      AND (:within IS NULL OR path = :within OR substr(path, 1, length(:within) + 1) = :within || '/')
      AND NOT EXISTS (SELECT 1 FROM by_label)
      AND NOT EXISTS (SELECT 1 FROM by_callable)
  )
SELECT node, 'label' AS tier FROM by_label
UNION ALL SELECT node, 'callable' FROM by_callable
UNION ALL SELECT node, 'path' FROM by_path
ORDER BY node
LIMIT :limit;
