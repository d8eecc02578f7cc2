-- Add the eval case of a correctly graded answer; the outcome that graded it (by :client) names
-- its place in the corpus. params: every column but first_seq, and client. returns: nothing.
INSERT INTO cases (answer_id, workspace, capability_id, kind, intent, target, arguments, generation,
                   commit_sha, cited, first_seq)
VALUES (:answer_id, :workspace, :capability_id, :kind, :intent, :target, :arguments, :generation,
        :commit_sha, :cited,
        (SELECT seq FROM outcomes WHERE answer_id = :answer_id AND client = :client))
ON CONFLICT (answer_id) DO NOTHING
