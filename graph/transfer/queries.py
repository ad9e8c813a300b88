"""Cypher of export and import, one query per label or relationship (labels cannot be
parameters). Every query is profile-scoped and checked at import."""

from __future__ import annotations

from graph.schema import PROFILE_LABELS
from graph.scope import ScopedQuery
from graph.transfer.lines import EDGES, NODE_KEYS

# Kinds that carry the label Recallable, and kinds a fulltext index finds by `profile_key`.
RECALLABLE = ("SourceFragment", "Claim", "Fact")
SEARCHED = (*RECALLABLE, "Dream")

# Nodes of one kind in key order, a page at a time after `$after`.
EXPORT_NODES = {
    label: ScopedQuery(
        f"export_{label.lower()}",
        f"""
        MATCH (n:{label} {{profile_id: $profile_id}})
        WHERE n.{NODE_KEYS[label] or "profile_id"} > $after
        RETURN n {{.*}} AS properties
        ORDER BY n.{NODE_KEYS[label] or "profile_id"} LIMIT $page
        """,
    )
    for label in PROFILE_LABELS
}
# The relationships leaving a page of one kind's nodes, with each far end's labels and node.
EXPORT_EDGES = {
    label: ScopedQuery(
        f"export_edges_{label.lower()}",
        f"""
        MATCH (a:{label} {{profile_id: $profile_id}})
        WHERE a.id > $after
        WITH a ORDER BY a.id LIMIT $page
        OPTIONAL MATCH (a)-[r]->(b)
        RETURN a.id AS from_id, type(r) AS type, labels(b) AS labels, b.id AS to_id
        ORDER BY from_id, type, to_id
        """,
    )
    for label in sorted({triple[0] for triple in EDGES})
}
# Merged by key, so importing the same file again changes nothing.
IMPORT_NODES = {
    label: ScopedQuery(
        f"import_{label.lower()}",
        (
            f"""
        UNWIND $rows AS row
        MERGE (n:{label} {{profile_id: $profile_id, {NODE_KEYS[label]}: row.key}})
        """
            if NODE_KEYS[label]
            else f"""
        UNWIND $rows AS row
        MERGE (n:{label} {{profile_id: $profile_id}})
        """
        )
        + f"""
        SET n += row.properties{", n:Recallable" if label in RECALLABLE else ""}
        {"SET n.profile_key = $profile_key" if label in SEARCHED else ""}
        WITH n, row WHERE row.embedding IS NOT NULL
        CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
        """,
    )
    for label in PROFILE_LABELS
}
IMPORT_EDGES = {
    (start, kind, end): ScopedQuery(
        f"import_{start.lower()}_{kind.lower()}_{end.lower()}",
        f"""
        UNWIND $rows AS row
        MATCH (a:{start} {{profile_id: $profile_id, id: row.from_id}})
        MATCH (b:{end} {{profile_id: $profile_id, id: row.to_id}})
        MERGE (a)-[:{kind}]->(b)
        """,
    )
    for start, kind, end in EDGES
}
# An import marks its profile first and clears the mark last, so one cut short shows. The
# Profile node is made for the mark if the profile had none; it goes again if the file had none.
IMPORT_PENDING = ScopedQuery(
    "import_pending",
    "MATCH (p:Profile {profile_id: $profile_id}) RETURN p.import_pending AS sha256",
)
MARK_IMPORT = ScopedQuery(
    "mark_import",
    """
    MERGE (p:Profile {profile_id: $profile_id})
    ON CREATE SET p.import_created = true
    SET p.import_pending = $sha256
    """,
)
CLEAR_IMPORT = ScopedQuery(
    "clear_import",
    """
    MATCH (p:Profile {profile_id: $profile_id})
    WITH p, p.import_created AS created
    REMOVE p.import_pending, p.import_created
    WITH p, created WHERE created AND NOT $file_has_profile
    DELETE p
    """,
)
