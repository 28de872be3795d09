"""The game page without a browser: its states are the rules reference's replay and the engine's
positions, it is self-contained, and it escapes text.

The analysis drawn is a small real one (``game_page_analysis.py``: a traced
game, a few decisions valued by belief rollouts of a few trials).
"""

from __future__ import annotations

import copy
import html as html_lib
import json
import re
import sys
from html.parser import HTMLParser
from collections import Counter
from pathlib import Path

import pytest

import sim
from sim.analysis import Analysis, to_html, write_html
from sim.analysis.page import decision_step, page_data
from sim.cards import deck, parse
from sim.rules import preset
from sim.rules.replay import ReplayError, replay_states

sys.path.insert(0, str(Path(__file__).parent))
import game_page_analysis  # noqa: E402


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    return game_page_analysis.small_analysis(n=30, wanted=4)


@pytest.fixture(scope="module")
def trace() -> list[dict]:
    return sim.play_traced("rami51", ["greedy", "cautious"], seed=5)


class _Resources(HTMLParser):
    """Every tag and the attributes that could fetch something."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.links: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "action", "srcset", "poster", "data", "xlink:href"):
                self.links.append((tag, name, value or ""))


def _embedded(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.S)
    assert found, "the page embeds its data"
    return json.loads(found.group(1))


def test_states_are_the_engine_positions(analysis: Analysis) -> None:
    """At each analysed decision and at a sample of other decision events, the embedded hands,
    table, pile and stock are those of ``Position.from_trace``."""
    events = list(analysis.events)
    steps = _embedded(to_html(analysis))["steps"]
    assert len(steps) == len(events)
    decision_events = [i for i, e in enumerate(events) if e["type"] in ("draw", "discard", "open", "meld", "add",
                                                                       "recover", "deal", "restock")
                       and events[i - 1]["type"] != "recover"]
    sample = sorted({d.event for d in analysis.decisions} | set(decision_events[::60]))
    for index in sample:
        position = sim.Position.from_trace(events, index)
        step = steps[index] if events[index]["type"] in ("deal", "restock") else steps[index - 1]
        pile = position.pile().split()
        for seat in range(events[0]["players"]):
            assert step["hands"][seat] == position.hand(seat), (index, seat)
        assert [cards for _, cards in step["table"]] == list(position.table()), index
        assert step["pile"] == (pile[-1] if pile else ""), index
        assert step["pile_size"] == len(pile), index
        assert step["stock"] == position.observe(position.seat).stock, index


@pytest.mark.parametrize("ruleset,strategies", [("contrat", ["greedy", "expert", "random", "cautious"]),
                                                 ("basic", ["greedy", "random", "expert"])])
def test_states_in_the_other_games(ruleset: str, strategies: list[str]) -> None:
    """Rami contrat ("Puis-je ?", two decks, sets with a joker) and basic rummy: the plain page's states
    are the engine's positions too."""
    events = sim.play_traced(ruleset, strategies, seed=4)
    steps = _embedded(to_html(events))["steps"]
    decision_events = [i for i, e in enumerate(events) if e["type"] in ("draw", "discard", "open", "meld", "add")
                       and events[i - 1]["type"] != "recover"]
    for index in decision_events[:: max(1, len(decision_events) // 12)]:
        position = sim.Position.from_trace(events, index)
        step = steps[index - 1]
        seen = position.observe(position.seat)
        assert step["hands"] == [position.hand(seat) for seat in range(len(strategies))], index
        assert [cards for _, cards in step["table"]] == list(position.table()), index
        assert (step["stock"], step["pile_size"]) == (seen.stock, len(position.pile().split())), index


def test_decisions_sit_at_their_steps(analysis: Analysis) -> None:
    data = page_data(analysis)
    for k, d in enumerate(analysis.decisions):
        step = decision_step(analysis.events, d)
        assert k in [found["index"] for found in data["decisions"][step]]
        assert data["steps"][step]["to_move"] == d.seat


def test_page_is_self_contained(analysis: Analysis, trace: list[dict], tmp_path: Path) -> None:
    for source in (analysis, trace):
        path = tmp_path / "game.html"
        write_html(source, path)
        html = path.read_text(encoding="utf-8")
        parser = _Resources()
        parser.feed(html)
        assert parser.links == [] or all(not re.match(r"\s*(https?:)?//", v) for _, _, v in parser.links), \
            parser.links
        assert "link" not in parser.tags and "iframe" not in parser.tags and "img" not in parser.tags
        assert not re.search(r"https?://", html), "no address of the network anywhere in the page"
        assert not re.search(r"@import|url\(", html), "the style fetches nothing"
        assert "<script src" not in html
        assert html.count("<script") == 2  # the data and the inline script


def test_plain_trace_has_no_analysis_parts(trace: list[dict]) -> None:
    html = to_html(trace)
    assert 'id="timeline"' not in html and 'class="decision' not in html
    data = _embedded(html)
    assert data["decisions"] == {} and data["view"] == "all"
    assert data["steps"][-1]["caption"].startswith("The game ends")


def test_text_is_escaped(trace: list[dict]) -> None:
    """A strategy name with markup in it (a trace edited by hand, say) is written as text."""
    events = [dict(e) for e in trace]
    events[0] = {**events[0], "strategies": ['<img src=x onerror="alert(1)">', "</script><b>bold</b>"]}
    html = to_html(events)
    assert "<img src=x" not in html and "<b>bold</b>" not in html and "</script><b>" not in html
    assert "&lt;img src=x" in html  # the heading, escaped
    assert _embedded(html)["strategies"][1] == "</script><b>bold</b>"  # the data, intact once read


def test_candidates_are_listed_with_played_and_best(analysis: Analysis) -> None:
    """Each decision's panel lists its candidates best first, the played and best rows flagged, and its mark."""
    html = to_html(analysis)
    for k, d in enumerate(analysis.decisions):
        panel = re.search(rf'<article class="decision[^"]*" id="decision-{k}".*?</article>', html, re.S).group(0)
        rows = re.findall(r'<tr class="([^"]*)">.*?<td class="choice">(.*?)</td>', panel, re.S)
        assert [re.sub(r"<[^>]+>", "", text) for _, text in rows] == [c.choice for c in d.candidates]
        for (classes, _), c in zip(rows, d.candidates):
            assert ("played" in classes.split()) == c.played and ("best" in classes.split()) == c.best
        assert ('class="mark mark-' in panel) == (d.mark is not None)
        if d.mark:
            assert f"{d.mark}</span>" in panel
        # The position, to copy out: the seat view notation, which reads back to a position at this decision.
        typed = html_lib.unescape(re.search(r'<pre class="position-text">(.*?)</pre>', panel, re.S).group(1))
        assert typed == d.position and sim.Position.from_view(typed).decision == d.kind


def test_bad_input_is_refused(trace: list[dict]) -> None:
    with pytest.raises(ValueError, match="game_start"):
        to_html(trace[1:])
    broken = [dict(e) for e in trace]
    first_draw = next(i for i, e in enumerate(broken) if e["type"] == "draw")
    broken[first_draw] = {**broken[first_draw], "card": "★" if broken[first_draw]["card"] != "★" else "2♣"}
    with pytest.raises(ReplayError):
        to_html(broken)


def test_replay_states_follow_the_trace():
    """One state per event: the deal's cards as dealt, every in-round state holding the whole deck,
    the last the game's totals; a broken trace gives no states."""
    events = sim.play_traced("rami51", ["greedy", "random", "expert"], seed=7)
    states = replay_states(events)
    assert len(states) == len(events) and states[0].round is None
    ruleset = preset("rami51")
    size = len(deck(ruleset.decks, ruleset.jokers))
    for event, state in zip(events, states):
        if event["type"] == "deal":
            assert [Counter(parse(h)) for h in state.hands] == [Counter(parse(h)) for h in event["hands"]]
            assert state.pile == event["pile"] and state.stock_size == len(parse(event["stock"]))
        if state.round is not None:
            held = sum(len(parse(h)) for h in state.hands) + sum(len(parse(c)) for _, c in state.table)
            assert held + len(parse(state.pile)) + state.stock_size == size
        if event["type"] == "discard":
            assert parse(state.pile)[-1] == parse(event["card"])[0]
    assert list(states[-1].totals) == events[-1]["totals"]
    broken = copy.deepcopy(events)
    broken[3]["card"] = "★" if broken[3]["card"] != "★" else "2♣"
    with pytest.raises(ReplayError):
        replay_states(broken)
