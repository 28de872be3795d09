"""The trace replay checker on Rami contrat games (docs/rules.md section 6, items 26-31).

Every scenario is a hand-built contrat trace: hands, pile and the top of the
stock written by hand, the rest of the deck (two decks and players - 1
jokers, ``sim.cards.deck``) appended to the stock in code order, as in
``tests/test_replay.py`` whose builder is reused. The checker must accept each
scenario as built and refuse each mutated copy with a message naming the rule.

Points are computed here by an independent count of the rule book's scale
(:func:`contrat_points`), never by ``sim.rules.scoring``.
"""

from __future__ import annotations

import copy

import pytest

from sim.cards import parse
from sim.rules.replay import check_trace
from test_replay import Trace, base_game, contrat_game, find, inserted, mutated, refuses, removed, with_knobs


# ===================================================================== helpers
def contrat_points(hand: str) -> int:
    """Règles du Rami contrat: « 2 à 10 leur valeur, Valet, dame, roi 10, As 15, Joker 15 »."""
    total = 0
    for token in hand.split():
        rank = token[:-1]
        if token == "★":
            total += 15
        elif rank == "A":
            total += 15
        elif rank in ("J", "Q", "K"):
            total += 10
        else:
            total += int(rank)
    return total


class ContratTrace(Trace):
    """The test builder with "Puis-je ?" and round ends counted the contrat way."""

    def __init__(self, players: int = 3, **knobs):
        super().__init__("contrat", players=players, **knobs)
        self.totals = [0] * players
        self.opened = [False] * players

    def open(self, seat: int, *melds, points: int, lay_all: bool = False):
        super().open(seat, *melds, points=points, lay_all=lay_all)
        self.opened[seat] = True

    def deal(self, hands, pile="5♣", stock_top="", first=None):
        super().deal(hands, pile=pile, stock_top=stock_top, first=first)
        self.opened = [False] * self.r.players

    def may_i(self, seat: int) -> tuple[str, str]:
        """``seat`` says "Puis-je ?": the pile's top and the stock's top go to its hand."""
        c, penalty = self.pile.pop(), self.stock.pop(0)
        self.hands[seat][c] += 1
        self.hands[seat][penalty] += 1
        self.ev("may_i", seat=seat, card=str(c), penalty=str(penalty))
        return str(c), str(penalty)

    def finish(self, winner: int | None) -> list[int]:
        """round_end: the winner scores 0, every other hand is counted (also when blocked)."""
        points = [0 if seat == winner else contrat_points(text) for seat, text in enumerate(self.hands_text())]
        self.totals = [a + b for a, b in zip(self.totals, points)]
        self.round_end(winner=winner, points=points, totals=list(self.totals), opened=list(self.opened))
        return points


def moved(events: list[dict], source: int, before: int) -> list[dict]:
    """A copy of ``events`` where event ``source`` is moved to stand before event ``before``."""
    out = copy.deepcopy(events)
    event = out.pop(source)
    out.insert(before - (source < before), event)
    return out


def test_the_independent_count_is_the_rule_book_scale():
    """Règles du Rami contrat: « Il te reste A♣★R♦4♥ : 15 + 15 + 10 + 4 = 44 points. »"""
    assert contrat_points("A♣ ★ K♦ 4♥") == 44


# ================================================================= the deals
def deal_1(t: ContratTrace, s2_queens: str = "Q♣ Q♦ Q♥ Q♠", s1_adds_nine: bool = True):
    """Deal 1 (two sets), the "Puis-je ?" of Règles du Rami, then the table closes.

    Règles du Rami: « Exemple à la donne 1, contrat de deux brelans. Tu as 9 de trèfle
    et 9 de pique en main, et le 9 de cœur est sur la défausse. Ta voisine prend
    la pioche : tu dis « Puis-je ? », tu prends le 9 de cœur et une carte de
    pénalité. Ton premier brelan est fait. »

    Seat 0 (the neighbour) draws from the stock; seat 1 asks and takes 9♥ with
    the penalty card 9♦. Seat 1 then lays 9♣ 9♥ 9♠ and K♣ K♦ K♥ as its contract
    and adds 9♦ and K♠. Once seat 2 has laid its two carrés, every player has
    laid and every meld is a carré: Règles du Rami contrat « quand tout le monde a posé et que
    la table n'accepte plus aucune carte (il n'y a plus que des carrés
    complets), la donne s'arrête ». Seat 1 is left with A♣ ★ K♦ 4♥: 44.
    """
    t.deal(
        [
            "5♣ 5♦ 5♥ 5♠ 6♣ 6♦ 6♥ 6♠ 2♦ 3♠",
            "9♣ 9♠ K♣ K♦ K♥ A♣ ★ K♦ 4♥ 10♠",
            "Q♣ Q♦ Q♥ Q♠ J♣ J♦ J♥ J♠ 4♣ 7♦",
        ],
        pile="9♥",
        stock_top="A♠ 9♦ K♠ 8♣",
    )
    t.draw(0)  # A♠
    assert t.may_i(1) == ("9♥", "9♦")
    t.open(0, "5♣ 5♦ 5♥ 5♠", "6♣ 6♦ 6♥ 6♠", points=44)  # melds 0, 1
    t.discard(0, "2♦")
    t.draw(1)  # K♠
    t.open(1, "9♣ 9♥ 9♠", "K♣ K♦ K♥", points=57)  # melds 2, 3: the first set is made
    if s1_adds_nine:
        t.add(1, 2, "9♦")
    t.add(1, 3, "K♠")
    t.discard(1, "10♠")
    t.draw(2)  # 8♣
    queens = len(s2_queens.split())
    t.open(2, "J♣ J♦ J♥ J♠", s2_queens, points=40 + 10 * queens)  # melds 4, 5
    t.discard(2, "8♣")
    t.blocked("table_closed")
    return t.finish(None)


def deal_2(t: ContratTrace):
    """Deal 2 (one set and one run), Règles du Rami: « À la donne 2, 7 de trèfle, 7 de cœur,
    7 de carreau avec 5, 6, 7, 8 de pique remplit le contrat. »

    Seat 1 lays exactly that, adds 9♠, 10♠ and the other 7♠, and goes out by
    discarding J♠."""
    t.deal(
        [
            "2♣ 3♦ 4♠ 6♥ 8♥ 2♦ 3♣ 4♥ 5♦ ★",
            "7♣ 7♥ 7♦ 5♠ 6♠ 7♠ 8♠ 9♠ 10♠ 7♠",
            "A♥ 2♥ 3♣ 4♦ 5♥ 6♣ 8♦ 9♣ J♥ K♠",
        ],
        pile="3♥",
        stock_top="J♠",
    )
    t.draw(1)  # J♠
    t.open(1, "7♣ 7♦ 7♥", "5♠ 6♠ 7♠ 8♠", points=21 + 26)  # melds 0, 1
    t.add(1, 1, "9♠", "high")
    t.add(1, 1, "10♠", "high")
    t.add(1, 0, "7♠")
    t.discard(1, "J♠")
    t.out(1, "discard")
    return t.finish(1)


def deal_3(t: ContratTrace):
    """Deal 3 (two runs), Règles du Rami contrat: « Un joker peut tenir une carte : 9♥★V♥D♥ est une
    suite de quatre (le joker tient le 10 de cœur). » Seat 2 lays it with
    2♦-7♦ and goes out by discarding."""
    t.deal(
        [
            "A♣ 2♠ 3♥ 4♣ 5♠ 6♥ 7♣ 8♠ 9♦ 10♥",
            "J♣ Q♠ K♦ A♥ 2♣ 3♠ 4♥ 5♣ 6♠ 8♣",
            "9♥ ★ J♥ Q♥ 2♦ 3♦ 4♦ 5♦ 6♦ 7♦",
        ],
        pile="K♣",
        stock_top="4♠",
    )
    t.draw(2)  # 4♠
    t.open(2, ("9♥ ★ J♥ Q♥", "10♥"), "2♦ 3♦ 4♦ 5♦ 6♦ 7♦", points=39 + 27)
    t.discard(2, "4♠")
    t.out(2, "discard")
    return t.finish(2)


def deal_4(t: ContratTrace):
    """Deal 4 (three sets, twelve cards): seat 0 lays three carrés, aces counting 11
    toward the opening value, and discards the card drawn."""
    t.deal(
        [
            "A♣ A♦ A♥ A♠ 3♣ 3♦ 3♥ 3♠ 4♣ 4♦ 4♥ 4♠",
            "2♣ 2♦ 5♥ 6♠ 7♣ 8♦ 9♥ 10♠ J♦ Q♣ K♥ ★",
            "2♥ 2♠ 5♣ 6♦ 7♥ 8♠ 9♣ 10♦ J♥ Q♠ K♣ A♣",
        ],
        pile="5♦",
        stock_top="Q♥",
    )
    t.draw(0)  # Q♥
    t.open(0, "A♣ A♦ A♥ A♠", "3♣ 3♦ 3♥ 3♠", "4♣ 4♦ 4♥ 4♠", points=44 + 12 + 16)
    t.discard(0, "Q♥")
    t.out(0, "discard")
    return t.finish(0)


def deal_5(t: ContratTrace):
    """Deal 5 (two sets and a run): seat 1 lays 3♥ 4♥ ★ 6♥ (joker as 5♥). Seat 2 lays
    its contract, recovers the joker with 5♥ (Règles du Rami: « l'on peut récupérer un
    joker en posant la vraie carte à sa place »), adds it to its own run as J♠,
    adds 7♥ to seat 1's run and goes out by discarding 3♦."""
    t.deal(
        [
            "2♣ 2♦ 3♣ 4♠ 5♣ 6♦ 7♣ 9♦ 3♠ 4♦ 5♦ 2♥",
            "8♣ 8♦ 8♥ 10♣ 10♦ 10♠ 3♥ 4♥ ★ 6♥ K♣ 2♠",
            "J♣ J♦ J♥ Q♣ Q♦ Q♠ 7♠ 8♠ 9♠ 10♠ 5♥ 7♥",
        ],
        pile="9♣",
        stock_top="A♠ 3♦",
    )
    t.draw(1)  # A♠
    t.open(1, "8♣ 8♦ 8♥", "10♣ 10♦ 10♠", ("3♥ 4♥ ★ 6♥", "5♥"), points=24 + 30 + 18)  # melds 0, 1, 2
    t.discard(1, "A♠")
    t.draw(2)  # 3♦
    t.open(2, "J♣ J♦ J♥", "Q♣ Q♦ Q♠", "7♠ 8♠ 9♠ 10♠", points=30 + 30 + 34)  # melds 3, 4, 5
    t.recover(2, 2, "5♥")
    t.add(2, 5, "★", "high", "J♠")
    t.add(2, 2, "7♥", "high")
    t.discard(2, "3♦")
    t.out(2, "discard")
    return t.finish(2)


def deal_6(t: ContratTrace):
    """Deal 6 (one set and two runs): the ace low (A♠-5♠) and high (J♦-A♦)."""
    t.deal(
        [
            "3♣ 4♦ 5♥ 6♠ 7♣ 8♦ 9♥ 10♠ J♣ Q♥ 2♣ 6♣",
            "3♦ 4♥ 5♣ 6♦ 7♠ 8♣ 9♦ 10♥ J♠ Q♣ K♥ ★",
            "2♣ 2♦ 2♥ A♠ 2♠ 3♠ 4♠ 5♠ J♦ Q♦ K♦ A♦",
        ],
        pile="7♦",
        stock_top="8♥",
    )
    t.draw(2)  # 8♥
    t.open(2, "2♣ 2♦ 2♥", "A♠ 2♠ 3♠ 4♠ 5♠", "J♦ Q♦ K♦ A♦", points=6 + 15 + 41)
    t.discard(2, "8♥")
    t.out(2, "discard")
    return t.finish(2)


DEAL_7_S1 = "A♥ 2♦ 3♥ 4♠ 5♦ 6♥ 7♠ 8♣ 9♠ 10♣ J♠ Q♣"
DEAL_7_S2 = "A♦ 2♥ 3♦ 4♦ 5♥ 6♠ 7♦ 8♦ 9♣ 10♠ J♣ Q♠"


def deal_7(t: ContratTrace, tie: bool = False):
    """Deal 7 (three runs, no final discard), Règles du Rami: « Avec treize cartes en main
    après avoir pioché, 2, 3, 4, 5, 6 de trèfle, 8, 9, 10, valet de cœur et 10,
    valet, dame, roi de carreau font trois suites : tu poses tout et tu sors. »

    ``tie`` swaps 4♦ and 9♠ between the losers so that seats 0 and 2 end the
    game level."""
    s1, s2 = DEAL_7_S1, DEAL_7_S2
    if tie:
        s1, s2 = s1.replace("9♠", "4♦"), s2.replace("4♦", "9♠")
    t.deal(["2♣ 3♣ 4♣ 5♣ 6♣ 8♥ 9♥ 10♥ J♥ 10♦ J♦ Q♦", s1, s2], pile="K♠", stock_top="K♦")
    t.draw(0)  # K♦: thirteen cards
    t.open(0, "2♣ 3♣ 4♣ 5♣ 6♣", "8♥ 9♥ 10♥ J♥", "10♦ J♦ Q♦ K♦", points=20 + 37 + 40)
    t.out(0, "lay")
    return t.finish(0)


DEAL_POINTS = [
    [18, 44, 11],  # deal 1, blocked: 3♠ A♠ | A♣ ★ K♦ 4♥ | 4♣ 7♦
    [52, 0, 72],
    [69, 73, 0],
    [0, 94, 94],
    [52, 12, 0],
    [80, 97, 0],
    [0, 89, 89],
]


def seven_deal_game(tie: bool = False) -> ContratTrace:
    """A whole contrat game for three: seven deals, the lowest total wins."""
    t = ContratTrace()
    points = [deal_1(t), deal_2(t), deal_3(t), deal_4(t), deal_5(t), deal_6(t), deal_7(t, tie=tie)]
    if not tie:
        assert points == DEAL_POINTS
    assert t.totals == ([271, 404, 271] if tie else [271, 409, 266])
    t.game_end(winner=None if tie else 2, totals=list(t.totals))
    return t


def deal_1_game(**options) -> ContratTrace:
    """Deal 1 alone, in a one-deal game (game_rounds = 1)."""
    t = ContratTrace(game_rounds=1)
    deal_1(t, **options)
    t.game_end(winner=2, totals=list(t.totals))
    return t


@pytest.fixture(scope="module")
def game() -> list[dict]:
    return seven_deal_game().events


def deal_events(events: list[dict], number: int) -> tuple[int, int]:
    """The index range [start, end) of round ``number``'s events, deal to round_end."""
    start = find(events, "deal", round=number)
    return start, find(events, "round_end", round=number) + 1


# ============================================================== valid games
def test_a_seven_deal_game_is_accepted(game):
    """Règles du Rami contrat: « Les points s'additionnent d'une donne à l'autre. Après la septième
    donne, le joueur qui a le plus petit total gagne la partie. »"""
    summary = check_trace(game)
    assert summary["rounds"] == 7
    assert summary["deck_size"] == 106  # two decks and 3 - 1 jokers
    assert summary["cards_per_round"] == [106] * 7
    assert summary["round_winners"] == [None, 1, 2, 0, 2, 2, 0]
    assert summary["blocked_rounds"] == 1
    assert summary["totals"] == [271, 409, 266]
    assert summary["winner"] == 2
    assert summary["truncated"] is False


def test_a_shared_lowest_total_has_no_winner():
    """docs/rules.md section 6.6: the lowest total after deal 7 wins; item 31:
    a shared lowest total gives no single winner."""
    events = seven_deal_game(tie=True).events
    summary = check_trace(events)
    assert summary["totals"] == [271, 404, 271]
    assert summary["winner"] is None
    refuses(mutated(events, -1, winner=0), r"the lowest total is shared by seats \[0, 2\]: no single winner")
    refuses(mutated(events, -1, winner=2), "no single winner")


def test_the_winner_is_the_lowest_total(game):
    refuses(mutated(game, -1, winner=0), r"winner 0 but the lowest total \[271, 409, 266\] is held by seat 2")


def test_the_game_has_seven_deals(game):
    # game_end after six deals
    end_6 = find(game, "round_end", round=5)
    early_end = {"type": "game_end", "totals": game[end_6]["totals"], "winner": 2, "rounds": 6, "truncated": False}
    refuses(game[: end_6 + 1] + [early_end], "the game is not over after 6 rounds: the game has 7 rounds")
    # an eighth deal
    eighth = dict(game[find(game, "deal", round=0)], round=7, first=1)
    refuses(inserted(game, len(game) - 1, eighth), r"the game was decided after round 6 .*no further deal")


def test_a_four_player_game_has_three_jokers():
    """docs/rules.md section 6.1: two decks and players − 1 jokers (Règles du Rami: « 2 jokers à
    trois, 3 à quatre, 4 à cinq »)."""
    t = ContratTrace(players=4, game_rounds=1, turn_cap=1)
    t.deal(
        [
            "A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ 10♣",
            "A♦ 2♦ 3♦ 4♦ 5♦ 6♦ 7♦ 8♦ 9♦ 10♦",
            "A♥ 2♥ 3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥ 10♥",
            "A♠ 2♠ 3♠ 4♠ 5♠ 6♠ 7♠ 8♠ 9♠ ★",
        ],
        pile="K♠",
    )
    assert parse("★")[0] in t.stock  # more jokers in the stock
    t.pass_turn(0)
    t.blocked("turn_cap")
    t.finish(None)
    # seat 0 drew and threw back the other A♣: 15 + 2 + ... + 10 = 69 for seats 0-2,
    # seat 3: 15 + 2 + ... + 9 + 15 (the joker) = 74; seats 0, 1 and 2 share the lowest
    assert t.totals == [69, 69, 69, 74]
    t.game_end(winner=None, totals=list(t.totals))
    summary = check_trace(t.events)
    assert summary["deck_size"] == 107
    assert summary["winner"] is None
    # a fourth joker is one card too many
    deal = t.events[1]
    refuses(mutated(t.events, 1, pile=deal["pile"] + " ★"), r"cards lost or duplicated: missing \(none\), extra ★")


# ==================================================================== the deal
def test_deal_sizes_and_first_players_follow_the_contract_table(game):
    """docs/rules.md section 6.2: 10 cards for deals 1-3, 12 for deals 4-7; docs/rules.md
    item 31: the first player of deal d (from 0) is seat d mod players."""
    deals = [e for e in game if e["type"] == "deal"]
    assert [e["round"] for e in deals] == list(range(7))
    assert [len(parse(e["hands"][0])) for e in deals] == [10, 10, 10, 12, 12, 12, 12]
    assert [e["first"] for e in deals] == [0, 1, 2, 0, 1, 2, 0]
    check_trace(game)


def test_a_deal_of_the_wrong_size_is_refused(game):
    index = find(game, "deal", round=3)
    hands = list(game[index]["hands"])
    hands[1], spare = hands[1].rsplit(" ", 1)  # seat 1 gets 11 cards in deal 4
    stock = spare + " " + game[index]["stock"]
    refuses(mutated(game, index, hands=hands, stock=stock), "seat 1 is dealt 11 cards, the rules deal 12")
    # deal 1 dealt as if it were deal 4
    index = find(game, "deal", round=0)
    stock = game[index]["stock"].split()
    hands = [h + " " + " ".join(stock[3 + 2 * seat : 5 + 2 * seat]) for seat, h in enumerate(game[index]["hands"])]
    refuses(mutated(game, index, hands=hands), "seat 0 is dealt 12 cards, the rules deal 10")


def test_the_first_player_rotates(game):
    index = find(game, "deal", round=1)
    refuses(mutated(game, index, first=0), r"first = 0 but the first player of round 1 is seat 1 \(item 23\)")


# ================================================================ the contract
def test_deal_2_rule_book_contract_is_accepted(game):
    """Règles du Rami contrat: « Donne 2 : 7♣7♥7♦ et 5♠6♠7♠8♠ : le contrat est rempli. »"""
    opening = game[find(game, "open", round=1)]
    assert [m["cards"] for m in opening["melds"]] == ["7♣ 7♦ 7♥", "5♠ 6♠ 7♠ 8♠"]
    assert check_trace(game)["round_winners"][1] == 1


def test_three_cards_are_no_run_in_contrat(game):
    """Règles du Rami contrat: « 5♠6♠7♠ ne suffit pas : trois cartes ne font pas une suite au Rami
    contrat. »"""
    index = find(game, "open", round=1)
    melds = copy.deepcopy(game[index]["melds"])
    melds[1]["cards"] = "5♠ 6♠ 7♠"
    refuses(mutated(game, index, melds=melds, points=21 + 18), r"5♠ 6♠ 7♠ is not a valid meld")


def test_the_contract_is_not_laid_short(game):
    """Règles du Rami contrat: « on pose son contrat en une seule fois et exactement : ni moins, ni
    plus de combinaisons. »"""
    index = find(game, "open", round=3)
    melds = game[index]["melds"][:2]  # the 4s stay in hand
    refuses(
        mutated(game, index, melds=melds, points=44 + 12),
        r"deal 4's contract is 3 set\(s\) and 0 run\(s\), exactly; laid 2 and 0 \(item 26\)",
    )


def test_the_contract_is_not_laid_long():
    """« ni moins, ni plus de combinaisons »: a third meld in deal 1 is refused."""
    events = contrat_game(s0_melds=("7♣ 7♦ 7♥", "9♣ 9♦ 9♠", "2♥ 3♥ 4♥ 5♥"), points=48 + 14).events
    refuses(events, r"deal 1's contract is 2 set\(s\) and 0 run\(s\), exactly; laid 2 and 1")


def test_one_joker_per_meld_in_the_contract(game):
    """Règles du Rami contrat: « Un joker peut tenir une carte : 9♥★V♥D♥ est une suite de quatre »;
    docs/rules.md section 2.3: at most one joker per meld."""
    index = find(game, "open", round=2)
    assert game[index]["melds"][0] == {"id": 0, "cards": "9♥ ★ J♥ Q♥", "stands_for": "10♥"}
    melds = copy.deepcopy(game[index]["melds"])
    melds[0]["cards"] = "9♥ ★ ★ Q♥"
    refuses(mutated(game, index, melds=melds), r"9♥ ★ ★ Q♥ is not a valid meld")


def test_the_contract_has_no_threshold_but_its_points_are_checked(game):
    """docs/rules.md item 26: the open's points are the melds' opening values, with no
    threshold (deal 1's 44 and deal 2's 47 are below Rami 51's 51)."""
    assert game[find(game, "open", round=0)]["points"] == 44
    check_trace(game)
    index = find(game, "open", round=1)
    refuses(mutated(game, index, points=51), "points = 51, but the melds are worth 47 toward the opening")


def test_the_contract_is_never_waived(game):
    index = find(game, "open", round=6)
    refuses(mutated(game, index, lay_all=True), r"lay_all is never true in contrat: .*item 26")
    # not even when lay_all_ignores_opening is switched on
    refuses(with_knobs(mutated(game, index, lay_all=True), lay_all_ignores_opening=True), "lay_all is never true")


# ====================================================================== deal 7
def test_deal_7_rule_book_hand_is_laid_whole_to_go_out(game):
    """Règles du Rami: « 2, 3, 4, 5, 6 de trèfle, 8, 9, 10, valet de cœur et 10, valet, dame,
    roi de carreau font trois suites : tu poses tout et tu sors. » Règles du Rami contrat: « sauf
    au contrat 7 : il faut alors poser toute sa main, sans dernière défausse. »"""
    start, end = deal_events(game, 6)
    kinds = [e["type"] for e in game[start:end]]
    assert kinds == ["deal", "draw", "open", "out", "round_end"]
    assert game[start + 3]["how"] == "lay"
    summary = check_trace(game)
    assert summary["round_winners"][6] == 0
    assert summary["turns_per_round"][6] == 1


def test_deal_7_contract_must_hold_the_whole_hand(game):
    index = find(game, "open", round=6)
    melds = copy.deepcopy(game[index]["melds"])
    melds[0]["cards"] = "2♣ 3♣ 4♣ 5♣"  # 6♣ stays in hand, to be discarded
    refuses(
        mutated(game, index, melds=melds, points=14 + 37 + 40),
        r"deal 7's contract holds the whole hand, 1 card\(s\) are left: .*no final discard \(item 28\)",
    )


def test_deal_7_has_no_final_discard(game):
    index = find(game, "out", round=6)
    refuses(mutated(game, index, how="discard"), "how = 'discard', but the hand was emptied by a lay")
    discard = {"type": "discard", "round": 6, "seat": 0, "card": "K♦"}
    refuses(inserted(game, index, discard), "a discard after the round's last play")


def test_deals_1_to_6_go_out_only_by_discarding(game):
    """Règles du Rami contrat: « On sort en jetant sa dernière carte sur la défausse, sauf au contrat 7 »."""
    index = find(game, "discard", round=1, seat=1)
    add = {"type": "add", "round": 1, "seat": 1, "id": 1, "card": "J♠", "end": "high", "stands_for": None}
    events = copy.deepcopy(game)
    events[index] = add
    refuses(
        events,
        r"the laying empties the hand in deal 2: in deals 1 to 6 a player goes out only by discarding the last card \(item 28\)",
    )


# ====================================================== before and after the contract
def test_nothing_is_laid_before_the_contract(game):
    """Règles du Rami contrat: « les combinaisons qu'il faut poser pour avoir le droit de poser »."""
    opening = find(game, "open", round=4, seat=2)
    add = find(game, "add", round=4, card="7♥")
    refuses(moved(game, add, opening), r"seat 2 adds to the table before opening \(item 14")
    recover = find(game, "recover", round=4)
    refuses(moved(game, recover, opening), "seat 2 recovers a joker before opening")
    # the contract's melds laid one by one are refused at the first
    melds = game[opening]["melds"]
    one_by_one = [{"type": "meld", "round": 4, "seat": 2, **meld} for meld in melds]
    events = copy.deepcopy(game)
    events[opening : opening + 1] = one_by_one
    refuses(events, r"seat 2 lays a meld before opening")


def test_no_new_meld_after_the_contract(game):
    """Règles du Rami contrat: « Une fois le contrat posé, on ne pose plus de nouvelle combinaison : on
    ne fait que compléter celles de la table, les siennes comme celles des autres »."""
    index = find(game, "add", round=4, card="★")
    meld = {"type": "meld", "round": 4, "seat": 2, "id": 6, "cards": "5♥ 6♥ ★ 8♥", "stands_for": "7♥"}
    events = copy.deepcopy(game)
    events[index] = meld
    refuses(events, r"no new meld after the contract: only additions and joker recovery \(item 27\)")


def test_additions_go_to_anyones_melds(game):
    # In deal 5 seat 2 adds the joker to its own run and 7♥ to seat 1's run.
    adds = [e for e in game if e["type"] == "add" and e["round"] == 4]
    assert [(e["id"], e["card"]) for e in adds] == [(5, "★"), (2, "7♥")]
    assert check_trace(game)["round_winners"][4] == 2


def test_the_recovered_joker_is_added_to_another_meld(game):
    """docs/rules.md item 27: the recovered joker must be added to another table meld."""
    index = find(game, "add", round=4, card="★")
    refuses(mutated(game, index, id=2, end="high", stands_for="7♥"), r"not back to meld 2 \(item 17\)")
    # the next laying must be that joker
    refuses(removed(game, index), r"the joker recovered from meld 2 must be laid by this laying \(item 17\)")
    # and the turn does not end with it in hand
    second_add = find(game, "add", round=4, card="7♥")
    events = removed(removed(game, second_add), index)
    refuses(events, r"the turn ends before the joker recovered from meld 2 is laid again \(item 17\)")


# ================================================================= "Puis-je ?"
def test_may_i_rule_book_example_is_accepted(game):
    """Règles du Rami: « Tu as 9 de trèfle et 9 de pique en main, et le 9 de cœur est sur la
    défausse. Ta voisine prend la pioche : tu dis « Puis-je ? », tu prends le 9 de
    cœur et une carte de pénalité. Ton premier brelan est fait. »"""
    assert [e["type"] for e in game[1:5]] == ["deal", "draw", "may_i", "open"]
    assert game[2] == {"type": "draw", "round": 0, "seat": 0, "source": "stock", "card": "A♠"}
    assert game[3] == {"type": "may_i", "round": 0, "seat": 1, "card": "9♥", "penalty": "9♦"}
    first_set = game[find(game, "open", round=0, seat=1)]["melds"][0]
    assert first_set["cards"] == "9♣ 9♥ 9♠"
    check_trace(game)


def test_may_i_needs_the_knob(game):
    refuses(with_knobs(game, may_i=False), r'may_i is false in this ruleset: no "Puis-je \?"')


def test_may_i_is_a_contrat_event():
    may_i = {"type": "may_i", "round": 0, "seat": 1, "card": "5♣", "penalty": "10♦"}
    refuses(inserted(base_game().events, 3, may_i), "unknown event type 'may_i'")


def test_may_i_comes_right_after_a_stock_draw(game):
    """Règles du Rami contrat: « Quand le joueur dont c'est le tour prend la carte de la pioche, la
    carte du dessus de la défausse reste à prendre »."""
    window = r'"Puis-je \?" comes only right after the player to move drew from the stock'
    refuses(moved(game, 3, 2), window)  # before the draw
    refuses(moved(game, 3, 5), window)  # after the contract is laid
    refuses(moved(game, 3, 6), window)  # after the discard, before the next player's draw
    # after a draw from the discard
    refuses(mutated(game, 2, source="discard", card="9♥"), window)


def test_may_i_is_asked_by_another_player(game):
    """Règles du Rami contrat: « chacun des autres peut dire « Puis-je ? » »."""
    refuses(mutated(game, 3, seat=0), r"seat 0 is the player to move")


def test_may_i_takes_the_pile_top_and_the_stock_top(game):
    """Règles du Rami contrat: « Celui qui la prend reçoit aussi une carte de pénalité, tirée de la
    pioche sans la choisir. »"""
    refuses(mutated(game, 3, card="9♦"), "seat 1 asks for 9♦, but the top of the pile is 9♥")
    refuses(mutated(game, 3, penalty="K♠"), r"the penalty card is K♠, but the top of the stock is 9♦: it is drawn blind")


def test_each_seat_asks_once_per_stock_draw(game):
    refuses(inserted(game, 4, game[3]), r'seat 1 already said "Puis-je \?" for this stock draw')


FIVE_HANDS = [
    "A♣ 2♥ 3♠ 4♣ 5♥ 6♠ 7♣ 8♥ 9♠ 10♣",
    "J♥ Q♠ K♣ A♥ 2♠ 3♣ 4♥ 5♠ 6♣ 7♥",
    "8♠ 9♣ 10♥ J♠ Q♣ K♥ A♠ 2♣ 3♥ 4♠",
    "5♣ 6♥ 7♠ 8♣ 9♥ 10♠ J♣ Q♥ K♠ A♣",
    "2♥ 3♠ 4♣ 5♥ 6♠ 7♣ 8♥ 9♠ 10♣ J♥",
]


def five_player_game(askers=(0, 1, 2), **knobs) -> ContratTrace:
    """Five players, deal 1: four turns fill the pile (2♦ 3♦ 4♦ 5♦ 6♦); when seat 4
    draws from the stock, ``askers`` say "Puis-je ?" one after the other, each
    taking the pile's new top and a penalty card. Seat 0 then throws back the card
    it took (6♦ when it asks first); the turn cap stops the deal and every hand
    is counted."""
    t = ContratTrace(players=5, game_rounds=1, turn_cap=6, **knobs)
    t.deal(FIVE_HANDS, pile="2♦", stock_top="3♦ 4♦ 5♦ 6♦ 7♦ 8♦ 9♦ 10♦ J♦ Q♦ K♦ A♦")
    for seat in range(4):
        t.pass_turn(seat)
    t.draw(4)  # 7♦
    taken = {}
    for seat in askers:
        taken[seat], _ = t.may_i(seat)
    t.discard(4, "7♦")
    drawn = t.draw(0)
    t.discard(0, taken.get(0, drawn))  # the card seat 0 took by "Puis-je ?", if any
    t.blocked("turn_cap")
    t.finish(None)
    best = min(t.totals)
    t.game_end(winner=t.totals.index(best) if t.totals.count(best) == 1 else None, totals=list(t.totals))
    return t


def test_may_i_askers_come_in_turn_order_each_taking_the_new_top():
    """Règles du Rami contrat: « en commençant par le plus proche dans le sens du jeu »; docs/rules.md
    item 29: the card under it becomes the pile's top for the players still to be
    asked."""
    events = five_player_game().events
    asked = [(e["seat"], e["card"], e["penalty"]) for e in events if e["type"] == "may_i"]
    assert asked == [(0, "6♦", "8♦"), (1, "5♦", "9♦"), (2, "4♦", "10♦")]
    summary = check_trace(events)
    assert summary["turns_per_round"] == [6]
    refuses(five_player_game(askers=(1, 0)).events, r"seat 0 asks after seat 1: the players are asked in turn order, from seat 0")
    refuses(five_player_game(askers=(2, 3, 0)).events, "seat 0 asks after seat 3")
    refuses(five_player_game(askers=(0, 0)).events, "seat 0 already said")


def test_may_i_limit():
    """Règles du Rami contrat: « Au plus trois cartes partent ainsi de la défausse pour une même
    pioche. »"""
    refuses(five_player_game(askers=(0, 1, 2, 3)).events, r"a may_i beyond may_i_limit = 3 cards for one stock draw \(item 29\)")
    assert check_trace(five_player_game(askers=(0, 1, 2, 3), may_i_limit=4).events)["rounds"] == 1
    refuses(with_knobs(five_player_game().events, may_i_limit=2), "beyond may_i_limit = 2")


def test_a_may_i_card_may_be_kept_and_thrown_later():
    """docs/rules.md item 29: « A card taken this way may be kept »: it is no discard
    take, so neither must_use nor item 11 binds the asker."""
    events = five_player_game().events
    assert events[find(events, "discard", seat=0, nth=1)]["card"] == "6♦"
    assert check_trace(events)["rounds"] == 1
    # seat 0 never lays the 6♦ and has not opened: neither binds a "Puis-je ?" card
    assert check_trace(with_knobs(events, discard_take="must_use"))["rounds"] == 1
    assert check_trace(with_knobs(events, discard_take="only_after_opening"))["rounds"] == 1


# ========================================================== a closed table
def test_table_closed_when_every_meld_is_a_carre():
    """Règles du Rami contrat: « quand tout le monde a posé et que la table n'accepte plus aucune
    carte (il n'y a plus que des carrés complets), la donne s'arrête de la même
    façon »; Règles du Rami: « chacun compte sa main »."""
    events = deal_1_game().events
    summary = check_trace(events)
    assert summary["blocked_rounds"] == 1
    assert summary["totals"] == [18, 44, 11]
    assert summary["winner"] == 2


def test_table_closed_needs_every_contract_laid():
    events = deal_1_game().events
    index = find(events, "blocked")
    refuses(moved(events, index, find(events, "draw", seat=2)), r"the table is not closed: seat\(s\) 2 have not laid their contract")


def test_table_closed_needs_a_table_that_takes_no_card():
    # seat 2 lays Q♣ Q♦ Q♥ and keeps Q♠: the set still takes Q♠ and a joker
    refuses(deal_1_game(s2_queens="Q♣ Q♦ Q♥").events, r"the table is not closed: meld 5 \(Q♣ Q♦ Q♥\) still takes Q♠ ★")
    # seat 1 keeps 9♦: its brelan still takes 9♦ and a joker
    refuses(deal_1_game(s1_adds_nine=False).events, r"meld 2 \(9♣ 9♥ 9♠\) still takes 9♦ ★")


def test_table_closed_only_at_the_start_of_a_turn():
    events = deal_1_game().events
    index = find(events, "blocked")
    refuses(moved(events, index, index - 1), "a round is blocked only between turns")


def test_table_closed_only_in_contrat():
    blocked = {"type": "blocked", "round": 0, "reason": "table_closed"}
    refuses(inserted(base_game().events, 5, blocked), r"reason 'table_closed' belongs to Rami contrat \(item 30\), not rami51")


def test_a_closed_table_stops_the_deal():
    events = deal_1_game().events
    index = find(events, "blocked")
    draw = {"type": "draw", "round": 0, "seat": 0, "source": "stock", "card": "2♣"}
    events = copy.deepcopy(events)
    events[index] = draw
    refuses(events, r"a draw, but every player has laid its contract and the table takes no card: the deal stops")


def test_unknown_blocked_reasons_are_named():
    events = deal_1_game().events
    index = find(events, "blocked")
    refuses(mutated(events, index, reason="closed"), "reason must be 'stock', 'turn_cap', 'cycle' or 'table_closed', got 'closed'")


# ====================================================================== scoring
def test_scoring_counts_ace_and_joker_15():
    """Règles du Rami: « Il te reste as de trèfle, joker, roi de carreau et 4 de cœur : 15 +
    15 + 10 + 4 = 44 points. »"""
    events = deal_1_game().events
    end = events[find(events, "round_end")]
    assert end["hands"][1] == "A♣ K♦ 4♥ ★"
    assert end["points"][1] == 44
    refuses(mutated(events, find(events, "round_end"), points=[18, 45, 11]), r"round_scores gives \[18, 44, 11\]")
    refuses(with_knobs(events, ace_penalty=11), r"round_scores gives \[14, 40, 11\]")
    refuses(with_knobs(events, joker_penalty=20), r"round_scores gives \[18, 49, 11\]")


def stock_game() -> ContratTrace:
    """Deal 1 for three where nobody lays: the stock runs out, is turned over once,
    runs out again, and the deal stops with every hand counted (Règles du Rami contrat: « à la
    seconde pioche vide, la donne s'arrête et chacun compte sa main »)."""
    t = ContratTrace(game_rounds=1)
    t.deal(
        ["A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ 10♣", "A♦ 2♦ 3♦ 4♦ 5♦ 6♦ 7♦ 8♦ 9♦ ★", "J♥ Q♥ K♥ J♠ Q♠ K♠ A♠ 2♠ 3♠ 4♠"],
        pile="10♦",
    )
    assert len(t.stock) == 106 - 31
    for turn in range(75):
        t.pass_turn(turn % 3)
    t.restock("turn", stock=t.pile[:-1], pile=t.pile[-1:])
    for turn in range(75, 150):
        t.pass_turn(turn % 3)
    assert not t.stock
    t.blocked("stock")
    t.finish(None)
    t.game_end(winner=0, totals=list(t.totals))
    return t


def test_the_second_empty_stock_stops_the_deal_and_hands_count():
    t = stock_game()
    summary = check_trace(t.events)
    # 15 + 2..10 = 69; 15 + 2..9 + 15 = 74; 60 + 15 + 9 = 84 (unopened players count their cards)
    assert summary["totals"] == [69, 74, 84]
    assert summary["blocked_rounds"] == 1
    assert summary["turns_per_round"] == [150]
    refuses(with_knobs(t.events, blocked_scoring="nothing"), r"round_scores gives \[0, 0, 0\]")


def test_the_stock_is_turned_only_once():
    t = stock_game()
    events = copy.deepcopy(t.events)
    index = find(events, "blocked")
    again = {"type": "restock", "round": 0, "mode": "turn", "stock": "", "pile": ""}
    events[index] = dict(again, stock=" ".join(str(c) for c in t.pile[:-1]), pile=str(t.pile[-1]))
    refuses(events, r"cannot be rebuilt \(it was already turned once this round\)")
    restock = find(t.events, "restock")
    refuses(mutated(t.events, restock, mode="reshuffle"), "stock_exhausted = turn_once_then_block restocks by 'turn'")


def test_a_stopped_stock_is_no_closed_table():
    events = stock_game().events
    refuses(mutated(events, find(events, "blocked"), reason="table_closed"), r"seat\(s\) 0, 1, 2 have not laid their contract")


def test_may_i_needs_a_penalty_card_in_the_stock():
    """docs/rules.md item 29: none « when the stock has no card left for the penalty »."""
    events = stock_game().events
    index = find(events, "blocked")
    last_draw = index - 2  # the draw that emptied the stock, then its discard
    assert events[last_draw]["type"] == "draw"
    mover = events[last_draw]["seat"]
    may_i = {
        "type": "may_i",
        "round": 0,
        "seat": (mover + 1) % 3,
        "card": events[last_draw - 1]["card"],  # the previous discard is the pile's top
        "penalty": "2♣",
    }
    refuses(inserted(events, last_draw + 1, may_i), r"a may_i with no card left in the stock for the penalty \(item 29\)")

