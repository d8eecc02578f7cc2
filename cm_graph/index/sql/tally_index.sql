-- The counts an import reports about the tables it wrote, in one pass over each table.
-- Database: import
-- Params : :edge_list
-- Returns: (code_nodes, sourceless_nodes, incomplete_nodes, edges, edge_records, call_sites,
--          undeclared_endpoints, excluded_nodes, untraversable_nodes, untraversable_call_sites):
--          one row. untraversable_*: code nodes left out for an uncitable path, and edge records
--          between two code nodes left out for an uncitable call-site path (the partial index
--          makes that count free).
SELECT n.code_nodes, n.sourceless_nodes, n.incomplete_nodes,
       e.edges, e.edge_records, e.call_sites,
       (SELECT count(*) FROM idx.undeclared_endpoints) AS undeclared_endpoints,
       (SELECT count(*) FROM stage_exclusions) AS excluded_nodes,
       (SELECT count(*) FROM stage_untraversable) AS untraversable_nodes,
       (SELECT count(*) FROM stage_edges AS s JOIN res.resolved AS r ON r.seq = s.rowid
        WHERE s.site_uncitable AND s.list = :edge_list
          AND r.source_node IS NOT NULL AND r.target_node IS NOT NULL) AS untraversable_call_sites
FROM (SELECT count(*) AS code_nodes, coalesce(sum(path = ''), 0) AS sourceless_nodes,
             coalesce(sum(incomplete <> 0), 0) AS incomplete_nodes
      FROM idx.nodes) AS n,
     (SELECT count(*) AS edges, coalesce(sum(records), 0) AS edge_records,
             coalesce(sum(site_path <> ''), 0) AS call_sites
      FROM idx.edges) AS e;
