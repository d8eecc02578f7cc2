-- Forget every outcome recorded through one connection (disconnect, feedback purge --connection).
-- Database: feedback
-- Params : :connection
-- Returns: nothing
DELETE FROM outcomes WHERE connection = :connection
