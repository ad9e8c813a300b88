"""What a recall asks for, checked before anything is searched: the query's words, the limit, the
times it looks back to, and which statuses of each kind count as live."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from graph.errors import InvalidInputError
from graph.memory.models import ClaimStatus, FactStatus, FragmentStatus
from graph.recall.models import RecallKind
from graph.text import STOP_WORDS, fulltext_clause, fulltext_query, tokens

MAX_QUERY_CHARS = 512
MAX_RECALL_LIMIT = 50
# Each lane brings three candidates per requested result (at most 150) to the fusion.
CANDIDATES_PER_RESULT: Final = 3
MAX_CANDIDATES: Final = 150


@dataclass(frozen=True)
class KindSearch:
    index: str
    live: tuple[str, ...]
    # Statuses a memory may have now and still have been live at an earlier `known_at`.
    historical: tuple[str, ...]


KINDS: Final[dict[RecallKind, KindSearch]] = {
    "fact": KindSearch("fact_text", (FactStatus.ACTIVE,), (FactStatus.ACTIVE, FactStatus.SUPERSEDED)),
    "claim": KindSearch(
        "claim_text",
        (ClaimStatus.VALIDATED,),
        (ClaimStatus.VALIDATED, ClaimStatus.PROMOTED, ClaimStatus.SUPERSEDED),
    ),
    "fragment": KindSearch("fragment_text", (FragmentStatus.ACTIVE,), (FragmentStatus.ACTIVE,)),
}


@dataclass(frozen=True)
class RecallRequest:
    query: str
    limit: int = 10
    valid_at: datetime | None = None
    known_at: datetime | None = None
    include_evidence: bool = False

    @property
    def candidates(self) -> int:
        return min(self.limit * CANDIDATES_PER_RESULT, MAX_CANDIDATES)

    def statuses(self, kind: RecallKind) -> tuple[str, ...]:
        return KINDS[kind].historical if self.known_at else KINDS[kind].live


def search_terms(request: RecallRequest) -> str:
    """The fulltext clause of the query's words; refuses a query that cannot be searched."""
    if len(request.query) > MAX_QUERY_CHARS:
        raise InvalidInputError(f"query has {len(request.query)} characters; the limit is {MAX_QUERY_CHARS}.")
    if not 1 <= request.limit <= MAX_RECALL_LIMIT:
        raise InvalidInputError(f"limit must be 1 to {MAX_RECALL_LIMIT}.")
    terms = fulltext_clause("text", request.query)
    if terms is None:
        raise InvalidInputError("query has no searchable words; use a few words about the topic.")
    if STOP_WORDS.issuperset(tokens(request.query)):
        # The index's analyzer drops such words, the text clause vanishes from the Lucene query,
        # and what is left ("this profile, live") would match every memory in no useful order.
        raise InvalidInputError(
            "query has no searchable words, only common ones such as 'the' or 'and'; "
            "use a few words about the topic."
        )
    return terms


def search_words(request: RecallRequest) -> list[str]:
    """The words the lexical lane searches one by one: those of `search_terms`' clause (checked
    there first), each plain letters and digits, so none is Lucene syntax."""
    return (fulltext_query(request.query) or "").split()
