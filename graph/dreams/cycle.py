"""The dreaming cycle: reflect, re_evaluate, dream, always in that order.

A cycle first takes the profile's lock in Neo4j (a short lease its heartbeat renews, see
`lease.py`) and writes its DreamRun as running; each phase then commits on its own, and the run
is completed, marked error with the failing phase, or interrupted when cancelled. That last
write is shielded from cancellation; a crash leaves a running run whose lease lapses within one
lease length (a minute unless configured), which the next cycle marks interrupted.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import anyio
from neo4j.exceptions import ConstraintError

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.dreams import queries as q
from graph.dreams import reevaluation_queries as reevaluation
from graph.dreams.candidates import FINDING_PATIENCE
from graph.dreams.config import MAX_OUTPUTS_LIMIT, DreamingConfig, effective_config
from graph.dreams.confirmations import promote_taken
from graph.dreams.generator import DreamGenerator, LinkGenerator, Proposal
from graph.dreams.lease import ABANDONED, DEFAULT_LEASE, CycleLease, keep_lease
from graph.dreams.lifecycle import TRANSITIONS
from graph.dreams.models import DreamDraft, DreamRun, DreamStatus, Phase, PhaseReport, RunStatus, Trigger
from graph.dreams.night import find_all, propose_night
from graph.dreams.records import CycleLock, OpenDream
from graph.dreams.store import NewDream, create_dream, pairs_taken_each
from graph.embedding.keeper import VectorKeeper
from graph.embedding.kinds import EmbeddedKind
from graph.embedding.store import embed_missing
from graph.errors import AlreadyDreamedError, InvalidInputError, ReverieError
from graph.memory.reflect import count_health
from graph.rows import id_of
from graph.schema import GRAPH_FORMAT
from graph.words_gate import pass_words_gate

log = logging.getLogger(__name__)

# The run's closing write gets this long even when the cycle is being cancelled.
FINISH_WRITE_S = 10
STOPPED = "the cycle stopped before it completed (cancelled, or the graph became unreachable)"
REEVALUATE_BATCH = 200
ProgressFn = Callable[[float, float, str], Awaitable[None]]
DEFAULT_GENERATOR: DreamGenerator = LinkGenerator()


@dataclass(frozen=True)
class CycleRequest:
    trigger: Trigger = "manual"
    reflect_enabled: bool | None = None
    reevaluate_enabled: bool | None = None
    dream_enabled: bool | None = None
    max_outputs: int | None = None
    dry_run: bool = False
    late: bool = False
    # The local date a scheduled run stands for; the graph holds at most one run per such date.
    scheduled_date: str | None = None


@dataclass(frozen=True)
class CyclePlan:
    run_id: str | None
    phases: dict[Phase, bool]
    max_outputs: int
    run_date: str
    started_at: datetime
    lease: CycleLease = DEFAULT_LEASE


def plan_cycle(request: CycleRequest, config: DreamingConfig, now: datetime) -> CyclePlan:
    """Which phases run, how many dreams at most, and the local date the run stands for."""
    max_outputs = request.max_outputs if request.max_outputs is not None else config.max_outputs
    if not 1 <= max_outputs <= MAX_OUTPUTS_LIMIT:
        raise InvalidInputError(f"max_outputs must be 1 to {MAX_OUTPUTS_LIMIT}.")

    def pick(override: bool | None, configured: bool) -> bool:
        return configured if override is None else override

    phases: dict[Phase, bool] = {
        "reflect": pick(request.reflect_enabled, config.reflect_enabled),
        "re_evaluate": pick(request.reevaluate_enabled, config.reevaluate_enabled),
        "dream": pick(request.dream_enabled, config.dream_enabled),
    }
    run_date = request.scheduled_date or now.astimezone(ZoneInfo(config.timezone)).date().isoformat()
    return CyclePlan(None, phases, max_outputs, run_date, now)


async def _claim_lock(tx: ProfileTx, plan: CyclePlan, request: CycleRequest) -> None:
    lock = CycleLock.from_row(
        await tx.one(q.CLAIM_CYCLE_LOCK, now=plan.started_at, abandoned=ABANDONED, graph_format=GRAPH_FORMAT)
    )
    lock.ensure_free(plan.started_at)
    await _refuse_a_second_scheduled_run(tx, request.scheduled_date)
    await tx.run(
        q.CREATE_RUN,
        id=plan.run_id,
        trigger=request.trigger,
        run_date=plan.run_date,
        now=plan.started_at,
        lease=plan.lease.from_moment(plan.started_at),
        late=request.late,
        scheduled_date=request.scheduled_date,
    )


async def _refuse_a_second_scheduled_run(tx: ProfileTx, scheduled_date: str | None) -> None:
    """AlreadyDreamedError when a run is recorded for `scheduled_date` (None: not a scheduled run)."""
    if scheduled_date is None:
        return
    done = await tx.single(q.SCHEDULED_RUN_ON, scheduled_date=scheduled_date)
    if done is not None:
        raise AlreadyDreamedError(id_of(done), scheduled_date)


async def _claim(graph: ProfileGraph, plan: CyclePlan, request: CycleRequest) -> None:
    try:
        await graph.write(_claim_lock, plan, request)
    except ConstraintError:
        # Trigger: another process recorded this scheduled date between this claim's check and
        # its write; the unique constraint on the date decided the race. Why: outside graph/ no
        # caller sees the driver's errors. Outcome: the check again, now naming the run that won.
        await graph.read(_refuse_a_second_scheduled_run, request.scheduled_date)
        raise


async def _reflect(tx: ProfileTx) -> dict[str, int]:
    return (await count_health(tx, cutoff=None)).model_dump()


@dataclass(frozen=True)
class Evaluation:
    """What re-evaluation makes of one open dream: its status, and when that changes, why: for the
    host (`stale_reason`, with ids), for a person (`history`), and the sources that moved it."""

    status: DreamStatus
    stale_reason: str | None = None
    history: str | None = None
    evidence: tuple[tuple[str, str], ...] = ()  # (memory id, what became of it)

    def update(self, dream_id: str) -> dict[str, Any]:
        """This dream's row of `APPLY_EVALUATIONS`."""
        return {
            "id": dream_id,
            "status": self.status.value,
            "reason": self.stale_reason,
            "history": self.history,
            "evidence_ids": [memory_id for memory_id, _ in self.evidence],
            "evidence_changes": [change for _, change in self.evidence],
        }


def evaluate_dream(dream: OpenDream) -> Evaluation:
    """Stale once any source is no longer active or gone, saying which; else it stays as it is.
    Only the person reinforces a dream: a night that merely found its sources intact has learnt
    nothing to reinforce it with. Memories said since that bear on a dream are not looked for:
    a dream changes only for what became of its own sources."""
    evidence = tuple((source_id, status) for source_id, status in dream.sources if status != "active")
    gone = [f"{source_id} is {status}" for source_id, status in evidence]
    missing = dream.source_count - len(dream.sources)
    if missing > 0:
        gone.append(f"{missing} source(s) deleted")
    if not gone:
        return Evaluation(dream.status)
    changes = sorted({status for _, status in evidence} | ({"deleted"} if missing > 0 else set()))
    count = len(evidence) + max(missing, 0)
    history = (
        f"{'a memory it cites was' if count == 1 else f'{count} memories it cites were'} "
        f"{' or '.join(changes)}"
    )
    return Evaluation(DreamStatus.STALE, "sources no longer active: " + "; ".join(gone), history, evidence)


async def _reevaluate_batch(
    tx: ProfileTx, after: str, now: datetime, apply: bool
) -> tuple[list[str], dict[str, int]]:
    dreams = [
        OpenDream.from_row(row)
        for row in await tx.run(reevaluation.OPEN_DREAMS_BATCH, after=after, batch=REEVALUATE_BATCH)
    ]
    counts = {"evaluated": len(dreams), "went_stale": 0}
    updates = []
    for dream in dreams:
        evaluation = evaluate_dream(dream)
        assert evaluation.status in TRANSITIONS[dream.status] or evaluation.status is dream.status
        counts["went_stale"] += evaluation.status is DreamStatus.STALE
        updates.append(evaluation.update(dream.id))
    if apply and updates:
        await tx.run(reevaluation.APPLY_EVALUATIONS, updates=updates, now=now)
    return [dream.id for dream in dreams], counts


async def _reevaluate(graph: ProfileGraph, now: datetime, apply: bool) -> dict[str, int]:
    """Bounded batches, each its own transaction, so a large backlog never holds one huge one.
    Confirmed dreams whose confirmation became memory since are promoted (`became_memory`)."""
    totals = {"evaluated": 0, "went_stale": 0}
    after = ""
    while True:
        run_in = graph.write if apply else graph.read
        ids, counts = await run_in(_reevaluate_batch, after, now, apply)
        for key, value in counts.items():
            totals[key] += value
        if len(ids) < REEVALUATE_BATCH:
            return totals | {"became_memory": await promote_taken(graph, now, apply)}
        after = ids[-1]


def _dream_fields(draft: DreamDraft) -> dict[str, Any]:
    # Sources and earlier dreams become edges and pair_key is the MERGE key; the rest is stored.
    return {
        **draft.model_dump(mode="json", exclude={"source_ids", "pair_key", "builds_on", "statement"}),
        "statement": draft.statement.model_dump_json() if draft.statement else None,
        "text": f"{draft.hypothesis} {draft.what_if}",
        "source_count": len(draft.source_ids),
    }


async def _draft_dreams(
    graph: ProfileGraph, plan: CyclePlan, generator: DreamGenerator, model: str | None
) -> Proposal:
    findings = await graph.patient(FINDING_PATIENCE).read(find_all, plan.max_outputs, plan.started_at, model)
    # Outside the transaction: a generator may take its time (or call a model).
    return await propose_night(findings, generator, plan.max_outputs)


async def _store_dreams(tx: ProfileTx, plan: CyclePlan, drafts: list[DreamDraft]) -> list[str]:
    """The drafts still true to memory: the cycle drafted them outside any transaction, and a
    source forgotten meanwhile drops its draft here, never its words into a dream; so does a
    pair a host dreamed or judged empty meanwhile (a theme that grows an earlier dream may cite
    that dream's pairs again)."""
    await pass_words_gate(tx)
    created = []
    # Checked all at once, before any is written: two of a night's drafts share one memory at
    # most (`night.propose_night`), so writing one cannot take another's pair.
    checks = await pairs_taken_each(tx, [draft.source_ids for draft in drafts])
    for draft, taken in zip(drafts, checks, strict=True):
        if taken.empty_pair or (taken.dream_id and not draft.builds_on):
            continue
        dream = NewDream(
            str(uuid.uuid4()), _dream_fields(draft), draft.source_ids, draft.builds_on, plan.run_id
        )
        dream_id = await create_dream(tx, dream, plan.started_at)
        if dream_id is not None:
            created.append(dream_id)
    return created


class _Runner:
    """Runs the enabled phases in order and keeps the DreamRun record current."""

    def __init__(
        self,
        graph: ProfileGraph,
        plan: CyclePlan,
        generator: DreamGenerator,
        progress: ProgressFn | None,
        vectors: VectorKeeper | None,
    ):
        self.graph, self.plan, self.generator, self.progress = graph, plan, generator, progress
        self.vectors = vectors
        self.reports: list[PhaseReport] = []
        self.drafts: list[DreamDraft] = []

    @property
    def dry(self) -> bool:
        return self.plan.run_id is None

    async def phase(self, name: Phase) -> dict[str, Any]:
        if name == "reflect":
            return {"counts": await self.graph.read(_reflect)}
        if name == "re_evaluate":
            return {"counts": await _reevaluate(self.graph, self.plan.started_at, apply=not self.dry)}
        model = None
        if self.vectors is not None:
            model = self.vectors.embedder.model_id
            # Dreams link memories by their vectors: this process's latest writes must have theirs.
            await self.vectors.settled(self.graph)
        proposal = await _draft_dreams(self.graph, self.plan, self.generator, model)
        self.drafts = proposal.drafts
        ids = [] if self.dry else await self.graph.write(_store_dreams, self.plan, self.drafts)
        if ids and self.vectors is not None:
            # After the dreams' own transaction: the model never runs inside one.
            await embed_missing(self.graph, self.vectors.embedder, EmbeddedKind.DREAM)
        counts = {"new_dreams": len(self.drafts) if self.dry else len(ids), **proposal.counts}
        return {"counts": counts, "dream_ids": ids}

    async def run_all(self) -> str | None:
        for step, (name, enabled) in enumerate(self.plan.phases.items(), start=1):
            if not enabled:
                self.reports.append(PhaseReport(phase=name, ran=False))
                continue
            started = time.perf_counter()
            try:
                outcome = await self.phase(name)
            except Exception as error:
                # Trigger: a phase failed. Why: earlier phases already committed and must stay.
                # Outcome: the run records the phase and the error; later phases are skipped.
                self.reports.append(PhaseReport(phase=name, ran=True, error=type(error).__name__))
                return f"phase {name} failed: {self._explain(name, error)}"
            duration = int((time.perf_counter() - started) * 1000)
            self.reports.append(PhaseReport(phase=name, ran=True, duration_ms=duration, **outcome))
            await self._checkpoint()
            if self.progress is not None:
                await self.progress(step, len(self.plan.phases), f"{name} done")
        return None

    def _explain(self, name: Phase, error: Exception) -> str:
        """Reverie's own errors speak for themselves; anything else (driver text could hold
        Cypher or a person's words) is logged under a reference the message names."""
        if isinstance(error, ReverieError):
            log.warning("dreaming phase %s failed for profile %s: %s", name, self.graph.profile_id, error)
            return str(error)
        reference = uuid.uuid4().hex[:12]
        log.exception(
            "dreaming phase %s failed for profile %s (reference %s)", name, self.graph.profile_id, reference
        )
        return f"an internal error (reference {reference}); the server log has the details"

    async def _checkpoint(self) -> None:
        if self.dry:
            return
        phases = json.dumps([report.model_dump() for report in self.reports])
        lease = self.plan.lease.from_moment(utcnow())
        await self.graph.write(
            ProfileTx.run, q.SAVE_RUN_PROGRESS, id=self.plan.run_id, phases=phases, lease=lease
        )


async def run_cycle(
    graph: ProfileGraph,
    defaults: DreamingConfig,
    request: CycleRequest,
    generator: DreamGenerator = DEFAULT_GENERATOR,
    progress: ProgressFn | None = None,
    now: datetime | None = None,
    vectors: VectorKeeper | None = None,
    lease: CycleLease = DEFAULT_LEASE,
) -> DreamRun:
    """One cycle; with `vectors` (the running model), dreams link memories by meaning and get
    meaning vectors of their own like every memory. `lease` is how long its hold on the profile
    outlives its last renewal."""
    started = now or utcnow()
    # A cycle is work no host waits on: its transactions let interactive ones go first.
    graph = graph.in_background()
    config = await graph.read(effective_config, defaults)
    plan = plan_cycle(request, config, started)
    if not request.dry_run:
        plan = replace(plan, run_id=str(uuid.uuid4()), lease=lease)
        await _claim(graph, plan, request)
    runner = _Runner(graph, plan, generator, progress, vectors)
    status: RunStatus = "interrupted"
    error: str | None = STOPPED
    try:
        error = await _run_holding_lease(graph, plan, runner)
        status = "error" if error else "completed"
    finally:
        if not request.dry_run:
            await _record_end(graph, plan, runner.reports, status, error)
    return DreamRun(
        run_id=plan.run_id,
        trigger=request.trigger,
        run_date=plan.run_date,
        status=status,
        started_at=started,
        completed_at=utcnow(),
        late=request.late,
        phases=runner.reports,
        error=error,
        dry_run=request.dry_run,
        would_create=runner.drafts if request.dry_run else [],
    )


async def _run_holding_lease(graph: ProfileGraph, plan: CyclePlan, runner: _Runner) -> str | None:
    """The phases, with the lease renewed beside them for as long as they run."""
    if plan.run_id is None:
        async with graph.cycle_turn():
            return await runner.run_all()
    failure: Exception | None = None
    error: str | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(keep_lease, graph, plan.run_id, plan.lease)
        try:
            async with graph.cycle_turn():
                error = await runner.run_all()
        except Exception as raised:
            # Kept out of the task group, which would wrap it in an ExceptionGroup.
            failure = raised
        group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    return error


async def _record_end(
    graph: ProfileGraph, plan: CyclePlan, reports: list[PhaseReport], status: RunStatus, error: str | None
) -> None:
    """Close the run, even while the cycle is being cancelled; if the graph cannot be reached the
    run stays running and its lease lapses, so the next cycle closes it."""
    phases = json.dumps([report.model_dump() for report in reports])
    with anyio.move_on_after(FINISH_WRITE_S, shield=True):
        try:
            await graph.write(
                ProfileTx.run,
                q.FINISH_RUN,
                id=plan.run_id,
                status=status,
                now=utcnow(),
                phases=phases,
                error=error,
            )
        except (ReverieError, OSError) as failure:
            log.warning("could not record the end of run %s (%s); its lease will lapse", plan.run_id, failure)
