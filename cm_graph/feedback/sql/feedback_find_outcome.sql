-- The stored outcome of one answer by one client.
-- Database: feedback
-- Params : :answer_id, :client
-- Returns: (seq)
SELECT seq FROM outcomes WHERE answer_id = :answer_id AND client = :client
