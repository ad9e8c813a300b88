"""MCP prompts: how the host's own model reviews dreams with the person and dreams now, through
the ordinary tools. Hosts show prompts as menu entries or slash commands; each text names the
exact tools and arguments to use, and has the model ask the person instead of deciding for them.

Prompt arguments arrive as text; a bad one is refused as invalid params, naming what is allowed.
"""

from __future__ import annotations

from typing import Annotated, Final

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts import Prompt
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import Field

from graph.dreams.host import MAX_CANDIDATES
from graph.dreams.models import DreamStatus
from server.context import AppContext

DEFAULT_COUNT: Final = 5
Count = Annotated[str | None, Field(description=f"How many at a time, 1 to {MAX_CANDIDATES} (default 5)")]


def _count(count: str | None) -> int:
    if count is None or not count.strip():
        return DEFAULT_COUNT
    if not count.strip().isdigit() or not 1 <= int(count) <= MAX_CANDIDATES:
        raise MCPError(
            code=INVALID_PARAMS, message=f"count must be a whole number from 1 to {MAX_CANDIDATES}."
        )
    return int(count)


def _status(status: str | None) -> DreamStatus | None:
    if status is None or not status.strip():
        return None
    try:
        return DreamStatus(status.strip())
    except ValueError:
        allowed = ", ".join(member.value for member in DreamStatus)
        raise MCPError(code=INVALID_PARAMS, message=f"status must be one of {allowed}.") from None


def review_dreams(
    status: Annotated[
        str | None,
        Field(description="Which dreams: proposed, reinforced, stale, ... (default: the open ones)"),
    ] = None,
    count: Count = None,
) -> str:
    """Go through the dreams with the person: ask them about each, record their answer."""
    chosen, limit = _status(status), _count(count)
    if chosen is None:
        listing = (
            f'list_dreams(status="proposed", limit={limit}), then '
            f'list_dreams(status="reinforced", limit={limit}) for those they were interested in before'
        )
    else:
        listing = f'list_dreams(status="{chosen.value}", limit={limit})'
    return f"""Review this person's dreams with them. A dream is a hypothesis Reverie proposed \
linking their memories: never a fact, and never yours to settle. The person decides; you ask and \
record.

1. Call {listing}.
2. Take the dreams one at a time. Call get_dream(dream_id="<id>") and tell the person in plain \
words the hypothesis, the memories it cites (sources, with their dates) and who wrote it \
(generator). If it holds a statement, say what they would confirm: its subject, predicate and object. If \
it is confirmed, they said yes before but nothing became memory: tell them what waits and why \
(its confirmation). Its kind says what to ask: a link or a theme, whether the connection means \
something to them; a duplicate, whether both memories say the same thing (confirming keeps one \
and retracts the other); a contradiction, which of the two holds now (confirming takes the later one).
3. Ask the person what they make of it and wait for their answer. Do not answer for them, and do \
not guess it from other conversations.
4. Record the answer with their own words in feedback:
   - they confirm it and want it kept as memory: \
resolve_dream_feedback(dream_id="<id>", decision="promote_candidate", feedback="<their words>"). If \
the dream holds a statement and they confirmed just that, send no claims: Reverie uses the \
statement. If they confirmed something else, send claims=[...] in remember's claim shape, read \
from their words only.
   - interesting but not settled: resolve_dream_feedback(dream_id="<id>", decision="reinforce", \
feedback="<their words>").
   - no longer true or relevant: decision="stale".
   - wrong: decision="reject" (final: these memories are never linked again).
5. After a promotion, tell them what happened (promotion.outcome and promotion.message). The \
dream is promoted only when something they confirmed became a fact; when nothing did it is \
confirmed, and get_dream's confirmation says what waits and what would settle it. A claim that \
did not pass the gates is not memory; say so plainly and never resend it with higher \
confidences. A confirmed dream can be promoted again with words that say more, rejected or \
marked stale. A merged duplicate waits for them: if they say the two were not the same, \
decision="undo_merge" puts the retracted memory back; once they are sure, decision="keep_merged" \
(final).
6. Stop whenever they want to. Show retracted words only if they ask: \
get_dream(dream_id="<id>", show_retracted=true).
"""


def dream_now(count: Count = None) -> str:
    """Find links between the person's memories and write the good ones in your own words."""
    limit = _count(count)
    pair = 'source_ids=["<first id>", "<second id>"]'
    return f"""Dream now: look for links between this person's memories that are worth asking \
them about, and write them in your own words. You write hypotheses, never facts; the person judges \
them later.

1. Call list_dream_candidates(limit={limit}). Each candidate holds two memories (id, kind, text, \
dates), what they share (shared_terms, why) and Reverie's scores.
2. Judge each one yourself: would the person care to be asked about this link? Small talk or a \
coincidence of words is empty. One thing said twice is no link, but not empty either: Reverie \
proposes it itself as a duplicate, so leave it alone.
3. For each good one call write_dream({pair}, hypothesis="<one sentence the person can answer \
yes or no>", why="<the evidence, one line>", what_if="<what would follow if it is true>", \
possible_outcome="<what you could do with it>"). When there is something the person could \
confirm, add statement={{...}} in remember's claim shape: subject "user", a supported predicate, \
object, extract_conf, resolution_conf, and supported_by naming the cited fragments that say it. \
Say only what the memories say; never invent facts. Reverie sets likelihood and confidence from \
the evidence.
4. For each empty one call write_dream({pair}, verdict="empty"): it is never proposed again.
5. To improve a dream's words later: write_dream(dream_id="<id>", hypothesis="<new words>"); the \
old words stay in its history.
6. Decide nothing for the person. Tell them briefly how many dreams you wrote and offer to go \
through them together (the review_dreams prompt). Nothing you wrote is memory until they confirm it.
"""


PROMPTS: Final = (
    (review_dreams, "Review dreams with me"),
    (dream_now, "Dream now"),
)


def register(server: MCPServer[AppContext]) -> None:
    for function, title in PROMPTS:
        server.add_prompt(Prompt.from_function(function, title=title))
