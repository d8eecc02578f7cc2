-- Append one outcome; a second report of the same answer by the same client changes nothing.
-- params: every column but seq. returns: nothing (changes() says whether a row was added).
INSERT INTO outcomes (at, workspace, client, connection, capability_id, answer_id, generation, kind,
                      intent, target, reads_avoided, files_read, correct, note_sha256, note)
VALUES (:at, :workspace, :client, :connection, :capability_id, :answer_id, :generation, :kind,
        :intent, :target, :reads_avoided, :files_read, :correct, :note_sha256, :note)
ON CONFLICT (answer_id, client) DO NOTHING
