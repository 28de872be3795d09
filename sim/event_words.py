"""An event of a game in words: the one wording of what happens at the table.

Every room that tells a person what happened words it here: advice's turns
and ``rami advise``'s list of events, the game page's captions, a record's
review and the play page's log. A draw from the stock, a take from the
discard pile, a "Puis-je ?", an opening, a laying, an addition, a joker taken
back, a throw, going out, a restock, a blocked round, a deal and a round's
end each have one phrase, whichever form the event comes in (a trace's event,
a record's line).

Phrases start in lower case (``"seat 2 draws 9♣ from the stock"``), to be
put inside a longer line; a page that shows them as sentences capitalises
them with :func:`sentence`. A phrase's subject is ``who``: ``"seat 2"``,
:data:`YOU` (the person at the play page's seat: ``"you draw 9♣ from the
stock"``) or ``None``, the seat the text is about, left unnamed (``"draws 9♣
from the stock"``). Rounds are counted from 1 for people; the trace and the
records number them from 0, so the phrases take a round's index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "BLOCKED_WORDS",
    "YOU",
    "added",
    "asked",
    "blocked",
    "dealt",
    "drew",
    "event_text",
    "game_ended",
    "game_started",
    "laid",
    "opened",
    "recovered",
    "restocked",
    "round_ended",
    "seat_name",
    "sentence",
    "threw",
    "took",
    "went_out",
]

YOU = "you"
"""The subject of the person's own moves on the play page."""

BLOCKED_WORDS = {"stock": "the stock is used up", "turn_cap": "the turn cap is reached",
                 "cycle": "the play repeats itself", "table_closed": "no card can be laid any more"}
"""Why a round stopped without a winner (:data:`sim.rules.BLOCKED_REASONS`), in words."""

# A verb as "seat 2" and as "you" take it.
_VERBS = {"draw": "draws", "take": "takes", "say": "says", "open": "opens", "lay": "lays", "add": "adds",
          "throw": "throws", "go": "goes"}


def seat_name(seat: int, you: int | None = None) -> str:
    """``"seat 2"``, or :data:`YOU` when ``seat`` is ``you``."""
    return YOU if you is not None and seat == you else f"seat {seat}"


def sentence(text: str) -> str:
    """A phrase as a sentence: its first letter capitalised."""
    return text[:1].upper() + text[1:]


def _does(who: str | None, verb: str) -> str:
    """The subject and its verb: ``"seat 2 draws"``, ``"you draw"``, or ``"draws"`` when ``who`` is ``None``."""
    if who == YOU:
        return f"{who} {verb}"
    return _VERBS[verb] if who is None else f"{who} {_VERBS[verb]}"


def drew(who: str | None, card: str | None = None) -> str:
    """A draw from the stock; ``card`` ``None`` when the card is not seen."""
    return f"{_does(who, 'draw')} {card} from the stock" if card else f"{_does(who, 'draw')} from the stock"


def took(who: str | None, card: str) -> str:
    """The discard pile's top taken."""
    return f"{_does(who, 'take')} {card} from the discard pile"


def asked(who: str | None, card: str, penalty: str | None = None) -> str:
    """A "Puis-je ?" (Rami contrat): the pile's top taken out of turn, with a penalty card from the stock."""
    penalty_text = f"with the penalty card {penalty}" if penalty else "and a penalty card"
    return f"{_does(who, 'say')} \"Puis-je ?\" and {'take' if who == YOU else 'takes'} {card} {penalty_text}"


def opened(who: str | None, melds: str, points: int | None = None, whole_hand: bool = False) -> str:
    """An opening: its melds (``"7♣ 8♣ 9♣ + Q♥ Q♠ Q♦"``), its points and whether it laid the whole hand."""
    if points is None:
        return f"{_does(who, 'open')} with {melds}"
    return f"{_does(who, 'open')} with {melds} ({points} points{', the whole hand' if whole_hand else ''})"


def laid(who: str | None, cards: str) -> str:
    """A meld laid after the opening."""
    return f"{_does(who, 'lay')} {cards}"


def added(who: str | None, card: str, meld: int, end: str = "", now: str = "") -> str:
    """A card added to table meld ``meld`` (at its ``low`` or ``high`` end for a run); ``now`` the meld after."""
    return (f"{_does(who, 'add')} {card} to meld {meld}" + (f" at its {end} end" if end else "")
            + (f" -> {now}" if now else ""))


def recovered(who: str | None, card: str, meld: int, then: str = "") -> str:
    """The joker of table meld ``meld`` taken back with ``card``; ``then`` what is done with it, if said."""
    return f"{_does(who, 'take')} back the joker of meld {meld} with {card}" + (f" and {then}" if then else "")


def threw(who: str | None, card: str) -> str:
    """A card thrown on the discard pile."""
    return f"{_does(who, 'throw')} {card}"


def went_out(who: str | None, how: str | None = None) -> str:
    """Going out; ``how`` ``"lay"`` or ``"discard"`` when the event says which."""
    if how is None:
        return f"{_does(who, 'go')} out"
    return f"{_does(who, 'go')} out ({'laying' if how == 'lay' else 'discarding'} its last card)"


def restocked(mode: str | None = None) -> str:
    """The stock rebuilt from the discard pile (``mode`` the ruleset's ``stock_exhausted``, if said)."""
    return "the stock is empty: it is rebuilt from the pile" + (f" ({mode})" if mode else "")


def blocked(reason: str) -> str:
    """A round stopped without a winner."""
    return f"the round is blocked: {BLOCKED_WORDS.get(reason, reason.replace('_', ' '))}"


def dealt(round_index: int, first: int | None = None, pile: str | None = None, deal: int | None = None) -> str:
    """Round ``round_index`` (from 0) dealt: Rami contrat's ``deal``, the seat that plays first, the pile's top."""
    text = f"round {round_index + 1}" + (f" (deal {deal})" if deal is not None else "") + " is dealt"
    if first is not None:
        text += f"; seat {first} plays first"
    return text + (f", the pile shows {pile}" if pile else "")


def round_ended(points: Sequence[int], round_index: int | None = None, winner: int | None | str = "",
                totals: Sequence[int] | None = None) -> str:
    """A round's end: its points per seat, and when known its index (from 0), who went out (``None``: nobody,
    the round was blocked; ``""``: not said) and the totals after it."""
    head = "the round ends" if round_index is None else f"round {round_index + 1} ends"
    if winner != "":
        head += ": nobody went out" if winner is None else f": seat {winner} went out"
    tail = f", totals [{', '.join(map(str, totals))}]" if totals is not None else ""
    return f"{head}{';' if winner != '' else ':'} points [{', '.join(map(str, points))}]{tail}"


def game_started(game: str, players: int, strategies: Sequence[str]) -> str:
    """A game's start: the game, the number of players and each seat's strategy."""
    return f"a game of {game} for {players} players: {', '.join(strategies)}"


def game_ended(rounds: int, winner: int | None, totals: Sequence[int]) -> str:
    """A game's end after ``rounds`` rounds: the winner (``None``: no single winner) and the totals."""
    won = "no single winner" if winner is None else f"seat {winner} wins"
    return f"the game ends after {rounds} rounds: {won}, totals [{', '.join(map(str, totals))}]"


def event_text(event: Mapping[str, Any], seat: int | None = None, tables: Sequence[str] = ()) -> str:
    """One trace event (``docs/trace.md``) in words, e.g. ``"seat 2 draws 9♣ from the stock"``.

    ``seat``: the seat the text is about, left unnamed in its own moves (``"draws 9♣ from the stock"``);
    ``tables``: the table's melds after the event, to show what an addition made.
    """
    t = event["type"]
    who = None if seat is not None and event.get("seat") == seat else f"seat {event.get('seat')}"
    if t == "draw":
        return drew(who, event["card"]) if event["source"] == "stock" else took(who, event["card"])
    if t == "restock":
        return restocked(event.get("mode"))
    if t == "open":
        return opened(who, " + ".join(m["cards"] for m in event["melds"]), event["points"],
                      bool(event.get("lay_all")))
    if t == "meld":
        return laid(who, event["cards"])
    if t == "add":
        now = tables[event["id"]] if event["id"] < len(tables) else ""
        return added(who, event["card"], event["id"], event.get("end") or "", now)
    if t == "recover":
        return recovered(who, event["card"], event["id"])
    if t == "may_i":
        return asked(who, event["card"], event.get("penalty"))
    if t == "discard":
        return threw(who, event["card"])
    if t == "out":
        return went_out(who, event.get("how"))
    if t == "blocked":
        return blocked(event["reason"])
    if t == "deal":
        return dealt(event["round"], event["first"], event.get("pile"))
    if t == "round_end":
        return round_ended(event["points"], event["round"], event["winner"], event["totals"])
    if t == "game_start":
        return game_started(event["ruleset"]["game"], event["players"], event.get("strategies", []))
    if t == "game_end":
        return game_ended(event["rounds"], event["winner"], event["totals"])
    return t
