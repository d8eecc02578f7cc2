-- The eval corpus of one workspace, oldest case first.
-- Database: feedback
-- Params : :workspace
-- Returns: (answer_id, capability_id, kind, intent, target, arguments, generation, commit_sha,
--          cited)
-- Order  : first_seq.
SELECT answer_id, capability_id, kind, intent, target, arguments, generation, commit_sha, cited
FROM cases WHERE workspace = :workspace ORDER BY first_seq, answer_id
