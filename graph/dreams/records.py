"""What the dream phase and the dreaming tools read back from the graph, as frozen records with
one parser each.

Rows come from the queries in `graph/dreams/queries.py`; past the parser the code reads typed
fields, so a renamed column fails here, in one place, not deep in a rule. A row that becomes a
view the tools return (`DreamSummary`, `Dream`) is parsed by that model's validation, in one
function here; recall's dreams become `RelatedDream`s through `RecalledDream.related`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

from pydantic import TypeAdapter

from graph.dreams.lifecycle import status_by
from graph.dreams.models import (
    Dream,
    DreamKind,
    DreamMerge,
    DreamRevision,
    DreamStatus,
    DreamSummary,
    HistoryActor,
    MergeState,
    PhaseReport,
    RunStatus,
    Trigger,
)
from graph.embedding.catalog import cosine_of_score
from graph.errors import CycleAlreadyRunningError
from graph.memory.models import ClaimInput, SharedKind
from graph.memory.records import FragmentRetraction
from graph.rows import Row, one_of, time_of

MemoryKind = Literal["fact", "fragment"]
OVERRIDE_PREFIX: Final = "dreaming_"

# --- memories and their neighbourhoods -----------------------------------------------------


@dataclass(frozen=True)
class Memory:
    kind: MemoryKind
    id: str
    text: str
    quality: float
    created_at: datetime
    occurred_at: datetime
    # What the person shared (a photo's caption, a link's title), None for their own words.
    shared: SharedKind | None = None

    def when(self) -> datetime:
        return self.occurred_at

    @property
    def own_words(self) -> bool:
        return self.shared is None


def memory_from_row(row: Row) -> Memory:
    """A memory read by a dream query (`kind` and `MEMORY_FIELDS` in `graph/dreams/queries.py`)."""
    return Memory(
        kind=one_of(MemoryKind, row["kind"], "kind"),
        id=row["id"],
        text=row["text"],
        quality=float(row["quality"]),
        created_at=time_of(row["created_at"]),
        occurred_at=time_of(row["occurred_at"]),
        # Facts, and fragments stored before the field existed, have none: the person's words.
        shared=None if (shared := row.get("shared")) is None else one_of(SharedKind, shared, "shared"),
    )


@dataclass(frozen=True)
class EmbeddedMemory:
    """A memory with its vector, as the whole profile's meaning space is read."""

    memory: Memory
    embedding: Sequence[float]

    @classmethod
    def from_row(cls, row: Row) -> EmbeddedMemory:
        """From `PROFILE_VECTORS`."""
        return cls(memory_from_row(row), row["embedding"])


@dataclass(frozen=True)
class Neighbour:
    """A memory near one of the members asked about, with their plain cosine (-1..1)."""

    member_id: str
    memory: Memory
    cosine: float

    @classmethod
    def from_row(cls, row: Row) -> Neighbour:
        """From `NEAREST_NEIGHBOURS` (Neo4j's 0..1 score)."""
        return cls(str(row["member_id"]), memory_from_row(row), cosine_of_score(float(row["score"])))


@dataclass(frozen=True)
class PairCosine:
    """Two memories' plain cosine (-1..1)."""

    first: str
    second: str
    cosine: float

    @classmethod
    def from_row(cls, row: Row) -> PairCosine:
        """From `PAIR_SIMILARITY` (Neo4j's 0..1 score)."""
        return cls(str(row["first"]), str(row["second"]), cosine_of_score(float(row["score"])))


@dataclass(frozen=True)
class WordMatch:
    """A memory that shares words with a seed, found by a fulltext index."""

    seed_id: str
    memory: Memory

    @classmethod
    def from_row(cls, row: Row) -> WordMatch:
        """From `RELATED_MEMORIES`."""
        return cls(str(row["seed_id"]), memory_from_row(row))


@dataclass(frozen=True)
class TermFrequency:
    """How many live fragments of the profile use a term (capped)."""

    term: str
    frequency: int

    @classmethod
    def from_row(cls, row: Row) -> TermFrequency:
        """From `TERM_FREQUENCY`."""
        return cls(str(row["term"]), int(row["frequency"]))


@dataclass(frozen=True)
class Cited:
    """What an id a host cites names in this profile: `memory` when it is a live fragment or fact
    a dream can cite, else `found` says what it is (None: nothing of this profile)."""

    id: str
    found: Literal["fragment", "fact", "claim", "forgotten"] | None
    status: str | None
    memory: Memory | None

    @classmethod
    def from_row(cls, row: Row) -> Cited:
        """From `CITED` (`graph/dreams/host_queries.py`)."""
        found = row["found"]
        live = found in ("fragment", "fact") and row["state"] == "active"
        return cls(str(row["source_id"]), found, row["state"], memory_from_row(row) if live else None)


def linked_ids_from_rows(rows: Iterable[Row]) -> dict[str, set[str]]:
    """From `FACT_EVIDENCE_IDS` (the fragments behind each fact) and `DREAM_PARTNERS` (the
    memories each one was already dreamed with): a memory's id, and the ids linked to it."""
    return {str(row["id"]): set(row["linked"]) for row in rows}


def pair_key_from_row(row: Row) -> str:
    """From `DREAMED_PAIRS`: the key of a pair some dream was made of."""
    return str(row["pair_key"])


# --- the profile, the cycle lock and the runs ----------------------------------------------


def overrides_of(stored: Mapping[str, Any]) -> dict[str, Any]:
    """The dreaming overrides among a Profile node's properties, keyed by setting name."""
    return {
        key[len(OVERRIDE_PREFIX) :]: value for key, value in stored.items() if key.startswith(OVERRIDE_PREFIX)
    }


@dataclass(frozen=True)
class StoredProfile:
    """The Profile node as dreaming reads it: when it was created and its dreaming overrides."""

    created_at: datetime | None
    overrides: Mapping[str, Any]

    @classmethod
    def from_row(cls, row: Row | None) -> StoredProfile:
        """From `PROFILE_SETTINGS`; no row is a profile not stored yet."""
        stored = row["profile"] if row is not None else {}
        return cls(stored.get("created_at"), overrides_of(stored))


@dataclass(frozen=True)
class CycleLock:
    """Who holds the profile's cycle lock, and until when."""

    holder: str | None
    lease_expires_at: datetime | None

    @classmethod
    def from_row(cls, row: Row) -> CycleLock:
        """From `CLAIM_CYCLE_LOCK`."""
        return cls(row["holder"], row["lease"])

    def ensure_free(self, now: datetime) -> None:
        """Refuse while another cycle holds the lock with a lease still running at `now`."""
        if self.holder and self.lease_expires_at is not None and self.lease_expires_at > now:
            raise CycleAlreadyRunningError(self.holder, self.lease_expires_at.isoformat())


@dataclass(frozen=True)
class StoredRun:
    """A DreamRun node as stored; its phase reports are kept as one JSON text so a run is one node."""

    id: str
    trigger: Trigger
    run_date: str
    status: RunStatus
    started_at: datetime
    completed_at: datetime | None
    lease_expires_at: datetime | None
    late: bool
    phases: tuple[PhaseReport, ...]
    error: str | None

    @classmethod
    def from_row(cls, row: Row) -> StoredRun:
        """From a query's `run` column (`LATEST_RUN`, `RECENT_RUNS`)."""
        run = row["run"]
        return cls(
            id=run["id"],
            trigger=one_of(Trigger, run["trigger"], "trigger"),
            run_date=run["run_date"],
            status=one_of(RunStatus, run["status"], "status"),
            started_at=run["started_at"],
            completed_at=run.get("completed_at"),
            lease_expires_at=run.get("lease_expires_at"),
            late=run.get("late") or False,
            phases=tuple(map(PhaseReport.model_validate, json.loads(run.get("phases") or "[]"))),
            error=run.get("error"),
        )


@dataclass(frozen=True)
class RecentRun:
    """A past run and the status today of each dream it proposed."""

    run: StoredRun
    dream_statuses: tuple[DreamStatus, ...]

    @classmethod
    def from_row(cls, row: Row) -> RecentRun:
        """From `RECENT_RUNS`."""
        return cls(StoredRun.from_row(row), tuple(DreamStatus(status) for status in row["dream_statuses"]))


# --- dreams --------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenDream:
    """An open dream as re-evaluation reads it: its status and the state of each source."""

    id: str
    status: DreamStatus
    source_count: int  # how many sources it was dreamed from
    sources: tuple[tuple[str, str], ...]  # (id, status) of each source still in the graph

    @classmethod
    def from_row(cls, row: Row) -> OpenDream:
        """From `OPEN_DREAMS_BATCH`."""
        sources = tuple((str(source["id"]), str(source["status"])) for source in row["sources"])
        return cls(str(row["id"]), DreamStatus(row["status"]), int(row["source_count"] or 0), sources)


@dataclass(frozen=True)
class StatusCount:
    """How many of the profile's dreams are in one status."""

    status: DreamStatus
    count: int

    @classmethod
    def from_row(cls, row: Row) -> StatusCount:
        """From `DREAM_COUNTS`."""
        return cls(DreamStatus(row["status"]), int(row["count"]))


@dataclass(frozen=True)
class DreamToReword:
    """An open or closed dream as rewording reads it, locked."""

    status: DreamStatus
    likelihood: float
    confidence: float
    revisions: int
    fragment_ids: tuple[str, ...]  # the fragments it cites

    @classmethod
    def from_row(cls, row: Row) -> DreamToReword:
        """From `LOCK_FOR_REWORDING` (`graph/dreams/host_queries.py`)."""
        return cls(
            DreamStatus(row["status"]),
            float(row["likelihood"]),
            float(row["confidence"]),
            int(row["revisions"]),
            tuple(row["fragment_ids"]),
        )


def stored_statement_from_row(row: Row) -> ClaimInput | None:
    """From `STORED_STATEMENT`: the dream's statement, resting only on cited fragments still
    active (one retracted since is dropped from its support)."""
    statement = statement_of(row)
    if statement is None:
        return None
    live = set(row["active_fragment_ids"])
    return statement.model_copy(update={"supported_by": [i for i in statement.supported_by if i in live]})


@dataclass(frozen=True)
class CitedFragment:
    """A live fragment a dream cites: when it was said, its words and how many claims it supports."""

    id: str
    at: datetime
    text: str
    supports: int


# A merge's retraction is stored on its dream as JSON (a node property holds no nested values).
RETRACTION_JSON: Final = TypeAdapter(FragmentRetraction)


@dataclass(frozen=True)
class LockedDream:
    """From `LOCK_DREAM`: the dream just locked, its kind, its live fragments and, for a promoted
    duplicate, its merge's state and the retraction it made."""

    status: DreamStatus
    kind: DreamKind
    fragments: tuple[CitedFragment, ...]
    merge_state: MergeState | None = None
    retraction: FragmentRetraction | None = None
    # How many times the person confirmed it before (promote_candidate answers).
    confirmations: int = 0

    @classmethod
    def from_row(cls, row: Row) -> LockedDream:
        fragments = tuple(
            CitedFragment(str(item["id"]), time_of(item["at"]), str(item["text"]), int(item["supports"]))
            for item in row["fragments"]
        )
        state, undo = row["merge_state"], row["merge_undo"]
        return cls(
            DreamStatus(row["status"]),
            DreamKind(row["kind"]),
            fragments,
            MergeState(state) if state else None,
            RETRACTION_JSON.validate_json(undo) if undo else None,
            int(row["confirmations"]),
        )


def dream_summary_from_row(row: Row) -> DreamSummary:
    """From `LIST_DREAMS`: the dream, and who set its status by its last history entry."""
    dream = DreamSummary.model_validate(row["dream"])
    last = row["last_change"][0] if row["last_change"] else None
    return dream.model_copy(update={"status_by": _status_set_by(dream.status, last)})


def _status_set_by(status: DreamStatus, last: Mapping[str, Any] | None) -> HistoryActor | None:
    """Who set `status`, by the last entry of the dream's history (None: it has none)."""
    if last is None:
        return status_by(status, None, None)
    return status_by(status, DreamStatus(last["to_status"]), HistoryActor(last["actor"]))


_DREAM_PARTS = ("sources", "feedback", "revisions", "statement", "builds_on", "merge")


def statement_of(stored: Mapping[str, Any]) -> ClaimInput | None:
    """A dream's (or revision's) statement, stored as the JSON of a `ClaimInput`."""
    text = stored.get("statement")
    return ClaimInput.model_validate_json(text) if text else None


def dream_from_row(row: Row) -> Dream:
    """From `GET_DREAM`: the dream, its sources (every one with its words), the feedback on it and
    its earlier words. A property the dream node lacks reads as null."""
    stored = row["dream"]
    fields = {name: stored.get(name) for name in Dream.model_fields if name not in _DREAM_PARTS}
    revisions = [
        DreamRevision.model_validate({**revision, "statement": statement_of(revision)})
        for revision in row["revisions"]
    ]
    return Dream.model_validate(
        {
            **fields,
            "sources": row["sources"],
            "feedback": row["feedback"],
            "revisions": revisions,
            "statement": statement_of(stored),
            "builds_on": row["builds_on"],
            "merge": _merge_of(stored),
        }
    )


def _merge_of(stored: Mapping[str, Any]) -> DreamMerge | None:
    """A promoted duplicate's merge, from the dream's `merge_*` properties."""
    if not stored.get("merge_state"):
        return None
    return DreamMerge(
        retracted_id=stored["merge_retracted_id"],
        kept_id=stored["merge_kept_id"],
        state=MergeState(stored["merge_state"]),
    )


@dataclass(frozen=True)
class EarlierTheme:
    """A theme dream already on a thread, and the time of its newest source."""

    id: str
    topic: str
    status: DreamStatus
    latest: datetime | None

    @classmethod
    def from_row(cls, row: Row) -> EarlierTheme:
        latest = row["latest"]
        return cls(
            str(row["id"]), str(row["topic"]), DreamStatus(row["status"]), time_of(latest) if latest else None
        )


@dataclass(frozen=True)
class HeldTerm:
    """A memory that uses a word (`TERM_HOLDERS`)."""

    term: str
    memory: Memory

    @classmethod
    def from_row(cls, row: Row) -> HeldTerm:
        return cls(str(row["term"]), memory_from_row(row))


@dataclass(frozen=True)
class LaterClaim:
    """A claim said after everything behind the active fact it disagrees with
    (`LATER_CLAIMS_AGAINST_FACTS`): the fact, the fragment that said the claim, and both values."""

    claim_id: str
    subject: str
    predicate: str
    value: str
    held: str
    extract_conf: float
    resolution_conf: float
    fact: Memory
    said: Memory

    @classmethod
    def from_row(cls, row: Row) -> LaterClaim:
        return cls(
            claim_id=str(row["claim_id"]),
            subject=str(row["subject"]),
            predicate=str(row["predicate"]),
            value=str(row["object"]),
            held=str(row["held"]),
            extract_conf=float(row["extract_conf"]),
            resolution_conf=float(row["resolution_conf"]),
            fact=memory_from_row({**row["fact"], "kind": "fact"}),
            said=memory_from_row(row),
        )
