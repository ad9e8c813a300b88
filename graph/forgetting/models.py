"""What forgetting reports back."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Literal

from pydantic import Field

from graph.base import Frozen

ForgettableKind = Literal["fragment", "claim", "fact"]


class TombstoneStatus(StrEnum):
    """The status a tombstone reports where a memory's status is read (a dream's sources)."""

    FORGOTTEN = "forgotten"


class ForgottenItem(Frozen):
    id: str
    kind: ForgettableKind
    already_forgotten: bool = Field(description="It was forgotten before; nothing changed for it")


class ForgetResult(Frozen):
    forgotten: list[ForgottenItem] = Field(description="The memories asked for")
    cascaded: list[ForgottenItem] = Field(
        description="Claims, facts and dream confirmations that held only the same words, forgotten with them"
    )
    dreams_erased: list[str] = Field(description="Dreams that cited them: texts erased, open ones now stale")
    claims_losing_support: list[str] = Field(description="Surviving claims left with no active support")
    facts_needing_revalidation: list[str]
    claims_no_longer_disputed: list[str] = Field(
        description="Claims whose only open question was about a forgotten memory: candidates again"
    )
    still_said_in: list[str] = Field(
        description="Fragments still stating a forgotten claim or fact; forget them too to erase the words"
    )


class ProfileCounts(Frozen):
    """How much a profile holds, by kind."""

    fragments: int
    claims: int
    facts: int
    clarifications: int
    dreams: int
    runs: int
    forgotten: int = Field(description="Tombstones of forgotten memories")
    nodes: int = Field(description="Every node of the profile, the kinds above and their parts")

    @classmethod
    def from_labels(cls, counts: Mapping[str, int]) -> ProfileCounts:
        return cls(
            fragments=counts["SourceFragment"],
            claims=counts["Claim"],
            facts=counts["Fact"],
            clarifications=counts["Clarification"],
            dreams=counts["Dream"],
            runs=counts["DreamRun"],
            forgotten=counts["Forgotten"],
            nodes=sum(counts.values()),
        )


class ProfileSummary(Frozen):
    profile_id: str
    counts: ProfileCounts
