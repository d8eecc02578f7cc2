-- coupled_with: the files that changed together with :path, with both revision counts.
-- Database: history
-- Params : :path, :min_shared
-- Returns: (other, shared, revs_path, revs_other)
-- Order  : other path (the caller ranks by degree, then path).
-- Bound  : the pairs of one path (both columns indexed).
SELECT other, shared, (SELECT n FROM revs WHERE path = :path) AS revs_path,
       (SELECT n FROM revs WHERE path = other) AS revs_other
FROM (
  SELECT b AS other, shared FROM pairs WHERE a = :path AND shared >= :min_shared
  UNION ALL
  SELECT a AS other, shared FROM pairs WHERE b = :path AND shared >= :min_shared
)
ORDER BY other;
