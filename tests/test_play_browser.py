"""``rami play``'s page in a real browser: headless Chromium against a real local server.

The first round of a two-round game of basic rummy is played by clicks
alone (the stock or the pile, each laying's button, a card of the hand to
throw), the hint is asked by its key and shows the API's ranking, a reload
resumes the game where it stood, the round's score is shown and the next
round dealt by a click; the second round is played through the API, and the
page reloaded shows the game's end: the scores, the review of the person's
decisions, the record and the review's game page; the rules open by their
key. Skipped when no Chromium is found, except under
``RAMI_REQUIRE_BROWSER=1`` (CI), where a missing browser fails.
"""

from __future__ import annotations

import json
import random
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sim import rules
from sim.game_record import parse_record
from sim.play.game import TableGame
from sim.play.server import PlayServer, run_in_thread

sys.path.insert(0, str(Path(__file__).parent))
import browser as browser_lib  # noqa: E402

BROWSER, DRIVER, pytestmark = browser_lib.required()


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, PlayServer]]:
    r = rules.preset("basic").replace(players=3, game_rounds=2)
    server = PlayServer(lambda game: TableGame(r, ["expert", "expert"], seat=1, seed=6, game=game, review_trials=12))
    address, stop = run_in_thread(server)
    try:
        yield address, server
    finally:
        stop()


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    chrome = browser_lib.start(BROWSER, DRIVER)
    try:
        yield chrome
    finally:
        chrome.quit()


def _body(driver: Any, key: str) -> str:
    return driver.find_element("tag name", "body").get_attribute(f"data-{key}") or ""


def _wait(driver: Any, test: Any, what: str, seconds: float = 30) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if test():
            return
        time.sleep(0.03)
    raise AssertionError(f"waited {seconds} s for {what}; the page logged: {driver.get_log('browser')}")


def _settled(driver: Any) -> None:
    _wait(driver, lambda: _body(driver, "ready") == "1", "the page to settle")


def _press(driver: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def _hand(driver: Any) -> list[str]:
    return [c.get_attribute("data-card") for c in driver.find_elements("css selector", "#hand .card")]


def _api(address: str, path: str) -> Any:
    with urllib.request.urlopen(address + path, timeout=60) as response:
        return json.loads(response.read().decode())


def test_a_game_played_by_clicks_ends_with_its_review(served, driver):
    address, server = served
    driver.get(address + "?pace=20")
    _settled(driver)
    rng = random.Random(3)
    hinted = reloaded = False
    clicks = 0
    while _body(driver, "phase") == "play":
        decision, kind = _body(driver, "decision"), _body(driver, "kind")
        buttons = driver.find_elements("css selector", "#choices button")
        assert buttons, "a decision offers its choices"
        if not hinted and len(buttons) > 1:
            _press(driver, "h")
            _wait(driver, lambda: len(driver.find_elements("css selector", "#hint-table tr[data-choice]")) ==
                  len(buttons), "the hint's rows")
            api = _api(address, f"api/hint?decision={decision}")["rollout"]["choices"]
            rows = driver.find_elements("css selector", "#hint-table tr[data-choice]")
            assert [row.get_attribute("data-choice") for row in rows] == [c["choice"] for c in api]
            assert "best" in rows[0].get_attribute("class")
            assert _body(driver, "decision") == decision  # asking played nothing
            hinted = True
        if clicks == 4 and not reloaded:
            hand = _hand(driver)
            driver.refresh()
            _settled(driver)
            assert (_body(driver, "decision"), _hand(driver)) == (decision, hand)  # the game resumes
            reloaded = True
            continue
        if kind == "draw":
            targets = driver.find_elements("css selector", "#stock.clickable, #pile.clickable")
        elif kind == "discard":
            targets = driver.find_elements("css selector", "#hand .card.legal")
        else:
            targets = buttons
        assert targets, f"something to click at a {kind}"
        rng.choice(targets).click()
        clicks += 1
        _wait(driver, lambda: _body(driver, "decision") != decision and _body(driver, "ready") == "1",
              "the choice to be played")
    assert hinted and reloaded and clicks >= 5
    # The round's score, and the next round by a click.
    assert _body(driver, "phase") == "round_over" and driver.find_element("id", "round-over").is_displayed()
    first = _api(address, "api/state")["rounds"][0]
    rows = driver.find_elements("css selector", "#round-table tr")[1:]
    assert [row.find_elements("css selector", "td")[1].text for row in rows] == [str(p) for p in first["points"]]
    decision = _body(driver, "decision")
    driver.find_element("id", "next-round").click()
    _wait(driver, lambda: _body(driver, "decision") != decision and _body(driver, "ready") == "1", "the next round")
    assert not driver.find_element("id", "round-over").is_displayed()
    # The second round through the API, as a script plays it; the page reloaded shows the game's end.
    state = _api(address, "api/state")
    while state["phase"] != "game_over":
        body = json.dumps({"decision": state["decision"],
                           "choice": rng.randrange(len(state["to_decide"]["choices"]))}).encode()
        request = urllib.request.Request(address + "api/choice", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            state = json.loads(response.read().decode())
    driver.refresh()
    _settled(driver)
    assert _body(driver, "phase") == "game_over"
    rows = driver.find_elements("css selector", "#score-table tr")
    assert [c.text for c in rows[1].find_elements("css selector", "td")][1:] == [str(p) for p in first["points"]]
    assert driver.find_element("id", "game-over").is_displayed()
    _wait(driver, lambda: driver.find_element("id", "review").get_attribute("data-status") == "ready",
          "the review", seconds=90)
    review = _api(address, "api/state")["review"]
    summary = driver.find_element("id", "review").text
    assert f"{review['decisions']} decisions" in summary and "error rate" in summary
    assert len(driver.find_elements("css selector", "#costliest tr")) == len(review["costliest"]) + (
        1 if review["costliest"] else 0)
    record_link = driver.find_element("id", "record-link").get_attribute("href")
    with urllib.request.urlopen(record_link, timeout=30) as response:
        record = parse_record(response.read().decode())
    assert record.seat == 1
    # The rules are one key away.
    _press(driver, "r")
    _wait(driver, lambda: driver.find_element("id", "rules").is_displayed(), "the rules")
    assert len(driver.find_elements("css selector", "#rules-table tr")) > 20
    _press(driver, "\ue00c")  # Escape
    _wait(driver, lambda: not driver.find_element("id", "rules").is_displayed(), "the rules to close")
    # The review's game page, the lab's own.
    driver.get(driver.find_element("id", "review-link").get_attribute("href"))
    assert "review" in driver.title
    assert driver.find_elements("id", "step-index")
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
