-- One resolved definition, bound to the provider's node for it: the node of the same file and
-- line whose label is the definition's as the provider writes labels (a module: the file's node,
-- labelled with its base name, or with a path suffix of it holding a '/' when base names collide
-- — `pkg/__init__.py` —, which the graph layer counts a symbol; a class: its name; a function or method: name() or .name(), as
-- the provider labels a method of a class inside a function like a function), the
-- lowest-numbered if several. NULL when the provider has none: the definition is kept (its gap;
-- the provider keeps one node of an @overload group).
-- Database: import
-- Params : :definition, :file, :parent, :kind, :name, :qualname, :start_line, :line, :end_line,
--          :overload, :path, :base_name
-- Returns: nothing
INSERT INTO idx.definitions (
  definition, file, parent, kind, name, qualname, start_line, line, end_line, overload, node
) VALUES (
  :definition, :file, :parent, :kind, :name, :qualname, :start_line, :line, :end_line, :overload,
  -- One branch per kind (only the one of :kind can hold), each a seek into stage_node_sites.
  (SELECT min(node) FROM (
     SELECT n.node FROM stage_node_sites AS n
     WHERE :kind = 'module' AND n.path = :path
       AND ((n.kind IN ('file', 'test') AND n.label = :base_name)
            OR (instr(n.label, '/') > 0
                AND (n.label = :path OR substr(:path, -length(n.label) - 1) = '/' || n.label)))
     UNION ALL
     SELECT n.node FROM stage_node_sites AS n
     WHERE :kind = 'class' AND n.path = :path AND n.line = :line AND n.label = :name
     UNION ALL
     SELECT n.node FROM stage_node_sites AS n
     WHERE :kind NOT IN ('module', 'class') AND n.path = :path AND n.line = :line
       AND n.label IN ('.' || :name || '()', :name || '()')))
)
