"""Reviews of game records (:func:`sim.review`, ``rami review``), and the one truth: a record written from a lab
game reviews to the very values ``sim.analyse`` gives that seat of the full trace in belief mode."""

from __future__ import annotations

import json
import re
from pathlib import Path
from collections import Counter

import pytest
from click.testing import CliRunner

import sim
from sim.cli import main
from sim.engine.layout import PUB_TABLE
from sim.analysis.analyse import walk
from sim.analysis.page import review_html
from sim.game_record import RecordError, parse_record, write_record


def _values(analysis: sim.analysis.Analysis) -> list[dict]:
    """Every decision's values and position (the seat's view), NaN written as None, without where it stands in
    its source (a trace's event index, a record's line)."""
    return [{k: v for k, v in d.items() if k != "event"} for d in analysis.to_dict()["decisions"]]


# The view leaves out facts the engine keeps of each seat (the turn and points of its opening, the turn it first laid,
# the jokers it laid) and the last opening's points: they feed the result rows, and what they decide of play is in the
# view (the points an opening needs, where they rise; which seats laid, for a rami sec), so the one truth holds
# without them. Rami 51 at seed 3 has seat 2 open with two J♥ (J♥ Q♥ K♥ and J♣ J♥ J♠): the engine's public counts
# must note both copies on the table, or the traced game's belief re-deals would deal a J♥ too many where the view's,
# which count the table as it lies, do not.


@pytest.mark.parametrize("preset,players,seed,seat", [("rami51", 3, 13, 1),
                                                      ("rami51", 3, 3, 1),
                                                      ("contrat", 4, 3, 2), ("basic", 3, 3, 0)])
def test_the_review_of_a_record_gives_exactly_the_belief_analysis_of_its_seat(preset, players, seed, seat):
    events = sim.play_traced(preset, ["expert"] * players, seed=seed, max_rounds=1)
    analysed = sim.analyse(events, seats=[seat], trials=12, seed=5, width=None, workers=1)
    reviewed = sim.review(write_record(events, seat), trials=12, seed=5, width=None, workers=1)
    assert _values(reviewed) == _values(analysed)
    assert sum(len(d.candidates) > 1 for d in reviewed.decisions) >= 5
    kinds = {d.kind for d in reviewed.decisions}
    assert kinds >= {"draw", "discard"} | ({"may_i"} if preset == "contrat" else set())
    assert reviewed.seats == (seat,) and reviewed.mode == "belief"


@pytest.mark.parametrize("preset,players,seed", [("rami51", 3, 13), ("rami51", 3, 3),
                                                 ("contrat", 4, 3), ("basic", 3, 3)])
def test_the_public_count_of_the_table_is_the_cards_it_holds(preset, players, seed):
    events = sim.play_traced(preset, ["expert"] * players, seed=seed, max_rounds=1)
    p = sim.Position.from_trace(events, next(i for i, e in enumerate(events) if e["type"] == "deal"))
    while p.decision != "over":
        seen = p.observe(p.seat)
        on_table = Counter(int(c) for meld in seen.table for c in sim.cards.parse(meld.replace("★", "JK")))
        assert {c: int(k) for c, k in enumerate(seen.pub[PUB_TABLE]) if k} == dict(on_table), p.turn
        _, p = p.step()


def test_rami_review_prints_the_table_or_json_and_refuses_a_bad_record(tmp_path):
    events = sim.play_traced("rami51", ["expert"] * 3, seed=3, max_rounds=1)
    path = tmp_path / "game.txt"
    path.write_text(write_record(events, 1), encoding="utf-8")
    runner = CliRunner()
    ran = runner.invoke(main, ["review", str(path), "--trials", "8", "--width", "50", "--json"])
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.output)
    assert found["seats"] == [1] and found["mode"] == "belief" and found["decisions"]
    text = runner.invoke(main, ["review", str(path), "--trials", "8", "--width", "50"])
    assert text.exit_code == 0 and "Analysis of seat 1 (belief" in text.output
    bad = tmp_path / "bad.txt"
    bad.write_text(path.read_text(encoding="utf-8").replace("1 threw A♣", "1 threw 7♣"), encoding="utf-8")
    refused = runner.invoke(main, ["review", str(bad)])
    assert refused.exit_code == 2
    assert refused.output.strip().splitlines() == [f"Error: {bad}: line 13, column 9: seat 1 holds no 7♣ to throw"]
    with pytest.raises(RecordError):
        sim.review("rules: rami51\n")


def _page_data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_the_review_page_shows_what_the_seat_saw_and_no_other_card():
    events = sim.play_traced("contrat", ["expert"] * 4, seed=3, max_rounds=1)
    seat = 2
    record = parse_record(write_record(events, seat))
    reviewed = sim.review(record, trials=4, seed=5, width=None, workers=1)
    data = _page_data(review_html(record, reviewed))
    r = record.ruleset
    assert data["view"] == "seat" and data["seat"] == seat
    for step in data["steps"][1:]:
        # The other hands are sizes alone; the cards of a step add up to the deck.
        assert [h for s, h in enumerate(step["hands"]) if s != seat] == [""] * (r.players - 1)
        assert len(step["hands"][seat].split()) == step["sizes"][seat]
        on_table = sum(len(cards.split()) for _, cards in step["table"])
        assert sum(step["sizes"]) + on_table + step["pile_size"] + step["stock"] == r.deck_size, step["caption"]
    # At each reviewed decision, the page stands where the traced game stood: the seat's own cards, every hand's
    # size, the table and the pile's top, one decision after another as sim.analyse walks the trace.
    truth = [step.position for step in walk(events) if step.position.seat == seat]
    assert len(truth) == len(reviewed.decisions) >= 20
    where = {d["index"]: int(step) for step, ds in data["decisions"].items() for d in ds}
    for k, position in enumerate(truth):
        step = data["steps"][where[k]]
        seen = position.observe(seat)
        assert Counter(step["hands"][seat].split()) == Counter(position.hand(seat).split()), k
        assert tuple(step["sizes"]) == seen.hand_sizes and [m for _, m in step["table"]] == list(seen.table)
        assert step["pile"] == (seen.pile.split() or [""])[-1] and step["stock"] == seen.stock_size
    assert {reviewed.decisions[k].kind for k in where} >= {"draw", "lay", "discard", "may_i"}


def test_rami_review_writes_the_page_and_nothing_for_a_bad_record(tmp_path):
    events = sim.play_traced("rami51", ["expert"] * 3, seed=13, max_rounds=1)
    path = tmp_path / "game.txt"
    path.write_text(write_record(events, 1, ascii=True), encoding="utf-8")
    page = tmp_path / "game.html"
    runner = CliRunner()
    ran = runner.invoke(main, ["review", str(path), "--trials", "4", "--width", "50", "--html", str(page)])
    assert ran.exit_code == 0, ran.output
    assert ran.output.strip().splitlines()[-1] == f"game page: {page.resolve()}"
    html = page.read_text(encoding="utf-8")
    assert "the record of seat 1" in html and 'id="view-toggle"' not in html
    data = _page_data(html)
    assert data["steps"][1]["caption"] == "Round 1 is dealt; seat 0 plays first"
    assert len(data["steps"]) == 2 + sum(1 for line in path.read_text(encoding="utf-8").splitlines()[5:]
                                         if line.strip() and not line.startswith(("#", "round", "first", "hand",
                                                                                   "pile")))
    bad = tmp_path / "bad.txt"
    bad.write_text(path.read_text(encoding="utf-8").replace("score:", "scores:"), encoding="utf-8")
    other = tmp_path / "other.html"
    refused = runner.invoke(main, ["review", str(bad), "--html", str(other)])
    assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1
    assert not other.exists()


def _worked_record() -> str:
    """The hand-written record of docs/real_game.md's worked example."""
    text = (Path(__file__).parents[1] / "docs" / "real_game.md").read_text(encoding="utf-8")
    example = text.split("## A worked example", 1)[1]
    return example.split("```text\n", 1)[1].split("```", 1)[0]


def test_the_worked_example_of_the_guide_is_reviewed(tmp_path):
    record = parse_record(_worked_record())
    assert (record.ruleset.game, record.seat, len(record.rounds)) == ("rami51", 1, 1)
    path = tmp_path / "game.txt"
    path.write_text(_worked_record(), encoding="utf-8")
    page = tmp_path / "game.html"
    ran = CliRunner().invoke(main, ["review", str(path), "--trials", "8", "--width", "50", "--json",
                                    "--html", str(page)])
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.output)
    assert len(found["decisions"]) == 13
    assert [d["kind"] for d in found["decisions"]].count("draw") == 3
    assert any(d["played"] == "take 4♦" for d in found["decisions"])
    data = _page_data(page.read_text(encoding="utf-8"))
    assert "Seat 0 takes back the joker of meld 5 with 10♠ and adds it to meld 3 at its high end" in [
        step["caption"] for step in data["steps"]]
    # An opening written in another order than the engine lists its melds (its melds numbered as written) is a
    # good record, but the review refuses it at its line, with the choices to copy.
    swapped = _worked_record().replace("1 open K♣ K♦ K♥ + 7♥ 8♥ 9♥", "1 open 7♥ 8♥ 9♥ + K♣ K♦ K♥").replace(
        "to 1 high", "to 0 high")
    parse_record(swapped)
    line = next(n for n, text in enumerate(swapped.splitlines(), start=1) if text.startswith("1 open"))
    with pytest.raises(RecordError) as caught:
        sim.review(swapped, trials=4, width=None, workers=1)
    assert (caught.value.line, caught.value.column) == (line, 1)
    assert "open K♣ K♦ K♥ + 7♥ 8♥ 9♥" in str(caught.value)
