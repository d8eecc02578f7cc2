-- overridden_base: the base method the anchor overrides, as the resolver binds it (an `override`
--          reference at the overriding method, docs/resolver.md): a call of the base on an
--          instance of the anchor's class runs the anchor, which no use by name shows.
-- Database: index
-- Params : :node  the anchor's node number
-- Returns: (qualname, module): at most one row; module the base's file's, so qualname less it
--          names the class and method
-- Order  : reference rank, the first.
-- Bound  : one range of definitions_by_node, one of references_by_enclosing per definition.
SELECT base.qualname AS qualname, files.module AS module
FROM definitions AS ours
JOIN resolved_references AS ref ON ref.enclosing = ours.definition AND ref.role = 'override'
JOIN definitions AS base ON base.definition = ref.definition
JOIN resolved_files AS files ON files.file = base.file
WHERE ours.node = :node
ORDER BY ref.reference
LIMIT 1;
