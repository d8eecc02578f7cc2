-- Every outcome of one workspace in replay order.
-- Database: feedback
-- Params : :workspace
-- Returns: (seq, at, client, connection, capability_id, answer_id, generation, kind, intent,
--          target, reads_avoided, files_read, correct, note_sha256, note)
-- Order  : seq.
SELECT seq, at, client, connection, capability_id, answer_id, generation, kind, intent, target,
       reads_avoided, files_read, correct, note_sha256, note
FROM outcomes WHERE workspace = :workspace ORDER BY seq
