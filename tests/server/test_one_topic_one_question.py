"""One topic, one question: a topic with a dream the person has not answered is not asked about
again as a new pair on a later night (a theme may grow that dream); once they answer, it may be."""

from __future__ import annotations

from typing import Any

import pytest

from graph.access import ProfileGraph
from graph.dreams.night import open_topics
from tests.server.conftest import CallTool
from tests.server.test_dream_kinds import DAYS, EVERYDAY, cited, dreams_of, say

pytestmark = pytest.mark.anyio

GAME = (
    "Started The Witcher 3 on the new console, Geralt is wonderfully grumpy.",
    "Finished The Witcher 3 main story at last, forty hours well spent.",
)
MORE_OF_IT = (
    "Bought The Witcher 3 soundtrack on vinyl at the record fair.",
    "Watched a Witcher 3 speedrun with Sam, he finished it in an hour.",
)


async def night(call: CallTool) -> list[dict[str, Any]]:
    return await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))


async def test_an_open_topic_is_grown_not_asked_again_until_the_person_answers(
    call: CallTool, graph: ProfileGraph
) -> None:
    for index in range(15):
        await say(call, EVERYDAY[index % 5].format(day=DAYS[index // 5]), 1 + 9 * index)
    first_pair = {await say(call, GAME[0], 10), await say(call, GAME[1], 130)}
    [asked] = [dream for dream in await night(call) if cited(dream) & first_pair]
    assert asked["kind"] == "link" and cited(asked) == first_pair
    assert await graph.read(open_topics) == {"witcher"}

    later_pair = {await say(call, MORE_OF_IT[0], 200), await say(call, MORE_OF_IT[1], 260)}
    [grown] = [dream for dream in await night(call) if cited(dream) & later_pair]
    assert grown["kind"] == "theme" and grown["builds_on"] == [asked["id"]], "grown, not asked anew"

    for dream in (asked, grown):
        await call("resolve_dream_feedback", dream_id=dream["id"], decision="reject", feedback="just a game")
    assert await graph.read(open_topics) == frozenset(), "answered: the topic may be asked again"
