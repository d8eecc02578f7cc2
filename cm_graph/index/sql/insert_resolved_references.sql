-- One resolved reference (resolved_index.write_resolved), bound by position from the layer's
-- ReferenceRow tuple (so the parameters are in its order). The rows go in rank order into an
-- empty table, so the rowid SQLite assigns (1, 2, 3...) is the reference's rank, as insert_nodes
-- numbers nodes.
-- Database: import
-- Params : :file, :line, :col, :role, :definition, :name, :enclosing
-- Returns: nothing
INSERT INTO idx.resolved_references (file, line, col, role, definition, name, enclosing)
VALUES (:file, :line, :col, :role, :definition, :name, :enclosing)
