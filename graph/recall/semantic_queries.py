"""Cypher of recall's semantic lane. Every query is profile-scoped and checked at import.

Neo4j 5.26's vector index cannot filter by property before it ranks, so a profile's search is
kept inside the profile two ways (see `graph/memory/semantic.py` for when each is used): the
shared vector index asked for more neighbours than needed and filtered on `profile_id`, or an
exact cosine over the profile's own nodes, reached through the (profile_id, embedding_model)
index. Both compare only vectors of the running model.
"""

from __future__ import annotations

from typing import Final

from graph.embedding.kinds import STORAGE, EmbeddedKind
from graph.recall.fields import RESULT_FIELDS, TIME_FILTER
from graph.scope import ScopedQuery

SEARCHED_KINDS: Final = (EmbeddedKind.FACT, EmbeddedKind.CLAIM, EmbeddedKind.FRAGMENT)

EMBEDDED_SIZES = ScopedQuery(
    "embedded_sizes",
    """
    CALL { MATCH (n:Fact {profile_id: $profile_id, embedding_model: $model})
           WITH n LIMIT $cap RETURN count(n) AS fact }
    CALL { MATCH (n:Claim {profile_id: $profile_id, embedding_model: $model})
           WITH n LIMIT $cap RETURN count(n) AS claim }
    CALL { MATCH (n:SourceFragment {profile_id: $profile_id, embedding_model: $model})
           WITH n LIMIT $cap RETURN count(n) AS fragment }
    RETURN fact, claim, fragment
    """,
)


def _exact_branch(kind: EmbeddedKind) -> str:
    # The UNWIND turns the branch off without touching the index when the kind is searched
    # through the vector index instead.
    return f"""
        UNWIND CASE WHEN '{kind}' IN $exact THEN [1] ELSE [] END AS chosen
        MATCH (node:{STORAGE[kind].label} {{profile_id: $profile_id, embedding_model: $model}})
        WHERE node.status IN $statuses.{kind} {TIME_FILTER}
        WITH node, vector.similarity.cosine(node.embedding, $vector) AS score
        ORDER BY score DESC LIMIT $limit
        RETURN '{kind}' AS kind, node, score
    """


# One round trip: exact branches for the kinds named in `$exact`, and the shared vector index
# (`recall_embedding`, over every Recallable memory of every profile) for those in `$indexed`.
# `$fetch` is how many neighbours the index returns before the profile filter; the caller asks
# again with more when too few were this profile's.
_INDEX_BRANCH = f"""
        UNWIND CASE WHEN size($indexed) > 0 THEN [1] ELSE [] END AS chosen
        CALL db.index.vector.queryNodes('recall_embedding', $fetch, $vector)
        YIELD node, score
        WHERE node.profile_id = $profile_id AND node.embedding_model = $model {TIME_FILTER}
        WITH node, score, CASE WHEN node:Fact THEN 'fact' WHEN node:Claim THEN 'claim'
                               ELSE 'fragment' END AS kind
        WHERE kind IN $indexed AND node.status IN $statuses[kind]
        RETURN kind, node, score ORDER BY score DESC LIMIT $limit
"""
NEAREST = ScopedQuery(
    "nearest_memories",
    "CALL {"
    + " UNION ALL ".join([*(_exact_branch(kind) for kind in SEARCHED_KINDS), _INDEX_BRANCH])
    + f"}}\n    RETURN kind, {RESULT_FIELDS}",
)
# The cosine score of named memories (the lexical lane's candidates the nearest search did not
# bring), by id within their kind, so the fusion compares every candidate on its own meaning.
SIMILARITIES = ScopedQuery(
    "recall_similarities",
    f"""
    CALL {{
        {
        " UNION ALL ".join(
            f"UNWIND $ids.{kind} AS id MATCH (node:{STORAGE[kind].label} {{profile_id: $profile_id, id: id}})"
            " RETURN node"
            for kind in SEARCHED_KINDS
        )
    }
    }}
    WITH node WHERE node.embedding_model = $model
    RETURN node.id AS id, vector.similarity.cosine(node.embedding, $vector) AS score
    """,
)
