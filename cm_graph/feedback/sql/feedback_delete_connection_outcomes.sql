-- Forget every outcome recorded through one connection (disconnect, feedback purge --connection).
-- params: connection. returns: nothing.
DELETE FROM outcomes WHERE connection = :connection
