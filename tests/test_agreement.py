"""The agreement rate (sim.agreement): a strategy's choices beside the searching player's at the same positions."""

from __future__ import annotations

import json
import math
from collections import Counter

import polars as pl
import pytest

import sim
from sim.agreements import DECISION_SCHEMA, agreement_table, yardstick_choice
from sim.analysis.analyse import walk
from sim.rollouts import redeal

SEARCH = "search:trials=8"


@pytest.fixture(scope="module")
def expert_vs_search():
    return sim.agreement("expert", SEARCH, games=3, max_rounds=2, seed=4)


def test_a_strategy_agrees_with_itself_at_every_decision():
    result = sim.agreement("greedy", "greedy", games=2, max_rounds=2, field="expert", seats=[0, 2])
    everything = result.row("all")
    assert everything["decisions"] > 0
    assert everything["agreements"] == everything["decisions"] and everything["share"] == 1.0
    assert (result.table["share"] == 1.0).all()
    assert result.disagreements == ()
    assert set(result.decisions["seat"].to_list()) == {0, 2}
    assert result.table_strategies == ("greedy", "expert", "greedy", "expert")


def test_the_searching_player_agrees_with_itself_and_a_salt_is_another_search():
    # At its own positions the search, rebuilding what each seat is known to hold from the public events alone,
    # makes the very choices it made in the game (which tracked them move by move); a salt draws other rollouts.
    same = sim.agreement(SEARCH, SEARCH, games=2, max_rounds=1, field="expert", seed=2)
    assert same.row("all")["decisions"] > 0 and same.row("all")["share"] == 1.0
    salted = sim.agreement(SEARCH, SEARCH + ",salt=1", games=2, max_rounds=1, field="expert", seed=2)
    assert salted.row("all")["decisions"] == same.row("all")["decisions"]
    assert salted.row("all")["share"] < 1.0
    with pytest.raises(ValueError, match="salt"):
        sim.agreement(SEARCH, "search:salt=0.5", games=1)


def test_shares_lie_in_their_intervals_and_count_the_walks_decisions(expert_vs_search):
    result = expert_vs_search
    for row in result.table.iter_rows(named=True):
        assert 0.0 <= row["low"] <= row["share"] <= row["high"] <= 1.0
        assert row["share"] == pytest.approx(row["agreements"] / row["decisions"])
    assert result.row("all")["agreements"] < result.row("all")["decisions"]  # search does not play as expert
    # The decisions compared are those of seat 0 with two legal choices or more, kind by kind.
    counted: Counter[str] = Counter()
    for game in range(3):
        events = sim.play_traced("rami51", ["expert"] * 4, seed=4, game=game, max_rounds=2)
        counted.update(s.position.decision for s in walk(events)
                       if s.position.seat == 0 and len(s.position.legal_choices()) >= 2)
    assert {k: result.row(k)["decisions"] for k in result.kinds()} == dict(counted)
    assert result.row("all")["decisions"] == sum(counted.values())
    # Each disagreement is a decision whose two choices differ, both legal there.
    disagreed = result.decisions.filter(~result.decisions["agreed"])
    assert len(result.disagreements) == disagreed.height == result.row("all")["decisions"] - result.row("all")[
        "agreements"]
    for d in result.disagreements[:5]:
        assert d.chosen != d.yardstick and "legal: " in d.position
        legal = d.position.split("legal: ")[1].split(" | ")
        assert d.chosen in legal and d.yardstick in legal
    assert "disagreements" in result.text(1) and result.to_dict(1)["disagreements_total"] == len(result.disagreements)


def test_the_yardstick_never_reads_the_cards_the_seat_cannot_see():
    events = sim.play_traced("rami51", ["expert"] * 4, seed=5, max_rounds=1)
    steps = [s for s in walk(events) if s.position.seat == 0 and len(s.position.legal_choices()) >= 2]
    kinds = {s.position.decision for s in steps}
    assert {"draw", "discard"} <= kinds
    picked = [next(s for s in steps if s.position.decision == k) for k in sorted(kinds)] + steps[-3:]
    for step in picked:
        p = step.position
        theirs = yardstick_choice(p, SEARCH)
        for trial in range(2):
            other = redeal(p, seed=17, trial=trial)
            # The others' hands and the stock are dealt anew; what the seat sees is the same.
            assert [other.hand(s) for s in range(1, 4)] != [p.hand(s) for s in range(1, 4)] or \
                other.stock() != p.stock()
            assert other.observe(0).hand == p.observe(0).hand
            assert yardstick_choice(other, SEARCH) == theirs, (step.event, p.decision)


def test_the_result_hangs_on_the_seed_alone_whatever_the_workers(expert_vs_search):
    two = sim.agreement("expert", SEARCH, games=3, max_rounds=2, seed=4, workers=2)
    assert two.table.equals(expert_vs_search.table)
    assert two.decisions.equals(expert_vs_search.decisions)
    assert two.disagreements == expert_vs_search.disagreements


def test_one_game_has_no_interval_and_bad_arguments_are_refused_before_any_game():
    one = sim.agreement("expert", "expert", games=1, max_rounds=1)
    assert math.isnan(one.row("all")["low"]) and "[" not in one.text().splitlines()[-1].split("%")[-1]
    for kwargs, message in [({"games": 0}, "games"), ({"seats": [7]}, "out of range"),
                            ({"seats": [0, 1, 2, 3]}, "field"), ({"field": ["greedy"] * 5}, "players"),
                            ({"workers": 0}, "workers"), ({"seed": -1}, "seed")]:
        with pytest.raises(ValueError, match=message):
            sim.agreement("expert", "expert", **kwargs)
    with pytest.raises(ValueError, match="unknown strategy"):
        sim.agreement("expert", "oracle", games=1)
    with pytest.raises(ValueError, match="no 'may_i' decision"):
        one.row("may_i")


def test_a_round_blocked_by_the_turning_of_the_pile_is_compared_to_its_last_decision():
    # Basic rummy, game 0 of seed 20 for two greedy seats: a draw from the stock turns the pile over and the round
    # stops there (a cycle, its events a restock and the blocked); that draw is a decision like any other.
    result = sim.agreement("greedy", "greedy", rules="basic", field=["greedy"], games=1, seed=20, max_rounds=1,
                           seats=[1])
    events = sim.play_traced("basic", ["greedy", "greedy"], seed=20, max_rounds=1)
    turned = len(events) - 4
    assert (events[turned]["type"], events[turned + 1]["reason"]) == ("restock", "cycle")
    walked = [s for s in walk(events) if s.position.seat == 1 and len(s.position.legal_choices()) > 1]
    assert result.decisions["event"].to_list() == [s.event for s in walked] and walked[-1].event == turned
    assert result.row("all")["share"] == 1.0


def test_a_kind_of_decision_beyond_the_three_gets_its_row():
    # A "Puis-je ?" decision, once positions stop there, flows through like the others: after the turn's kinds.
    rows = [(0, 1, "discard", True), (0, 2, "may_i", False), (1, 3, "draw", True), (1, 4, "may_i", True),
            (1, 5, "discard", False)]
    decisions = pl.DataFrame(
        [{"game": g, "event": e, "round": 0, "turn": 0, "seat": 0, "kind": k, "choices": 2, "agreed": a}
         for g, e, k, a in rows], schema=DECISION_SCHEMA)
    table = agreement_table(decisions, games=3)
    assert table["kind"].to_list() == ["draw", "discard", "may_i", "all"]
    assert table["decisions"].to_list() == [1, 2, 2, 5] and table["agreements"].to_list() == [1, 1, 1, 3]


def test_the_command_prints_the_table_and_its_json():
    from click.testing import CliRunner

    from sim.cli import main

    args = ["agree", "expert", "--yardstick", "expert", "--games", "2", "--max-rounds", "1", "--workers", "1"]
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "Agreement of expert with expert" in text.stdout and "100.0%" in text.stdout
    found = CliRunner().invoke(main, [*args, "--json"])
    assert found.exit_code == 0, found.output
    data = json.loads(found.stdout)
    assert data["table"][-1]["kind"] == "all" and data["table"][-1]["share"] == 1.0
    assert data["disagreements_total"] == 0 and data["seats"] == [0]
