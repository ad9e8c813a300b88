"""ScopedQuery refuses Cypher that could leave its profile, at definition time (no database)."""

from __future__ import annotations

import importlib

import pytest

from graph.errors import UnscopedQueryError
from graph.scope import ScopedQuery

pytestmark = pytest.mark.unit

PINNED = "MATCH (p:Profile {profile_id: $profile_id}) "

UNSCOPED = {
    "no profile parameter at all": "MATCH (f:Fact {id: $id}) RETURN f",
    "profile parameter only in a comment": "MATCH (f:Fact) // $profile_id\nRETURN f",
    "profile parameter only inside a string": "MATCH (f:Fact {profile_id: '$profile_id'}) RETURN f",
    "labelled node not pinned": "MATCH (f:Fact) RETURN f",
    "labelled node not pinned beside a pinned one": PINNED + "MATCH (f:Fact) RETURN f",
    "labelled node pinned to another parameter": "MATCH (f:Fact {profile_id: $other}) RETURN f, $profile_id",
    "labelled node filtered on another property": "MATCH (f:Fact) WHERE f.id = $profile_id RETURN f",
    "MERGE of an unpinned node": PINNED + "MERGE (f:Fact {id: $id}) RETURN f",
    "any node": "MATCH (n) RETURN n",
    "any node beside a pinned one": PINNED + "MATCH (n) RETURN n",
    "any node to delete": PINNED + "MATCH (n) DETACH DELETE n",
    "unlabelled node carrying the profile": "CREATE (n {profile_id: $profile_id}) RETURN n",
    "any relationship": "MATCH ()-[r]->() WHERE $profile_id IS NOT NULL RETURN r",
    "any relationship filtered on the relationship": (
        "MATCH ()-[r]->() WHERE r.profile_id = $profile_id RETURN r"
    ),
    "any relationship beside a pinned node": PINNED + "MATCH ()-[r:SUPPORTED_BY]->() DELETE r",
    "fulltext without a profile filter": (
        "CALL db.index.fulltext.queryNodes('fact_text', $terms) YIELD node, score "
        "WHERE node.status = 'active' AND $profile_id IS NOT NULL RETURN node"
    ),
    "fulltext filter widened by OR": (
        "CALL db.index.fulltext.queryNodes('fact_text', $terms) YIELD node, score "
        "WHERE node.profile_id = $profile_id OR score > 0 RETURN node"
    ),
    "assigning profile_id": PINNED + "MATCH (f:Fact {profile_id: $profile_id}) SET f.profile_id = 'x'",
    "assigning profile_id from the parameter": (
        "MATCH (f:Fact {profile_id: $profile_id}) SET f.profile_id = $profile_id"
    ),
    "assigning profile_id through a map": (
        "MATCH (f:Fact {profile_id: $profile_id}) SET f += {profile_id: 'x'}"
    ),
    "replacing properties with a map holding profile_id": (
        "MATCH (f:Fact {profile_id: $profile_id}) SET f = {text: 'a', profile_id: 'x'}"
    ),
    "removing profile_id": "MATCH (f:Fact {profile_id: $profile_id}) REMOVE f:Old, f.profile_id",
    "negated profile filter": "MATCH (f:Fact) WHERE NOT f.profile_id = $profile_id RETURN f",
    "profile filter OR anything": "MATCH (f:Fact) WHERE f.profile_id = $profile_id OR f.x = 1 RETURN f",
    "anything OR profile filter": "MATCH (f:Fact) WHERE f.x = 1 OR f.profile_id = $profile_id RETURN f",
    "OR binding looser than the AND holding the filter": (
        "MATCH (f:Fact) WHERE f.x = 1 OR f.y = 2 AND f.profile_id = $profile_id RETURN f"
    ),
    "profile filter XOR anything": "MATCH (f:Fact) WHERE f.profile_id = $profile_id XOR f.x RETURN f",
    "profile comparison that is a projection, not a filter": (
        "MATCH (f:Fact) WITH f WHERE f.x = 1 WITH f, f.y AND f.profile_id = $profile_id AS same RETURN f"
    ),
    "profile filter inside a list comprehension": (
        "MATCH (f:Fact) WHERE size([x IN [1] WHERE f.profile_id = $profile_id]) > 0 RETURN f"
    ),
    "backtick label": PINNED + "MATCH (f:`Fact`) RETURN f",
    "IS label": PINNED + "MATCH (f IS Fact) RETURN f",
    "inline WHERE in a node pattern": PINNED + "MATCH (f:Fact WHERE f.status = 'active') RETURN f",
    "dynamic label": PINNED + "MATCH (f:$($label)) RETURN f",
}


@pytest.mark.parametrize("text", list(UNSCOPED.values()), ids=list(UNSCOPED))
def test_unscoped_cypher_is_refused_at_definition(text: str) -> None:
    with pytest.raises(UnscopedQueryError, match="'probe' is not profile-scoped"):
        ScopedQuery("probe", text)


def test_refusal_names_the_offending_pattern() -> None:
    with pytest.raises(UnscopedQueryError) as refused:
        ScopedQuery("all_facts", PINNED + "MATCH (f:Fact) RETURN f")
    assert "(f:Fact)" in str(refused.value)
    assert "$profile_id" in str(refused.value)


SCOPED = {
    "inline pin and a walk to an unlabelled node": (
        "MATCH (c:Claim {profile_id: $profile_id})-[:SUPPORTED_BY]->(f) "
        "RETURN c.id AS claim, f.id AS fragment"
    ),
    "WHERE pin": "MATCH (f:Fact) WHERE f.profile_id = $profile_id RETURN f",
    "lower-case keywords": "match (f:Fact) where f.profile_id = $profile_id and f.status = 'active' return f",
    "WHERE pin with an OR inside parentheses": (
        "MATCH (f:Fact) WHERE f.profile_id = $profile_id "
        "AND (f.valid_to IS NULL OR f.valid_to > $at) RETURN f"
    ),
    "function calls are not nodes": (
        "MATCH (d:Dream {profile_id: $profile_id}) RETURN count(d) AS dreams, datetime() AS now"
    ),
    "walk into a node bound earlier": (
        "MATCH (c:Claim {profile_id: $profile_id}) WITH c MATCH (c)-[:ABOUT]->(x) RETURN x"
    ),
    "unlabelled start reaching a pinned node": (
        "MATCH (x)-[:SUPPORTED_BY]->(f:Fact {profile_id: $profile_id}) RETURN x"
    ),
    "scoped fulltext": (
        "CALL db.index.fulltext.queryNodes('fact_text', $terms) YIELD node, score "
        "WHERE node.profile_id = $profile_id RETURN node.id AS id, score"
    ),
    "MERGE of the profile node": (
        "MERGE (p:Profile {profile_id: $profile_id}) ON CREATE SET p.created_at = $now"
    ),
    "NULL checks in parentheses": (
        "MATCH (f:Fact {profile_id: $profile_id}) WHERE (f.valid_to IS NULL OR f.x IS NOT NULL) RETURN f"
    ),
    "map projection": "MATCH (f:Fact {profile_id: $profile_id}) RETURN f {.id, .text} AS fact",
    "pattern text inside a string": (
        "MATCH (f:Fact {profile_id: $profile_id}) RETURN 'MATCH (n) SET n.profile_id = 1' AS s"
    ),
}


@pytest.mark.parametrize("text", list(SCOPED.values()), ids=list(SCOPED))
def test_legitimate_patterns_are_accepted(text: str) -> None:
    query = ScopedQuery("legit", text)
    assert query.text == text


@pytest.mark.parametrize("module_name", ["graph.memory.queries", "graph.dreams.queries"])
def test_every_query_of_the_real_modules_is_scoped(module_name: str) -> None:
    module = importlib.reload(importlib.import_module(module_name))  # re-runs every definition
    queries = [value for value in vars(module).values() if isinstance(value, ScopedQuery)]
    assert queries, f"{module_name} defines no ScopedQuery"
    names = [query.name for query in queries]
    assert len(names) == len(set(names)), f"duplicate query names in {module_name}"
    for query in queries:
        assert ScopedQuery(query.name, query.text) == query
