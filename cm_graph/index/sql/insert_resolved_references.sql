-- One resolved reference (resolved_index.write_resolved, in the layer's order: reference is its rank).
-- Database: import
-- Params : :reference, :file, :line, :col, :role, :definition, :name, :enclosing
-- Returns: nothing
INSERT INTO idx.resolved_references (reference, file, line, col, role, definition, name, enclosing)
VALUES (:reference, :file, :line, :col, :role, :definition, :name, :enclosing)
