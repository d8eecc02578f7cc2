-- Keep the newest :keep outcomes (the store's row cap), dropping the oldest first.
-- params: keep. returns: nothing.
DELETE FROM outcomes WHERE seq NOT IN (SELECT seq FROM outcomes ORDER BY seq DESC LIMIT :keep)
