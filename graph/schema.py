"""Constraints and indexes of the profile graph, created idempotently at start.

Every range index leads with `profile_id`, so a profile's lookups stay index seeks however
many profiles share the database. Fulltext indexes also index `profile_key` (a one-token form
of the profile id) and `status`, so a search is narrowed to one profile's live nodes inside
Lucene instead of being filtered after the fact.
"""

from __future__ import annotations

import logging
import re
from typing import Final, LiteralString

from neo4j import AsyncDriver, AsyncSession

from graph.errors import ReverieError

log = logging.getLogger(__name__)

# The shape of stored data (see `graph.upgrade`); new profiles are created at this format.
GRAPH_FORMAT: Final = 3
_FULLTEXT_OPTIONS: Final = "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}"
# Every provisioned model makes vectors of this size (`catalog.DIMENSIONS`, kept equal by a
# test); cosine is what they were trained for. Quantization is off: searches took 35 to 40%
# longer with it on Neo4j 5.26, and full vectors of 100,000 memories are only about 150 MB.
VECTOR_DIMENSIONS: Final = 384
_VECTOR_OPTIONS: Final = (
    "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', "
    "`vector.quantization.enabled`: false}}"
)
# What a vector search filters on inside the index (`SEARCH ... WHERE`): only properties the
# index lists after WITH can be filtered there, and only by equality or range, joined by AND.
VECTOR_FILTERS: Final = ("profile_id", "embedding_model", "status")
_VECTOR_WITH: Final = "WITH [n.profile_id, n.embedding_model, n.status] "
# The oldest Neo4j that filters inside the vector index; older servers are refused.
MIN_SERVER: Final = (2026, 1)

# Every label whose nodes carry `profile_id`: what a profile is made of, for counting and erasing
# it whole. `Recallable` is a second label of fragments, claims and facts, not a kind of its own.
PROFILE_LABELS: Final = (
    "SourceFragment", "Claim", "Fact", "Clarification", "FactSlot", "Dream", "DreamFeedback",
    "DreamRevision", "EmptyPair", "DreamRun", "Forgotten", "Profile", "RecallQuestion",
)  # fmt: skip

# Labels of a profile's access to itself (`graph.connectors`): OAuth grants with their codes and
# tokens, and review-page sessions. Erased with the profile, but neither counted as what it holds
# nor exported: a grant is to this deployment, and moving a profile elsewhere must not carry it.
ACCESS_LABELS: Final = ("OAuthGrant", "OAuthCode", "OAuthToken", "ReviewSession")

# Which deliveries of recall requests the signals counted, kept minutes (`graph/recall/signals.py`):
# erased with the profile, neither counted as what it holds nor exported.
BOOKKEEPING_LABELS: Final = ("RecallDelivery",)

SCHEMA_STATEMENTS: Final[tuple[LiteralString, ...]] = (
    "CREATE CONSTRAINT profile_unique IF NOT EXISTS FOR (n:Profile) REQUIRE n.profile_id IS UNIQUE",
    "CREATE CONSTRAINT sourcefragment_id IF NOT EXISTS FOR (n:SourceFragment) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT claim_id IF NOT EXISTS FOR (n:Claim) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (n:Fact) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT clarification_id IF NOT EXISTS FOR (n:Clarification) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT dream_id IF NOT EXISTS FOR (n:Dream) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT dreamfeedback_id IF NOT EXISTS FOR (n:DreamFeedback) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT dreamrevision_id IF NOT EXISTS FOR (n:DreamRevision) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT emptypair_id IF NOT EXISTS FOR (n:EmptyPair) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT dreamrun_id IF NOT EXISTS FOR (n:DreamRun) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT forgotten_id IF NOT EXISTS FOR (n:Forgotten) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT recallquestion_id IF NOT EXISTS FOR (n:RecallQuestion) REQUIRE n.id IS UNIQUE",
    # Connectors and sessions (`graph.connectors`): secrets are looked up by their digest alone.
    "CREATE CONSTRAINT oauthclient_id IF NOT EXISTS FOR (n:OAuthClient) REQUIRE n.client_id IS UNIQUE",
    "CREATE CONSTRAINT oauthrequest_id IF NOT EXISTS FOR (n:OAuthRequest) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT oauthgrant_id IF NOT EXISTS FOR (n:OAuthGrant) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT oauthcode_digest IF NOT EXISTS FOR (n:OAuthCode) REQUIRE n.digest IS UNIQUE",
    "CREATE CONSTRAINT oauthtoken_digest IF NOT EXISTS FOR (n:OAuthToken) REQUIRE n.digest IS UNIQUE",
    "CREATE CONSTRAINT reviewsession_digest IF NOT EXISTS FOR (n:ReviewSession) REQUIRE n.digest IS UNIQUE",
    "CREATE INDEX oauthrequest_expires IF NOT EXISTS FOR (n:OAuthRequest) ON (n.expires_at)",
    "CREATE INDEX oauthgrant_created IF NOT EXISTS FOR (n:OAuthGrant) ON (n.profile_id, n.created_at)",
    "CREATE INDEX oauthcode_grant IF NOT EXISTS FOR (n:OAuthCode) ON (n.profile_id, n.grant_id)",
    "CREATE INDEX oauthcode_expires IF NOT EXISTS FOR (n:OAuthCode) ON (n.profile_id, n.expires_at)",
    "CREATE INDEX oauthtoken_grant IF NOT EXISTS FOR (n:OAuthToken) ON (n.profile_id, n.grant_id)",
    "CREATE INDEX oauthtoken_expires IF NOT EXISTS FOR (n:OAuthToken) ON (n.profile_id, n.expires_at)",
    "CREATE INDEX reviewsession_expires IF NOT EXISTS FOR (n:ReviewSession) ON (n.profile_id, n.expires_at)",
    # Deduplication and one-writer-per-slot guarantees are held by the database, not by code.
    "CREATE CONSTRAINT fragment_idempotency IF NOT EXISTS FOR (n:SourceFragment) "
    "REQUIRE (n.profile_id, n.idempotency_key) IS UNIQUE",
    "CREATE CONSTRAINT fragment_active_hash IF NOT EXISTS FOR (n:SourceFragment) "
    "REQUIRE (n.profile_id, n.active_hash) IS UNIQUE",
    "CREATE CONSTRAINT fact_slot IF NOT EXISTS FOR (n:FactSlot) REQUIRE (n.profile_id, n.slot) IS UNIQUE",
    # At most one scheduled cycle per profile per local day, whatever the processes or DST do.
    "CREATE CONSTRAINT dreamrun_scheduled_date IF NOT EXISTS FOR (n:DreamRun) "
    "REQUIRE (n.profile_id, n.scheduled_date) IS UNIQUE",
    "CREATE CONSTRAINT dream_pair IF NOT EXISTS FOR (n:Dream) REQUIRE (n.profile_id, n.pair_key) IS UNIQUE",
    # A pair the host judged empty is never proposed again (`graph/dreams/host.py`).
    "CREATE CONSTRAINT empty_pair IF NOT EXISTS FOR (n:EmptyPair) "
    "REQUIRE (n.profile_id, n.pair_key) IS UNIQUE",
    # A replayed remember whose key belonged to a forgotten fragment is refused, not re-stored.
    "CREATE INDEX forgotten_key IF NOT EXISTS FOR (n:Forgotten) ON (n.profile_id, n.idempotency_key)",
    "CREATE INDEX fragment_created IF NOT EXISTS FOR (n:SourceFragment) ON (n.profile_id, n.created_at)",
    "CREATE INDEX fragment_status IF NOT EXISTS FOR (n:SourceFragment) ON (n.profile_id, n.status)",
    "CREATE INDEX fragment_occurred IF NOT EXISTS FOR (n:SourceFragment) ON (n.profile_id, n.occurred_at)",
    "CREATE INDEX claim_status_created IF NOT EXISTS FOR (n:Claim) ON (n.profile_id, n.status, n.created_at)",
    "CREATE INDEX claim_key IF NOT EXISTS FOR (n:Claim) ON (n.profile_id, n.claim_key)",
    "CREATE INDEX claim_slot IF NOT EXISTS FOR (n:Claim) ON (n.profile_id, n.slot)",
    "CREATE INDEX fact_status_recorded IF NOT EXISTS FOR (n:Fact) ON (n.profile_id, n.status, n.recorded_at)",
    "CREATE INDEX fact_slot_lookup IF NOT EXISTS FOR (n:Fact) ON (n.profile_id, n.slot)",
    "CREATE INDEX clarification_status IF NOT EXISTS FOR (n:Clarification) ON (n.profile_id, n.status)",
    "CREATE INDEX dream_status_created IF NOT EXISTS FOR (n:Dream) ON (n.profile_id, n.status, n.created_at)",
    "CREATE INDEX dream_created IF NOT EXISTS FOR (n:Dream) ON (n.profile_id, n.created_at)",
    "CREATE INDEX dream_run IF NOT EXISTS FOR (n:Dream) ON (n.profile_id, n.run_id)",
    # A theme that grows finds the earlier dreams on its thread.
    "CREATE INDEX dream_topic IF NOT EXISTS FOR (n:Dream) ON (n.profile_id, n.topic)",
    "CREATE INDEX dreamrun_started IF NOT EXISTS FOR (n:DreamRun) ON (n.profile_id, n.started_at)",
    "CREATE INDEX dreamrun_status IF NOT EXISTS FOR (n:DreamRun) ON (n.profile_id, n.status)",
    "CREATE INDEX claim_created IF NOT EXISTS FOR (n:Claim) ON (n.profile_id, n.created_at)",
    "CREATE INDEX fact_recorded IF NOT EXISTS FOR (n:Fact) ON (n.profile_id, n.recorded_at)",
    # Recall signals (`graph/recall/signals.py`): the recent questions, the most recalled memories.
    "CREATE INDEX recallquestion_at IF NOT EXISTS FOR (n:RecallQuestion) ON (n.profile_id, n.at)",
    # A recall request delivered again (a balancer's retry) is counted once, across processes.
    "CREATE CONSTRAINT recalldelivery_key IF NOT EXISTS FOR (n:RecallDelivery) "
    "REQUIRE (n.profile_id, n.key) IS UNIQUE",
    "CREATE INDEX recalldelivery_at IF NOT EXISTS FOR (n:RecallDelivery) ON (n.profile_id, n.at)",
    # Every node of a profile by label, for counting and erasing a profile whole: the composite
    # indexes above serve a query only when it names each of their properties.
    "CREATE INDEX sourcefragment_profile IF NOT EXISTS FOR (n:SourceFragment) ON (n.profile_id)",
    "CREATE INDEX claim_profile IF NOT EXISTS FOR (n:Claim) ON (n.profile_id)",
    "CREATE INDEX fact_profile IF NOT EXISTS FOR (n:Fact) ON (n.profile_id)",
    "CREATE INDEX clarification_profile IF NOT EXISTS FOR (n:Clarification) ON (n.profile_id)",
    "CREATE INDEX factslot_profile IF NOT EXISTS FOR (n:FactSlot) ON (n.profile_id)",
    "CREATE INDEX dream_profile IF NOT EXISTS FOR (n:Dream) ON (n.profile_id)",
    "CREATE INDEX dreamfeedback_profile IF NOT EXISTS FOR (n:DreamFeedback) ON (n.profile_id)",
    "CREATE INDEX dreamrevision_profile IF NOT EXISTS FOR (n:DreamRevision) ON (n.profile_id)",
    "CREATE INDEX emptypair_profile IF NOT EXISTS FOR (n:EmptyPair) ON (n.profile_id)",
    "CREATE INDEX dreamrun_profile IF NOT EXISTS FOR (n:DreamRun) ON (n.profile_id)",
    "CREATE INDEX forgotten_profile IF NOT EXISTS FOR (n:Forgotten) ON (n.profile_id)",
    "CREATE INDEX recallquestion_profile IF NOT EXISTS FOR (n:RecallQuestion) ON (n.profile_id)",
    "CREATE INDEX recalldelivery_profile IF NOT EXISTS FOR (n:RecallDelivery) ON (n.profile_id)",
    "CREATE INDEX oauthgrant_profile IF NOT EXISTS FOR (n:OAuthGrant) ON (n.profile_id)",
    "CREATE INDEX oauthcode_profile IF NOT EXISTS FOR (n:OAuthCode) ON (n.profile_id)",
    "CREATE INDEX oauthtoken_profile IF NOT EXISTS FOR (n:OAuthToken) ON (n.profile_id)",
    "CREATE INDEX reviewsession_profile IF NOT EXISTS FOR (n:ReviewSession) ON (n.profile_id)",
    "CREATE INDEX recallable_recalled IF NOT EXISTS FOR (n:Recallable) ON (n.profile_id, n.recall_count)",
    # Memories whose vector a remember left to be written after its acknowledgement.
    "CREATE INDEX recallable_vector_due IF NOT EXISTS FOR (n:Recallable) ON (n.profile_id, n.vector_due)",
    # Counting a profile's vectors of one model, so status can say how many are pending.
    "CREATE INDEX fragment_embedding_model IF NOT EXISTS FOR (n:SourceFragment) "
    "ON (n.profile_id, n.embedding_model)",
    "CREATE INDEX claim_embedding_model IF NOT EXISTS FOR (n:Claim) ON (n.profile_id, n.embedding_model)",
    "CREATE INDEX fact_embedding_model IF NOT EXISTS FOR (n:Fact) ON (n.profile_id, n.embedding_model)",
    "CREATE INDEX dream_embedding_model IF NOT EXISTS FOR (n:Dream) ON (n.profile_id, n.embedding_model)",
    # Fragments, claims and facts also carry the label Recallable: one search covers all three.
    "CYPHER 25 CREATE VECTOR INDEX recall_embedding IF NOT EXISTS FOR (n:Recallable) ON n.embedding "
    + _VECTOR_WITH
    + _VECTOR_OPTIONS,
    "CYPHER 25 CREATE VECTOR INDEX dream_embedding IF NOT EXISTS FOR (n:Dream) ON n.embedding "
    + _VECTOR_WITH
    + _VECTOR_OPTIONS,
    "CREATE FULLTEXT INDEX fragment_text IF NOT EXISTS FOR (n:SourceFragment) "
    "ON EACH [n.text, n.profile_key, n.status] " + _FULLTEXT_OPTIONS,
    "CREATE FULLTEXT INDEX claim_text IF NOT EXISTS FOR (n:Claim) "
    "ON EACH [n.text, n.profile_key, n.status] " + _FULLTEXT_OPTIONS,
    "CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (n:Fact) "
    "ON EACH [n.text, n.profile_key, n.status] " + _FULLTEXT_OPTIONS,
    "CREATE FULLTEXT INDEX dream_text IF NOT EXISTS FOR (n:Dream) "
    "ON EACH [n.text, n.profile_key, n.status] " + _FULLTEXT_OPTIONS,
)

# Indexes an earlier version created and a newer one replaced under another name.
RETIRED_INDEXES: Final[tuple[LiteralString, ...]] = (
    "DROP INDEX claim_status IF EXISTS",
    "DROP INDEX fact_status IF EXISTS",
)

# Rebuilding a vector index over 100,000 memories after an upgrade takes minutes.
_INDEX_WAIT_S: Final = 900
_SERVER_VERSION: Final = re.compile(r"(\d+)\.(\d+)")


class UnsupportedServerError(ReverieError):
    """The Neo4j server is older than the vector search Reverie relies on."""

    def __init__(self, version: str) -> None:
        super().__init__(
            f"Neo4j {version} is too old for Reverie, which needs {MIN_SERVER[0]}.{MIN_SERVER[1]:02d} "
            "or later (its vector index filters by profile inside the index). Upgrade that server, "
            "or unset NEO4J_URI to let Reverie run its own."
        )


def is_supported(version: str) -> bool:
    """Whether a Neo4j kernel of `version` (such as "2026.08.1" or "5.26.30") serves Reverie."""
    found = _SERVER_VERSION.match(version)
    return found is not None and (int(found.group(1)), int(found.group(2))) >= MIN_SERVER


async def check_server(session: AsyncSession) -> None:
    """Refuse a server too old for the in-index vector filter, before anything is written."""
    record = await (await session.run(_KERNEL_VERSION)).single()
    version = str(record["version"]) if record else "(unknown)"
    if not is_supported(version):
        raise UnsupportedServerError(version)


_KERNEL_VERSION: Final = (
    "CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel' RETURN versions[0] AS version"
)
# A vector index made before the in-index filter (Neo4j 5) lists only `embedding`: it is dropped
# and made again with the filter's properties.
_UNFILTERED_VECTOR_INDEXES: Final = (
    "SHOW VECTOR INDEXES YIELD name, properties WHERE NOT 'profile_id' IN properties RETURN name"
)
DROP_VECTOR_INDEX: Final[dict[str, LiteralString]] = {
    "recall_embedding": "DROP INDEX recall_embedding IF EXISTS",
    "dream_embedding": "DROP INDEX dream_embedding IF EXISTS",
}


async def ensure_schema(driver: AsyncDriver, database: str | None) -> None:
    """Create what is missing; existing constraints and indexes are left untouched, except
    vector indexes of an older shape, which are rebuilt."""
    async with driver.session(database=database) as session:
        await check_server(session)
        outdated = [row["name"] async for row in await session.run(_UNFILTERED_VECTOR_INDEXES)]
        for name in outdated:
            if name in DROP_VECTOR_INDEX:
                log.warning("rebuilding vector index %s with the profile filter inside it", name)
                await session.run(DROP_VECTOR_INDEX[name])
        existing = await _schema_names(session)
        for statement in RETIRED_INDEXES:
            if _name_in(statement) in existing:
                await session.run(statement)
        # Only what is missing: each statement is a schema transaction of its own, and a server
        # starts (a test builds one) far more often than the schema changes.
        for statement in SCHEMA_STATEMENTS:
            if _name_in(statement) not in existing:
                await session.run(statement)
        await session.run("CALL db.awaitIndexes($seconds)", seconds=_INDEX_WAIT_S)


_SCHEMA_NAME: Final = re.compile(
    r"\b(?:CREATE|DROP) (?:[A-Z]+ )*?(?:CONSTRAINT|INDEX) (\w+) IF (?:NOT )?EXISTS"
)


def _name_in(statement: str) -> str | None:
    """The constraint or index a schema statement names (None: run it whatever exists)."""
    found = _SCHEMA_NAME.search(statement)
    return found.group(1) if found else None


async def _schema_names(session: AsyncSession) -> set[str]:
    names: set[str] = set()
    for listing in ("SHOW CONSTRAINTS YIELD name RETURN name", "SHOW INDEXES YIELD name RETURN name"):
        names.update([row["name"] async for row in await session.run(listing)])
    return names
