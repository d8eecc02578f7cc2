-- similar_targets: names that contain an unresolved target, to suggest to the operator.
-- Resolution stays exact (resolve_target.sql); this only helps a person retype the name.
-- Database: index
-- Params : :target, :limit
-- Returns: (name): distinct labels and paths containing :target (case-insensitive), shortest
--          first.
SELECT name FROM (
  SELECT label AS name FROM nodes WHERE instr(lower(label), lower(:target)) > 0
  UNION
  SELECT path FROM nodes WHERE path <> '' AND instr(lower(path), lower(:target)) > 0
)
ORDER BY length(name), name
LIMIT :limit;
