"""The rule book (docs/rules.md), section by section: every worked example.

Each test quotes, in a comment, the example of docs/rules.md it checks and
asserts exact values through the pure-Python rules reference (``sim.rules``);
rules about play are also played by the compiled engine on a scripted deal
(``sim.play_traced(..., deal=...)``) and the trace replayed through the
checker. Examples already quoted by another test file are not repeated here:
docs/rules.md section 10 names the test of every rule, and the last tests of
this file check that those names exist and that the tables of section 8 say
what the presets hold.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import sim
from sim import cards, rules
from sim.rules import (
    CONTRACTS,
    best_opening,
    classify_meld,
    hand_penalty,
    max_melded_cards,
    meets_contract,
    meld_points,
    meld_readings,
    preset,
    round_scores,
)
from sim.rules.replay import check_trace

ROOT = Path(__file__).resolve().parents[1]
RULE_BOOK = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
RAMI51, DUCALE, CLASSIC, CONTRAT, BASIC = (
    preset(n) for n in ("rami51", "rami51-ducale", "rami51-classic", "contrat", "basic")
)


def one(text: str) -> cards.Card:
    (c,) = cards.parse(text)
    return c


def section(number: str) -> str:
    """The text of docs/rules.md section ``number`` (``"8.3"``), up to the next heading."""
    match = re.search(rf"^#+ {re.escape(number)}\.? .*?(?=^#|\Z)", RULE_BOOK, re.M | re.S)
    assert match, f"docs/rules.md has no section {number}"
    return match.group(0)


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the first markdown table in ``text``, cells stripped."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


# ================================================================ 1. Cards
def test_1_notation_examples():
    # Section 1: `DD` is Q♦, `10D` is 10♦, `VH` is J♥; a joker is ★ or JK.
    assert cards.parse("DD 10D VH") == cards.parse("Q♦ 10♦ J♥")
    assert cards.parse("★ JK") == [cards.JOKER, cards.JOKER]
    assert cards.format(cards.parse("DD 10D VH JK")) == "Q♦ 10♦ J♥ ★"


def test_1_the_two_copies_of_a_card_are_the_same_card():
    # Section 1: each natural card exists twice, and the two copies are the same
    # card for every rule: two 7♥ make two runs 7♥ 8♥ 9♥, never one set.
    assert best_opening("7♥ 8♥ 9♥ 7♥ 8♥ 9♥", RAMI51) == 48
    assert max_melded_cards("7♥ 8♥ 9♥ 7♥ 8♥ 9♥", RAMI51) == 6
    assert classify_meld("7♥ 7♥ 7♣", RAMI51) is None


@pytest.mark.parametrize("players, jokers", [(3, 2), (4, 3), (5, 4)])
def test_1_deck_sizes(players, jokers):
    # Section 1: Rami 51 has 108 cards (two decks and four jokers); contrat one
    # joker fewer than players: 2 at three, 3 at four, 4 at five; basic 52.
    assert RAMI51.deck_size == len(cards.deck(2, 4)) == 108
    r = preset("contrat", players=players)
    assert r.n_jokers == jokers and r.deck_size == 104 + jokers
    assert BASIC.deck_size == 52 and BASIC.n_jokers == 0


# ================================================================ 2. Melds
def test_2_1_run_examples():
    # Section 2.1: 7♣ 8♣ 9♣ 10♣ is a run; 4♥ 5♦ 6♥ is not; A♥ 2♥ 3♥ (ace low)
    # and Q♦ K♦ A♦ (ace high) are; K♠ A♠ 2♠ never is; A♥ K♥ Q♥ is a run.
    for r in (RAMI51, DUCALE, CLASSIC):
        assert classify_meld("7♣ 8♣ 9♣ 10♣", r).kind == "run"
        assert classify_meld("4♥ 5♦ 6♥", r) is None
        assert classify_meld("A♥ 2♥ 3♥", r).positions == (1, 2, 3)
        assert classify_meld("Q♦ K♦ A♦", r).positions == (12, 13, 14)
        assert classify_meld("K♠ A♠ 2♠", r) is None
        assert classify_meld("A♥ K♥ Q♥", r).positions == (12, 13, 14)


def test_2_1_ace_high_knob():
    # Section 2.1: ace_high false in basic rummy: Q♦ K♦ A♦ is refused there.
    assert BASIC.ace_high is False and RAMI51.ace_high is True and CONTRAT.ace_high is True
    assert classify_meld("Q♦ K♦ A♦", BASIC) is None
    assert classify_meld("A♥ 2♥ 3♥", BASIC).kind == "run"
    assert classify_meld("Q♦ K♦ A♦", preset("rami51", ace_high=False)) is None


def test_2_1_natural_run_and_min_run():
    # Section 2.1: a run without a joker is a natural run (tierce franche);
    # min_run is 3 in Rami 51 and basic rummy, 4 in contrat.
    assert classify_meld("7♣ 8♣ 9♣", RAMI51).is_natural_run
    assert not classify_meld("7♣ ★ 9♣", RAMI51).is_natural_run
    assert (RAMI51.min_run, BASIC.min_run, CONTRAT.min_run) == (3, 3, 4)


def test_2_1_a_run_grows_at_either_end():
    # Section 2.1: 3♥ or 7♥, or 7♥ 8♥, extends 4♥ 5♥ 6♥.
    for extended in ("3♥ 4♥ 5♥ 6♥", "4♥ 5♥ 6♥ 7♥", "4♥ 5♥ 6♥ 7♥ 8♥"):
        assert classify_meld(extended, RAMI51).kind == "run"
    assert classify_meld("4♥ 5♥ 6♥ 8♥", RAMI51) is None


def test_2_2_set_examples():
    # Section 2.2: K♠ K♥ K♦ and 3♦ 3♣ 3♠ are sets; 7♥ 7♥ 7♣ is refused;
    # 8♣ 8♦ 8♥ + 8♠ makes a carré; a set never holds five cards.
    for r in (RAMI51, DUCALE, CLASSIC, CONTRAT, BASIC):
        assert classify_meld("K♠ K♥ K♦", r).kind == "set"
        assert classify_meld("3♦ 3♣ 3♠", r).kind == "set"
        assert classify_meld("8♣ 8♦ 8♥ 8♠", r).kind == "set"
    for r in (RAMI51, DUCALE, CLASSIC, CONTRAT):
        assert classify_meld("7♥ 7♥ 7♣", r) is None
    # One deck holds one 7♥: the hand itself is impossible there (item 32).
    with pytest.raises(ValueError, match="copies of 7♥"):
        classify_meld("7♥ 7♥ 7♣", BASIC)
    assert classify_meld("8♣ 8♦ 8♥ 8♠ ★", RAMI51) is None


def test_2_3_joker_examples():
    # Section 2.3: in 7♣ ★ 9♣ the joker is 8♣ for good; 7♣ ★ ★ is refused (one
    # joker a meld, two natural cards).
    assert classify_meld("7♣ ★ 9♣", RAMI51).stands_for == (one("8♣"),)
    assert classify_meld("7♣ ★ ★", RAMI51) is None
    assert classify_meld("7♣ 8♣ ★ ★", RAMI51) is None
    assert RAMI51.jokers_per_meld == 1
    with pytest.raises(rules.RulesetError, match="jokers_per_meld"):
        preset("rami51", jokers_per_meld=2)


def test_2_3_item_4_an_end_joker_is_worth_most():
    # Item 4: 7♠ 8♠ ★ is 24, the joker as 9♠.
    assert meld_points("7♠ 8♠ ★", RAMI51) == 24
    assert classify_meld("7♠ 8♠ ★", RAMI51).stands_for == (one("9♠"),)


# ================================================== 3. The turn (reference side)
def test_3_3_recovery_in_a_set_by_knob():
    # Section 3.3: under missing_suit any missing suit recovers the joker of
    # 9♣ 9♠ ★; under unambiguous_only 9♦ does not, but 9♦ added makes the carré
    # 9♦ 9♣ 9♠ ★, where the joker can only be 9♥.
    assert {rd.stands_for for rd in meld_readings("9♣ 9♠ ★", RAMI51)} == {(one("9♦"),), (one("9♥"),)}
    assert RAMI51.joker_recovery_from_set == "missing_suit"
    assert DUCALE.joker_recovery_from_set == CLASSIC.joker_recovery_from_set == "unambiguous_only"
    assert [rd.stands_for for rd in meld_readings("9♦ 9♣ 9♠ ★", CLASSIC)] == [(one("9♥"),)]


def test_3_3_a_run_joker_stands_for_one_card():
    # Section 3.3: 6♠ 7♠ 8♠ laid as ★ 7♠ 8♠: the joker is 6♠ there, and 6♠
    # recovers it (the meld keeps its cards in place: 6♠ 7♠ 8♠).
    reading = next(rd for rd in meld_readings("★ 7♠ 8♠", CLASSIC) if rd.stands_for == (one("6♠"),))
    assert reading.order == tuple(cards.parse("6♠ 7♠ 8♠"))
    assert classify_meld("6♠ 7♠ 8♠", CLASSIC).is_natural_run


# ============================================================ 4. Opening
def test_4_opening_examples():
    # Section 4: K♣ K♦ K♥ is 30 and 9♠ 10♠ J♠ 29, together 59; 9♠ 10♠ J♠ alone
    # is 29; Q♦ K♦ A♦ is 31; A♥ 2♥ 3♥ is 6; 6♠ 7♠ 8♠ + A♦ A♣ ★ is 21 + 33 = 54,
    # also where a natural run is required; three kings make 30.
    for r in (RAMI51, DUCALE, CLASSIC):
        assert best_opening("K♣ K♦ K♥ 9♠ 10♠ J♠", r) == 59
        assert best_opening("9♠ 10♠ J♠", r) == 29 < r.open_threshold
        assert meld_points("Q♦ K♦ A♦", r) == 31
        assert meld_points("A♥ 2♥ 3♥", r) == 6
        assert best_opening("6♠ 7♠ 8♠ A♦ A♣ ★", r) == 54
        assert meld_points("K♣ K♦ K♥", r) == 30
    assert RAMI51.open_threshold == 51


def test_4_threshold_and_natural_run_are_two_conditions():
    # Section 4: open_needs_natural_run false in rami51, true in rami51-ducale and
    # rami51-classic: 7♣ 8♣ ★ + K♠ K♥ ★ is 24 + 30 = 54 but holds no natural run.
    assert (RAMI51.open_needs_natural_run, DUCALE.open_needs_natural_run) == (False, True)
    assert CLASSIC.open_needs_natural_run is True
    assert best_opening("7♣ 8♣ ★ K♠ K♥ ★", RAMI51) == 54
    assert best_opening("7♣ 8♣ ★ K♠ K♥ ★", DUCALE) < 51


def test_4_other_games_have_no_threshold():
    # Section 4: contrat and basic rummy use open_threshold 0.
    assert CONTRAT.open_threshold == BASIC.open_threshold == 0
    for value in (30, 0, 61, 81):
        assert preset("rami51", open_threshold=value).open_threshold == value


# ================================================================ 5. Scoring
def test_5_1_penalty_table():
    # Section 5.1: 2 to 10 face value, J Q K 10, ace 11, joker 20 (25 in
    # rami51-classic); 7♣ K♥ ★ is 7 + 10 + 20 = 37; unopened: 100.
    assert hand_penalty("2♣ 10♦ J♥ Q♠ K♣ A♦", RAMI51) == 2 + 10 + 10 + 10 + 10 + 11
    assert hand_penalty("7♣ K♥ ★", RAMI51) == 37
    assert hand_penalty("7♣ K♥ ★", CLASSIC) == 42
    assert hand_penalty("7♣ K♥ ★", RAMI51, opened=False) == 100
    assert hand_penalty("7♣ K♥ ★", preset("rami51", unopened_penalty="count_cards"), opened=False) == 37


def test_5_2_rami_sec_definitions():
    # Section 5.2: double: 7♣ K♥ ★ then costs 74 and the unopened player 200;
    # flat_200: every opponent 200 while no opponent had opened; none: no bonus.
    hands = ["", "7♣ K♥ ★", "2♣ 3♣"]
    assert round_scores(hands, [True, True, False], RAMI51, winner=0, rami_sec=True) == [0, 74, 200]
    assert round_scores(hands, [True, False, False], DUCALE, winner=0, rami_sec=True) == [0, 200, 200]
    none = preset("rami51", rami_sec="none")
    assert round_scores(hands, [True, True, False], none, winner=0, rami_sec=True) == [0, 37, 100]


def test_5_3_a_blocked_round_scores_by_knob():
    # Section 5.3: blocked_scoring nothing (Rami 51) or hands (contrat).
    hands = ["7♣ K♥ ★", "2♣ 3♣"]
    assert round_scores(hands, [True, False], DUCALE, winner=None, blocked=True) == [0, 0]
    assert round_scores(hands, [True, False], CONTRAT, winner=None, blocked=True) == [7 + 10 + 15, 5]


def test_5_4_and_5_5_game_and_deal_knobs():
    # Section 5.4: game_target 500 (1000 in rami51-classic; 250 a variant).
    # Section 5.5: 13 each; 14 each and 15 to the dealer in rami51-classic.
    assert (RAMI51.game_target, CLASSIC.game_target, RAMI51.game_rounds) == (500, 1000, 0)
    assert preset("rami51", game_target=250).game_target == 250
    assert (RAMI51.deal, RAMI51.first_player_extra_card) == (13, False)
    assert (CLASSIC.deal, CLASSIC.first_player_extra_card) == (14, True)
    for players in (2, 5):
        assert preset("rami51", players=players).players == players


def test_5_6_two_players_leave_81_cards_to_draw():
    # Section 5.6: 108 cards less 26 dealt and the first discard: 81.
    events = sim.play_traced("rami51", ["greedy", "greedy"], seed=5, max_rounds=1)
    deal = events[1]
    assert [len(h.split()) for h in deal["hands"]] == [13, 13]
    assert len(deal["pile"].split()) == 1 and len(deal["stock"].split()) == 81


# ============================================================ 6. Rami contrat
def test_6_2_contract_table():
    # Section 6.2: 2 sets, 1 set and 1 run, 2 runs (10 cards), then 3 sets,
    # 2 sets and 1 run, 1 set and 2 runs, 3 runs (12 cards).
    assert CONTRACTS == ((2, 0, 10), (1, 1, 10), (0, 2, 10), (3, 0, 12), (2, 1, 12), (1, 2, 12), (0, 3, 12))
    for deal, (sets, runs, size) in enumerate(CONTRACTS, start=1):
        assert CONTRAT.contract(deal) == (sets, runs)
        assert CONTRAT.hand_size(deal - 1) == size


def test_6_2_contract_examples():
    # Section 6.2: deal 2, 7♣ 7♥ 7♦ + 5♠ 6♠ 7♠ 8♠ fulfils the contract; 5♠ 6♠ 7♠ is
    # not a run; 9♥ ★ J♥ Q♥ is a run of four, the joker being 10♥.
    assert meets_contract("7♣ 7♥ 7♦ 5♠ 6♠ 7♠ 8♠", 2) is True
    assert meets_contract("7♣ 7♥ 7♦ 5♠ 6♠ 7♠", 2) is False
    assert classify_meld("9♥ ★ J♥ Q♥", CONTRAT).stands_for == (one("10♥"),)
    assert meets_contract("9♥ ★ J♥ Q♥ 4♣ 4♦ 4♠", 2) is True


def test_6_4_may_i_example_completes_the_first_set():
    # Section 6.4: deal 1, 9♣ 9♠ in hand, 9♥ taken by "Puis-je ?": 9♣ 9♠ 9♥ is
    # the first set of the two the contract asks.
    assert classify_meld("9♣ 9♠ 9♥", CONTRAT).kind == "set"
    assert meets_contract("9♣ 9♠ 9♥ K♣ K♦ K♠", 1) is True
    assert (CONTRAT.may_i, CONTRAT.may_i_limit, RAMI51.may_i) == (True, 3, False)


def test_6_5_deal_7_lays_the_whole_hand():
    # Section 6.5: 2♣ 3♣ 4♣ 5♣ 6♣ + 8♥ 9♥ 10♥ J♥ + 10♦ J♦ Q♦ K♦, thirteen cards,
    # three runs: all laid, the player goes out; a fourteenth card spoils it.
    hand = "2♣ 3♣ 4♣ 5♣ 6♣ 8♥ 9♥ 10♥ J♥ 10♦ J♦ Q♦ K♦"
    assert meets_contract(hand, 7) is True
    assert meets_contract(hand + " 2♥", 7) is False
    assert CONTRAT.go_out == "discard_only"


def test_6_6_contrat_scoring():
    # Section 6.6: A♣ ★ K♦ 4♥ is 15 + 15 + 10 + 4 = 44, laid or not.
    assert hand_penalty("A♣ ★ K♦ 4♥", CONTRAT) == 44
    assert hand_penalty("A♣ ★ K♦ 4♥", CONTRAT, opened=False) == 44
    assert (CONTRAT.game_rounds, CONTRAT.rami_sec, CONTRAT.blocked_scoring) == (7, "none", "hands")


# ============================================================ 7. Basic rummy
def test_7_basic_rummy_reference():
    # Section 7: A♠ 2♠ 3♠ is a run, Q♠ K♠ A♠ and K♠ A♠ 2♠ are not; 4♥ 5♦ 6♥ is
    # no run; opponents holding 18 and 25 give the winner 43, or 86 with a rami.
    assert classify_meld("A♠ 2♠ 3♠", BASIC).kind == "run"
    assert classify_meld("Q♠ K♠ A♠", BASIC) is None and classify_meld("K♠ A♠ 2♠", BASIC) is None
    assert classify_meld("4♥ 5♦ 6♥", BASIC) is None
    hands = ["", "A♣ A♦ 2♣ 2♦ 3♣ 4♦ 5♠", "A♠ 2♠ 3♥ 3♠ 4♣ 6♦ 6♣"]
    assert [hand_penalty(h, BASIC) for h in hands[1:]] == [18, 25]
    assert round_scores(hands, [True, False, False], BASIC, winner=0) == [43, 0, 0]
    assert round_scores(hands, [True, False, False], BASIC, winner=0, rami_sec=True) == [86, 0, 0]
    # the example hand 4♥ 5♥ 7♥ Q♣ Q♦ Q♠ 9♠ with 6♥ drawn melds all but 9♠
    assert max_melded_cards("4♥ 5♥ 6♥ 7♥ Q♣ Q♦ Q♠ 9♠", BASIC) == 7
    for players, size in [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)]:
        assert preset("basic", players=players).hand_size(0) == size


# ============================================== rules about play: scripted deals
def play(ruleset, players, deal, seed=1, **kwargs):
    """One round (or the rounds up to ``deal["round"]``) of greedy seats on a scripted deal."""
    events = sim.play_traced(ruleset, ["greedy"] * players, seed=seed, deal=deal, **kwargs)
    check_trace(events)
    return events


def turn_of(events, seat, nth=0, round_=0):
    """The events of ``seat``'s ``nth`` turn of round ``round_``, from its draw to its discard."""
    starts = [
        i for i, e in enumerate(events)
        if e.get("round") == round_ and e.get("seat") == seat and e["type"] == "draw"
    ]
    start = starts[nth]
    end = next(i for i in range(start, len(events)) if events[i]["type"] in ("discard", "out", "round_end"))
    return events[start : end + 1]


def test_3_1_and_4_the_opening_example_played_with_a_discard_take():
    # Sections 3.1 and 4: the player holds K♣ K♦ 9♠ 10♠ J♠, takes K♥ from the
    # discard (must_use: it must be laid this turn) and opens with
    # K♣ K♦ K♥ + 9♠ 10♠ J♠, 30 + 29 = 59. The other player holds 9♥ 10♥ J♥,
    # 29 points alone: it must wait.
    deal = {
        "hands": ["K♣ K♦ 9♠ 10♠ J♠ 2♣ 4♦ 6♥ 3♠ 5♣ 7♦ 2♥ 8♣", "9♥ 10♥ J♥ A♣ 3♣ 6♣ 10♣ A♦ 3♦ 8♦ Q♦ 4♠ 7♠"],
        "pile": "K♥",
        "stock": "2♠ 5♦",
    }
    events = play("rami51", 2, deal, max_rounds=1)
    first = turn_of(events, 0)
    assert first[0] == {"type": "draw", "round": 0, "seat": 0, "source": "discard", "card": "K♥"}
    opening = first[1]
    assert opening["type"] == "open" and opening["points"] == 59
    assert sorted(m["cards"] for m in opening["melds"]) == ["9♠ 10♠ J♠", "K♣ K♦ K♥"]
    assert not any(e["type"] == "open" for e in turn_of(events, 1))


def test_4_the_natural_run_is_required_by_the_ducale_table_only():
    # Section 4: 7♣ 8♣ ★ + K♠ K♥ ★ is 24 + 30 = 54 with no natural run: it opens
    # under rami51, not under rami51-ducale (open_needs_natural_run).
    hand = "7♣ 8♣ ★ K♠ K♥ ★ 2♦ 4♥ 6♦ 10♦ 3♠ 9♥ Q♣"
    deal = {"hands": [hand, "A♣ 3♣ 5♣ 10♣ A♦ 3♦ 8♦ Q♦ 4♠ 7♠ 9♠ J♠ 5♥"], "pile": "5♠", "stock": "2♠"}
    assert best_opening(hand + " 2♠", RAMI51) == 54
    assert best_opening(hand + " 2♠", DUCALE) < 51
    opened = turn_of(play("rami51", 2, deal, max_rounds=1), 0)[1]
    assert opened["type"] == "open" and opened["points"] == 54
    assert all("★" in m["cards"] for m in opened["melds"])
    ducale = turn_of(play("rami51-ducale", 2, deal, max_rounds=1), 0)
    assert not any(e["type"] == "open" for e in ducale)


def test_3_3_joker_recovery_example_played():
    # Section 3.3: on the table 7♣ ★ 9♣, the joker being 8♣; the player lays 8♣
    # in its place, takes the joker and lays it again at once, as Q♥ K♥ ★.
    # (Under discard_take = only_after_opening, so that the first player, who
    # has not opened, draws from the stock and lays the joker in 7♣ ★ 9♣.)
    deal = {
        "hands": ["7♣ ★ 9♣ K♠ K♥ K♦ 10♥ 10♦ 10♣ 2♠ 5♦ 4♥ 6♠", "8♣ Q♥ K♥ A♠ A♦ A♣ 10♠ J♠ Q♠ 7♦ 4♦ 6♠ 5♥"],
        "pile": "3♠",
        "stock": "4♣ 2♥",
    }
    events = play(preset("rami51", discard_take="only_after_opening"), 2, deal, max_rounds=1)
    first = turn_of(events, 0)
    assert first[1]["type"] == "open"
    assert first[1]["melds"][0] == {"id": 0, "cards": "7♣ ★ 9♣", "stands_for": "8♣"}
    second = turn_of(events, 1)
    assert [e["type"] for e in second] == ["draw", "open", "recover", "meld", "discard"]
    assert {k: second[2][k] for k in ("seat", "id", "card")} == {"seat": 1, "id": 0, "card": "8♣"}
    assert second[3]["cards"] == "★ Q♥ K♥" and second[3]["stands_for"] in ("J♥", "A♥")


RAMI_SEC_DEAL = {
    # The winner lays its whole hand in its first turn: 6♠ 7♠ 8♠ + A♦ A♣ ★ +
    # K♣ K♦ K♥ + 2♥ 3♥ 4♥ 5♥, draws J♣ and discards it.
    "hands": [
        "6♠ 7♠ 8♠ A♦ A♣ ★ K♣ K♦ K♥ 2♥ 3♥ 4♥ 5♥",
        "2♣ 3♦ 4♠ 5♣ 6♦ 7♥ 8♣ 9♦ 10♠ J♥ Q♣ K♠ A♥",
        "2♣ 3♦ 4♠ 5♣ 6♦ 7♥ 8♣ 9♦ 10♠ J♥ Q♣ K♠ A♥",
    ],
    "pile": "9♣",
    "stock": "J♣",
}


@pytest.mark.parametrize(
    "ruleset, points",
    [
        ("rami51", [0, 200, 200]),  # double: the unopened 100 counted twice
        ("rami51-ducale", [0, 200, 200]),  # flat_200: no opponent had opened
        (preset("rami51", rami_sec="none"), [0, 100, 100]),
    ],
    ids=["double", "flat_200", "none"],
)
def test_5_2_rami_sec_played(ruleset, points):
    # Section 5.2: the winner opens and goes out in the same turn; a player who
    # had not opened ends with 200 under both definitions, 100 without the bonus.
    events = play(ruleset, 3, RAMI_SEC_DEAL, max_rounds=1)
    turn = turn_of(events, 0)
    assert turn[0]["card"] == "J♣" and turn[0]["source"] == "stock"
    assert turn[-1] == {"type": "discard", "round": 0, "seat": 0, "card": "J♣"}
    end = next(e for e in events if e["type"] == "round_end")
    assert end["winner"] == 0 and end["opened"] == [True, False, False]
    assert end["points"] == points


def test_6_2_deal_2_contract_played():
    # Section 6.2: deal 2, the player lays 7♣ 7♥ 7♦ + 5♠ 6♠ 7♠ 8♠ in its first
    # turn; with 5♠ 6♠ 7♠ only (three cards are no run) it lays nothing.
    def deal(run):
        return {
            "round": 1,
            "hands": [
                "2♣ 4♣ 6♣ 8♣ 10♣ Q♣ A♦ 3♦ 5♦ 9♦",
                f"7♣ 7♥ 7♦ {run} 2♦ 4♥ J♥",
                "A♠ 3♠ 9♠ J♠ K♠ A♥ 3♥ 5♥ 9♥ Q♥",
            ],
            "pile": "K♣",
            "stock": "Q♦",
        }

    events = play("contrat", 3, deal("5♠ 6♠ 7♠ 8♠"), seed=4, max_rounds=2)
    laid = [e for e in turn_of(events, 1, round_=1) if e["type"] == "open"]
    assert len(laid) == 1 and sorted(m["cards"] for m in laid[0]["melds"]) == ["5♠ 6♠ 7♠ 8♠", "7♣ 7♦ 7♥"]
    events = play("contrat", 3, deal("5♠ 6♠ 7♠ 10♥"), seed=4, max_rounds=2)
    assert not any(e["type"] == "open" for e in turn_of(events, 1, round_=1))


# ============================================ 8. Presets, variants; 10. this page
def knob_value(text: str):
    """A knob value as written in docs/rules.md: yes/no, true/false, a number or a word."""
    words = {"yes": True, "no": False, "true": True, "false": False}
    if text in words:
        return words[text]
    return int(text) if text.isdigit() else text


def test_8_2_the_table_is_what_the_presets_hold():
    # Section 8.2: every row, every preset, and every listed alternative.
    names = ("rami51", "rami51-ducale", "rami51-classic")
    rows = table_rows(section("8.2"))
    assert len(rows) == 17
    for knob, *values, alternatives in rows:
        knob = knob.strip("`")
        for name, value in zip(names, values):
            r = preset(name)
            if knob == "players":
                assert value == "2-5"
                assert [preset(name, players=n).players for n in (2, 5)] == [2, 5]
                with pytest.raises(rules.RulesetError):
                    preset(name, players=6)
            elif knob == "deal":
                expected = {"13 each": (13, False), "14 each, 15 to the dealer": (14, True)}[value]
                assert (r.deal, r.first_player_extra_card) == expected
            else:
                assert getattr(r, knob) == knob_value(value), (name, knob)
        for alternative in filter(None, (a.strip() for a in alternatives.split(","))):
            if knob == "deal":
                assert alternative == "14 to the first player"
                assert preset("rami51", first_player_extra_card=True).hand_size(0) == 13
            else:
                assert getattr(preset("rami51", **{knob: knob_value(alternative)}), knob) == knob_value(alternative)


def test_8_3_every_variant_is_a_valid_override():
    # Section 8.3: each table variant is one override of the rami51 preset.
    overrides = re.findall(r"`(\w+)=(\w+)`", section("8.3"))
    assert len(overrides) >= 14
    for knob, value in overrides:
        r = preset("rami51", **{knob: knob_value(value)})
        assert getattr(r, knob) == knob_value(value)
        assert getattr(preset("rami51"), knob) != knob_value(value), f"{knob}={value} is no variant"


def test_10_every_test_named_here_exists():
    # Section 10: every test the table names is defined in its file, and every
    # test of this file is named there.
    named = re.findall(r"`(test_\w+\.py)::(test_\w+)`", section("10"))
    assert len(named) > 150
    for filename, test in named:
        source = (ROOT / "tests" / filename).read_text(encoding="utf-8")
        assert re.search(rf"^def {test}\(", source, re.M), f"{filename}::{test} is named in docs/rules.md"
    # every decision of section 9 has its row
    groups = re.findall(r"\bitems? (\d+(?:, \d+)*)", section("10"))
    items = {int(n) for group in groups for n in re.findall(r"\d+", group)}
    assert items == set(range(1, 36))
    mine = re.findall(r"^def (test_\w+)\(", Path(__file__).read_text(encoding="utf-8"), re.M)
    assert set(mine) <= {test for filename, test in named if filename == "test_rule_book.py"}
