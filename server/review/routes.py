"""The review page's handlers: as thin as the MCP tools, and calling the same graph functions.

Each handler validates its form or query, resolves the profile from the signed-in session, calls
`graph/` and renders a template. Sign-in, forgery checks and error pages are applied once, by
`guarded`, to every handler.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field, ValidationError
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.templating import Jinja2Templates

from graph.access import ProfileGraph
from graph.clock import utcnow
from graph.dreams import memory_writes, review
from graph.dreams.cycle import CycleRequest, ProgressFn, run_cycle
from graph.dreams.models import MAX_FEEDBACK_CHARS, DreamKind, DreamStatus, FeedbackDecision
from graph.dreams.runs import recent_runs
from graph.errors import ReverieError, validation_problems
from graph.forgetting.cascade import MAX_REASON_CHARS, forget
from graph.forgetting.models import ForgetResult
from graph.memory.models import ClaimInput
from graph.memory.predicates import PREDICATE_RULES, in_words, statement_in_words
from graph.memory.reflect import reflect
from graph.recall.request import MAX_QUERY_CHARS, RecallRequest
from graph.recall.search import recall
from scheduler.timing import next_run
from server.context import AppContext, LiveApp
from server.errors import logged_internal_error
from server.models import unattended_generator
from server.review.charts import CHART_HEIGHT, CHART_STATUSES, chart_width, dream_picture, night_bars
from server.review.cycles import ManualCycles
from server.review.sessions import SESSION_COOKIE, ReviewSession, SessionStore
from server.review.throttle import SignInThrottle
from server.review.words import CLAIM_STATUS_WORDS, PAGE_WORDS, writer_words

log = logging.getLogger(__name__)

ROOT = "/review"
_HERE = Path(__file__).parent
_TEMPLATES = Jinja2Templates(directory=_HERE / "templates")
# The inputs' maxlength, from the limits the server applies, so the page never takes text it refuses.
_TEMPLATES.env.globals["limits"] = {
    "query": MAX_QUERY_CHARS,
    "feedback": MAX_FEEDBACK_CHARS,
    "reason": MAX_REASON_CHARS,
}
_TEMPLATES.env.globals.update(PAGE_WORDS)
_TEMPLATES.env.filters.update(
    predicate_words=in_words,
    statement_words=statement_in_words,
    writer_words=writer_words,
    dream_picture=dream_picture,
)
_STYLESHEET = (_HERE / "static" / "review.css").read_text(encoding="utf-8")
# Everything the page needs is served from here; nothing loads from elsewhere, no inline script.


def same_origin_csp(form_target: str | None = None) -> str:
    """The page's Content-Security-Policy; `form_target` is one more origin its forms may end at
    (the consent page's answer redirects to the connecting app)."""
    targets = f"'self' {form_target}" if form_target else "'self'"
    return (
        f"default-src 'self'; img-src 'self' data:; form-action {targets}; "
        "frame-ancestors 'none'; base-uri 'none'"
    )


_HEADERS = {
    "Content-Security-Policy": same_origin_csp(),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
QUEUES: dict[str, tuple[DreamStatus, ...]] = {
    "open": (DreamStatus.PROPOSED, DreamStatus.REINFORCED),
    "all": (),
    **{status.value: (status,) for status in DreamStatus},
}
KINDS: dict[str, tuple[DreamKind, ...]] = {kind.value: (kind,) for kind in DreamKind}
PAGE_SIZE = 10
# As the tools bound dream_id and claim_id.
MAX_ID_CHARS = 64
# Pending consent requests are named by `secrets.token_urlsafe(32)`.
_REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
FORGED = "This form did not come from this page; nothing was changed."
READ_ONLY = (
    "This token can read only; reviewing changes memory and needs a token with the 'write' scope "
    "(`reverie token create --scopes read,write`)."
)

# The subject that is the person themself, as claims name them.
PERSON = "user"
STATEMENT_TOGETHER = (
    "To confirm a statement, give who it is about, the relation and what together (for instance "
    "user · likes · Saramago novels), or leave the relation and what empty to answer without one."
)

# The statement form's choices, in the order a person reads them.
_PREDICATES = sorted(PREDICATE_RULES, key=in_words)
_TEMPLATES.env.globals["person"] = PERSON

Handler = Callable[[Request, ReviewSession], Awaitable[Response]]


class FeedbackForm(BaseModel):
    decision: FeedbackDecision
    feedback: str | None = Field(default=None, max_length=MAX_FEEDBACK_CHARS)
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None

    def claims(self) -> list[ClaimInput]:
        """The statement the person confirmed, in their own hand, so both confidences are full.
        The subject comes filled in as the person ("user"), so it alone states nothing."""
        subject = self.subject or PERSON
        if not (self.predicate or self.object):
            if subject != PERSON:
                raise _FormError(STATEMENT_TOGETHER)
            return []
        if not (self.predicate and self.object):
            raise _FormError(STATEMENT_TOGETHER)
        return [
            ClaimInput(
                subject=subject,
                predicate=self.predicate,
                object=self.object,
                extract_conf=1.0,
                resolution_conf=1.0,
            )
        ]


class ConfirmForm(BaseModel):
    decision: Literal["accept_claim", "keep_existing", "reject_claim"]


class ForgetForm(BaseModel):
    reason: str | None = Field(default=None, max_length=MAX_REASON_CHARS)


class _FormError(ReverieError):
    """A form the page cannot act on; shown to the person as is."""


def _fields(form: FormData) -> dict[str, str]:
    """The form's text fields, with empty inputs read as absent."""
    return {key: value for key, value in form.items() if isinstance(value, str) and value.strip()}


@dataclass
class ReviewPage:
    live: LiveApp
    sessions: SessionStore
    cycles: ManualCycles
    throttle: SignInThrottle = field(default_factory=SignInThrottle)
    # The https origin people use behind a reverse proxy (REVERIE_PUBLIC_URL), which the request
    # itself, arriving over plain http from the proxy, does not show.
    public_origin: str | None = None

    # --- rendering ------------------------------------------------------------------------

    def render(
        self,
        request: Request,
        template: str,
        session: ReviewSession | None,
        status_code: int = 200,
        **values: Any,
    ) -> Response:
        notice = session.notice if session else None
        context = {"root": ROOT, "session": session, "notice": notice, **values}
        response = _TEMPLATES.TemplateResponse(request, template, context, status_code=status_code)
        response.headers.update(_HEADERS)
        return response

    def refuse(
        self, request: Request, message: str, status_code: int, session: ReviewSession | None
    ) -> Response:
        return self.render(request, "problem.html", session, status_code=status_code, message=message)

    async def back_to(self, path: str, session: ReviewSession, notice: str | None = None) -> Response:
        if notice:
            await self.sessions.leave_notice(session, notice)
        return RedirectResponse(ROOT + path, status_code=303)

    async def graph(self, session: ReviewSession) -> tuple[AppContext, ProfileGraph]:
        app = self.live.get()
        return app, await app.graph_of(session.profile)

    # --- sign-in, forgery and errors, for every handler ------------------------------------

    def guarded(self, handler: Handler, *, write: bool) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            session = await self.sessions.find(request.cookies.get(SESSION_COOKIE))
            if session is not None:
                # Shown on this page (whatever it is) and so taken now, once.
                await self.sessions.take_notice(session)
            if session is None:
                if request.method == "GET":
                    return RedirectResponse(f"{ROOT}/login", status_code=303)
                return self.refuse(
                    request, "You are not signed in (or your session ended); sign in again.", 401, None
                )
            if request.method == "POST":
                form = await request.form()
                if not self.same_origin(request) or not session.accepts(str(form.get("csrf_token", ""))):
                    return self.refuse(request, FORGED, 403, session)
            if write and not session.can_write:
                return self.refuse(request, READ_ONLY, 403, session)
            try:
                return await handler(request, session)
            except ValidationError as error:
                return self.refuse(
                    request, f"The form is not valid: {validation_problems(error)}", 400, session
                )
            except ReverieError as error:
                return self.refuse(request, str(error), 400, session)
            except Exception:
                return self.refuse(
                    request, logged_internal_error(f"Review page {request.url.path}"), 500, session
                )

        return endpoint

    # --- sign-in --------------------------------------------------------------------------

    async def sign_in_form(self, request: Request) -> Response:
        return self.render(request, "login.html", None, connect=_connect_of(request.query_params))

    def same_origin(self, request: Request) -> bool:
        """False for a form posted from another site; browsers always send Origin on such posts."""
        origin = request.headers.get("origin")
        return origin is None or origin in (
            f"{request.url.scheme}://{request.url.netloc}",
            self.public_origin,
        )

    async def sign_in(self, request: Request) -> Response:
        if not self.same_origin(request):
            return self.refuse(request, FORGED, 403, None)
        address = request.client.host if request.client else "unknown"
        wait_s = self.throttle.wait_s(address)
        if wait_s:
            refused = self.refuse(request, f"Too many wrong tokens; try again in {wait_s} s.", 429, None)
            refused.headers["Retry-After"] = str(wait_s)
            return refused
        form = await request.form()
        session = await self.sessions.sign_in(str(form.get("token", "")))
        if session is None:
            self.throttle.failed(address)
            # The same words whatever was wrong, so a guess learns nothing about which profiles exist.
            return self.render(
                request, "login.html", None, status_code=401, failed=True, connect=_connect_of(form)
            )
        # Back to the consent page the person came from, rebuilt from the request id alone, so
        # the form cannot send the browser anywhere else.
        connect = _connect_of(form)
        target = f"{ROOT}/connect?{urlencode({'request': connect})}" if connect else ROOT
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(
            SESSION_COOKIE,
            session.id,
            max_age=int(self.sessions.lifetime.total_seconds()),
            path=ROOT,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https" or (self.public_origin or "").startswith("https:"),
        )
        return response

    async def sign_out(self, request: Request, session: ReviewSession) -> Response:
        await self.sessions.sign_out(session)
        response = RedirectResponse(f"{ROOT}/login", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path=ROOT)
        return response

    # --- dreams ---------------------------------------------------------------------------

    async def dreams(self, request: Request, session: ReviewSession) -> Response:
        queue = request.query_params.get("status", "open")
        if queue not in QUEUES:
            raise _FormError(f"status must be one of: {', '.join(QUEUES)}.")
        kind = request.query_params.get("kind") or None
        if kind is not None and kind not in KINDS:
            raise _FormError(f"kind must be one of: {', '.join(KINDS)}.")
        app, graph = await self.graph(session)
        cursor = request.query_params.get("cursor") or None
        page = await review.list_dreams(graph, QUEUES[queue], PAGE_SIZE, cursor, KINDS[kind] if kind else ())
        state = await review.overview(graph, app.settings.dreaming_defaults())
        return self.render(
            request,
            "dreams.html",
            session,
            page=page,
            queue=queue,
            queues=list(QUEUES),
            counts=state.counts,
            kind=kind,
            kinds=list(KINDS),
        )

    async def dream(self, request: Request, session: ReviewSession) -> Response:
        _, graph = await self.graph(session)
        show_retracted = request.query_params.get("show_retracted") == "1"
        dream = await review.get_dream(graph, path_id(request, "dream_id"), show_retracted)
        return self.render(request, "dream.html", session, dream=dream, predicates=_PREDICATES)

    async def feedback(self, request: Request, session: ReviewSession) -> Response:
        form = FeedbackForm.model_validate(_fields(await request.form()))
        app, graph = await self.graph(session)
        result = await review.resolve_feedback(
            graph,
            path_id(request, "dream_id"),
            form.decision,
            form.feedback,
            claims=form.claims(),
            authority="primary",
            vectors=app.vectors,
        )
        return self.render(
            request,
            "dream.html",
            session,
            dream=result.dream,
            predicates=_PREDICATES,
            outcome=result,
        )

    # --- memory ---------------------------------------------------------------------------

    async def memory(self, request: Request, session: ReviewSession) -> Response:
        app, graph = await self.graph(session)
        query = request.query_params.get("q", "").strip()
        found = None
        if query:
            await app.recall_planned()
            found = await recall(graph, RecallRequest(query=query), vectors=app.vectors)
        health = await reflect(graph, limit=20)
        return self.render(request, "memory.html", session, query=query, found=found, health=health)

    async def confirm(self, request: Request, session: ReviewSession) -> Response:
        form = ConfirmForm.model_validate(_fields(await request.form()))
        app, graph = await self.graph(session)
        result = await memory_writes.confirm(graph, path_id(request, "claim_id"), form.decision, app.vectors)
        claim = result.claim
        return await self.back_to(
            "/memory",
            session,
            f"Recorded: “{statement_in_words(claim.subject, claim.predicate, claim.object)}”: "
            f"{CLAIM_STATUS_WORDS[claim.status]}.",
        )

    async def forget(self, request: Request, session: ReviewSession) -> Response:
        form = ForgetForm.model_validate(_fields(await request.form()))
        app, graph = await self.graph(session)
        result = await forget(graph, [path_id(request, "memory_id")], form.reason, embedder=app.embedder)
        return await self.back_to("/memory", session, _forget_notice(result))

    # --- runs -----------------------------------------------------------------------------

    async def runs(self, request: Request, session: ReviewSession) -> Response:
        # The cycle's progress is read before the runs: a page that says the cycle finished then
        # always shows its run and dreams (read the other way, a cycle ending in between was
        # announced beside a chart without it).
        progress = self.cycles.look(session.profile)
        app, graph = await self.graph(session)
        state = await review.overview(graph, app.settings.dreaming_defaults(), app.scheduler_kind)
        runs = (await recent_runs(graph)).runs
        bars = night_bars(runs, state.config.timezone)
        return self.render(
            request,
            "runs.html",
            session,
            runs=runs,
            config=state.config,
            next_run=next_run(utcnow(), state.config),
            next_night=state.next_night,
            progress=progress,
            bars=bars,
            zone=ZoneInfo(state.config.timezone),
            chart_width=chart_width(bars),
            chart_height=CHART_HEIGHT,
            chart_statuses=CHART_STATUSES,
        )

    async def start_cycle(self, request: Request, session: ReviewSession) -> Response:
        if self.cycles.running(session.profile):
            return await self.back_to("/runs", session, "A cycle started here is still running.")
        app, graph = await self.graph(session)
        defaults = app.settings.dreaming_defaults()

        async def cycle(progress: ProgressFn) -> object:
            return await run_cycle(
                graph,
                defaults,
                CycleRequest(trigger="manual"),
                generator=unattended_generator(app.settings, app.endpoint),
                progress=progress,
                vectors=app.vectors,
                lease=app.settings.cycle_lease(),
            )

        self.cycles.start(session.profile, cycle)
        return await self.back_to("/runs", session)

    async def stylesheet(self, request: Request) -> Response:
        return Response(_STYLESHEET, media_type="text/css", headers={"Cache-Control": "max-age=3600"})

    # --- the routing table ------------------------------------------------------------------

    def endpoints(self) -> list[tuple[str, list[str], Callable[[Request], Awaitable[Response]]]]:
        guarded = self.guarded
        return [
            (f"{ROOT}/login", ["GET"], self.sign_in_form),
            (f"{ROOT}/login", ["POST"], self.sign_in),
            (f"{ROOT}/static/review.css", ["GET"], self.stylesheet),
            (f"{ROOT}/logout", ["POST"], guarded(self.sign_out, write=False)),
            (ROOT, ["GET"], guarded(self.dreams, write=False)),
            (f"{ROOT}/dreams/{{dream_id}}", ["GET"], guarded(self.dream, write=False)),
            (f"{ROOT}/dreams/{{dream_id}}/feedback", ["POST"], guarded(self.feedback, write=True)),
            (f"{ROOT}/memory", ["GET"], guarded(self.memory, write=False)),
            (f"{ROOT}/claims/{{claim_id}}/confirm", ["POST"], guarded(self.confirm, write=True)),
            (f"{ROOT}/memory/{{memory_id}}/forget", ["POST"], guarded(self.forget, write=True)),
            (f"{ROOT}/runs", ["GET"], guarded(self.runs, write=False)),
            (f"{ROOT}/runs", ["POST"], guarded(self.start_cycle, write=True)),
        ]


def _forget_notice(result: ForgetResult) -> str:
    parts = [f"Forgotten for good, with {len(result.cascaded)} more that held only its words"]
    if result.dreams_erased:
        parts.append(f"{len(result.dreams_erased)} dream(s) that cited it lost their texts")
    if result.still_said_in:
        parts.append(f"{len(result.still_said_in)} fragment(s) still say it: search again to forget them")
    return "; ".join(parts) + "."


def path_id(request: Request, name: str) -> str:
    """An id from the address; ids are short, so a long one is refused without echoing it."""
    value = str(request.path_params[name])
    if len(value) > MAX_ID_CHARS:
        raise _FormError(f"That address holds no {name.removesuffix('_id')} id of this profile.")
    return value


def _connect_of(fields: Mapping[str, Any]) -> str | None:
    """The consent request a sign-in continues to: an id of the shape this server makes, or None."""
    value = fields.get("connect")
    return value if isinstance(value, str) and _REQUEST_ID.fullmatch(value) else None
