-- Keep the newest :keep outcomes (the store's row cap), dropping the oldest first.
-- Database: feedback
-- Params : :keep
-- Returns: nothing
DELETE FROM outcomes WHERE seq NOT IN (SELECT seq FROM outcomes ORDER BY seq DESC LIMIT :keep)
