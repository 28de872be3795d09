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
from sim.engine import contract_search
from sim.engine.contract_search import LEAST_RUNS_AT, contract_ruled_out, search_contract
from sim.engine.bits import JOKER, remove_mask
from sim.engine.deals import most_melded
from sim.engine.hand_melds import (
    I_JOKER, I_KIND, I_POINTS, I_SIZE, KIND_RUN, KIND_SET, MAX_CANDIDATES, N_INFO, card_in_meld, enumerate_melds,
    holds_meld, joker_in_meld, melded_cards,
)
from sim.engine.meld_search import best_opening_points, opening_bound, search, workspace
from sim.engine.hand import hand_words
from sim.engine.params import RECOVER_UNAMBIGUOUS
from sim.engine.state import G_ACCEPT, G_ACCEPT_JOKER, G_MELDS, G_RECOVERING
from sim.engine.table import accepts, recovering_cards
from sim.position import Position
from sim.rollouts import redeal
from sim.rules.replay import check_trace
import strategies as S

# ----------------------------------------------------------- compiled melds

# These call the meld kernels (sim.engine.hand_melds, meld_search,
# contract_search) directly, on purpose: each kernel's contract (its answer
# for a hand given as bit words) is checked against the pure-Python rules
# reference, which no public call isolates.

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
    # The most cards melded, many hands at once: the card objective of the same search.
    rows = np.full((len(hands), 15), -1, dtype=np.int64)
    for i, hand in enumerate(hands):
        rows[i, :len(hand)] = [int(c) for c in hand]
    most = np.zeros(len(hands), dtype=np.int64)
    most_melded(rows, r.min_run, r.ace_high, most)
    for hand, melded in zip(hands, most):
        lo, hi, jk = hand_words(hand)
        expected = rules.best_opening(hand, roomy)
        got = best_opening_points(lo, hi, jk, r.min_run, r.ace_high, r.open_needs_natural_run)
        assert got == expected, cards.format(hand)
        assert melded == rules.max_melded_cards(hand, roomy), cards.format(hand)


def test_compiled_best_opening_of_the_rule_book_examples():
    # docs/rules.md section 4: K♣ K♦ K♥ is 30 and 9♠ 10♠ J♠ 29, together 59: opens.
    assert best_opening_points(*hand_words(cards.parse("K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦")), 3, True, False) == 59
    # 6♠ 7♠ 8♠ + A♦ A♣ ★ is 21 + 33 = 54.
    assert best_opening_points(*hand_words(cards.parse("8♠ 7♠ 6♠ A♦ A♣ ★")), 3, True, True) == 54
    # Q♦ K♦ A♦ is 31; A♥ 2♥ 3♥ is 6.
    assert best_opening_points(*hand_words(cards.parse("Q♦ K♦ A♦")), 3, True, False) == 31
    assert best_opening_points(*hand_words(cards.parse("A♥ 2♥ 3♥")), 3, True, False) == 6


@pytest.mark.parametrize("name", ["rami51", "basic", "contrat"])
def test_compiled_listing_is_the_rules_reference_candidates(name):
    # The compiled listing of a hand's melds (each as its naturals' mask and
    # whether a joker completes it) holds exactly the melds the rules
    # reference finds: the meld search, the contract search and every bit
    # test checked against the listing stand on it.
    r = rules.preset(name)
    deck = cards.deck(r.decks, r.n_jokers)
    rng = np.random.default_rng(12)
    c_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    with_jokers = 0
    for _ in range(1500):
        hand = [deck[j] for j in rng.choice(len(deck), int(rng.integers(3, 16)), replace=False)]
        lo, hi, jk = hand_words(hand)
        n = enumerate_melds(lo, jk, r.min_run, r.ace_high, c_mask, c_info)
        listed = {(int(c_mask[k]), int(c_info[k, I_JOKER])) for k in range(n)}
        expected = set()
        for key in rules.candidate_melds(hand, r):
            mask = 0
            for code in key:
                if code != cards.JOKER:
                    mask |= 1 << code
            expected.add((mask, key.count(cards.JOKER)))
        assert listed == expected, cards.format(hand)
        with_jokers += any(j for _, j in expected)
    assert with_jokers > (100 if r.n_jokers else -1)


def test_quick_meld_tests_agree_with_enumeration():
    rng = np.random.default_rng(3)
    c_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    for i in range(3000):
        hand = [DECK[j] for j in rng.choice(len(DECK), int(rng.integers(3, 15)), replace=False)]
        lo, hi, jk = hand_words(hand)
        min_run, ace_high = (3 if i % 3 else 4), bool(i % 5)
        top = int(rng.integers(0, 53))
        if top == 52:
            n = enumerate_melds(lo, jk + 1, min_run, ace_high, c_mask, c_info)
            expected = any(c_info[k, I_JOKER] for k in range(n))
            assert joker_in_meld(lo, min_run, ace_high) == expected
        else:
            n = enumerate_melds(lo | np.uint64(1 << top), jk, min_run, ace_high, c_mask, c_info)
            expected = any(int(c_mask[k]) >> top & 1 for k in range(n))
            assert card_in_meld(lo, jk, top, min_run, ace_high) == expected


def test_the_least_melds_fit_the_contract_tests_scratch():
    # contract_ruled_out lists a hand's least sets from slot 0 of a 400-slot
    # scratch and its least runs from slot LEAST_RUNS_AT: the most least
    # sets a hand holds (every card, a joker) must fit below that slot, and
    # the most least runs (every card, a joker, the ace high, the worst
    # min_run of 3 to 13) above it.
    scratch = np.zeros(400, dtype=np.uint64)
    every_card = np.uint64((1 << 52) - 1)
    most_sets = contract_search._least_melds(every_card, 1, KIND_SET, 3, True, scratch)
    most_runs = max(contract_search._least_melds(every_card, 1, KIND_RUN, min_run, True, scratch)
                    for min_run in range(3, 14))
    assert most_sets == LEAST_RUNS_AT
    assert LEAST_RUNS_AT + most_runs <= scratch.shape[0]


def test_contract_ruled_out_is_the_contract_search_finding_nothing():
    # Contrat skips listing a hand's candidates when bit tests show the
    # contract search would find nothing. Those tests include the search's
    # own first ones (so a hand they rule out is always ruled out), and they
    # never hide a contract. For a deal that need not lay the whole hand they
    # are exact: ruled out just when the search, with no limit on the cards
    # laid, finds no contract (disjoint least melds of the contract's kinds
    # are a contract, and every contract holds some).
    rng = np.random.default_rng(6)
    c_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    scratch = np.empty(400, dtype=np.uint64)
    ws = workspace()
    out = np.empty(64, dtype=np.int64)
    contrat = rules.preset("contrat")
    found = only_together = 0
    for i in range(3000):
        hand = [DECK[j] for j in rng.choice(len(DECK), int(rng.integers(6, 26)), replace=False)]
        lo, hi, jk = hand_words(hand)
        min_run, ace_high = (4 if i % 3 else 3), bool(i % 5)
        deal = rules.contract_deal(i)
        sets, runs = contrat.contract(deal)
        whole = deal == rules.WHOLE_HAND_DEAL
        n = enumerate_melds(lo, jk, min_run, ace_high, c_mask, c_info)
        n_sets, n_runs, useful = contract_search._contract_melds(n, c_mask, c_info, ws)
        first_tests = (whole and ((int(lo) & ~int(useful)) != 0
                                  or (sets == 0 and contract_search._suits(lo) > runs))) or not (
            contract_search._holds_disjoint(lo, hi, jk, ws[0][0], n_sets, sets, c_mask, c_info)
            and contract_search._holds_disjoint(lo, hi, jk, ws[0][1], n_runs, runs, c_mask, c_info))
        ruled_out = contract_ruled_out(lo, hi, jk, sets, runs, whole, min_run, ace_high, scratch)
        assert ruled_out or not first_tests
        limit = len(hand) if whole else len(hand) - 1
        cards_laid, _ = search_contract(lo, hi, jk, n, c_mask, c_info, sets, runs, whole, -1, limit, out, ws)
        assert not (ruled_out and cards_laid >= 0)
        found += cards_laid >= 0
        if not whole:
            any_laid, _ = search_contract(lo, hi, jk, n, c_mask, c_info, sets, runs, whole, -1, len(hand), out, ws)
            assert ruled_out == (any_laid < 0)
            only_together += ruled_out and not first_tests
    # The sample holds contracts, and hands that hold the contract's sets
    # and its runs, each kind alone, but not both at once.
    assert found > 100 and only_together > 20


def test_forced_search_finds_what_trying_its_melds_in_listing_order_finds():
    # A search that must use a card tries the melds holding it richest bound
    # first (sim.engine.meld_search.search), for speed: the collection found must
    # be the one trying them in listing order finds, ties to the first meld
    # listed, each rest searched alone. The melds themselves, not only the
    # value: the opening played, and so every recorded result, depends on them.
    rng = np.random.default_rng(9)
    c_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    ws, rest_ws = workspace(), workspace()
    out, rest_out = np.empty(64, dtype=np.int64), np.empty(64, dtype=np.int64)
    found = ties = 0
    for i in range(1500):
        size = int(rng.integers(12, 17))
        hand = [DECK[j] for j in rng.choice(len(DECK), size, replace=False)]
        lo, hi, jk = hand_words(hand)
        min_run, ace_high = (3 if i % 4 else 4), bool(i % 3)
        objective = 1 if i % 5 == 0 else 0
        need_natural = objective == 0 and i % 7 == 0
        target = 0 if objective == 1 else int(rng.choice([0, 30, 51]))
        limit = len(hand) - 1
        forced = int(hand[int(rng.integers(len(hand)))])
        n = enumerate_melds(lo, jk, min_run, ace_high, c_mask, c_info)
        value, k = search(lo, hi, jk, n, c_mask, c_info, objective, need_natural, forced, limit, target, out, ws)
        best, chosen, totals = -1, [], []
        for m in range(n):
            mask, joker, meld_size = int(c_mask[m]), int(c_info[m, I_JOKER]), int(c_info[m, I_SIZE])
            holds = joker == 1 if forced == JOKER else (mask >> forced) & 1
            if not holds or joker > jk or mask & ~int(lo) or meld_size > limit:
                continue
            rlo, rhi = remove_mask(lo, hi, np.uint64(mask))
            natural_run = c_info[m, I_KIND] == KIND_RUN and joker == 0
            rest, r = search(rlo, rhi, jk - joker, n, c_mask, c_info, objective, need_natural and not natural_run,
                               -1, limit - meld_size, 0, rest_out, rest_ws)
            total = rest + (int(c_info[m, I_POINTS]) if objective == 0 else meld_size)
            if rest >= 0 and total >= target:
                totals.append(total)
            if rest >= 0 and total > best and total >= target:
                best, chosen = total, [m] + [int(x) for x in rest_out[:r]]
        if best < 0:
            assert value == -1, cards.format(hand)
            continue
        assert (value, [int(x) for x in out[:k]]) == (best, chosen), cards.format(hand)
        found += 1
        ties += totals.count(best) > 1
    # The sample holds forced openings, some reached by two melds of the card.
    assert found > 300 and ties > 20, (found, ties)


def test_melded_cards_is_the_union_of_the_enumerated_melds():
    # Contrat's discard after the contract asks which cards sit in a meld
    # without listing the melds: the answer must be the listing's union.
    rng = np.random.default_rng(4)
    c_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    for i in range(3000):
        hand = [DECK[j] for j in rng.choice(len(DECK), int(rng.integers(3, 25)), replace=False)]
        lo, hi, jk = hand_words(hand)
        min_run, ace_high = (3 if i % 3 else 4), bool(i % 5)
        n = enumerate_melds(lo, jk, min_run, ace_high, c_mask, c_info)
        union = 0
        for k in range(n):
            union |= int(c_mask[k])
        assert int(melded_cards(lo, jk, min_run, ace_high)) == union


def test_holds_meld_is_whether_the_listing_finds_a_meld():
    # The turn skips listing a hand's candidates when holds_meld says there is none.
    rng = np.random.default_rng(6)
    c_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    found = 0
    for i in range(3000):
        hand = [DECK[j] for j in rng.choice(len(DECK), int(rng.integers(1, 15)), replace=False)]
        lo, hi, jk = hand_words(hand)
        min_run, ace_high = (3 if i % 3 else 4), bool(i % 5)
        n = enumerate_melds(lo, jk, min_run, ace_high, c_mask, c_info)
        assert holds_meld(lo, jk, min_run, ace_high) == (n > 0), hand
        found += n > 0
    assert 0 < found < 3000


def test_opening_bound_is_never_below_the_best_opening():
    # The turn of a seat that has not opened runs no opening search when the
    # bound is below the threshold: it must never be below the best opening.
    rng = np.random.default_rng(8)
    below = 0
    for i in range(3000):
        hand = [DECK[j] for j in rng.choice(len(DECK), int(rng.integers(3, 16)), replace=False)]
        lo, hi, jk = hand_words(hand)
        min_run, ace_high = (3 if i % 3 else 4), bool(i % 5)
        bound = opening_bound(lo, hi, jk, min_run, ace_high)
        assert bound >= best_opening_points(lo, hi, jk, min_run, ace_high, False), hand
        below += bound < 51
    assert below > 1000  # it rules out most hands short of an opening
    # K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦ opens with 59, all its melded cards.
    assert opening_bound(*hand_words(cards.parse("K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦")), 3, True) == 59


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
        # Small batches are joined into one polars chunk: a chunk per batch cost some thirty column
        # operations each, which made a run of many small batches several times slower.
        assert other.n_chunks() == 1


def test_default_batches_of_rami51_in_memory_are_a_polars_chunk_each():
    # A default batch of games of any length is large enough for its rows to
    # stand as a chunk of their own (no copy into new memory), while every
    # worker still gets four batches. On one worker, 8,000 games are four
    # batches of 1,820 (some 80,000 rows each, a chunk each) and the last 720
    # games; on two, eight batches of 1,000 (some 45,000 rows each), joined
    # in pairs.
    one = sim.simulate("rami51", ["greedy"] * 4, n_games=8000, seed=5, workers=1)
    assert one.n_chunks() == 5
    two = sim.simulate("rami51", ["greedy"] * 4, n_games=8000, seed=5, workers=2)
    assert two.equals(one) and two.n_chunks() == 4


@pytest.mark.parametrize("game", ["basic", "contrat"])
def test_games_of_fixed_rounds_give_the_same_frame_from_shared_rows(game, tmp_path):
    # Basic rummy and contrat write every batch into one array of exactly
    # their rows; the frame must be the one a dataset's batches give, for
    # any workers, batches, first game and round cap.
    seats = ["greedy", "random", "expert"]
    base = sim.simulate(game, seats, n_games=23, seed=3, first_game=5, workers=1, batch_size=4)
    assert base.height == 23 * 3 * (3 if game == "basic" else 7)
    assert base["game"].unique().sort().to_list() == list(range(5, 28))
    for workers, batch in [(2, None), (2, 5), (1, 23)]:
        assert sim.simulate(game, seats, n_games=23, seed=3, first_game=5, workers=workers,
                            batch_size=batch).equals(base)
    sim.simulate(game, seats, n_games=23, seed=3, first_game=5, out=tmp_path / "d")
    on_disk = sim.load(tmp_path / "d").collect().sort("game", "round", "seat")
    assert on_disk.equals(base.drop(set(base.columns) - set(on_disk.columns)).select(on_disk.columns))
    capped = sim.simulate(game, seats, n_games=6, seed=3, max_rounds=2, batch_size=4)
    assert capped.height == 6 * 2 * 3 and capped["truncated"].all()


def test_different_seeds_differ_and_columns_are_documented():
    a = sim.simulate("rami51", ["greedy"] * 2, n_games=20, seed=1)
    b = sim.simulate("rami51", ["greedy"] * 2, n_games=20, seed=2)
    assert not a.equals(b)
    assert a.columns == list(sim.RESULT_COLUMNS)
    assert set(a["rules_version"].unique()) == {rules.RULES_VERSION}


def test_the_random_streams_have_distinct_fixed_purposes():
    # Every stream of a game or a rollout trial is seeded by derive_seed
    # with its purpose last: two purposes sharing a number would make two
    # streams one. The numbers are pinned: every recorded result depends on them.
    from sim.engine import rng as RNG

    named = {name: getattr(RNG, name) for name in dir(RNG) if name.startswith("STREAM_")}
    assert sorted(named.values()) == sorted(RNG.STREAMS)
    assert len(set(RNG.STREAMS)) == len(RNG.STREAMS)
    assert named == {"STREAM_SEAT_POLICY": 1, "STREAM_DECK": 2, "STREAM_ROLLOUT_SEAT_POLICY": 3,
                     "STREAM_ROLLOUT_DECK": 4, "STREAM_ROLLOUT_DEAL": 5, "STREAM_SEARCH": 6,
                     "STREAM_HELD_DEAL": 7, "STREAM_GAME_FUTURE": 8}


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

HIDDEN_GAMES = 6
HIDDEN_DEALS = 2


def _others_moved(position, dealt):
    """Whether ``dealt`` holds other cards than ``position`` anywhere the seat to move cannot see."""
    seat = position.seat
    hidden = [s for s in range(position.ruleset.players) if s != seat]
    return position.stock() != dealt.stock() or any(position.hand(s) != dealt.hand(s) for s in hidden)


# The search's inference and re-deal check read public facts only, so they are held to the same rule.
@pytest.mark.parametrize("name", [*sorted(S.STRATEGIES), "search:trials=8,infer=2,reject=4,turn=1"])
def test_decisions_never_depend_on_hidden_cards(name):
    # At every decision of a seat playing ``name``, the other hands and the
    # stock are dealt anew from the cards that seat cannot see, keeping all it
    # saw (sim.rollouts.redeal: its observation, every hand's size, the cards
    # others are known to hold): it must choose exactly as before. Each
    # decision is checked where it is taken: the draw before the card drawn is
    # known, the layings and the discard after it.
    # The searching player's rule is the same at any budget; a small one keeps its three searches a decision short.
    player = "search:trials=8" if name == "search" else name
    seating = [player, "greedy", "random", player]
    checked = moved = 0
    for game in range(HIDDEN_GAMES):
        events = sim.play_traced("rami51", seating, seed=5, game=game, max_rounds=1)
        position = Position.from_trace(events, next(i for i, e in enumerate(events) if e["type"] == "deal"))
        while position.decision != "over":
            if seating[position.seat] == player:
                expected, _ = position.step()
                seen = position.observe(position.seat)
                for trial in range(HIDDEN_DEALS):
                    dealt = redeal(position, seed=game, trial=trial)
                    again = dealt.observe(position.seat)
                    assert again.hand == seen.hand and (again.pub == seen.pub).all()
                    assert (dealt.hand_sizes(), dealt.pile(), dealt.table()) == (
                        position.hand_sizes(), position.pile(), position.table())
                    moved += _others_moved(position, dealt)
                    assert dealt.step()[0] == expected, (game, position.events[-1])
                checked += 1
            _, position = position.step()
    # Draws, layings and discards of whole rounds, and the hidden cards really moved.
    assert checked > 150
    assert moved == checked * HIDDEN_DEALS


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


def _takes_from_scratch(kernel_state) -> tuple[int, bool, int]:
    """What the table takes, asked of every meld of the table afresh: ``(naturals, joker fits, recoverers)``."""
    kr, st, g = kernel_state.rules, kernel_state.round, kernel_state.g
    n = int(g[G_MELDS])
    mask, joker = accepts(st.table, 0, n, kr.ace_high)
    recovering = 0
    if kr.jokers > 0:
        unambiguous = kr.joker_recovery_from_set == RECOVER_UNAMBIGUOUS
        for m in range(n):
            recovering |= int(recovering_cards(st.table, m, unambiguous))
    return int(mask), bool(joker), recovering


@pytest.mark.parametrize("preset, seating", [
    ("rami51", ["random", "greedy", "expert"]),
    ("rami51-classic", ["random", "random", "greedy", "greedy"]),
    ("rami51-ducale", ["random", "greedy", "random"]),
    (rules.preset("rami51", joker_recovery_from_set="unambiguous_only"), ["random", "greedy", "random"]),
    ("contrat", ["greedy", "random", "expert", "random"]),
    ("basic", ["random", "greedy"]),
])
def test_what_the_table_takes_is_kept_as_asking_every_meld_afresh_would_find(preset, seating):
    # The engine refreshes only the melds a laying changed (table_changed) and
    # keeps the table's union in the round scalars, which every take check,
    # listing and discard reads: after every decision of whole rounds, random
    # choices included, it must be what asking each meld again finds.
    rng = np.random.default_rng(11)
    decisions = changes = recoverable = 0
    for seed in range(4):
        events = sim.play_traced(preset, seating, seed=seed, max_rounds=1)
        position = Position.from_trace(events, next(i for i, e in enumerate(events) if e["type"] == "deal"))
        while position.decision != "over":
            choices = position.legal_choices()
            position = position.apply(choices[rng.integers(len(choices))])
            state = position.kernel_state()
            mask, joker, recovering = _takes_from_scratch(state)
            assert (int(state.g[G_ACCEPT]), bool(state.g[G_ACCEPT_JOKER]), int(state.g[G_RECOVERING])) == (
                mask, joker, recovering), (preset, seed, position.events[-3:])
            decisions += 1
            recoverable += recovering != 0
        # The layings that change a table meld (rather than add one) were played.
        changes += sum(e["type"] in ("add", "recover") for e in position.events)
    assert decisions > 100 and changes > 0
    if preset != "basic":
        assert recoverable > 0  # tables with a joker to take back were met
