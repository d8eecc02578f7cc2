-- Add the eval case of a correctly graded answer; the outcome that graded it (by :client) names
-- its place in the corpus.
-- Database: feedback
-- Params : :answer_id, :workspace, :capability_id, :kind, :intent, :target, :arguments,
--          :generation, :commit_sha, :cited, :client
-- Returns: nothing
INSERT INTO cases (answer_id, workspace, capability_id, kind, intent, target, arguments, generation,
                   commit_sha, cited, first_seq)
VALUES (:answer_id, :workspace, :capability_id, :kind, :intent, :target, :arguments, :generation,
        :commit_sha, :cited,
        (SELECT seq FROM outcomes WHERE answer_id = :answer_id AND client = :client))
ON CONFLICT (answer_id) DO NOTHING
