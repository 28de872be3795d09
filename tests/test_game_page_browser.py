"""The game page in a real browser: headless Chromium, driven by the keyboard and the buttons.

What the page shows is checked against the trace and the engine's positions
(``sim.Position.from_trace``): the hands at a few steps, the view toggle, an
analysed decision's played and best choices and its mark, the timeline's
jump; and a review's page (``rami review --html``), at every step, shows the
record's seat's hand alone, every other hand face down. Skipped when no Chromium is found, except under
``RAMI_REQUIRE_BROWSER=1`` (CI), where a missing browser fails.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sim
from sim.analysis import Analysis, write_html
from sim.analysis.page import MARK_SYMBOLS, decision_step

sys.path.insert(0, str(Path(__file__).parent))
import browser as browser_lib  # noqa: E402
import game_page_analysis  # noqa: E402

BROWSER, DRIVER, pytestmark = browser_lib.required()


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    # 60 trials a choice: enough for the random seat's worst discard here to be marked.
    found = game_page_analysis.small_analysis(n=60, wanted=5)
    assert any(d.mark for d in found.decisions), "the game checked has a marked decision"
    return found


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    chrome = browser_lib.start(BROWSER, DRIVER)
    try:
        yield chrome
    finally:
        chrome.quit()


def _open(driver: Any, source: Any, path: Path) -> None:
    write_html(source, path)
    driver.get(path.as_uri())


def _press(driver: Any, key: str, times: int = 1) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    for _ in range(times):
        ActionChains(driver).send_keys(key).perform()


def _step(driver: Any) -> int:
    return int(driver.find_element("id", "step-index").text)


def _hand(driver: Any, seat: int) -> tuple[str, list[str], int]:
    """``(shown, cards, backs)`` of a seat's hand as drawn."""
    box = driver.find_element("id", f"hand-{seat}")
    cards = [c.get_attribute("data-card") for c in box.find_elements("css selector", ".card[data-card]")]
    backs = len(box.find_elements("css selector", ".card.back"))
    return box.get_attribute("data-shown"), cards, backs


def _same_cards(a: list[str] | str, b: str) -> bool:
    return Counter(a if isinstance(a, list) else a.split()) == Counter(b.split())


def _errors(driver: Any) -> list[dict]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_keyboard_steps_show_the_hands(driver: Any, analysis: Analysis, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    events = list(analysis.events)
    players = events[0]["players"]
    _open(driver, analysis, tmp_path / "game.html")
    assert _step(driver) == 0
    assert driver.find_element("tag name", "body").get_attribute("data-view") == "belief"
    # Step 1 is the deal: the first seat's hand is shown, the others face down with their sizes.
    _press(driver, Keys.ARROW_RIGHT)
    assert _step(driver) == 1
    deal = sim.Position.from_trace(events, 1)
    for seat in range(players):
        shown, cards, backs = _hand(driver, seat)
        if seat == events[1]["first"]:
            assert shown == "yes" and _same_cards(cards, deal.hand(seat)) and backs == 0
        else:
            assert shown == "no" and cards == [] and backs == len(deal.hand(seat).split())
    # A few turns on, by the keyboard: at step k the hands are those of the position before event k + 1.
    for k in (4, 7, 10):
        _press(driver, Keys.ARROW_RIGHT, k - _step(driver))
        assert _step(driver) == k
        assert events[k + 1]["type"] in ("draw", "discard"), "the steps checked stand before a decision"
        position = sim.Position.from_trace(events, k + 1)
        shown, cards, _ = _hand(driver, position.seat)
        assert shown == "yes" and _same_cards(cards, position.hand(position.seat)), k
        assert driver.find_element("id", "stock-size").text == f"{position.observe(position.seat).stock} cards"
        pile = position.pile().split()
        top = driver.find_elements("css selector", "#pile-top .card[data-card]")
        assert [t.get_attribute("data-card") for t in top] == pile[-1:]
        # The toggle: every hand, then back to the seat to move's view.
        _press(driver, "v")
        assert driver.find_element("tag name", "body").get_attribute("data-view") == "all"
        for seat in range(players):
            shown, cards, _ = _hand(driver, seat)
            assert shown == "yes" and _same_cards(cards, position.hand(seat)), (k, seat)
        driver.find_element("id", "view-toggle").click()
        assert driver.find_element("tag name", "body").get_attribute("data-view") == "belief"
        hidden = [s for s in range(players) if _hand(driver, s)[0] == "no"]
        assert hidden == [s for s in range(players) if s != position.seat]
    _press(driver, Keys.LEFT)
    assert _step(driver) == 9
    _press(driver, Keys.END)
    assert _step(driver) == len(events) - 1
    assert driver.find_element("id", "caption").text.startswith("The game ends")
    _press(driver, Keys.HOME)
    assert _step(driver) == 0
    assert _errors(driver) == []


def test_analysed_decisions_show_their_choices(driver: Any, analysis: Analysis, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    events = list(analysis.events)
    _open(driver, analysis, tmp_path / "game.html")
    for k, d in enumerate(analysis.decisions):
        driver.find_element("id", "next-decision").click()
        step = decision_step(events, d)
        assert _step(driver) == step
        panels = driver.find_elements("css selector", "article.decision")
        visible = [p for p in panels if p.is_displayed()]
        assert [p.get_attribute("data-decision") for p in visible] == [str(k)]
        panel = visible[0]
        played = panel.find_elements("css selector", "tr.played td.choice")
        best = panel.find_elements("css selector", "tr.best td.choice")
        assert [p.text for p in played] == [d.played] and [b.text for b in best] == [d.best]
        if d.mark:
            marks = [m.text for m in panel.find_elements("css selector", "tr.played .mark")]
            assert marks == [MARK_SYMBOLS[d.mark]]
            assert d.mark in panel.find_element("tag name", "h2").text
        # The seat deciding is the one whose hand the belief view shows, with the position's cards.
        position = sim.Position.from_trace(events, d.event)
        shown, cards, _ = _hand(driver, d.seat)
        assert shown == "yes" and _same_cards(cards, position.hand(d.seat))
        # The position, written out to copy: the seat view notation of the deciding seat's view.
        assert panel.find_element("css selector", "pre.position-text").get_attribute("textContent") == d.position
        if d.kind == "discard":
            hand = driver.find_element("id", f"hand-{d.seat}")
            outlined = [[c.get_attribute("data-card") for c in hand.find_elements("css selector", f".card.{cls}")]
                        for cls in ("played-card", "best-card")]
            assert outlined == [[d.played], [d.best]]
    # One step off a decision: no panel shown.
    _press(driver, Keys.ARROW_RIGHT)
    if _step(driver) not in {decision_step(events, d) for d in analysis.decisions}:
        assert not any(p.is_displayed() for p in driver.find_elements("css selector", "article.decision"))
        assert driver.find_element("id", "no-decision").is_displayed()
    # The timeline: clicking a point jumps to its decision.
    points = driver.find_elements("css selector", "#timeline circle.point")
    assert len(points) == len(analysis.decisions)
    _press(driver, Keys.END)
    target = points[1]
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", target)
    assert _step(driver) == int(target.get_attribute("data-step"))
    assert "current" in target.get_attribute("class")
    assert _errors(driver) == []


def test_plain_trace_navigates(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    events = sim.play_traced("rami51", ["greedy", "cautious"], seed=5)
    _open(driver, events, tmp_path / "plain.html")
    assert driver.find_element("tag name", "body").get_attribute("data-view") == "all"
    assert driver.find_elements("id", "timeline") == [] and driver.find_elements("id", "next-decision") == []
    _press(driver, Keys.ARROW_RIGHT, 3)
    assert _step(driver) == 3
    position = sim.Position.from_trace(events, 4)
    for seat in range(2):
        shown, cards, _ = _hand(driver, seat)
        assert shown == "yes" and _same_cards(cards, position.hand(seat))
    driver.find_element("id", "last").click()
    assert _step(driver) == len(events) - 1
    driver.find_element("id", "first").click()
    assert _step(driver) == 0
    assert _errors(driver) == []


_HANDS_SCRIPT = """
return Array.from(document.querySelectorAll('#hands .seat')).map((box) => [
  box.dataset.shown,
  Array.from(box.querySelectorAll('.card[data-card]')).map((c) => c.dataset.card),
  box.querySelectorAll('.card.back').length]);
"""


def test_a_review_page_shows_no_hidden_card(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    from sim.analysis.analyse import walk
    from sim.analysis.page import write_review_html
    from sim.game_record import parse_record, write_record

    seat = 1
    events = sim.play_traced("rami51", ["expert"] * 3, seed=13, max_rounds=1)
    record = parse_record(write_record(events, seat))
    reviewed = sim.review(record, trials=4, seed=5, width=None, workers=1)
    path = tmp_path / "review.html"
    write_review_html(record, reviewed, path)
    driver.get(path.as_uri())
    assert driver.find_element("tag name", "body").get_attribute("data-view") == "seat"
    assert driver.find_elements("id", "view-toggle") == []
    last = int(driver.find_element("css selector", "#position").text.split(" of ")[1].split(",")[0])
    # Every step: the seat's own hand face up, every other hand face down, nothing else in the hands.
    for k in range(last + 1):
        assert _step(driver) == k
        hands = driver.execute_script(_HANDS_SCRIPT)
        for s, (shown, cards, backs) in enumerate(hands):
            if s == seat:
                assert shown == "yes" and backs == 0 and (k > 0 or cards == [])
            else:
                assert shown == "no" and cards == [], (k, s)
        _press(driver, Keys.ARROW_RIGHT)
    _press(driver, "v")
    assert driver.find_element("tag name", "body").get_attribute("data-view") == "seat"
    # The decisions, one after another, stand where the traced game stood for the seat.
    _press(driver, Keys.HOME)
    truth = [step.position for step in walk(events) if step.position.seat == seat]
    assert len(truth) == len(reviewed.decisions)
    shown_steps = []
    for k, d in enumerate(reviewed.decisions):
        if k == 0 or driver.find_element("id", f"decision-{k}").get_attribute("hidden") is not None:
            driver.find_element("id", "next-decision").click()
        assert driver.find_element("id", f"decision-{k}").is_displayed()
        shown_steps.append(_step(driver))
        position = truth[k]
        hands = driver.execute_script(_HANDS_SCRIPT)
        assert _same_cards(hands[seat][1], position.hand(seat)), k
        assert [b for s, (_, _, b) in enumerate(hands) if s != seat] == \
            [len(position.hand(s).split()) for s in range(3) if s != seat]
        played = driver.find_elements("css selector", f"#decision-{k} tr.played td.choice")
        assert [p.text for p in played] == [d.played]
    assert shown_steps == sorted(shown_steps) and len(set(shown_steps)) < len(shown_steps)
    assert _errors(driver) == []
