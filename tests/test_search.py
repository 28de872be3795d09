"""The search strategy: its name and parameters, its game loop against positions, its determinism."""

from __future__ import annotations

import numpy as np
import pytest

import sim
import strategies as S
from sim.engine import game_value as GV
from sim.engine import search as SK
from sim.engine.policies import KIND_HEURISTIC, KIND_RANDOM, KIND_SEARCH, P_SEARCH_BASE, P_SEARCH_SALT, P_SEARCH_TRIALS
from sim.position import Position
from sim.rules.replay import check_trace

SEATS = ["search:trials=8", "expert", "random", "search:trials=8,base=greedy"]


def test_search_by_name_with_parameters_and_base():
    s = S.get("search")
    assert s.kind == KIND_SEARCH and s.name == "search" and s.base.name == "expert"
    assert s.params == S.SEARCH_DEFAULTS
    t = S.get("search:trials=64,base=cautious,width=1")
    assert t.name == "search:trials=64,width=1,base=cautious"
    assert t.params == {**S.SEARCH_DEFAULTS, "trials": 64, "width": 1}
    salted = S.get("search:salt=7")
    assert salted.name == "search:salt=7" and salted.vector()[P_SEARCH_SALT] == 7
    v = t.vector()
    assert v[P_SEARCH_TRIALS] == 64 and v[P_SEARCH_BASE] == KIND_HEURISTIC
    # The base's own parameters fill the rest of the vector: the playouts read them.
    assert list(v[:12]) == list(S.get("cautious").vector()[:12])
    assert S.get("search:base=random").vector()[P_SEARCH_BASE] == KIND_RANDOM
    # A per-game base point travels with the search.
    assert S.get("search").for_game("contrat").base.params == S.get("expert").for_game("contrat").params


@pytest.mark.parametrize("text, message", [
    ("search:trials=1", "trials = 1.0 must be a whole number from 2"),
    ("search:trials=8.5", "whole number"),
    ("search:depth=3", "unknown search parameter 'depth'"),
    ("search:base=search", "compiled strategy"),
    ("search:base=nope", "unknown strategy 'nope'"),
    ("search:trials", "expected name=value"),
    ("search:base=greedy,base=expert", "given twice"),
])
def test_bad_search_strategies_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        S.get(text)


def test_look_quantiles_spend_five_percent_over_all_looks():
    from statistics import NormalDist

    for look in (1, 2, 5, 13, 40):
        alpha = 0.05 * 6 / (np.pi ** 2 * look ** 2)
        assert SK.look_alpha(look) == pytest.approx(alpha, rel=1e-15)
        assert SK.look_z(look) == pytest.approx(NormalDist().inv_cdf(1 - alpha / 2), abs=1e-9)
    assert sum(SK.look_alpha(look) for look in range(1, 100_000)) == pytest.approx(SK.ALPHA, rel=1e-4)


@pytest.mark.parametrize("preset, seats, seed", [
    ("rami51", ["expert", "greedy", "random", "cautious"], 3),
    # greedy asks "Puis-je ?" in contrat: cards taken out of turn are known too.
    ("contrat", ["greedy", "random", "greedy"], 5),
    ("basic", ["expert", "random", "greedy"], 7),
    ("rami51", ["random", "random"], 8),
])
def test_the_known_cards_a_trace_shows_are_the_game_loops(preset, seats, seed):
    # One rule, two readings: the searching game loop keeps what each seat is
    # publicly known to hold from the engine's state after every decision
    # (note_public, the reference); a position reads it from its trace's
    # events (sim.rollouts.known_cards). They agree at every decision.
    from sim import cards as cardlib
    from sim.engine import position as K
    from sim.engine.state import MAX_SEATS
    from sim.rollouts import known_cards

    events = sim.play_traced(preset, seats, seed=seed, max_rounds=3)
    checked = 0
    for deal in [i for i, e in enumerate(events) if e["type"] == "deal"]:
        position = Position.from_trace(events, deal)
        known = np.zeros((MAX_SEATS, cardlib.N_CODES), dtype=np.int64)
        took = np.zeros_like(known)
        while position.decision != "over":
            seat = position.seat
            phase = int(position.kernel_state().turn[K.TS_PHASE])
            before = np.zeros(cardlib.N_CODES, dtype=np.int64)
            for c in cardlib.parse(position.hand(seat)):
                before[int(c)] += 1
            text, after = position.step()
            choice = dict(position.choice_codes())[text]
            state = after.kernel_state()
            SK.note_public(state.rules, state.round, seat, phase, choice, took, before, known)
            if after.decision != "over":
                expected = known.copy()
                expected[after.seat] = 0
                assert np.array_equal(known_cards(after), expected), (preset, seed, len(after.events))
                checked += 1
            position = after
    assert checked > 100
    if preset == "contrat":
        assert any(e["type"] == "may_i" for e in events)


@pytest.mark.parametrize("preset, seats", [
    ("rami51", SEATS),
    # greedy asks "Puis-je ?": cards taken out of turn are known too.
    ("contrat", ["search:trials=4", "greedy", "greedy", "search:trials=4,base=random"]),
    # Inference: a position reads the others' throws and tops left from the trace as the game loop noted them.
    # A laying searched with its continuation (turn=1) too.
    ("rami51", ["search:trials=4,infer=1.5,reject=8", "expert", "search:trials=4,infer=3,prune=2,turn=1", "greedy"]),
    ("contrat", ["search:trials=4,infer=2,reject=4,turn=1", "greedy", "expert"]),
    ("basic", ["expert", "search:trials=4,infer=2,turn=1", "random"]),
])
def test_a_searching_game_replays_through_the_rules_and_through_positions(preset, seats):
    # The game loop tracks what each seat is known to hold from public facts;
    # a position counts it from the trace (sim.rollouts.known_cards): every
    # searching decision recomputed from its position must be the game's, or
    # from_trace refuses the trace (it replays each decision and compares).
    events = sim.play_traced(preset, seats, seed=11, max_rounds=2)
    check_trace(events)
    if preset == "contrat":
        assert any(e["type"] == "may_i" for e in events)
    deals = [i for i, e in enumerate(events) if e["type"] == "deal"]
    for d in deals:
        end = next(i for i in range(d, len(events)) if events[i]["type"] == "round_end")
        last = max(i for i in range(d, end) if events[i]["type"] in ("discard", "draw", "meld", "add", "open")
                   and events[i - 1]["type"] != "recover")
        Position.from_trace(events, last)


def test_results_hang_on_the_seed_alone_whatever_the_workers():
    one = sim.simulate("rami51", SEATS, n_games=4, seed=2, workers=1, batch_size=1)
    two = sim.simulate("rami51", SEATS, n_games=4, seed=2, workers=2, batch_size=1)
    assert one.equals(two)
    # The same rows as the trace of each game.
    for game in range(2):
        events = sim.play_traced("rami51", SEATS, seed=2, game=game)
        totals = events[-1]["totals"]
        rows = one.filter(one["game"] == game)
        last = rows.filter(rows["round"] == rows["round"].max()).sort("seat")
        assert last["total"].to_list() == totals


def test_a_searching_table_written_to_a_dataset_keeps_every_worker_busy(tmp_path):
    # A searching game costs up to seconds: 8 games in 8 batches, where the 250 games a file of other tables
    # would put them all in one batch on one thread. The rows are those of a run in memory.
    sim.simulate("rami51", SEATS, n_games=8, seed=2, workers=2, out=tmp_path / "d")
    assert len(list((tmp_path / "d" / "rounds").glob("*.parquet"))) == 8
    assert sim.load(tmp_path / "d", "rounds").sort("game", "round", "seat").collect()["points"].to_list() == \
        sim.simulate("rami51", SEATS, n_games=8, seed=2, workers=2).sort("game", "round", "seat")["points"].to_list()
    sim.simulate("rami51", ["greedy"] * 4, n_games=8, seed=2, workers=2, out=tmp_path / "plain")
    assert len(list((tmp_path / "plain" / "rounds").glob("*.parquet"))) == 1


def test_a_table_without_search_plays_the_plain_loop():
    kinds, _ = S.parameter_arrays([S.get("expert")] * 4, 6)
    assert not sim.engine.play.searching(kinds)
    kinds, _ = S.parameter_arrays([S.get("search")] + [S.get("expert")] * 3, 6)
    assert sim.engine.play.searching(kinds)


@pytest.mark.parametrize("preset, seats", [
    ("rami51", ["expert", "greedy", "random", "cautious"]),
    ("contrat", ["expert", "cautious", "random"]),
    ("basic", ["expert", "random"]),
])
def test_the_searching_loop_writes_the_plain_loops_rows(preset, seats):
    # With no seat searching, the searching game loop (the position machine,
    # decision by decision) must play and write exactly what the plain loop does.
    from sim import rules
    from sim.engine import play as E
    from sim.engine.params import kernel_rules

    r = rules.preset(preset, players=len(seats))
    kinds, params = S.parameter_arrays([S.get(s).for_game(r.game) for s in seats], E.MAX_SEATS)
    kr = kernel_rules(r)
    plain = np.zeros((E.N_R, 4000), dtype=np.int32)
    searching = np.zeros_like(plain)
    tally = np.zeros(SK.N_TALLY, dtype=np.int64)
    done, rows = E.play_games(kr, np.uint64(9), 0, 6, kinds, params, E.MAX_ROUNDS, plain, 0, True)
    assert (done, rows) == SK.search_games(kr, np.uint64(9), 0, 6, kinds, params, E.MAX_ROUNDS, searching, 0, True,
                                          *GV.futures(kr, kinds, params), tally)
    assert np.array_equal(plain[:, :rows], searching[:, :rows])
    assert list(tally) == [0, 0]


def test_the_command_line_reads_a_searching_seat_with_its_parameters():
    from sim.cli.common import seat_strategies

    assert seat_strategies("search:trials=16,base=greedy,expert,expert,expert") == [
        "search:trials=16,base=greedy", "expert", "expert", "expert"]
    assert seat_strategies("search,expert,expert,expert") == ["search", "expert", "expert", "expert"]


def test_a_searching_seats_puis_je_is_searched_and_never_depends_on_hidden_cards():
    # Rami contrat: a searching seat asked "Puis-je ?" during another seat's turn values asking against passing
    # by playouts (its base, expert, never asks in contrat; random asks at random). Dealing the other hands and
    # the stock anew from what it cannot see (the card just drawn and the penalty card among them) never changes
    # its answer.
    from sim.rollouts import redeal

    seating = ["search:trials=4", "random", "random"]
    events = sim.play_traced("contrat", seating, seed=7, max_rounds=1)
    check_trace(events)
    position = Position.from_trace(events, next(i for i, e in enumerate(events) if e["type"] == "deal"))
    asked = 0
    while position.decision != "over":
        if position.decision == "may_i" and position.seat == 0:
            assert position.mover != 0 and len(position.legal_choices()) == 2
            expected, _ = position.step()
            for trial in range(2):
                assert redeal(position, seed=3, trial=trial).step()[0] == expected
            asked += 1
        _, position = position.step()
    assert asked > 0


# ------------------------------------------------------------ inference, pruning and the ceiling

def _unseen_and_hands(position):
    """Every card the seat to move cannot see (other hands and the stock, as codes) and each other hand's codes."""
    from sim import cards as cardlib

    seat = position.seat
    hands = {s: sorted(int(c) for c in cardlib.parse(position.hand(s)))
             for s in range(position.ruleset.players) if s != seat}
    stock = [int(c) for c in cardlib.parse(position.stock())]
    return sorted(stock + [c for h in hands.values() for c in h]), hands


def test_a_leaning_redeal_keeps_every_card_and_never_gives_a_seat_what_it_is_shown_not_to_hold():
    # Weighted re-deal (infer > 0): the same unseen cards, every hand its size and its known cards, and a card
    # whose weight for a seat is nil goes to another hand or the stock while others can fill that seat's hand.
    from sim.engine import rollout as RK
    from sim.engine.rng import STREAM_ROLLOUT_DEAL, derive_seed
    from sim.engine.state import MAX_CARDS, MAX_SEATS
    from sim.rollouts import known_cards

    events = sim.play_traced("rami51", ["expert"] * 4, seed=2, max_rounds=1)
    position = Position.from_trace(events, len(events) // 3)
    unseen, hands = _unseen_and_hands(position)
    known = known_cards(position)
    seat = position.seat
    shunned = {s: set(hands[s][:3]) | {c for c in range(13)} for s in hands}  # its own cards and every club
    lean = np.ones((MAX_SEATS, 53))
    for s, codes in shunned.items():
        for c in codes:
            lean[s, c] = 0.0
    for trial in range(20):
        after = position.copy()
        state = after.kernel_state()
        rng = np.array([derive_seed(np.uint64(5), trial, 0, STREAM_ROLLOUT_DEAL)], dtype=np.uint64)
        RK.redeal(state.rules, state.round, state.g, seat, known, rng, np.zeros(MAX_CARDS, dtype=np.int64), lean,
                  np.zeros(MAX_CARDS))
        again, dealt = _unseen_and_hands(after)
        assert again == unseen
        for s, hand in dealt.items():
            assert len(hand) == len(hands[s])
            for c in range(53):
                assert hand.count(c) >= known[s, c]
            assert not (set(hand) & shunned[s]) - {c for c in range(53) if known[s, c]}


def test_evidence_counts_a_throws_partners_and_a_passed_up_tops_and_fades_with_each_unseen_draw():
    from sim.engine import position as K
    from sim.engine.policies import FEED_PARTNERS

    evidence = np.zeros((6, 53))
    seven_hearts = 6 + 13 * 2  # rank 7 of suit 2
    SK.note_evidence(1, K.PH_DISCARD, seven_hearts, -1, 0, evidence)
    partners = [c for c in range(52) if int(FEED_PARTNERS[seven_hearts]) >> c & 1]
    assert len(partners) == 3 + 4  # its rank in three other suits, its suit within two ranks
    assert sorted(np.flatnonzero(evidence[1])) == partners and evidence[1].sum() == 7
    # A legal top passed up counts its partners, then the unseen card drawn fades everything the seat showed.
    SK.note_evidence(1, K.PH_DRAW, 0, seven_hearts, 1, evidence)
    assert evidence[1, partners[0]] == pytest.approx(2 * SK.EVIDENCE_FADE)
    # A take, or a draw when taking was not allowed, says nothing of the hand; the stock's card still fades it.
    SK.note_evidence(1, K.PH_DRAW, 1, seven_hearts, 1, evidence)
    SK.note_evidence(1, K.PH_DRAW, 0, seven_hearts, 0, evidence)
    assert evidence[1, partners[0]] == pytest.approx(2 * SK.EVIDENCE_FADE ** 2)
    assert not evidence[[0, 2, 3, 4, 5]].any()


def test_inference_pruning_and_rejection_are_parameters_whose_zero_is_the_search_they_joined():
    # A name lists what differs from the default (which prunes at 2 standard errors and infers nothing).
    s = S.get("search:infer=1.5,prune=3,reject=3")
    assert s.name == "search:infer=1.5,prune=3,reject=3"
    assert S.get("search:infer=0,prune=2,reject=0,turn=1").vector().tolist() == S.get("search").vector().tolist()
    # The search these four parameters joined, by its parameters.
    plain = S.get("search:trials=32,width=2,prune=0,turn=0")
    assert plain.name == "search:trials=32,width=2,prune=0,turn=0"
    assert {k: plain.params[k] for k in ("trials", "width", "infer", "prune", "reject", "turn")} == {
        "trials": 32, "width": 2, "infer": 0, "prune": 0, "reject": 0, "turn": 0}
    for text, message in (("search:infer=-1", "infer = -1.0 must be a number from 0"),
                          ("search:prune=11", "prune = 11.0 must be a number from 0"),
                          ("search:reject=2.5", "reject = 2.5 must be a whole number from 0"),
                          ("search:sees=1", "unknown search parameter 'sees'")):
        with pytest.raises(ValueError, match=message):
            S.get(text)
    df = sim.simulate("basic", ["search:trials=4,infer=1,prune=1.5", "expert", "expert"], n_games=3, seed=4,
                      workers=1)
    again = sim.simulate("basic", ["search:trials=4,infer=1,prune=1.5", "expert", "expert"], n_games=3, seed=4,
                         workers=2)
    assert df.equals(again)


def test_the_ceiling_sees_the_hidden_cards_and_is_seated_only_when_asked_for():
    c = S.get("ceiling")
    assert S.clairvoyant(c) and c.name == "ceiling" and not S.clairvoyant("search")
    assert S.get("ceiling:trials=64").name == "ceiling:trials=64" and S.clairvoyant("ceiling:trials=64")
    assert c.with_params(trials=8).name == "ceiling:trials=8"
    with pytest.raises(ValueError, match="'ceiling' sees every hidden card"):
        sim.simulate("basic", ["ceiling", "expert"], n_games=1)
    seated = sim.simulate("basic", ["ceiling:trials=4", "expert"], n_games=2, seed=1, allow_clairvoyant=True)
    assert seated["strategy"].unique().sort().to_list() == ["ceiling:trials=4", "expert"]


def test_the_ceiling_is_the_one_player_whose_choices_read_the_hidden_cards():
    # The information rule's one exemption, by name: re-dealing what the ceiling's seat cannot see changes its
    # choices (it reads the other hands and the stock), which is why only the ladder seats it.
    from sim.rollouts import redeal

    with pytest.raises(ValueError, match="'ceiling:trials=8' sees every hidden card"):
        sim.play_traced("basic", ["ceiling:trials=8", "expert"], seed=1)
    with pytest.raises(ValueError, match="sees every hidden card"):
        sim.search_effort("basic", ["ceiling:trials=8", "expert"], n_games=1)
    events = sim.play_traced("basic", ["ceiling:trials=8", "expert", "expert"], seed=3, max_rounds=1,
                             allow_clairvoyant=True)
    check_trace(events)
    position = Position.from_trace(events, next(i for i, e in enumerate(events) if e["type"] == "deal"))
    changed = checked = 0
    while position.decision != "over" and checked < 40:
        if position.seat == 0 and len(position.legal_choices()) > 2:
            expected, _ = position.step()
            changed += any(redeal(position, seed=9, trial=t).step()[0] != expected for t in range(3))
            checked += 1
        _, position = position.step()
    assert checked >= 5 and changed > 0


def test_the_opening_filter_never_refuses_the_true_hands_and_refuses_some_re_deals():
    # reject: a seat that has played a turn of the round without opening holds no hand its strategy would open
    # with (an expert opens as soon as it can, and a hand now holds at most what it held at its last laying). The
    # true hands of games of experts always pass; hands dealt anew from what a seat cannot see often do not.
    from sim.engine import rollout as RK
    from sim.engine.meld_search import workspace
    from sim.engine.round import round_state
    from sim.rollouts import redeal

    probe = round_state(False)
    refused = passed = 0
    for game in range(3):
        events = sim.play_traced("rami51", ["expert"] * 4, seed=8, game=game, max_rounds=1)
        position = Position.from_trace(events, next(i for i, e in enumerate(events) if e["type"] == "deal"))
        while position.decision != "over":
            if position.decision == "discard":
                for dealt, truth in ((position, True), (redeal(position, seed=4, trial=game), False)):
                    state = dealt.kernel_state()
                    opened = RK.would_have_opened(state.rules, state.round, state.g, dealt.seat, state.kinds,
                                                  state.params, probe, np.zeros_like(state.g), workspace(),
                                                  np.zeros(6, dtype=np.uint64))
                    if truth:
                        assert not opened, position.events[-1]
                        passed += 1
                    else:
                        refused += opened
            _, position = position.step()
    assert passed > 50 and refused > 0


def test_a_laying_is_paired_with_each_choice_of_the_seats_next_decision():
    # turn=1: at a laying, the search's choices are (laying, next decision's choice) pairs. Each pair is what the
    # position itself offers after that laying (the same whatever the hidden cards), the base's continuation first;
    # a laying that ends the turn stands alone.
    from sim.engine import position as K

    events = sim.play_traced("rami51", ["expert", "greedy", "expert", "cautious"], seed=5, max_rounds=2)
    checked = 0
    for deal in [i for i, e in enumerate(events) if e["type"] == "deal"]:
        position = Position.from_trace(events, deal)
        while position.decision != "over":
            if position.decision == "lay":
                state = position.kernel_state()
                codes = [code for _, code in position.choice_codes()]
                size = state.round.act.shape[0] + 54
                choices = np.zeros(size, dtype=np.int64)
                choices[:len(codes)] = codes
                first = np.zeros(len(codes) * size, dtype=np.int64)
                follow = np.zeros_like(first)
                m = SK.turn_continuations(state.rules, state.round, state.g, state.turn, state.kinds, state.params,
                                          choices, len(codes), first, follow)
                expected = []
                for text, code in position.choice_codes():
                    after = position.apply(text)
                    if after.decision == "over" or after.seat != position.seat:
                        expected.append((code, -1))
                        continue
                    following = [c for _, c in after.choice_codes()]
                    after_state = after.kernel_state()
                    base = K.decide_for_python(after_state.rules, after_state.round, after_state.g, after_state.kinds,
                                               after_state.params, np.zeros(6, dtype=np.uint64), after_state.turn)
                    assert base in following
                    expected += [(code, base)] + [(code, c) for c in following if c != base]
                assert list(zip(first[:m].tolist(), follow[:m].tolist())) == expected
                checked += 1
            position = position.step()[1]
    assert checked >= 10
