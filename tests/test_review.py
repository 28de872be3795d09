"""Reviews of game records (:func:`sim.review`, ``rami review``), and the one truth: a record written from a lab
game reviews to the very values ``sim.analyse`` gives that seat of the full trace in belief mode."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from collections import Counter

import pytest
from click.testing import CliRunner

import sim
from sim.cli import main
from sim.engine.layout import PUB_TABLE
from sim.analysis.analyse import walk
from sim.analysis.decisions import Decision
from sim.analysis.page import review_html
from sim.game_record import RecordError, parse_record, seen_steps, write_record
from sim.seat_view import parse_view


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
        on_table = Counter(int(c) for meld in p.table() for c in sim.cards.parse(meld.replace("★", "JK")))
        assert {c: int(k) for c, k in enumerate(seen.pub[PUB_TABLE]) if k} == dict(on_table), p.turn
        _, p = p.step()


def test_a_draw_that_turns_the_pile_over_is_reviewed_before_the_turning_even_when_it_blocks_the_round():
    # Basic rummy turns the pile over as a seat draws from the stock: the record's 'restock' of the seat's own turn
    # is its draw, decided with the whole pile there (take its top or turn it). In this game (two greedy seats,
    # seed 20) the pile is turned twice at seat 1's draws, and the second turning stops the round (a cycle).
    events = sim.play_traced("basic", ["greedy", "greedy"], seed=20, max_rounds=1)
    assert [e.get("reason") for e in events if e["type"] == "blocked"] == ["cycle"]
    record = write_record(events, 1)
    analysed = sim.analyse(events, seats=[1], trials=2, batch=2, seed=5, width=None, workers=1)
    reviewed = sim.review(record, trials=2, batch=2, seed=5, width=None, workers=1, strategies=["greedy"] * 2)
    assert _values(reviewed) == _values(analysed)
    lines = record.splitlines()
    turned = [d for d in reviewed.decisions if lines[d.event - 1] == "restock"]
    assert [(d.kind, d.played, len(d.candidates)) for d in turned] == [("draw", "stock", 2)] * 2
    assert lines[turned[-1].event:turned[-1].event + 1] == ["blocked cycle"]


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
        assert Counter(step["hands"][seat].split()) == Counter(position.hand(seat).split()), k
        assert tuple(step["sizes"]) == position.hand_sizes() and [m for _, m in step["table"]] == list(position.table())
        assert step["pile"] == (position.pile().split() or [""])[-1]
        assert step["stock"] == position.observe(seat).stock
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
    # An opening written in another order than the engine lists its melds (its melds numbered as written) is the
    # very opening the engine lists: it is valued as that choice, and the review goes on with the record's numbers.
    swapped = _worked_record().replace("1 open K♣ K♦ K♥ + 7♥ 8♥ 9♥", "1 open 7♥ 8♥ 9♥ + K♣ K♦ K♥").replace(
        "to 1 high", "to 0 high")
    line = next(n for n, text in enumerate(swapped.splitlines(), start=1) if text.startswith("1 open"))
    reviewed = sim.review(swapped, trials=4, width=None, workers=1)
    assert len(reviewed.decisions) == 13 and all(d.listed for d in reviewed.decisions)
    opening = next(d for d in reviewed.decisions if d.event == line)
    assert opening.played == "open K♣ K♦ K♥ + 7♥ 8♥ 9♥" and opening.played in [c.choice for c in opening.candidates]
    assert any(d.played == "add J♥ to 0 high" for d in reviewed.decisions)


def _unlisted_opening() -> str:
    """The worked example, seat 1 opening with its kings and J♠ Q♠ and the joker (60 points), then laying its
    hearts: an opening the rules allow that the engine does not list (it lists the kings with the hearts, and all
    three melds together); the later lines name the melds by their new numbers."""
    return (_worked_record()
            .replace("# 54 points in hand: I open at once and keep the joker\n", "")
            .replace("1 open K♣ K♦ K♥ + 7♥ 8♥ 9♥\n", "1 open K♣ K♦ K♥ + ★=10♠ J♠ Q♠\n1 meld 7♥ 8♥ 9♥\n")
            .replace("1 meld ★=10♠ J♠ Q♠\n", "")
            .replace("0 add 10♥ to 1 high", "0 add 10♥ to 2 high")
            .replace("0 recover 10♠ from 5, joker to 3 high", "0 recover 10♠ from 1, joker to 4 high")
            .replace("1 add J♥ to 1 high", "1 add J♥ to 2 high"))


def test_a_legal_opening_the_engine_does_not_list_is_shown_unvalued_and_the_review_goes_on(tmp_path):
    text = _unlisted_opening()
    lines = text.splitlines()
    opening_line = lines.index("1 open K♣ K♦ K♥ + ★=10♠ J♠ Q♠") + 1
    path = tmp_path / "game.txt"
    path.write_text(text, encoding="utf-8")
    page = tmp_path / "game.html"
    runner = CliRunner()
    ran = runner.invoke(main, ["review", str(path), "--trials", "8", "--width", "50", "--json", "--html", str(page)])
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.output)
    decisions = found["decisions"]
    assert len(decisions) == 13
    # The opening played is shown in card notation, last among the candidates, not valued; the engine's own
    # choices there are valued as at any decision.
    opening = next(d for d in decisions if d["event"] == opening_line)
    assert opening["kind"] == "lay" and opening["played"] == "open K♣ K♦ K♥ + ★ J♠ Q♠"
    assert opening["listed"] is False and opening["loss"] is None and opening["mark"] is None
    *engine, played = opening["candidates"]
    assert played == {"choice": "open K♣ K♦ K♥ + ★ J♠ Q♠", "trials": 0, "points": None, "points_ci": [None, None],
                      "loss": None, "loss_ci": [None, None], "best": False, "played": True}
    assert {c["choice"] for c in engine} == {"stop", "open K♣ K♦ K♥ + 7♥ 8♥ 9♥",
                                             "open K♣ K♦ K♥ + 7♥ 8♥ 9♥ + ★ J♠ Q♠"}
    assert all(c["trials"] > 0 and c["points"] is not None and not c["played"] for c in engine)
    assert opening["best"] in {c["choice"] for c in engine}
    # The turn goes on from where the record says the opening left it: the hearts laid, then the throw of 9♣,
    # each valued with the seat's hand and the table as they were.
    after = [d for d in decisions if d["event"] > opening_line and d["turn"] == opening["turn"]]
    assert [(d["kind"], d["played"]) for d in after] == [("lay", "meld 7♥ 8♥ 9♥"), ("lay", "stop"),
                                                          ("discard", "9♣")]
    assert all(d["listed"] for d in after)
    meld = parse_view(after[0]["position"])
    assert Counter(meld.hand.split()) == Counter("2♣ 4♣ 9♣ 5♦ 7♥ 8♥ 9♥ 4♠".split())
    assert [(m.owner, m.cards) for m in meld.table] == [(1, "K♣ K♦ K♥"), (1, "★ J♠ Q♠")]
    assert parse_view(after[-1]["position"]).hand.split() == ["2♣", "4♣", "9♣", "5♦", "4♠"]
    later = [d for d in decisions if d["turn"] > opening["turn"]]
    assert [d["played"] for d in later if d["kind"] == "lay" and d["played"] != "stop"] == [
        "meld 4♣ 4♦ 4♠", "add J♥ to 2 high"]
    # It counts in no loss and no error rate; the summary counts it apart.
    everything = next(row for row in found["summary"] if row["kind"] == "all")
    assert everything["unlisted"] == 1 and everything["decisions"] == 13 and everything["loss"] is not None
    html = page.read_text(encoding="utf-8")
    assert "not among the engine's choices" in html
    assert any(d["played"] == "open K♣ K♦ K♥ + ★ J♠ Q♠" for ds in _page_data(html)["decisions"].values()
               for d in ds)
    shown = runner.invoke(main, ["review", str(path), "--trials", "8", "--width", "50"])
    assert shown.exit_code == 0 and "not listed" in shown.output and "unlisted" in shown.output
    reviewed = sim.review(text, trials=4, width=None, workers=1)
    frame = reviewed.frame()
    assert frame.filter(~frame["listed"]).height == 1 and reviewed.summary()["unlisted"].to_list()[-1] == 1


@pytest.mark.parametrize("new,column,words", [
    ("1 open K♣ K♦ K♥ + 7♥ 8♥ 9♣", 19, "7♥ 8♥ 9♣ is not a meld under these rules (docs/rules.md section 2)"),
    ("1 open K♣ K♦ K♥", 1, "the opening is worth 30 points; it needs 51"),
    ("1 open K♣ K♦ K♥ + 10♠ J♠ Q♠", 1, "seat 1 holds no 10♠ to lay"),
])
def test_an_illegal_laying_is_still_refused_at_its_line(tmp_path, new, column, words):
    text = _worked_record().replace("1 open K♣ K♦ K♥ + 7♥ 8♥ 9♥", new)
    line = text.splitlines().index(new) + 1
    path = tmp_path / "game.txt"
    path.write_text(text, encoding="utf-8")
    page = tmp_path / "game.html"
    refused = CliRunner().invoke(main, ["review", str(path), "--html", str(page)])
    assert refused.exit_code == 2
    assert refused.output.strip().splitlines() == [f"Error: {path}: line {line}, column {column}: {words}"]
    assert not page.exists()


def _reversed_opening(text: str, seat: int) -> tuple[str, int]:
    """``text`` with the seat's first opening of several melds written in the reverse order, every later line of
    its round naming those melds by their new numbers; and the opening's line."""
    record = parse_record(text)
    lines = text.splitlines()
    line = next(n for n, t in enumerate(lines, start=1) if t.startswith(f"{seat} open ") and " + " in t)
    laid_before = 0
    for step in seen_steps(record):
        if step.line >= line:
            break
        laid_before = len(step.view.table)
    melds = lines[line - 1][len(f"{seat} open "):].split(" + ")
    renumber = {laid_before + j: laid_before + len(melds) - 1 - j for j in range(len(melds))}
    later = [re.sub(r"(to|from) (\d+)", lambda m: f"{m.group(1)} {renumber.get(int(m.group(2)), int(m.group(2)))}",
                    t) for t in lines[line:]]
    return "\n".join(lines[:line - 1] + [f"{seat} open " + " + ".join(reversed(melds))] + later) + "\n", line


@pytest.mark.parametrize("preset,players,seed,seat", [("rami51", 3, 2, 0), ("basic", 3, 2, 2)])
def test_the_turn_after_an_opening_written_otherwise_is_valued_as_the_engine_values_it(preset, players, seed, seat):
    # An opening written in another order is the engine's; the rest of its turn stands where the record says the
    # opening left it (the melds on the table in the record's order), and the belief rollouts there play what they
    # play after the engine's own opening, trial by trial: the seat's hand, the table's cards, the turn and the
    # turns each seat has begun are the same. Rami 51 at seed 2 opens in the round's first turn; basic rummy at
    # seed 2 goes out in the turn it opens, a rami that doubles its gain.
    text = write_record(sim.play_traced(preset, ["expert"] * players, seed=seed, max_rounds=1), seat)
    reversed_text, line = _reversed_opening(text, seat)
    plain = sim.review(text, trials=12, seed=5, width=None, workers=1)
    other = sim.review(reversed_text, trials=12, seed=5, width=None, workers=1)
    opening = next(d for d in plain.decisions if d.event == line)
    turn = [(d, e) for d, e in zip(plain.decisions, other.decisions) if d.event >= line and d.turn == opening.turn]
    assert len(turn) >= 3 and len(plain.decisions) == len(other.decisions)
    assert all(e.listed for _, e in turn)
    for d, e in turn:
        assert (d.kind, d.played, d.turn) == (e.kind, e.played, e.turn)
        assert _points(d) == _points(e)


def _points(decision: Decision) -> list[tuple[str, float | None]]:
    return [(c.choice, None if math.isnan(c.points) else c.points) for c in decision.candidates]
