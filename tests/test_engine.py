"""The compiled engine against the pure-Python rules reference.

The backbone: thousands of random games are traced and replayed move by move
through :func:`sim.rules.replay.check_trace`, which fails on any illegal move,
any card lost or duplicated, and any score that differs from the reference.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import sim
from sim import cards, rules
from sim.engine import melds as M
from sim.engine import play as E
from sim.engine.params import kernel_rules
from sim.rules.replay import check_trace
import strategies as S

# ----------------------------------------------------------- compiled melds

DECK = cards.deck(2, 4)


def random_hands(n, size, seed, jokers=None):
    rng = np.random.default_rng(seed)
    hands = []
    for _ in range(n):
        hand = [DECK[i] for i in rng.choice(len(DECK), size, replace=False)]
        if jokers is not None:
            naturals = [c for c in hand if not c.is_joker][: size - jokers]
            hand = naturals + [cards.JOKER] * jokers
        hands.append(hand)
    return hands


@pytest.mark.parametrize("preset", ["rami51", "rami51-ducale", "contrat", "basic"])
def test_compiled_best_opening_and_max_melded_match_the_reference(preset):
    r = rules.preset(preset)
    hands = random_hands(150, 14, seed=1) + random_hands(40, 15, seed=2, jokers=3)
    if r.n_jokers == 0:
        hands = [[c for c in h if not c.is_joker] for h in hands]
    # The same meld rules with room for these hands (two packs, four jokers, 15
    # cards): the reference refuses a hand its own deck could not deal.
    roomy = r.replace(players=5) if r.game == "contrat" else r.replace(decks=2, deal=14, players=2)
    for hand in hands:
        lo, hi, jk = M.hand_words(hand)
        expected = rules.best_opening(hand, roomy)
        got = M.best_opening_points(lo, hi, jk, r.min_run, r.ace_high, r.open_needs_natural_run)
        assert got == expected, cards.format(hand)
        assert M.max_melded(lo, hi, jk, r.min_run, r.ace_high) == rules.max_melded_cards(hand, roomy)


def test_compiled_best_opening_of_the_rule_book_examples():
    # docs/rules.md section 4: K♣ K♦ K♥ is 30 and 9♠ 10♠ J♠ 29, together 59: opens.
    assert M.best_opening_points(*M.hand_words(cards.parse("K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦")), 3, True, False) == 59
    # 6♠ 7♠ 8♠ + A♦ A♣ ★ is 21 + 33 = 54.
    assert M.best_opening_points(*M.hand_words(cards.parse("8♠ 7♠ 6♠ A♦ A♣ ★")), 3, True, True) == 54
    # Q♦ K♦ A♦ is 31; A♥ 2♥ 3♥ is 6.
    assert M.best_opening_points(*M.hand_words(cards.parse("Q♦ K♦ A♦")), 3, True, False) == 31
    assert M.best_opening_points(*M.hand_words(cards.parse("A♥ 2♥ 3♥")), 3, True, False) == 6


def test_quick_meld_tests_agree_with_enumeration():
    rng = np.random.default_rng(3)
    c_mask = np.empty(M.MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((M.MAX_CANDIDATES, M.N_INFO), dtype=np.int32)
    for i in range(3000):
        hand = [DECK[j] for j in rng.choice(len(DECK), int(rng.integers(3, 15)), replace=False)]
        lo, hi, jk = M.hand_words(hand)
        min_run, ace_high = (3 if i % 3 else 4), bool(i % 5)
        top = int(rng.integers(0, 53))
        if top == 52:
            n = M.enumerate_melds(lo, jk + 1, min_run, ace_high, c_mask, c_info)
            expected = any(c_info[k, M.I_JOKER] for k in range(n))
            assert M.joker_in_meld(lo, min_run, ace_high) == expected
        else:
            n = M.enumerate_melds(lo | np.uint64(1 << top), jk, min_run, ace_high, c_mask, c_info)
            expected = any(int(c_mask[k]) >> top & 1 for k in range(n))
            assert M.card_in_meld(lo, jk, top, min_run, ace_high) == expected


# ------------------------------------------------------------- trace replay

# Each configuration is replayed over many seeds; together they cover every
# Rami 51 knob and basic rummy, 2 to 5 players, greedy and random seats.
VARIANTS = [
    ("rami51", {}),
    ("rami51-ducale", {}),
    ("rami51-classic", {}),
    ("rami51", {"discard_take": "free"}),
    ("rami51", {"discard_take": "only_after_opening"}),
    ("rami51", {"discard_playable": "forbidden"}),
    ("rami51", {"open_threshold_rises": True}),
    ("rami51", {"open_threshold": 0}),
    ("rami51", {"open_threshold": 30, "jokers": 2}),
    ("rami51", {"open_threshold": 81, "jokers": 0}),
    ("rami51", {"lay_all_ignores_opening": True, "go_out": "discard_only"}),
    ("rami51", {"last_card_no_discard_take": True, "discard_take": "free"}),
    ("rami51", {"joker_recovery_from_set": "unambiguous_only"}),
    ("rami51", {"stock_exhausted": "turn_once_then_block", "turn_cap": 400}),
    ("rami51", {"stock_exhausted": "flip_no_shuffle"}),
    ("rami51", {"deal": 13, "first_player_extra_card": True}),
    ("rami51", {"unopened_penalty": "count_cards", "rami_sec": "none"}),
    ("rami51-ducale", {"discard_take": "free", "game_target": 250}),
    ("basic", {}),
    ("basic", {"go_out": "discard_only"}),
]
SEATS = [
    ["greedy", "expert"],
    ["random", "cautious", "random"],
    ["greedy", "expert", "cautious", "greedy"],
    ["random", "expert", "greedy", "random", "cautious"],
    ["random"] * 2,
]
GAMES_PER_CASE = 21  # 20 variants x 5 seatings x 21 games = 2,100 games


@pytest.mark.parametrize("seating", SEATS, ids=lambda s: "-".join(x[:2] for x in s))
@pytest.mark.parametrize("preset,knobs", VARIANTS, ids=lambda v: str(v))
def test_random_games_replay_through_the_rules_reference(preset, knobs, seating):
    players = len(seating)
    if preset == "basic" and players > 6:
        pytest.skip("basic rummy seats at most 6")
    # A short turn cap keeps random-only rounds brief; rounds it stops are
    # checked as blocked rounds like any other.
    knobs = {"turn_cap": 250, **knobs}
    ruleset = rules.preset(preset, players=players, **knobs)
    for game in range(GAMES_PER_CASE):
        events = sim.play_traced(ruleset, seating, seed=1000 + game, game=game, max_rounds=2)
        summary = check_trace(events)
        # Every card of the deck is accounted for after every event.
        assert set(summary["cards_per_round"]) == {ruleset.deck_size}


def test_a_whole_game_to_the_target_replays():
    for seed in range(3):
        events = sim.play_traced("rami51", ["greedy"] * 3, seed=seed)
        summary = check_trace(events)
        assert not summary["truncated"]
        assert max(summary["totals"]) >= 500


# ------------------------------------------------------------------ the API


def test_simulate_rows_match_the_trace_of_each_game():
    df = sim.simulate("rami51", ["greedy", "random", "greedy"], n_games=4, seed=7, max_rounds=3)
    for game in range(4):
        events = sim.play_traced("rami51", ["greedy", "random", "greedy"], seed=7, game=game, max_rounds=3)
        ends = [e for e in events if e["type"] == "round_end"]
        rows = df.filter(pl.col("game") == game).sort("round", "seat")
        assert rows["points"].to_list() == [p for e in ends for p in e["points"]]
        assert rows["total"].to_list() == [t for e in ends for t in e["totals"]]
        assert rows["opened"].to_list() == [o for e in ends for o in e["opened"]]


def test_results_do_not_depend_on_workers_or_batches():
    base = sim.simulate("rami51", ["greedy"] * 4, n_games=60, seed=11)
    for workers, batch in [(2, None), (2, 7), (1, 1), (3, 25)]:
        other = sim.simulate("rami51", ["greedy"] * 4, n_games=60, seed=11, workers=workers, batch_size=batch)
        assert other.equals(base)


def test_different_seeds_differ_and_columns_are_documented():
    a = sim.simulate("rami51", ["greedy"] * 2, n_games=20, seed=1)
    b = sim.simulate("rami51", ["greedy"] * 2, n_games=20, seed=2)
    assert not a.equals(b)
    assert a.columns == list(sim.RESULT_COLUMNS)
    assert set(a["rules_version"].unique()) == {rules.RULES_VERSION}


def test_result_frame_is_consistent():
    df = sim.simulate("rami51", ["greedy", "random", "greedy", "random"], n_games=40, seed=3)
    per_round = df.group_by("game", "round").agg(
        pl.col("went_out").sum(), pl.col("blocked").first(), pl.col("points").filter(pl.col("went_out")).sum()
    )
    # One winner per round unless it was blocked; the winner scores nothing.
    assert ((per_round["went_out"] == 1) | (per_round["blocked"] != "none")).all()
    assert (per_round["points"] == 0).all()
    # Cards left and penalties agree where no special rule applies.
    sec = df.group_by("game", "round").agg(pl.col("rami_sec").any().alias("round_sec"))
    df = df.join(sec, on=["game", "round"])
    opened = df.filter(pl.col("opened") & ~pl.col("went_out") & (pl.col("blocked") == "none") & ~pl.col("round_sec"))
    assert opened.height > 100
    assert (opened["hand_value"] == opened["points"]).all()
    # Game totals are the sum of the round points.
    totals = df.group_by("game", "seat").agg(pl.col("points").sum(), pl.col("total").last())
    assert (totals["points"] == totals["total"]).all()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_games": -5}, "n_games"),
        ({"n_games": 0}, "n_games"),
        ({"workers": 0}, "workers"),
        ({"seed": -1}, "seed"),
        ({"max_rounds": 0}, "max_rounds"),
    ],
)
def test_simulate_refuses_bad_arguments(kwargs, message):
    args = {"n_games": 2, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        sim.simulate("rami51", ["greedy"] * 2, **args)


def test_simulate_refuses_unknown_strategy_and_preset():
    with pytest.raises(ValueError, match="unknown strategy 'greedyy'"):
        sim.simulate("rami51", ["greedyy", "greedy"], n_games=1)
    with pytest.raises(rules.RulesetError, match="unknown preset"):
        sim.simulate("rami52", ["greedy"] * 2, n_games=1)
    with pytest.raises(rules.RulesetError, match="players"):
        sim.simulate("rami51", ["greedy"] * 6, n_games=1)


# ------------------------------------------------------- information rule


def _hand_codes(lo, hi, jk):
    codes = []
    for c in range(52):
        codes += [c] * (int(lo) >> c & 1) + [c] * (int(hi) >> c & 1)
    return codes + [52] * int(jk)


def _position(ruleset, seating, game, turns):
    kr = kernel_rules(ruleset)
    kinds, params = S.parameter_arrays([S.get(s) for s in seating], E.MAX_SEATS)
    buffers = E.make_buffers()
    ws = M.workspace()
    g = np.zeros(E.N_G, dtype=np.int64)
    ev = np.zeros((4000, E.N_EV), dtype=np.int32)
    policy_rng = np.zeros(E.MAX_SEATS, dtype=np.uint64)
    deck_rng = np.zeros(1, dtype=np.uint64)
    E.start_round(kr, game, np.uint64(5), 0, buffers, g, ev, policy_rng, deck_rng, np.zeros(0, dtype=np.int64))
    for _ in range(turns):
        if E.step_turn(kr, kinds, params, buffers, ws, g, ev, policy_rng, deck_rng) != E.TURN_NEXT:
            return None
    return kr, kinds, params, buffers, ws, g, policy_rng, deck_rng


def _next_turn_events(position):
    kr, kinds, params, buffers, ws, g, policy_rng, deck_rng = position
    ev = np.zeros((4000, E.N_EV), dtype=np.int32)
    g = g.copy()
    g[E.G_TRACE] = 1
    g[E.G_NEV] = 0
    buffers = tuple(b.copy() for b in buffers)  # the position itself stays as it was
    E.step_turn(kr, kinds, params, buffers, ws, g, ev, policy_rng.copy(), deck_rng.copy())
    return ev[: g[E.G_NEV]].copy()


def _hide_differently(position, rng):
    """The same position with the other hands and the stock under its top dealt anew."""
    kr, kinds, params, buffers, ws, g, policy_rng, deck_rng = position
    copy = tuple(b.copy() for b in buffers)
    h_lo, h_hi, h_jk, h_n, _seats, _table, _owner, stock = copy[:8]
    mover = int((g[E.G_FIRST] + g[E.G_TURN]) % kr.players)
    others = [s for s in range(kr.players) if s != mover]
    n_stock = int(g[E.G_STOCK])
    pool = [c for s in others for c in _hand_codes(h_lo[s], h_hi[s], h_jk[s])]
    pool += list(stock[: n_stock - 1])  # the top card is drawn in the open
    rng.shuffle(pool)
    for s in others:
        take, pool = pool[: h_n[s]], pool[h_n[s] :]
        lo, hi, jk = M.hand_words(take)
        h_lo[s], h_hi[s], h_jk[s] = lo, hi, jk
    stock[: n_stock - 1] = pool
    return (kr, kinds, params, copy, ws, g.copy(), policy_rng.copy(), deck_rng.copy())


@pytest.mark.parametrize("name", sorted(S.STRATEGIES))
def test_decisions_never_depend_on_hidden_cards(name):
    rng = np.random.default_rng(0)
    seating = [name, "greedy", "random", name]
    checked = 0
    for game in range(30):
        for turns in (0, 3, 9, 17):
            position = _position(rules.preset("rami51"), seating, game, turns)
            if position is None or position[5][E.G_STOCK] < 20:
                continue
            expected = _next_turn_events(position)
            for _ in range(3):
                other = _hide_differently(position, rng)
                # The hidden cards really moved...
                assert not all(np.array_equal(a, b) for a, b in zip(other[3][:3], position[3][:3]))
                # ...and the seat to move played exactly the same turn.
                assert np.array_equal(_next_turn_events(other), expected)
            checked += 1
    assert checked > 80


def test_a_truncated_game_has_no_winner():
    events = sim.play_traced("rami51", ["greedy"] * 2, seed=4, max_rounds=1)
    assert events[-1]["truncated"] and events[-1]["winner"] is None
    check_trace(events)
    bad = [*events[:-1], dict(events[-1], winner=0)]
    with pytest.raises(AssertionError, match="truncated game"):
        check_trace(bad)
    bad = [*events[:-1], dict(events[-1], truncated=False)]
    with pytest.raises(AssertionError, match="truncated"):
        check_trace(bad)
