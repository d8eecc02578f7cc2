-- Append one outcome; a second report of the same answer by the same client changes nothing.
-- Database: feedback
-- Params : :at, :workspace, :client, :connection, :capability_id, :answer_id, :generation, :kind,
--          :intent, :target, :reads_avoided, :files_read, :correct, :note_sha256, :note
-- Returns: nothing
INSERT INTO outcomes (at, workspace, client, connection, capability_id, answer_id, generation, kind,
                      intent, target, reads_avoided, files_read, correct, note_sha256, note)
VALUES (:at, :workspace, :client, :connection, :capability_id, :answer_id, :generation, :kind,
        :intent, :target, :reads_avoided, :files_read, :correct, :note_sha256, :note)
ON CONFLICT (answer_id, client) DO NOTHING
