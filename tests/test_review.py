"""Reviews of game records (:func:`sim.review`, ``rami review``), and the one truth: a record written from a lab
game reviews to the very values ``sim.analyse`` gives that seat of the full trace in belief mode."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner

import sim
from sim.cli import main
from sim.engine.layout import PUB_TABLE
from sim.game_record import RecordError, write_record


def _values(analysis: sim.analysis.Analysis) -> list[dict]:
    """Every decision's values, NaN written as None, without where it stands in its source (a trace's event
    index, a record's line)."""
    return [{k: v for k, v in d.items() if k != "event"} for d in analysis.to_dict()["decisions"]]


# The view leaves out facts the engine keeps of each seat (the turn and points of its opening, the turn it first laid,
# the jokers it laid) and the last opening's points: they feed the result rows, and what they decide of play is in the
# view (the points an opening needs, where they rise; which seats laid, for a rami sec), so the one truth holds
# without them. Rami 51 at seed 3 meets an engine fault instead: seat 2 opens with two J♥ (J♥ Q♥ K♥ and J♣ J♥ J♠)
# and the public counts note one J♥ on the table, so the traced game's belief re-deals deal a J♥ too many where the
# view's, which count the table as it lies, do not. Strict, so that the day the engine counts both copies this
# case must pass.
DOUBLE_COPY = pytest.mark.xfail(strict=True, reason="the engine's public counts note one copy of a card an opening "
                                                    "lays twice")


@pytest.mark.parametrize("preset,players,seed,seat", [("rami51", 3, 13, 1),
                                                      pytest.param("rami51", 3, 3, 1, marks=DOUBLE_COPY),
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


@pytest.mark.parametrize("preset,players,seed", [("rami51", 3, 13), pytest.param("rami51", 3, 3, marks=DOUBLE_COPY),
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
