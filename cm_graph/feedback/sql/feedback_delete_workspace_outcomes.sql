-- Forget every outcome of one checkout (feedback purge).
-- Database: feedback
-- Params : :workspace
-- Returns: nothing
DELETE FROM outcomes WHERE workspace = :workspace
