-- Scratch tables of the endpoint resolver (resolver.py), in their own file (attached as res),
-- Database: import (schema)
-- deleted when the import ends.
-- node_rank: every code node's number, the rank of its provider id (the number idx.nodes gives it).
CREATE TABLE res.node_rank (
  provider_id TEXT NOT NULL PRIMARY KEY,
  node INTEGER NOT NULL
) WITHOUT ROWID;
-- resolved: the node numbers of the ends of every staged edge with at least one code-node end
-- (NULL for an end that is not one); seq is the staged row's rowid, so document order.
CREATE TABLE res.resolved (
  seq INTEGER PRIMARY KEY,
  source_node INTEGER,
  target_node INTEGER
);
