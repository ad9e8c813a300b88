"""The page's words for the states a person meets, where the graph's names are identifiers."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from graph.memory.models import ClaimStatus, PromotionOutcome, Verdict

OUTCOME_WORDS: Mapping[str, str] = MappingProxyType(
    {
        PromotionOutcome.PROMOTED: "it is memory now",
        PromotionOutcome.CLARIFICATION_REQUIRED: (
            "memory holds something else as strongly: a question was opened"
        ),
        PromotionOutcome.REJECTED_WEAKER: "not kept: memory holds something else with more support",
        PromotionOutcome.GATE_REJECTED: "not memory yet: it needs more support",
        PromotionOutcome.PREDICATE_NOT_SUPPORTED: "not kept: that relation is not one memory keeps",
        PromotionOutcome.NOT_VALIDATED: "not memory yet: the words do not say it clearly enough",
        PromotionOutcome.NOT_ATTEMPTED: "not tried: it was settled before",
    }
)

# Why a claim is still a candidate, and what the person can do about it.
VERDICT_WORDS: Mapping[str, str] = MappingProxyType(
    {
        Verdict.INSUFFICIENT: "what was said does not yet show it",
        Verdict.CONTRADICTED: "what was said speaks against it",
        Verdict.ENTAILED: "what was said shows it; it waits for more support",
    }
)

RUN_STATUS_WORDS: Mapping[str, str] = MappingProxyType(
    {"running": "running", "completed": "finished", "error": "failed", "interrupted": "interrupted"}
)

# What became of a claim the person answered for, after "Recorded: “…”".
CLAIM_STATUS_WORDS: Mapping[str, str] = MappingProxyType(
    {
        ClaimStatus.PROMOTED: "it is memory now",
        ClaimStatus.REJECTED: "dropped",
        ClaimStatus.DISPUTED: "still disputed: a question is open",
        ClaimStatus.CANDIDATE: "not memory yet: what was said does not show it",
        ClaimStatus.VALIDATED: "not memory yet: it needs more support",
        ClaimStatus.SUPERSEDED: "replaced by a later statement",
    }
)

# Who wrote a dream: Reverie's own finders by what they look for, a host by the name it gave.
_FINDERS = {
    "links": "Reverie's link finder",
    "themes": "Reverie's theme finder",
    "duplicates": "Reverie's duplicate finder",
    "contradictions": "Reverie's contradiction finder",
}
_HOSTS = {"host": "your assistant", "host-model": "your assistant's model"}


def writer_words(generator: str) -> str:
    """ "host:Claude" reads "your assistant (Claude)"; "themes-v1" reads "Reverie's theme finder"."""
    host, colon, name = generator.partition(":")
    if colon and host in _HOSTS:
        return f"{_HOSTS[host]} ({name})"
    return _FINDERS.get(generator.rsplit("-v", 1)[0], generator)


# The dreams list's filters that are not one status.
QUEUE_WORDS: Mapping[str, str] = MappingProxyType({"open": "to answer", "all": "all"})

# What a memory is, as a dream or a search shows it.
MEMORY_KIND_WORDS: Mapping[str, str] = MappingProxyType(
    {"fragment": "what was said", "claim": "a statement", "fact": "a fact", "forgotten": "forgotten"}
)
# How a search found a memory.
LANE_WORDS: Mapping[str, str] = MappingProxyType(
    {"lexical": "its words", "semantic": "its meaning", "date": "its date", "context": "the conversation"}
)

# Every mapping above, under the name the templates read it by.
PAGE_WORDS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "outcome_words": OUTCOME_WORDS,
        "verdict_words": VERDICT_WORDS,
        "run_status_words": RUN_STATUS_WORDS,
        "queue_words": QUEUE_WORDS,
        "memory_kind_words": MEMORY_KIND_WORDS,
        "lane_words": LANE_WORDS,
    }
)
