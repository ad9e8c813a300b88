"""The consent page and the connected apps, as part of the review page.

A connector's authorization request lands on /review/connect (`ConnectorProvider.authorize`
sends it there). The person signs in as on any page of the review page, sees the client's name,
where the browser goes back to and the scopes in words, and allows or denies; the answer is a
redirect to the client's registered redirect URI, never to an address the form names. The form
carries the session's CSRF token, and a request id that is not pending counts against the
address like a wrong token does at sign-in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from graph.connectors import grants
from server.connectors.provider import ConnectorProvider, PendingAuthorization
from server.connectors.scopes import IN_WORDS
from server.review.routes import ROOT, ReviewPage, path_id, same_origin_csp
from server.review.sessions import SESSION_COOKIE, ReviewSession

LAPSED = (
    "This connection request has lapsed (after 10 minutes) or was answered already; "
    "start again from the app you were connecting."
)


@dataclass
class ConsentPage:
    """Connected apps are listed and disconnected on every HTTP server; the consent page exists
    only where the server is an authorization server (REVERIE_PUBLIC_URL set)."""

    page: ReviewPage
    connectors: ConnectorProvider | None

    @property
    def provider(self) -> ConnectorProvider:
        if self.connectors is None:
            raise RuntimeError("The consent page is mounted only with a connector provider.")
        return self.connectors

    def _address(self, request: Request) -> str:
        return request.client.host if request.client else "unknown"

    async def _pending(self, request: Request, request_id: str) -> PendingAuthorization | Response:
        """The pending request, or the page that refuses it (throttled like a wrong token)."""
        address = self._address(request)
        wait_s = self.page.throttle.wait_s(address)
        if wait_s:
            refused = self.page.refuse(
                request, f"Too many unknown requests; try again in {wait_s} s.", 429, None
            )
            refused.headers["Retry-After"] = str(wait_s)
            return refused
        pending = await self.provider.pending(request_id)
        if pending is None:
            self.page.throttle.failed(address)
            return self.page.refuse(request, LAPSED, 400, None)
        return pending

    async def ask(self, request: Request) -> Response:
        request_id = request.query_params.get("request", "")
        session = await self.page.sessions.find(request.cookies.get(SESSION_COOKIE))
        if session is None:
            return RedirectResponse(f"{ROOT}/login?{urlencode({'connect': request_id})}", status_code=303)
        pending = await self._pending(request, request_id)
        if isinstance(pending, Response):
            return pending
        allowed = _allowed(session)
        response = self.page.render(
            request,
            "consent.html",
            session,
            pending=pending,
            request_id=request_id,
            profiles=[session.profile],
            scopes=[IN_WORDS[scope] for scope in pending.scopes if scope in allowed],
            read_only=not session.can_write and "write" in pending.scopes,
        )
        # The answer redirects to the client: the page's form-action must allow its origin,
        # or the browser stops the redirect after the post.
        response.headers["Content-Security-Policy"] = same_origin_csp(_origin(pending.redirect_uri))
        return response

    async def answer(self, request: Request, session: ReviewSession) -> Response:
        form = await request.form()
        request_id = str(form.get("request", ""))
        decision = form.get("decision")
        if form.get("profile") != session.profile or decision not in ("allow", "deny"):
            return self.page.refuse(request, "Choose a profile of yours and Allow or Deny.", 400, session)
        if decision == "allow":
            target = await self.provider.approve(request_id, session.profile, _allowed(session))
        else:
            target = await self.provider.deny(request_id)
        if target is None:
            self.page.throttle.failed(self._address(request))
            return self.page.refuse(request, LAPSED, 400, session)
        return RedirectResponse(target, status_code=303)

    async def connected(self, request: Request, session: ReviewSession) -> Response:
        _, graph = await self.page.graph(session)
        listed = await grants.list_grants(graph)
        return self.page.render(request, "connectors.html", session, grants=listed)

    async def disconnect(self, request: Request, session: ReviewSession) -> Response:
        _, graph = await self.page.graph(session)
        revoked = await grants.revoke_grant(graph, path_id(request, "grant_id"))
        notice = (
            "Disconnected; the app's tokens stop working now." if revoked else "That app was not connected."
        )
        return await self.page.back_to("/connectors", session, notice)

    def endpoints(self) -> list[tuple[str, list[str], Callable[[Request], Awaitable[Response]]]]:
        guarded = self.page.guarded
        listed = [
            (f"{ROOT}/connectors", ["GET"], guarded(self.connected, write=False)),
            (f"{ROOT}/connectors/{{grant_id}}/revoke", ["POST"], guarded(self.disconnect, write=True)),
        ]
        if self.connectors is None:
            return listed
        return [
            (f"{ROOT}/connect", ["GET"], self.ask),
            (f"{ROOT}/connect", ["POST"], guarded(self.answer, write=False)),
            *listed,
        ]


def _allowed(session: ReviewSession) -> list[str]:
    """What the signed-in token may hand on: never more than it has itself."""
    return ["read", "write"] if session.can_write else ["read"]


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
