-- The stored outcome of one answer by one client. params: answer_id, client. returns: seq.
SELECT seq FROM outcomes WHERE answer_id = :answer_id AND client = :client
