"""The review page in a real browser (Debian's headless Chromium through Selenium) against the
HTTP server a user runs, with the real Neo4j and model; the graph is checked after each action.

Every view's screenshot, at a desktop's and a phone's width, is taken by test_review_screens.py.
"""

# The browser, page and call fixtures come from tests.server.browser; tests take them as arguments.
# ruff: noqa: F811

from __future__ import annotations

import re
from urllib.parse import quote

import httpx2
import pytest
from mcp import Client
from mcp_types import Implementation
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from graph.access import ConnectionSettings
from server.app import build_server
from server.review.charts import night_words
from tests.server.browser import browser, call, click_through, page, press, sign_in, text_of, waiting  # noqa: F401
from tests.server.conftest import CallTool, HttpServer, caller, settings_for
from tests.server.support import claim_of, dream_words, first_dream, remember_all

pytestmark = pytest.mark.anyio

PEANUTS = (
    "My daughter Ines is allergic to peanuts and always carries an EpiPen in her bag.",
    "Ines, my daughter, is allergic to peanuts and always carries her EpiPen in her bag.",
)


async def test_a_person_reviews_and_promotes_dreams_and_the_graph_follows(
    page: WebDriver, http_server: HttpServer, call: CallTool
) -> None:
    await remember_all(call)
    first = await first_dream(call, max_outputs=5)
    sign_in(page, http_server, http_server.write_token)
    assert first["hypothesis"] in text_of(page)

    page.get(f"{http_server.base}/review/dreams/{first['id']}")
    shown = text_of(page)
    for source in first["sources"]:  # type: ignore[attr-defined]
        assert source["text"][:60] in shown
    assert page.find_elements(By.CSS_SELECTOR, "svg.link circle")
    # The scores' figures are shown only to a person who asks for them, not with the what-if.
    page.find_element(By.CSS_SELECTOR, "details.what-if summary").click()
    assert first["what_if"] in text_of(page)
    assert "cosine" not in text_of(page) and "idf" not in text_of(page)
    page.find_element(By.CSS_SELECTOR, "details.figures summary").click()
    assert first["rationale"][:40] in text_of(page)
    press(page, "reinforce")
    assert "now reinforced" in text_of(page)
    assert "you answered reinforce (proposed → reinforced)" in text_of(page)
    assert (await call("get_dream", dream_id=first["id"]))["status"] == "reinforced"

    # Searching memory for one of its sources: the dream says how it relates, in words.
    source = first["sources"][0]  # type: ignore[index]
    page.get(f"{http_server.base}/review/memory?q={quote(source['text'])}")
    related = page.find_element(By.CSS_SELECTOR, "section.related").text
    assert f"cites the memory you recalled: “{source['text'][:40]}" in related and source["id"] not in related
    page.get(f"{http_server.base}/review/dreams/{first['id']}")

    # Each answer says what it does, beside its button.
    answers = {
        item.find_element(By.TAG_NAME, "button").text: item.text
        for item in page.find_elements(By.CSS_SELECTOR, "ul.answers li")
    }
    assert set(answers) == {"Reinforce", "Mark stale", "Reject", "Promote"}
    assert "never linked again" in answers["Reject"] and "stays open" in answers["Reinforce"]
    # The obvious path: who it is about comes filled in as the person, so only the rest is given.
    words = "Yes, I love reading Saramago novels."
    page.find_element(By.ID, "feedback").send_keys(words)
    assert page.find_element(By.NAME, "subject").get_attribute("value") == "user"
    Select(page.find_element(By.NAME, "predicate")).select_by_visible_text("likes")
    page.find_element(By.NAME, "object").send_keys("Saramago novels")
    press(page, "promote_candidate")
    outcome = page.find_element(By.CSS_SELECTOR, "section.outcome").text
    assert "What happened in your memory" in outcome and "“you like Saramago novels”" in outcome
    stored = await call("get_dream", dream_id=first["id"])
    assert stored["status"] == "promoted" and stored["feedback"][-1]["feedback"] == words
    found = await call("recall_memory", query="Saramago novels")
    assert any(item["kind"] == "fact" and "Saramago novels" in item["text"] for item in found["results"])


async def test_a_host_written_dream_shows_its_writer_statement_and_earlier_words(
    page: WebDriver, http_server: HttpServer, neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    # A client may call itself anything: the page shows the name as text, never as markup.
    name = '<img src=x onerror="window.pwned=1">'
    server = build_server(settings_for(neo4j_settings, profile_id), "stdio")
    async with Client(server, client_info=Implementation(name=name, version="1")) as client:
        call = caller(client)
        await remember_all(call)
        [candidate] = (await call("list_dream_candidates", limit=1))["candidates"]
        written = await call(
            "write_dream",
            source_ids=candidate["source_ids"],
            statement=claim_of("likes", "long stories"),
            **dream_words("one story"),
        )
        await call("write_dream", dream_id=written["dream_id"], hypothesis="Is this one story?")

    sign_in(page, http_server, http_server.write_token)
    page.get(f"{http_server.base}/review/dreams/{written['dream_id']}")
    shown = text_of(page)
    assert "Is this one story?" in shown and f"by your assistant ({name})" in shown
    assert "you like long stories" in shown and dream_words("one story")["hypothesis"] in shown
    assert page.execute_script("return window.pwned") is None


async def test_a_yes_that_made_no_fact_reads_as_waiting_and_can_be_given_again(
    page: WebDriver, http_server: HttpServer, call: CallTool
) -> None:
    await remember_all(call)
    [candidate] = (await call("list_dream_candidates", limit=1))["candidates"]
    goal = claim_of("has_goal", "run the Lisbon marathon")
    written = await call(
        "write_dream", source_ids=candidate["source_ids"], statement=goal, **dream_words("running")
    )
    sign_in(page, http_server, http_server.write_token)
    page.get(f"{http_server.base}/review/dreams/{written['dream_id']}")
    assert "What you would confirm: “you have a goal: run the Lisbon marathon”" in text_of(page)
    # The relation reads as words wherever a person reads it, the form's choices too.
    options = [option.text for option in Select(page.find_element(By.NAME, "predicate")).options]
    assert "has a goal" in options and "works at" in options
    assert not any("_" in line for line in (text_of(page), *options))

    # A bare yes states nothing: the statement cannot pass, and the page must not say it did.
    page.find_element(By.ID, "feedback").send_keys("Yes")
    press(page, "promote_candidate")
    shown = text_of(page)
    assert page.find_element(By.CSS_SELECTOR, "article .badge").text == "confirmed"
    assert "you said yes; not memory yet" in shown and "What you would confirm" not in shown
    assert "Nothing became memory: the dream is confirmed, not promoted." in shown
    waiting = page.find_element(By.CSS_SELECTOR, "section.confirmation").text
    assert "nothing is memory yet" in waiting and "not memory yet" in waiting
    assert "the confirming words do not state it" in waiting and "Promote again" in shown
    assert (await call("get_dream", dream_id=written["dream_id"]))["status"] == "confirmed"
    page.get(f"{http_server.base}/review?status=confirmed")
    listed = page.find_element(By.CSS_SELECTOR, "ol.dreams").text
    assert dream_words("running")["hypothesis"] in listed and "you said yes; not memory yet" in listed

    page.get(f"{http_server.base}/review/dreams/{written['dream_id']}")
    page.find_element(By.ID, "feedback").send_keys("My goal is to run the Lisbon marathon.")
    press(page, "promote_candidate")
    assert page.find_element(By.CSS_SELECTOR, "article .badge").text == "promoted"
    became = page.find_element(By.CSS_SELECTOR, "section.confirmation").text
    assert "What your yes became" in became and "a fact now" in became
    assert (await call("get_dream", dream_id=written["dream_id"]))["status"] == "promoted"


async def test_a_person_answers_a_clarification_and_searches_memory(
    page: WebDriver, http_server: HttpServer, call: CallTool
) -> None:
    def works_at(company: str) -> dict[str, object]:
        return {
            "subject": "user",
            "predicate": "works_at",
            "object": company,
            "extract_conf": 0.9,
            "resolution_conf": 0.8,
        }

    await call("remember", content="I work at Acme Corp.", claims=[works_at("Acme Corp")])
    beta = (await call("remember", content="I work at Beta Labs.", claims=[works_at("Beta Labs")]))["claims"][
        0
    ]
    assert beta["outcome"] == "clarification_required"
    sign_in(page, http_server, http_server.write_token)
    page.get(f"{http_server.base}/review/memory")
    asked = beta["clarification"]["question"].split(" (confirm_memory ")[0]
    assert asked in text_of(page) and "confirm_memory" not in text_of(page)
    press(page, "accept_claim")
    assert "Recorded: “you work at Beta Labs”: it is memory now." in text_of(page)
    health = await call("reflect_memories")
    assert health["counts"]["open_clarifications"] == 0

    page.find_element(By.ID, "q").send_keys("Where is my job?")
    click_through(page, "form.search button")
    results = page.find_element(By.CSS_SELECTOR, "ol.results").text
    assert "Beta Labs" in results
    assert "found by" in results


async def test_a_person_forgets_a_memory_found_by_search(
    page: WebDriver, http_server: HttpServer, call: CallTool
) -> None:
    kept = (await call("remember", content="I keep bees on the roof of our flat."))["fragment"]["id"]
    gone = (await call("remember", content="My old bank PIN was the year the bees swarmed."))["fragment"][
        "id"
    ]
    sign_in(page, http_server, http_server.write_token)
    page.get(f"{http_server.base}/review/memory?q={quote('bees')}")
    results = page.find_elements(By.CSS_SELECTOR, "ol.results > li")
    target = next(item for item in results if "bank PIN" in item.text)
    target.find_element(By.TAG_NAME, "summary").click()
    target.find_element(By.NAME, "reason").send_keys("asked on the page")
    page.execute_script("window.reverieLeaving = true")
    target.find_element(By.CSS_SELECTOR, "button.danger").click()
    waiting(page).until(lambda shown: "Forgotten for good" in text_of(shown))

    found = await call("recall_memory", query="bees bank PIN")
    assert [item["id"] for item in found["results"]] == [kept]
    assert (await call("forget_memory", ids=[gone]))["forgotten"][0]["already_forgotten"] is True


async def test_a_retracted_source_shows_its_words_only_when_asked(
    page: WebDriver, http_server: HttpServer, call: CallTool
) -> None:
    await remember_all(call)
    dream = await first_dream(call, max_outputs=3)
    source = dream["sources"][0]  # type: ignore[index]
    await call("retract_memory", id=source["id"], reason="the person said this was wrong")
    sign_in(page, http_server, http_server.write_token)
    page.get(f"{http_server.base}/review/dreams/{dream['id']}")
    sources = page.find_element(By.CSS_SELECTOR, "div.sources").text
    assert "Retracted: its words are left out." in sources and source["text"][:60] not in sources

    click_through(page, "a[href='?show_retracted=1']")

    shown = page.find_element(By.CSS_SELECTOR, "div.sources").text
    assert source["text"][:60] in shown and "retracted" in shown


async def test_a_person_undoes_a_merge_on_the_page_and_the_memory_comes_back(
    page: WebDriver, http_server: HttpServer, call: CallTool
) -> None:
    days = ("2024-02-07T09:00:00+00:00", "2024-03-18T09:00:00+00:00")
    said = [
        (await call("remember", content=text, occurred_at=day))["fragment"]["id"]
        for text, day in zip(PEANUTS, days, strict=True)
    ]
    duplicate = await first_dream(call, max_outputs=3)
    assert duplicate["kind"] == "duplicate", duplicate
    sign_in(page, http_server, http_server.write_token)
    page.get(f"{http_server.base}/review/dreams/{duplicate['id']}")
    page.find_element(By.ID, "feedback").send_keys("Yes, I said that twice.")
    press(page, "promote_candidate")
    assert "retracted" in page.find_element(By.CSS_SELECTOR, "section.outcome").text
    assert "The merge waits for you" in text_of(page)
    assert page.find_elements(By.CSS_SELECTOR, "button[name=decision][value=keep_merged]")
    assert (await call("recall_memory", query="peanuts EpiPen"))["results"][0]["id"] == said[1]

    page.find_element(By.ID, "merge-feedback").send_keys("No: they are two different things.")
    press(page, "undo_merge")

    assert f"{said[0]} is active again, as it was before the merge" in text_of(page)
    assert "The merge waits for you" not in text_of(page) and "The merge was undone" in text_of(page)
    after = await call("get_dream", dream_id=duplicate["id"])
    assert after["status"] == "rejected" and after["merge"]["state"] == "undone"
    assert [source["status"] for source in after["sources"]] == ["active", "active"]
    history = [(entry["decision"], entry["to_status"]) for entry in after["feedback"]]
    assert history == [("promote_candidate", "promoted"), ("undo_merge", "rejected")]
    assert after["feedback"][-1]["feedback"] == "No: they are two different things."
    found = await call("recall_memory", query="peanuts EpiPen")
    assert set(said) <= {item["id"] for item in found["results"]}


async def test_a_manual_cycle_started_in_the_page_is_followed_to_its_night(
    page: WebDriver, http_server: HttpServer, call: CallTool
) -> None:
    await remember_all(call)
    sign_in(page, http_server, http_server.write_token)
    page.get(f"{http_server.base}/review/runs")
    assert "No cycles yet." in text_of(page)
    click_through(page, "main form button")
    # The page follows the cycle it started: progress while it runs, then its end, once.
    waiting(page).until(
        lambda shown: any(line in text_of(shown) for line in ("Dreaming now", "has finished"))
    )
    waiting(page).until(lambda shown: "The cycle you started has finished" in text_of(shown))
    assert "you started it" in text_of(page) and "finished" in text_of(page)
    status = await call("dreaming_status")
    assert status["latest_run"]["status"] == "completed" and status["latest_run"]["trigger"] == "manual"
    # The night is drawn with its total; how many dreams the cycle found is not this test's subject
    # (on this data one cycle in three found none under load: see the session notes).
    night = night_words(str(status["latest_run"]["run_date"]))
    assert [label.text for label in page.find_elements(By.CSS_SELECTOR, "figure.nights text.when")] == [night]
    totals = [label.text for label in page.find_elements(By.CSS_SELECTOR, "figure.nights text.total")]
    assert totals == [str(sum(status["counts"].values()))]

    # A second run the same night: each bar says when it ran, and the night is written once.
    click_through(page, "main form button")
    waiting(page).until(lambda shown: "The cycle you started has finished" in text_of(shown))
    times = [label.text for label in page.find_elements(By.CSS_SELECTOR, "figure.nights text.when")]
    assert len(set(times)) == 2 and all(re.fullmatch(r"\d\d:\d\d(:\d\d)?", time) for time in times), times
    nights = [label.text for label in page.find_elements(By.CSS_SELECTOR, "figure.nights text.night")]
    assert nights == [night]

    # Nights on: this HTTP server runs a scheduler, so the page says when and who keeps them.
    assert "Nightly dreaming is off" in text_of(page)
    await call("configure_dreaming", enabled=True)
    page.get(f"{http_server.base}/review/runs")
    assert "Next dreaming:" in text_of(page)
    outlook = page.find_element(By.CSS_SELECTOR, "[data-next-night]")
    assert outlook.get_attribute("data-next-night") == "will-run" and "keeps this profile" in outlook.text


async def test_the_page_fits_a_phone(page: WebDriver, http_server: HttpServer, call: CallTool) -> None:
    await remember_all(call)
    await first_dream(call, max_outputs=3)
    page.set_window_size(390, 844)
    sign_in(page, http_server, http_server.write_token)
    width = page.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390


async def test_a_wrong_token_learns_nothing_and_a_read_only_token_changes_nothing(
    page: WebDriver, http_server: HttpServer, call: CallTool
) -> None:
    await remember_all(call)
    dream = await first_dream(call, max_outputs=3)
    sign_in(page, http_server, "not-a-token-of-this-server")
    assert "That token is not valid here" in text_of(page)
    sign_in(page, http_server, http_server.other_profile_token)
    assert dream["hypothesis"] not in text_of(page)

    page.delete_all_cookies()
    sign_in(page, http_server, http_server.read_token)
    page.get(f"{http_server.base}/review/dreams/{dream['id']}")
    press(page, "reject")
    assert "can read only" in text_of(page)
    assert (await call("get_dream", dream_id=dream["id"]))["status"] == "proposed"


async def test_a_forged_cross_site_post_changes_nothing(
    page: WebDriver, http_server: HttpServer, call: CallTool
) -> None:
    await remember_all(call)
    dream = await first_dream(call, max_outputs=3)
    target = f"{http_server.base}/review/dreams/{dream['id']}/feedback"
    sign_in(page, http_server, http_server.write_token)
    # Another site's page that posts to Reverie as soon as it loads, in the signed-in browser.
    forged = f'<form method="post" action="{target}"><input name="decision" value="reject"></form>'
    page.get("data:text/html," + quote(forged + "<script>document.forms[0].submit()</script>"))
    waiting(page).until(lambda browser: browser.current_url.startswith(http_server.base))
    assert (await call("get_dream", dream_id=dream["id"]))["status"] == "proposed"

    # A client that holds the session cookie still needs the form's token and this origin.
    async with httpx2.AsyncClient(base_url=http_server.base) as http:
        signed = await http.post("/review/login", data={"token": http_server.write_token})
        assert signed.status_code == 303
        assert (await http.get("/review")).status_code == 200  # the session cookie is held
        missing = await http.post(target, data={"decision": "reject"})
        assert missing.status_code == 403
        other_site = await http.post(
            target, data={"decision": "reject"}, headers={"Origin": "https://evil.example"}
        )
        assert other_site.status_code == 403
    assert (await call("get_dream", dream_id=dream["id"]))["status"] == "proposed"


async def test_bad_forms_and_addresses_are_answered_and_change_nothing(
    http_server: HttpServer, call: CallTool
) -> None:
    await remember_all(call)
    dream = await first_dream(call, max_outputs=3)
    target = f"/review/dreams/{dream['id']}/feedback"
    async with httpx2.AsyncClient(base_url=http_server.base) as http:
        await http.post("/review/login", data={"token": http_server.write_token})
        page = (await http.get(f"/review/dreams/{dream['id']}")).text
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)
        assert csrf is not None
        form = {"csrf_token": csrf.group(1)}
        answers = {
            "decision": await http.post(target, data={**form, "decision": "delete"}),
            "together": await http.post(
                target,
                data={**form, "decision": "promote_candidate", "feedback": "yes", "predicate": "likes"},
            ),
            "or leave the relation": await http.post(
                target, data={**form, "decision": "promote_candidate", "feedback": "yes", "subject": "Ines"}
            ),
            "status must be one of": await http.get("/review", params={"status": "everything"}),
            "holds no dream id": await http.get("/review/dreams/" + "x" * 5000),
            "exists in this profile": await http.get("/review/dreams/no-such-dream"),
        }
    for expected, answer in answers.items():
        assert answer.status_code == 400, (expected, answer.status_code)
        assert expected in answer.text and "x" * 100 not in answer.text
    assert (await call("get_dream", dream_id=dream["id"]))["status"] == "proposed"
