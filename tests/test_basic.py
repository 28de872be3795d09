"""Bicycle basic rummy (docs/rules.md section 7) played by the compiled engine."""

from __future__ import annotations

import polars as pl
import pytest

import sim
from sim import rules
from sim.rules.replay import check_trace

RULE_BOOK_EXAMPLE = {
    # « Tu as 4, 5 et 7 de cœur, ainsi que trois Dames et un 9 de pique. »
    # The two opponents hold 18 and 25 points (ace 1).
    "hands": ["4♥ 5♥ 7♥ Q♣ Q♦ Q♠ 9♠", "A♣ A♦ 2♣ 2♦ 3♣ 4♦ 5♠", "A♠ 2♠ 3♥ 3♠ 4♣ 6♦ 6♣"],
    "pile": "K♣",
    # « Tu pioches le 6 de cœur. »
    "stock": "6♥",
}


def test_rule_book_example_goes_out_with_a_rami_worth_86():
    """Bicycle basic rummy: « Pose la suite 4-5-6-7 de cœur et les trois Dames, puis défausse
    le 9 de pique : ta main est vide, tu gagnes cette manche. » and « les
    adversaires ont 18 et 25 points en main : tu reçois 43 points normalement,
    ou 86 en faisant rami. »"""
    events = sim.play_traced("basic", ["greedy"] * 3, seed=1, max_rounds=1, deal=RULE_BOOK_EXAMPLE)
    check_trace(events)
    kinds = [e["type"] for e in events]
    assert kinds[:6] == ["game_start", "deal", "draw", "open", "discard", "out"]
    draw, lay, discard, out, end = events[2], events[3], events[4], events[5], events[6]
    assert draw["card"] == "6♥" and draw["source"] == "stock"
    assert sorted(m["cards"] for m in lay["melds"]) == ["4♥ 5♥ 6♥ 7♥", "Q♣ Q♦ Q♠"]
    assert discard["card"] == "9♠" and out["how"] == "discard"
    # Nothing laid before this turn: a rami doubles 18 + 25 = 43.
    assert end["rami_sec"] is True
    assert end["points"] == [86, 0, 0]
    assert rules.round_scores(end["hands"], end["opened"], "basic", winner=0, rami_sec=False) == [43, 0, 0]


def test_deal_sizes_follow_the_number_of_players():
    """Bicycle basic rummy: « dix cartes chacun à deux ; sept à trois ou quatre ; six à cinq ou six. »"""
    for players, size in [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)]:
        events = sim.play_traced("basic", ["greedy"] * players, seed=players, max_rounds=1)
        deal = events[1]
        assert [len(h.split()) for h in deal["hands"]] == [size] * players
        # One 52-card deck, no joker: hands, the first discard and the stock.
        stock = len(deal["stock"].split())
        assert stock == 52 - players * size - 1


def test_three_rounds_and_the_highest_total_wins():
    """Bicycle basic rummy: « Après les trois manches convenues ici, le plus haut total gagne ;
    une égalité peut être partagée. »"""
    df = sim.simulate("basic", ["greedy", "random", "greedy", "random"], n_games=300, seed=2)
    games = sim.game_summary(df)
    assert (games["rounds"] == 3).all()
    for _, rows in games.group_by("game"):
        best = rows["total"].max()
        assert rows.filter(pl.col("won"))["total"].to_list() == [best] * rows["won"].sum()
        if rows["won"].sum() > 1:
            assert rows["winner"][0] is None
    # Only the winner of a round scores, and it scores the others' hands.
    rounds = df.filter(pl.col("blocked") == "none")
    assert (rounds.filter(~pl.col("went_out"))["points"] == 0).all()
    gains = rounds.group_by("game", "round").agg(
        pl.col("points").sum(), pl.col("hand_value").filter(~pl.col("went_out")).sum(), pl.col("rami_sec").any()
    )
    plain = gains.filter(~pl.col("rami_sec"))
    assert (plain["points"] == plain["hand_value"]).all()
    doubled = gains.filter(pl.col("rami_sec"))
    assert (doubled["points"] == 2 * doubled["hand_value"]).all()


SEATINGS = [
    ["greedy", "greedy"],
    ["random", "greedy"],
    ["greedy", "random", "greedy"],
    ["random"] * 4,
    ["greedy", "random", "random", "greedy", "random"],
    ["random", "greedy", "random", "greedy", "random", "greedy"],
]


@pytest.mark.parametrize("seating", SEATINGS, ids=lambda s: f"{len(s)}p-" + "".join(x[0] for x in s))
@pytest.mark.parametrize("knobs", [{}, {"go_out": "discard_only"}], ids=["lay_or_discard", "discard_only"])
def test_random_basic_games_replay_through_the_rules_reference(seating, knobs):
    ruleset = rules.preset("basic", players=len(seating), turn_cap=300, **knobs)
    for game in range(85):  # 6 seatings x 2 knobs x 85 = 1,020 whole games
        check_trace(sim.play_traced(ruleset, seating, seed=77, game=game))


def test_cycles_of_deterministic_players_are_stopped_and_verified():
    """The pile is turned over unshuffled (« retourner toute la défausse sans la
    mélanger »), so greedy players can come back to a position and repeat it
    forever: the engine stops the round as blocked ("cycle"), and the checker
    verifies that the position at that turning was seen at an earlier one."""
    cycles = 0
    for game in range(30):
        events = sim.play_traced("basic", ["greedy"] * 4, seed=1, game=game)
        check_trace(events)
        for i, e in enumerate(events):
            if e["type"] == "blocked" and e["reason"] == "cycle":
                cycles += 1
                assert events[i - 1]["type"] == "restock" and events[i - 1]["mode"] == "flip"
                # Claimed with a random seat at the table, it is refused.
                forged = [dict(events[0], deterministic=False), *events[1:]]
                with pytest.raises(AssertionError, match="at random"):
                    check_trace(forged)
                # Claimed one turning too early (drop the repeated turning), it is refused.
                restocks = [j for j, x in enumerate(events[:i]) if x["type"] == "restock" and x["round"] == e["round"]]
                early = events[: restocks[0] + 1] + [e] + events[i + 1 :]
                with pytest.raises(AssertionError):
                    check_trace(early)
    assert cycles > 5
