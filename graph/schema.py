"""Constraints and indexes of the profile graph, created idempotently at start.

Every range index leads with `profile_id`, so a profile's lookups stay index seeks however
many profiles share the database. Fulltext indexes also index `profile_key` (a one-token form
of the profile id) and `status`, so a search is narrowed to one profile's live nodes inside
Lucene instead of being filtered after the fact.
"""

from __future__ import annotations

from typing import Final, LiteralString

from neo4j import AsyncDriver

# The shape of stored data (see `graph.upgrade`); new profiles are created at this format.
GRAPH_FORMAT: Final = 2
_FULLTEXT_OPTIONS: Final = "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}"
# Every provisioned model makes vectors of this size (`catalog.DIMENSIONS`, kept equal by a
# test); cosine is what they were trained for. Quantization is off: searches took 35 to 40%
# longer with it here, and full vectors of 100,000 memories are only about 150 MB.
VECTOR_DIMENSIONS: Final = 384
_VECTOR_OPTIONS: Final = (
    "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', "
    "`vector.quantization.enabled`: false}}"
)

# Every label whose nodes carry `profile_id`: what a profile is made of, for counting and erasing
# it whole. `Recallable` is a second label of fragments, claims and facts, not a kind of its own.
PROFILE_LABELS: Final = (
    "SourceFragment", "Claim", "Fact", "Clarification", "FactSlot", "Dream", "DreamFeedback",
    "DreamRun", "Forgotten", "Profile", "RecallQuestion",
)  # fmt: skip

SCHEMA_STATEMENTS: Final[tuple[LiteralString, ...]] = (
    "CREATE CONSTRAINT profile_unique IF NOT EXISTS FOR (n:Profile) REQUIRE n.profile_id IS UNIQUE",
    "CREATE CONSTRAINT sourcefragment_id IF NOT EXISTS FOR (n:SourceFragment) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT claim_id IF NOT EXISTS FOR (n:Claim) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (n:Fact) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT clarification_id IF NOT EXISTS FOR (n:Clarification) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT dream_id IF NOT EXISTS FOR (n:Dream) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT dreamfeedback_id IF NOT EXISTS FOR (n:DreamFeedback) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT dreamrun_id IF NOT EXISTS FOR (n:DreamRun) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT forgotten_id IF NOT EXISTS FOR (n:Forgotten) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT recallquestion_id IF NOT EXISTS FOR (n:RecallQuestion) REQUIRE n.id IS UNIQUE",
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
    # A replayed remember whose key belonged to a forgotten fragment is refused, not re-stored.
    "CREATE INDEX forgotten_key IF NOT EXISTS FOR (n:Forgotten) ON (n.profile_id, n.idempotency_key)",
    "CREATE INDEX fragment_created IF NOT EXISTS FOR (n:SourceFragment) ON (n.profile_id, n.created_at)",
    "CREATE INDEX fragment_status IF NOT EXISTS FOR (n:SourceFragment) ON (n.profile_id, n.status)",
    "CREATE INDEX claim_status_created IF NOT EXISTS FOR (n:Claim) ON (n.profile_id, n.status, n.created_at)",
    "CREATE INDEX claim_key IF NOT EXISTS FOR (n:Claim) ON (n.profile_id, n.claim_key)",
    "CREATE INDEX claim_slot IF NOT EXISTS FOR (n:Claim) ON (n.profile_id, n.slot)",
    "CREATE INDEX fact_status_recorded IF NOT EXISTS FOR (n:Fact) ON (n.profile_id, n.status, n.recorded_at)",
    "CREATE INDEX fact_slot_lookup IF NOT EXISTS FOR (n:Fact) ON (n.profile_id, n.slot)",
    "CREATE INDEX clarification_status IF NOT EXISTS FOR (n:Clarification) ON (n.profile_id, n.status)",
    "CREATE INDEX dream_status_created IF NOT EXISTS FOR (n:Dream) ON (n.profile_id, n.status, n.created_at)",
    "CREATE INDEX dream_created IF NOT EXISTS FOR (n:Dream) ON (n.profile_id, n.created_at)",
    "CREATE INDEX dream_run IF NOT EXISTS FOR (n:Dream) ON (n.profile_id, n.run_id)",
    "CREATE INDEX dreamrun_started IF NOT EXISTS FOR (n:DreamRun) ON (n.profile_id, n.started_at)",
    "CREATE INDEX dreamrun_status IF NOT EXISTS FOR (n:DreamRun) ON (n.profile_id, n.status)",
    "CREATE INDEX claim_created IF NOT EXISTS FOR (n:Claim) ON (n.profile_id, n.created_at)",
    "CREATE INDEX claim_status_created IF NOT EXISTS FOR (n:Claim) ON (n.profile_id, n.status, n.created_at)",
    "CREATE INDEX fact_recorded IF NOT EXISTS FOR (n:Fact) ON (n.profile_id, n.recorded_at)",
    # Recall signals (`graph/recall/signals.py`): the recent questions, the most recalled memories.
    "CREATE INDEX recallquestion_at IF NOT EXISTS FOR (n:RecallQuestion) ON (n.profile_id, n.at)",
    "CREATE INDEX recallable_recalled IF NOT EXISTS FOR (n:Recallable) ON (n.profile_id, n.recall_count)",
    # Counting a profile's vectors of one model, so status can say how many are pending.
    "CREATE INDEX fragment_embedding_model IF NOT EXISTS FOR (n:SourceFragment) "
    "ON (n.profile_id, n.embedding_model)",
    "CREATE INDEX claim_embedding_model IF NOT EXISTS FOR (n:Claim) ON (n.profile_id, n.embedding_model)",
    "CREATE INDEX fact_embedding_model IF NOT EXISTS FOR (n:Fact) ON (n.profile_id, n.embedding_model)",
    "CREATE INDEX dream_embedding_model IF NOT EXISTS FOR (n:Dream) ON (n.profile_id, n.embedding_model)",
    # Fragments, claims and facts also carry the label Recallable: one search covers all three.
    "CREATE VECTOR INDEX recall_embedding IF NOT EXISTS FOR (n:Recallable) ON n.embedding " + _VECTOR_OPTIONS,
    "CREATE VECTOR INDEX dream_embedding IF NOT EXISTS FOR (n:Dream) ON n.embedding " + _VECTOR_OPTIONS,
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

_INDEX_WAIT_S: Final = 120


async def ensure_schema(driver: AsyncDriver, database: str | None) -> None:
    """Create what is missing; existing constraints and indexes are left untouched."""
    async with driver.session(database=database) as session:
        for statement in RETIRED_INDEXES + SCHEMA_STATEMENTS:
            await session.run(statement)
        await session.run("CALL db.awaitIndexes($seconds)", seconds=_INDEX_WAIT_S)
