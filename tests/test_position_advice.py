"""Advice from a typed position: ``sim.advise`` and ``sim.rollout`` given the seat view notation, and
``rami advise --position``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import sim
from sim.cli import main
from sim.position import Position
from sim.rollouts import rollout
from sim.seat_view import ViewError, parse_view, to_json
from tests.test_seat_view import TYPED


def test_a_typed_position_gets_every_legal_choice_ranked_by_belief_rollouts():
    advised = sim.advise(TYPED, rollouts=16, rollout_seed=3)
    legal = Position.from_view(TYPED).legal_choices()
    ranked = [c.choice for c in advised.rollout.choices]
    assert sorted(ranked) == sorted(legal) and advised.rollout.choices[0].best
    assert advised.rollout.mode == "belief" and advised.strategies == ("expert",) * 3
    # The same numbers as the rollout of the position the view builds, and as sim.rollout given the text.
    direct = rollout(Position.from_view(TYPED), n=16, seed=3)
    assert np.array_equal(advised.rollout.points, direct.points, equal_nan=True)
    assert np.array_equal(sim.rollout(TYPED, n=16, seed=3).points, direct.points, equal_nan=True)
    assert np.array_equal(sim.rollout(parse_view(TYPED), n=16, seed=3).points, direct.points, equal_nan=True)
    assert np.array_equal(sim.rollout(to_json(parse_view(TYPED)), n=16, seed=3).points, direct.points,
                          equal_nan=True)
    assert advised.to_dict()["position"] == advised.position and parse_view(advised.position) == advised.view
    assert str(advised).startswith("Seat 1, round 0, turn 7: discard")


def test_a_typed_position_refuses_clairvoyance_an_index_and_another_seats_view():
    with pytest.raises(ValueError, match="knows no hidden card"):
        sim.advise(TYPED, mode="clairvoyant")
    with pytest.raises(ValueError, match="knows no hidden card"):
        sim.rollout(TYPED, n=4, mode="clairvoyant")
    with pytest.raises(ValueError, match="give no index"):
        sim.advise(TYPED, 3)
    with pytest.raises(ViewError) as caught:
        sim.rollout("hand: 7H\n", n=4)
    assert caught.value.line == 2 and "missing sections" in str(caught.value)
    other = TYPED.replace("seat: 1", "seat: 0").replace("hand: 2C 5D 9D 9H JH QH KH 4S 8S",
                                                        "hand: 2C 2D 2H 5C 5D 5H 6S 7S 8S 9S 10S QD")
    with pytest.raises(ViewError) as caught:
        sim.advise(other)
    assert (caught.value.line, caught.value.column) == (5, 7) and "seat 1 decides" in str(caught.value)


def test_rami_advise_position_ranks_a_file_or_the_text_and_refuses_bad_input(tmp_path):
    path = tmp_path / "position.txt"
    path.write_text(TYPED, encoding="utf-8")
    runner = CliRunner()
    ran = runner.invoke(main, ["advise", "--position", str(path), "--rollouts", "8", "--json"])
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.output)
    assert parse_view(found["position"]) == parse_view(TYPED)
    assert sorted(c["choice"] for c in found["rollout"]["choices"]) == sorted(
        Position.from_view(TYPED).legal_choices())
    text = runner.invoke(main, ["advise", "--position", TYPED, "--rollouts", "8", "--ascii"])
    assert text.exit_code == 0 and "Rollout of seat 1's discard (belief, 8 trials" in text.output
    for args, words in [
        (["--position", str(path), "--mode", "clairvoyant"], "knows no hidden card"),
        (["--position", str(path), "--event", "4"], "--event cannot go with it"),
        (["--position", str(path), "--rules", "basic"], "--rules cannot go with it"),
        (["--position", str(path), "--rollouts", "0"], "--rollouts 0"),
        (["--position", TYPED.replace("pile: 4H 10C QS", "pile: 4H 10C QX")], "line 11, column 14"),
        (["--position", TYPED.replace("pile: 4H 10C QS", "pile: 4H 4H 4H")], "3 copies of 4♥"),
        (["--position", "hand: 7H"], "missing sections"),
    ]:
        refused = runner.invoke(main, ["advise", *args])
        assert refused.exit_code == 2, (args, refused.output)
        assert len(refused.output.strip().splitlines()) == 1 and words in refused.output, refused.output
        assert "Traceback" not in refused.output


def test_an_advised_turn_shows_its_position_to_copy_out():
    events = sim.play_traced("rami51", ["expert"] * 3, seed=3, max_rounds=1)
    advised = sim.advise(events, 30)
    p = Position.from_view(advised.position)
    assert (p.seat, p.decision, p.round, p.turn) == (advised.seat, "draw", advised.round, advised.turn)
    assert p.hand(p.seat) == advised.hand
    assert advised.position in str(advised).replace("\n  ", "\n") + "\n"
