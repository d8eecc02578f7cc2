-- Forget every outcome of one checkout (feedback purge). params: workspace. returns: nothing.
DELETE FROM outcomes WHERE workspace = :workspace
