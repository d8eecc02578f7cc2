-- Every path a node or a call site could cite; their blobs get line counts at import.
SELECT path FROM idx.nodes WHERE path <> ''
UNION
SELECT site_path FROM idx.edges WHERE site_path <> ''
ORDER BY 1;
