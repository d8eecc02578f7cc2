-- A case lives as long as one correct outcome of its answer does.
-- Database: feedback
-- Params : none
-- Returns: nothing
DELETE FROM cases WHERE answer_id NOT IN (SELECT answer_id FROM outcomes WHERE correct = 1)
