-- One resolved definition, bound to the provider's node for it: the node of the same file and
-- line whose label is the definition's as the provider writes labels (a module: the file's node,
-- labelled with its base name; a class: its name; a function or method: name() or .name(), as
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
  (SELECT min(n.node) FROM idx.nodes AS n
   WHERE n.path = :path
     AND CASE :kind
           WHEN 'module' THEN n.kind IN ('file', 'test') AND n.label = :base_name
           WHEN 'class' THEN n.line = :line AND n.label = :name
           ELSE n.line = :line AND n.label IN ('.' || :name || '()', :name || '()')
         END)
)
