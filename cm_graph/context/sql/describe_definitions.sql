-- describe_definitions: what an answer says about each resolved definition it names: where it
--          is and, when the provider has a node for it, that node's label and kind.
-- Database: index
-- Params : :definitions JSON array of definition numbers
-- Returns: (definition, path, kind, name, qualname, line, node, label, node_kind): label and
--          node_kind are NULL for a definition the provider has no node for
-- Order  : unordered (the caller keys it by definition).
-- Bound  : one primary-key lookup per given definition.
SELECT d.definition, f.path, d.kind, d.name, d.qualname, d.line, d.node, n.label, n.kind AS node_kind
FROM json_each(:definitions) AS wanted
JOIN definitions AS d ON d.definition = wanted.value
JOIN resolved_files AS f ON f.file = d.file
LEFT JOIN nodes AS n ON n.node = d.node;
