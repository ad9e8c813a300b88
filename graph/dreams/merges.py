"""A duplicate's merge: what promoting it retracts, and how the person takes that back.

Promoting a duplicate keeps one of its two fragments and retracts the other through memory's
retraction (`retired_of` says which). Before anything is written, the two texts are read again
by `graph/dreams/same_meaning.py`: a dream proposed before that rule (or by a finder that missed
a difference) must not retract a memory that means something else, so such a promotion is
refused and changes nothing.

The merge then waits for the person, its retraction's record kept on the dream:
- `keep_merged` confirms it. That is final: no undo after, and the record goes.
- `undo_merge` puts back exactly what the retraction changed (`restore_fragment_in`): the
  fragment active again as it was, and each claim that lost its only support with it as it was,
  with its facts, unless that claim has moved since. The dream becomes rejected: the two are not
  one memory.
Either is recorded in the dream's history like any answer. Forgetting either memory erases the
dream's words and its merge's record with them, so a forgotten memory cannot come back this way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graph.access import ProfileTx
from graph.dreams import merge_queries as q
from graph.dreams.models import FeedbackDecision, MergeSettlement, MergeState, PromotionReport, PromotionStage
from graph.dreams.records import RETRACTION_JSON, CitedFragment, LockedDream
from graph.dreams.same_meaning import meaning_difference
from graph.errors import InvalidInputError, NotFoundError
from graph.memory.records import FragmentRetraction
from graph.memory.retraction import restore_fragment_in, retract_fragment_in


@dataclass(frozen=True)
class Merge:
    """Of a duplicate's two live fragments, the one kept and the one to retract."""

    kept: CitedFragment
    retired: CitedFragment


def retired_of(fragments: Sequence[CitedFragment]) -> CitedFragment:
    """Of two fragments that say the same thing, the one to retract: the earlier, unless only it
    supports claims (retracting it would take their support away)."""
    earlier, later = sorted(fragments, key=lambda fragment: (fragment.at, fragment.id))
    return later if earlier.supports and not later.supports else earlier


def planned_merge(dream_id: str, fragments: Sequence[CitedFragment]) -> Merge:
    """What promoting the duplicate `dream_id` would merge, or InvalidInputError when it must not:
    one of the two is gone, or they do not mean the same thing."""
    if len(fragments) != 2:
        raise InvalidInputError(
            "this duplicate no longer has two live memories to merge (one was retracted or forgotten); "
            "mark it stale instead. Nothing was changed."
        )
    difference = meaning_difference(fragments[0].text, fragments[1].text)
    if difference is not None:
        raise InvalidInputError(
            f"dream {dream_id} is no duplicate: the two memories do not say the same thing "
            f"({difference.describe()}), and promoting it would retract one of them. Reject it instead. "
            "Nothing was changed."
        )
    retired = retired_of(fragments)
    return Merge(next(fragment for fragment in fragments if fragment is not retired), retired)


async def merge_in(
    tx: ProfileTx, dream_id: str, merge: Merge, at: datetime, promotion: PromotionReport
) -> PromotionReport:
    """The person confirmed a duplicate: its retired fragment is retracted, in the verdict's
    transaction, through the ordinary retraction, and the merge waits for them to keep or undo it."""
    kept, retired = merge.kept.id, merge.retired.id
    reason = f"said again in {kept}; merged when the person confirmed dream {dream_id}"
    retraction = await retract_fragment_in(tx, retired, reason, at)
    if retraction is None:
        raise NotFoundError("fragment", retired)
    await tx.run(
        q.RECORD_MERGE,
        id=dream_id,
        state=MergeState.PENDING.value,
        retracted_id=retired,
        kept_id=kept,
        undo=RETRACTION_JSON.dump_json(retraction).decode(),
    )
    return promotion.model_copy(
        update={
            "outcome": PromotionStage.MERGED,
            "retracted_id": retired,
            "message": f"Kept {kept} and retracted {retired}, which said the same thing; its words stay on "
            "record until the person forgets them. Until the person keeps the merge (keep_merged), "
            f"undo_merge puts {retired} back as it was.",
        }
    )


async def settle_in(
    tx: ProfileTx, dream_id: str, locked: LockedDream, decision: FeedbackDecision, now: datetime
) -> MergeSettlement:
    """Keep or undo the pending merge of the promoted duplicate `dream_id`."""
    if locked.merge_state is not MergeState.PENDING or locked.retraction is None:
        state = locked.merge_state
        why = f"its merge was {state.value} already" if state else "it merged nothing"
        raise InvalidInputError(
            f"dream {dream_id} has no merge waiting for the person: {why}. Nothing was changed."
        )
    retracted = locked.retraction.fragment_id
    if decision is FeedbackDecision.KEEP_MERGED:
        state, restored = MergeState.KEPT, []
        message = f"The merge is kept: {retracted} stays retracted, and the merge can no longer be undone."
    else:
        state, restored = MergeState.UNDONE, await restore_fragment_in(tx, locked.retraction, now)
        message = _undone(locked.retraction, restored)
    await tx.run(q.SETTLE_MERGE, id=dream_id, state=state.value)
    return MergeSettlement(state=state, restored_claim_ids=restored, message=message)


def _undone(retraction: FragmentRetraction, restored: Sequence[str]) -> str:
    message = f"{retraction.fragment_id} is active again, as it was before the merge"
    lost = [claim.claim_id for claim in retraction.lost]
    if lost:
        message += f"; claims it alone supported put back as they were: {', '.join(restored) or 'none'}"
    moved = [claim_id for claim_id in lost if claim_id not in restored]
    if moved:
        message += f"; left as they are now, having changed since: {', '.join(moved)}"
    return message + "."
