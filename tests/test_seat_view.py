"""The seat view notation (:mod:`sim.seat_view`) and positions read from it (:meth:`Position.from_view`)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import sim
from sim.position import Position
from sim.rollouts import rollout
from sim.seat_view import ViewError, format_view, from_json, parse_view, to_json

# A position a person can type: Rami 51 for three, seat 1 about to discard after laying a set with a joker.
TYPED = """\
rules: rami51
players: 3
round: 0
turn: 7
seat: 1
mover: 1
decision: discard
hand: 2C 5D 9D 9H JH QH KH 4S 8S
hands: 12 9 12
table: 0 7C 8C 9C; 0 KD KH KS; 1 3D 3H JK=3S
pile: 4H 10C QS
stock: 63
opened: 0 1
took: 1 3H
totals: 0 0 0
moves: drew 9D; meld ★ 3♦ 3♥
"""


def _walk(preset: str, players: int, seed: int, limit: int) -> Iterator[Position]:
    """Every decision of the first round of a traced game of experts, up to ``limit``, one at a time (a position
    holds its round's arrays, more than a megabyte: a round's hundreds held at once would hold hundreds of them)."""
    events = sim.play_traced(preset, ["expert"] * players, seed=seed, max_rounds=1)
    p = Position.from_trace(events, next(i for i, e in enumerate(events) if e["type"] == "deal"))
    walked = 0
    while p.decision != "over" and walked < limit:
        yield p
        walked += 1
        _, p = p.step()


@pytest.mark.parametrize("preset,players,seed", [("rami51", 4, 3), ("contrat", 4, 3), ("basic", 3, 3)])
def test_a_view_read_back_is_the_view_of_every_seat_at_every_decision(preset, players, seed):
    kinds = set()
    for p in _walk(preset, players, seed, 120):
        for seat in range(players):
            view = p.view(seat)
            text = format_view(view)
            assert parse_view(text) == view
            assert parse_view(format_view(view, ascii=True)) == view
            assert from_json(to_json(view)) == view
            assert Position.from_view(text, strategies=p.strategies).view(seat) == view
        kinds.add(p.decision)
    assert kinds >= {"draw", "lay", "discard"} | ({"may_i"} if preset == "contrat" else set())


@pytest.mark.parametrize("preset,players", [("rami51", 4), ("contrat", 4), ("basic", 3)])
def test_belief_rollouts_read_only_what_the_seat_saw(preset, players):
    # The engine position read from the deciding seat's view deals the unseen cards otherwise, and the belief
    # rollouts deal them again at every trial: the same numbers, trial by trial, at every decision of the round.
    compared = 0
    for p in _walk(preset, players, 5, 1000):
        if len(p.legal_choices()) < 2:
            continue
        q = Position.from_view(p.view(), strategies=p.strategies)
        a, b = rollout(p, n=16, seed=7, workers=1), rollout(q, n=16, seed=7, workers=1)
        assert [c.choice for c in a.choices] == [c.choice for c in b.choices]
        assert np.array_equal(a.points, b.points, equal_nan=True)
        compared += 1
    assert compared >= 10


def test_a_typed_position_stands_at_its_decision():
    p = Position.from_view(TYPED)
    assert (p.decision, p.seat, p.mover) == ("discard", 1, 1)
    assert p.hand(1) == "2♣ 5♦ 9♦ 9♥ J♥ Q♥ K♥ 4♠ 8♠"
    assert "9♦" in p.legal_choices()
    # The joker of a set stands for the first suit the set lacks, whatever suit was typed.
    assert p.view().table[2].cards == "★ 3♦ 3♥" and p.view().table[2].stands_for == "3♣"
    assert sum(p.view().hand_sizes) + p.view().stock + 3 + 9 == 108 and p.view().stock == 63


@pytest.mark.parametrize("old,new,line,column,words", [
    ("hand: 2C 5D 9D 9H JH QH KH 4S 8S", "hand: 2C 5D 9D 9H JH QH KH 4S", 8, 7, "8 cards"),
    ("pile: 4H 10C QS", "pile: 4H 10C QX", 11, 14, "unknown suit"),
    ("table: 0 7C 8C 9C;", "table: 0 7C 8C 10C;", 10, 10, "is not a meld"),
    ("pile: 4H 10C QS", "pile: 4H 4H 4H", 8, 7, "3 copies of 4♥"),
    ("totals: 0 0 0\n", "", 16, 1, "missing section: totals"),
    ("stock: 63", "stock: 62", 12, 8, "107"),
    ("decision: discard", "decision: may_i 2", 7, 11, "Puis-je"),
    ("moves: drew 9D; meld ★ 3♦ 3♥", "moves: drew 9D; meld 3♦ 3♥ 3♠", 16, 17, "meld 3♦ 3♥ 3♠"),
])
def test_a_view_that_cannot_happen_names_its_line_and_column(old, new, line, column, words):
    text = TYPED.replace(old, new)
    assert text != TYPED
    with pytest.raises(ViewError) as caught:
        Position.from_view(text)
    err = caught.value
    assert words in str(err)
    assert (err.line, err.column) == (line, column), str(err)


def test_rami_rollout_reads_a_typed_position_and_refuses_clairvoyance(tmp_path):
    from click.testing import CliRunner

    from sim.cli import main

    path = tmp_path / "position.txt"
    path.write_text(TYPED, encoding="utf-8")
    ran = CliRunner().invoke(main, ["rollout", "--position", str(path), "--trials", "8", "--ascii"])
    assert ran.exit_code == 0, ran.output
    assert "Rollout of seat 1's discard (belief, 8 trials" in ran.output
    legal = {sim.cards.ascii_text(c) for c in Position.from_view(TYPED).legal_choices()}
    rows = [line.split()[0] for line in ran.output.splitlines()[2:] if not line.strip().startswith("paired")]
    assert sorted(rows) == sorted(legal)
    refused = CliRunner().invoke(main, ["rollout", "--position", str(path), "--mode", "clairvoyant"])
    assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1
    bad = CliRunner().invoke(main, ["rollout", "--position", TYPED.replace("stock: 63", "stock: 6")])
    assert bad.exit_code == 2 and bad.output.startswith("Error: --position: line 12, column 8: stock:")
