"""A game record: one seat's game written down after play, one line per event, as a person can write it by hand.

A record holds what one seat saw of a game: its own hand at each deal and
the cards it drew, every draw's source (the stock, or the pile's top and
its card), every throw, every laying, every "Puis-je ?", and each round's
end and score. It is what a player can note at a real table; the review
(:func:`sim.review`, ``rami review``) values every decision of that seat
from it, and ``rami record --seat S`` writes one for any game the lab plays
or traces (:func:`write_record`). The grammar, with the example of
``docs/real_game.md``:

.. code-block:: text

    # Sunday at Anne's: Rami 51 for three, I am seat 1
    rules: rami51
    players: 3
    seat: 1

    round 0
    first: 2
    hand: 2♣ 5♦ 9♥ J♥ Q♥ K♥ 4♠ 8♠ 3♦ 3♥ ★ 7♣ 10♠
    pile: 4♥
    2 drew
    2 threw Q♠
    0 took Q♠
    0 open Q♠ Q♦ Q♥ + 7♣ 8♣ 9♣
    0 threw 10♣
    1 drew 9♦
    1 meld ★ 3♦ 3♥
    1 threw 10♠
    ...
    0 out
    score: 0 35 12

==================  =========================================================
line                meaning
==================  =========================================================
``rules: P K=V``    the rules: a preset, then ``knob=value`` overrides
                    (the seat view notation's, :mod:`sim.seat_view`)
``players: N``      the seats
``seat: S``         the seat whose record this is (seats from 0, in play order)
``totals: T ...``   optional, before the first round: the game's totals
                    before it (default none)
``round R``         a round begins (from 0; contrat may add ``deal D``)
``first: S``        the seat that plays first in the round
``hand: CARDS``     the record's seat's hand as dealt
``pile: C``         the card turned up to start the pile
``S drew``          seat ``S`` draws from the stock; the record's own seat
                    writes the card: ``S drew C``
``S took C``        seat ``S`` takes ``C``, the pile's top
``S asks C``        "Puis-je ?" (contrat): seat ``S`` takes the pile's top
                    ``C`` after another seat drew from the stock; the record's
                    own seat adds its penalty card: ``S asks C penalty P``
``S open ...``      a laying, written as the lab's choices write it
``S meld ...``      (:meth:`sim.Position.legal_choices`): ``open MELD + MELD``,
``S add ...``       ``meld MELD``, ``add C to M [low|high]`` (the end of a
``S recover ...``   run; found when only one fits), ``recover C from M, meld
                    MELD`` or ``recover C from M, joker to M [low|high]``;
                    a meld's cards in any order, a joker ``★`` (or ``JK``)
                    with ``★=C`` where it could stand for two cards; melds
                    are numbered from 0 in the round, as they are laid
``S threw C``       seat ``S`` throws ``C`` on the pile; its turn ends
``S out``           optional: seat ``S`` has no card left
``restock``         the stock was rebuilt from the pile (the rules say how)
``blocked REASON``  the round stops without a winner
``score: P ...``    the round ends: every seat's points in it
==================  =========================================================

Blank lines and lines starting with ``#`` are skipped; cards are written in
the lab's notation (``7♥``, ASCII ``7H``, jokers ``★`` or ``JK``).

:func:`parse_record` reads a record and checks it through the rules
reference (:mod:`sim.rules`), as far as the seat's view allows: the seat's
own moves legal (a draw of the pile's top it could take, a throw of a card
it held, melds it held and that are melds, an opening worth the threshold
or the contract, additions and joker recoveries that fit), every seat's
moves in turn order, no card beyond its copies among the cards seen, hand
sizes consistent with the draws, layings and throws, every meld laid a
meld, a card taken from the pile never thrown in that turn (and laid in it
under ``must_use``, whoever took it), a hand emptied by a laying only where
the rules let a seat go out so, the round over once a seat holds no card,
the stock rebuilt and a round blocked between two turns and only when the
rules do, the first seat turning round by round, scores for every seat, and
the record's own seat's points as the rules score its last hand (a basic
rummy winner's gain, which counts the other hands, excepted). A fault
raises :class:`RecordError`
naming its line and column. :func:`seat_decisions` walks a read record and
gives, at each point where the seat may decide, the seat's view
(:class:`sim.seat_view.SeatView`) and what the record says it played;
:func:`seen_steps` gives the seat's view after every line (the review's
game page draws them).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sim import cards as cardlib
from sim import rules as rules_lib
from sim.checks import is_whole
from sim.rules.melds import meld_readings
from sim.seat_view import SeatView, StartMeld, meld_of_reading, rules_of, ruleset_of

__all__ = ["Entry", "GameRecord", "RecordError", "SeatPoint", "SeenStep", "parse_record", "seat_decisions", "seen_steps",
           "write_record"]

_HEAD = ("rules", "players", "seat", "totals")
_ROUND_KEYS = ("first", "hand", "pile")
_LAYING_WORDS = ("open", "meld", "add", "recover")
_JOKER = int(cardlib.JOKER)


class RecordError(ValueError):
    """A record that cannot be read or cannot happen; ``line`` and ``column`` (from 1) locate the fault."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        self.line = line
        self.column = column
        self.reason = message
        super().__init__(("" if line is None else f"line {line}, column {column or 1}: ") + message)


@dataclass(frozen=True)
class Entry:
    """One event line of a record: where it is (``line``, ``column`` of its first word), the seat that acts
    (``None`` for ``restock``, ``blocked`` and ``score``), its kind (``drew``, ``took``, ``asks``, ``open``,
    ``meld``, ``add``, ``recover``, ``threw``, ``out``, ``restock``, ``blocked``, ``score``) and the rest of
    the line (``text``, starting at column ``at``)."""

    line: int
    column: int
    seat: int | None
    kind: str
    text: str
    at: int


@dataclass(frozen=True)
class RecordRound:
    """One round of a record: its number, first seat, the seat's dealt hand (codes), the pile's first card, its
    entries, and where its header lines are (``lines``: key to ``(line, column)``)."""

    number: int
    first: int
    hand: tuple[int, ...]
    pile: int
    entries: tuple[Entry, ...]
    lines: Mapping[str, tuple[int, int]]


@dataclass(frozen=True)
class GameRecord:
    """A read and checked record: the ruleset, the seat, the totals before its first round, its rounds."""

    ruleset: rules_lib.Ruleset
    seat: int
    totals: tuple[int, ...]
    rounds: tuple[RecordRound, ...]


@dataclass(frozen=True)
class SeatPoint:
    """A point of a record where the seat may decide (:func:`seat_decisions`).

    ``view`` is what the seat sees there, its ``decision`` a guess the
    engine settles (``"draw"`` at a turn's start, ``"lay"`` before a
    laying or a throw, ``"may_i"`` when it is asked "Puis-je ?"); ``entry``
    the record line that answers it (the seat's draw, laying, throw or
    "Puis-je ?"; for a pass, the line after; under ``flip_no_shuffle`` the
    ``restock`` of the seat's turn, its draw from the stock turning the pile
    over), ``played`` that line as a
    choice (``None`` for a throw: the laying phase ends by ``stop``, then
    the throw is the discard's choice, ``card``).
    """

    view: SeatView
    entry: Entry
    played: str | None
    card: str | None = None


@dataclass(frozen=True)
class SeenStep:
    """The round as the record's seat sees it after one line of the record (:func:`seen_steps`).

    ``line`` the record's line, ``entry`` its event (``None`` for a round's
    deal, whose line is the round's ``pile:``), ``view`` what the seat sees
    after it (its ``decision`` names no decision: only its facts are meant),
    ``totals`` the game's totals after it (a ``score:`` line adds the round's
    points).
    """

    line: int
    entry: Entry | None
    view: SeatView
    totals: tuple[int, ...]


# ------------------------------------------------------------------ writing


def _lay_text(events: Sequence[Mapping[str, Any]], i: int) -> str:
    e = events[i]
    t = e["type"]
    if t == "open":
        return "open " + " + ".join(m["cards"] for m in e["melds"])
    if t == "meld":
        return "meld " + e["cards"]
    if t == "add":
        return f"add {e['card']} to {e['id']}" + (f" {e['end']}" if e.get("end") else "")
    nxt = events[i + 1]
    head = f"recover {e['card']} from {e['id']}, "
    if nxt["type"] == "meld":
        return head + "meld " + nxt["cards"]
    return head + f"joker to {nxt['id']}" + (f" {nxt['end']}" if nxt.get("end") else "")


def write_record(events: Sequence[Mapping[str, Any]], seat: int, ascii: bool = False) -> str:
    """The record of ``seat`` for a whole trace of :func:`sim.play_traced` (``docs/trace.md``): what that seat
    saw, in the grammar of the module's docstring (``ascii`` writes ``7H`` and ``JK``)."""
    events = list(events)
    if not events or events[0].get("type") != "game_start":
        raise ValueError("events must be a whole trace from sim.play_traced, starting with its game_start event")
    head = events[0]
    r = rules_lib.Ruleset(**head["ruleset"])
    if not is_whole(seat, 0, r.players - 1):
        raise ValueError(f"seat must be 0 .. {r.players - 1}, got {seat!r}")
    preset, overrides = rules_of(r)
    rules_line = " ".join([preset, *(f"{k}={_knob_text(v)}" for k, v in overrides)])
    lines = [f"# {r.game} for {r.players}, game {head.get('game', 0)} of seed {head.get('seed', 0)}: "
             f"{', '.join(head.get('strategies', []))}; the record of seat {seat}",
             f"rules: {rules_line}", f"players: {r.players}", f"seat: {seat}"]
    skip = False
    for i, e in enumerate(events):
        if skip:
            skip = False
            continue
        t = e["type"]
        who = e.get("seat")
        if t == "deal":
            deal = f" deal {rules_lib.contract_deal(e['round'])}" if r.game == "contrat" else ""
            lines += ["", f"round {e['round']}{deal}", f"first: {e['first']}", f"hand: {e['hands'][seat]}",
                      f"pile: {e['pile']}"]
        elif t == "draw":
            if e["source"] == "discard":
                lines.append(f"{who} took {e['card']}")
            else:
                lines.append(f"{who} drew" + (f" {e['card']}" if who == seat else ""))
        elif t == "may_i":
            lines.append(f"{who} asks {e['card']}" + (f" penalty {e['penalty']}" if who == seat else ""))
        elif t in _LAYING_WORDS:
            lines.append(f"{who} {_lay_text(events, i)}")
            skip = t == "recover"
        elif t == "discard":
            lines.append(f"{who} threw {e['card']}")
        elif t == "out":
            lines.append(f"{who} out")
        elif t == "restock":
            lines.append("restock")
        elif t == "blocked":
            lines.append(f"blocked {e['reason']}")
        elif t == "round_end":
            lines.append("score: " + " ".join(str(p) for p in e["points"]))
    text = "\n".join(lines) + "\n"
    return cardlib.ascii_text(text) if ascii else text


def _knob_text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


# ------------------------------------------------------------------ reading


def _words(text: str, start: int) -> list[tuple[str, int]]:
    return [(m.group(), start + m.start()) for m in re.finditer(r"\S+", text)]


def _card_at(word: str, line: int, column: int) -> int:
    try:
        cards = cardlib.parse(word)
    except ValueError as exc:
        raise RecordError(str(exc), line, column) from None
    if len(cards) != 1:  # a word cut at "=" may hold none: "=7♥", "★="
        raise RecordError(f"one card expected here, got {word!r}", line, column)
    return int(cards[0])


def _cards_at(text: str, line: int, start: int) -> list[int]:
    return [_card_at(w, line, c) for w, c in _words(text, start)]


def _number(word: str, line: int, column: int, what: str, low: int = 0, high: int | None = None) -> int:
    if not re.fullmatch(r"-?\d+", word):
        raise RecordError(f"{what}: {word!r} is not a whole number", line, column)
    n = int(word)
    if n < low or (high is not None and n > high):
        raise RecordError(f"{what}: {n} is out of range {low} .. {high}", line, column)
    return n


_ENTRY = re.compile(r"(\d+)\s+(drew|took|asks|open|meld|add|recover|threw|out)\b\s*(.*)$")


def parse_record(text: str) -> GameRecord:
    """Read a record (the module's grammar) and check it (see the module's docstring).

    Raises
    ------
    RecordError
        A line that is no part of the grammar, a missing or repeated head
        line, a bad number, seat or card, or an event that cannot happen;
        ``line`` and ``column`` locate it.
    """
    if not isinstance(text, str):
        raise TypeError(f"a record is text, got {type(text).__name__}")
    head: dict[str, tuple[str, int, int]] = {}
    rounds: list[dict[str, Any]] = []
    last = 0
    for n, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        last = n
        indent = len(raw) - len(raw.lstrip()) + 1
        key, colon, value = stripped.partition(":")
        key = key.strip()
        value_at = indent + len(stripped) - len(value.lstrip()) if colon else 0
        if colon and key in _HEAD:
            if rounds:
                raise RecordError(f"'{key}:' belongs before the first round", n, indent)
            if key in head:
                raise RecordError(f"'{key}:' is written twice (first on line {head[key][1]})", n, indent)
            if not value.strip():
                raise RecordError(f"'{key}:' is empty", n, indent)
            head[key] = (value.strip(), n, value_at)
            continue
        if stripped.split()[0] == "round":
            rounds.append({"line": n, "column": indent, "text": stripped, "keys": {}, "entries": []})
            continue
        if not rounds:
            raise RecordError(f"expected the head ({', '.join(k + ':' for k in _HEAD[:3])}) and then "
                              f"'round 0'; got {stripped[:40]!r}", n, indent)
        current = rounds[-1]
        if colon and key in _ROUND_KEYS:
            if key in current["keys"]:
                raise RecordError(f"'{key}:' is written twice in this round", n, indent)
            if current["entries"]:
                raise RecordError(f"'{key}:' belongs to the round's deal, before its first event", n, indent)
            current["keys"][key] = (value.strip(), n, value_at)
            continue
        if colon and key == "score":
            current["entries"].append(Entry(n, indent, None, "score", value.strip(), value_at))
            continue
        words = stripped.split(None, 1)
        if words[0] in ("restock", "blocked"):
            rest = words[1] if len(words) > 1 else ""
            current["entries"].append(Entry(n, indent, None, words[0], rest,
                                            indent + len(stripped) - len(rest)))
            continue
        m = _ENTRY.match(stripped)
        if not m:
            raise RecordError(f"{stripped[:40]!r} is no line of a record: 'S drew [C]', 'S took C', 'S asks C', "
                              "'S open|meld|add|recover ...', 'S threw C', 'S out', 'restock', 'blocked REASON', "
                              "'score: P ...' (docs/real_game.md)", n, indent)
        seat = int(m.group(1))
        kind = m.group(2)
        rest = m.group(3)
        body = rest if kind not in _LAYING_WORDS else f"{kind} {rest}".strip()
        body_at = indent + m.start(3) - (0 if kind not in _LAYING_WORDS else len(kind) + 1)
        current["entries"].append(Entry(n, indent, seat, kind, body, body_at))
    for key in _HEAD[:3]:
        if key not in head:
            raise RecordError(f"missing head line '{key}:'", last + 1 if not head else min(v[1] for v in
                                                                                      head.values()), 1)
    players = _number(*head["players"][0].split()[:1], head["players"][1], head["players"][2], "players",
                      rules_lib.MIN_PLAYERS, rules_lib.MAX_PLAYERS)
    rule_words = _words(head["rules"][0], head["rules"][2])
    overrides: dict[str, Any] = {}
    for word, col in rule_words[1:]:
        knob, eq, value = word.partition("=")
        if not eq:
            raise RecordError(f"rules: {word!r}: give overrides as knob=value", head["rules"][1], col)
        overrides[knob] = True if value == "true" else False if value == "false" else (
            int(value) if re.fullmatch(r"-?\d+", value) else value)
    try:
        r = ruleset_of(rule_words[0][0], overrides, players)
    except rules_lib.RulesetError as exc:
        raise RecordError(f"rules: {exc}", head["rules"][1], head["rules"][2]) from None
    seat = _number(head["seat"][0], head["seat"][1], head["seat"][2], "seat", 0, players - 1)
    totals = tuple([0] * players)
    if "totals" in head:
        words = _words(head["totals"][0], head["totals"][2])
        if len(words) != players:
            raise RecordError(f"totals: give {players} totals, one per seat", head["totals"][1], head["totals"][2])
        totals = tuple(_number(w, head["totals"][1], c, "totals", -10**9) for w, c in words)
    if not rounds:
        raise RecordError("no round: a record's rounds begin with 'round 0'", last + 1, 1)
    read: list[RecordRound] = []
    for k, rd in enumerate(rounds):
        words = rd["text"].split()
        n, col = rd["line"], rd["column"]
        if len(words) < 2:
            raise RecordError("write the round's number: 'round 0'", n, col)
        number = _number(words[1], n, col + len("round "), "round", 0)
        if number != k + (read[0].number if read else number):
            expected = read[-1].number + 1 if read else number
            raise RecordError(f"round {number} follows round {expected - 1}: expected round {expected}", n, col)
        if len(words) > 2:
            if r.game != "contrat" or len(words) != 4 or words[2] != "deal":
                raise RecordError("write 'round R', and in contrat 'round R deal D'", n, col)
            if words[3] != str(rules_lib.contract_deal(number)):
                raise RecordError(f"round {number} plays deal {rules_lib.contract_deal(number)}, not deal "
                                  f"{words[3]}", n, col)
        keys = rd["keys"]
        for key in _ROUND_KEYS:
            if key not in keys:
                at = rd["entries"][0].line if rd["entries"] else n + 1
                raise RecordError(f"round {number}: missing '{key}:' (its deal: first, hand, pile)", at, 1)
        first = _number(keys["first"][0], keys["first"][1], keys["first"][2], "first", 0, players - 1)
        if read and first != (read[-1].first + 1) % players:
            raise RecordError(f"first: round {number} is played first by seat {(read[-1].first + 1) % players}, the "
                              f"seat after round {read[-1].number}'s first (docs/rules.md item 23), not seat {first}",
                              keys["first"][1], keys["first"][2])
        hand = tuple(sorted(_cards_at(keys["hand"][0], keys["hand"][1], keys["hand"][2])))
        pile = _cards_at(keys["pile"][0], keys["pile"][1], keys["pile"][2])
        if len(pile) != 1:
            raise RecordError("pile: the one card turned up at the deal", keys["pile"][1], keys["pile"][2])
        lines = {key: (v[1], v[2]) for key, v in keys.items()}
        read.append(RecordRound(number, first, hand, pile[0], tuple(rd["entries"]), lines))
    record = GameRecord(r, seat, totals, tuple(read))
    for _ in _walk(record):  # every check is made by the walk through the record
        pass
    return record


# ------------------------------------------------------------------ the walk


@dataclass
class _Round:
    """The public state of a round as the record's seat sees it, move by move."""

    r: rules_lib.Ruleset
    seat: int
    number: int
    first: int
    totals: tuple[int, ...]
    hand: Counter
    sizes: list[int]
    pile: list[int]
    stock: int
    table: list[StartMeld] = field(default_factory=list)
    restocks: int = 0
    turn: int = 0
    opened: set[int] = field(default_factory=set)
    first_lay: dict[int, int] = field(default_factory=dict)
    took: list[Counter] = field(default_factory=list)
    known: list[Counter] = field(default_factory=list)
    last_open: int = 0
    moves: list[str] = field(default_factory=list)
    drew: bool = False  # the mover has drawn in this turn
    taken: int | None = None  # the card the mover took from the pile this turn
    laid_now: Counter = field(default_factory=Counter)  # the cards the mover laid this turn
    out: int | None = None  # the seat that has no card left
    out_turn: int = 0  # the turn it emptied its hand in
    blocked: bool = False  # a 'blocked' line stopped the round
    flipped: bool = False  # the seat's draw of this turn turned the pile over (flip_no_shuffle): decided there
    asking: int | None = None  # after a stock draw: the last seat asked "Puis-je ?"
    granted: int = 0

    @property
    def mover(self) -> int:
        return (self.first + self.turn) % self.r.players

    def view(self, decision: str, asked: int | None = None) -> SeatView:
        n = self.r.players
        preset, overrides = rules_of(self.r)
        threshold = None
        if self.r.open_threshold_rises:
            threshold = max(self.r.open_threshold, self.last_open + 1) if self.last_open else self.r.open_threshold
        mover = self.mover
        return SeatView(
            rules=preset, overrides=overrides, players=n, round=self.number, turn=self.turn, seat=self.seat,
            mover=mover, decision=decision, asked=asked, hand=cardlib.format(sorted(self.hand.elements())),
            hand_sizes=tuple(self.sizes), table=tuple(m.table_meld() for m in self.table),
            pile=cardlib.format(self.pile), pile_unseen=0, stock=self.stock, restocks=self.restocks,
            opened=tuple(sorted(self.opened)),
            laid=tuple(sorted(s for s, t in self.first_lay.items() if not (s == mover and t == self.turn))),
            threshold=threshold, took=tuple(cardlib.format(sorted(c.elements())) for c in self.took),
            known=tuple("" if s == self.seat else cardlib.format(sorted(self.known[s].elements()))
                        for s in range(n)),
            totals=self.totals, moves=tuple(self.moves))

    def lose(self, s: int, codes: Sequence[int]) -> None:
        """Cards ``s`` laid or threw: they are no longer known held (a card laid while none of its code was
        known leaves the count at none, as the rollouts count them)."""
        for c in codes:
            if self.known[s][c] > 0:
                self.known[s][c] -= 1


def _fail(entry: Entry, message: str, column: int | None = None) -> RecordError:
    return RecordError(message, entry.line, column or entry.column)


def _meld_from_text(text: str, entry: Entry, start: int, owner: int, r: rules_lib.Ruleset) -> StartMeld:
    """A meld written by hand (any order, ``★=C`` for a joker that could stand for two cards) as the table
    keeps it; refused when it is no meld under ``r``."""
    naturals: list[int] = []
    wanted: int | None = None
    jokers = 0
    written: list[str] = []
    for word, col in _words(text, start):
        face, eq, stands = word.partition("=")
        code = _card_at(face, entry.line, col)
        if code == _JOKER:
            jokers += 1
            if eq:
                wanted = _card_at(stands, entry.line, col + len(face) + 1)
            written.append("★")
        elif eq:
            raise _fail(entry, f"{word!r}: only a joker says what it stands for (★=8♣)", col)
        else:
            naturals.append(code)
            written.append(cardlib.Card(code).text())
    readings = meld_readings(naturals + [_JOKER] * jokers, r) if len(naturals) + jokers else []
    if not readings:
        raise _fail(entry, f"{text} is not a meld under these rules (docs/rules.md section 2)", start)
    if wanted is not None:
        readings = [m for m in readings if m.stands_for == (cardlib.Card(wanted),)]
        if not readings:
            raise _fail(entry, f"{text}: the joker cannot stand for {cardlib.Card(wanted)} here", start)
    # A run written from its lowest card with a bare joker at its place says what the joker stands for.
    exact = [m for m in readings if m.text() == " ".join(written)]
    kinds = {m.kind for m in readings}
    if exact:
        reading = exact[0]
    elif len(readings) == 1 or kinds == {"set"}:
        reading = readings[0]
    else:
        could = " or ".join(f"★={m.stands_for[0]}" for m in readings if m.stands_for)
        raise _fail(entry, f"{text}: say what the joker stands for: {could}", start)
    return StartMeld.of(meld_of_reading(owner, reading))


def _is_meld(meld: StartMeld, r: rules_lib.Ruleset) -> bool:
    """Whether the cards of ``meld`` as they lie are a meld of the rules reference."""
    codes = [_JOKER if i == meld.joker else int(c) for i, c in enumerate(meld.cards)]
    for reading in meld_readings(codes, r):
        if reading.kind == meld.kind and (meld.kind == "set" or list(reading.order) == meld.cards):
            return True
    return False


def _end_place(meld: StartMeld, card: int, end: str | None, entry: Entry) -> str:
    """The end of a run that ``card`` goes to: the one written, or the only one it fits."""
    if end is not None:
        return end
    if card == _JOKER:
        raise _fail(entry, "a joker added to a run says its end: 'add ★ to M low' or 'high'")
    fits = []
    low, high = meld.positions()[0] - 1, meld.positions()[-1] + 1
    c = cardlib.Card(card)
    suit = meld.cards[0].suit
    for name, pos in (("low", low), ("high", high)):
        rank = 1 if pos == 14 else pos
        if 1 <= pos <= 14 and c.suit == suit and c.rank == rank:
            fits.append(name)
    if len(fits) != 1:
        raise _fail(entry, f"{c} fits {'neither end' if not fits else 'both ends'} of meld "
                           f"{meld.text()}: write 'low' or 'high'")
    return fits[0]


def _add(meld: StartMeld, card: int, end: str | None, entry: Entry, r: rules_lib.Ruleset) -> None:
    """Add ``card`` to ``meld`` (checked by the rules reference)."""
    before = meld.text()
    if meld.kind == "run":
        place = _end_place(meld, card, end, entry)
        pos = meld.positions()[0] - 1 if place == "low" else meld.positions()[-1] + 1
        if not 1 <= pos <= 14:
            raise _fail(entry, f"meld {before} has no {place} end to add to")
        stands = cardlib.card(1 if pos == 14 else pos, meld.cards[0].suit)
        if card != _JOKER and int(stands) != card:
            raise _fail(entry, f"{cardlib.Card(card)} does not fit the {place} end of {before}")
        if card == _JOKER and meld.joker >= 0:
            raise _fail(entry, f"meld {before} holds a joker already")
        if place == "low":
            meld.cards.insert(0, stands)
            meld.joker = 0 if card == _JOKER else (meld.joker + 1 if meld.joker >= 0 else -1)
        else:
            meld.cards.append(stands)
            if card == _JOKER:
                meld.joker = len(meld.cards) - 1
    else:
        if end is not None:
            raise _fail(entry, "an addition to a set has no end")
        if card == _JOKER:
            if meld.joker >= 0:
                raise _fail(entry, f"meld {before} holds a joker already")
            meld.cards.append(meld.cards[0])  # its suit is set by relabel below
            meld.joker = len(meld.cards) - 1
        else:
            c = cardlib.Card(card)
            naturals = [x for i, x in enumerate(meld.cards) if i != meld.joker]
            if c.rank != naturals[0].rank or c.suit in {x.suit for x in naturals}:
                raise _fail(entry, f"{c} does not fit the set {before}")
            if meld.joker >= 0 and meld.cards[meld.joker] == c:
                # The card the joker stood for: the joker now stands for another suit the set lacks.
                meld.cards.append(c)
            else:
                meld.cards.append(c)
        joker_card = meld.cards[meld.joker] if meld.joker >= 0 else None
        naturals = [x for i, x in enumerate(meld.cards) if i != meld.joker]
        if joker_card is not None:
            rank = naturals[0].rank
            lacking = [s for s in range(4) if s not in {x.suit for x in naturals}]
            if not lacking:
                raise _fail(entry, f"the set {before} cannot hold a fifth card")
            meld.cards = sorted(naturals + [cardlib.card(rank, lacking[0])], key=lambda x: x.suit)
            meld.joker = next(i for i, x in enumerate(meld.cards) if x.suit == lacking[0])
        else:
            meld.cards = sorted(naturals, key=lambda x: x.suit)
    if not _is_meld(meld, r):
        raise _fail(entry, f"meld {before} with {cardlib.Card(card)} is no meld under these rules")


def _recover(meld: StartMeld, card: int, entry: Entry, r: rules_lib.Ruleset) -> None:
    """Put the natural ``card`` in the place of ``meld``'s joker (checked: the card it stands for, or in a set
    under ``missing_suit`` any suit the set lacks)."""
    if meld.joker < 0:
        raise _fail(entry, f"meld {meld.text()} holds no joker to take back")
    c = cardlib.Card(card)
    stands = meld.cards[meld.joker]
    if meld.kind == "run" or r.joker_recovery_from_set != "missing_suit":
        ok = c == stands
    else:
        naturals = [x for i, x in enumerate(meld.cards) if i != meld.joker]
        ok = c.rank == stands.rank and c.suit not in {x.suit for x in naturals}
    if not ok:
        raise _fail(entry, f"{c} cannot take the joker of {meld.text()} back (it stands for {stands})")
    meld.cards[meld.joker] = c
    meld.joker = -1
    if meld.kind == "set":
        meld.cards.sort(key=lambda x: x.suit)


def _lay_words(text: str) -> list[str]:
    return text.split()


def _walk(record: GameRecord) -> Iterator[SeatPoint | SeenStep]:
    """Every point of the record where its seat may decide (see :class:`SeatPoint`), and after every line what
    the seat sees (:class:`SeenStep`), each checked move applied; raises :class:`RecordError` at the first line
    that cannot happen."""
    r = record.ruleset
    n = r.players
    seat = record.seat
    totals = list(record.totals)
    for rd in record.rounds:
        sizes = [r.hand_size(rd.number) + int(r.first_player_extra_card and s == rd.first) for s in range(n)]
        hand_line, hand_col = rd.lines["hand"]
        if len(rd.hand) != sizes[seat]:
            raise RecordError(f"hand: {len(rd.hand)} cards, but seat {seat} is dealt {sizes[seat]} in round "
                              f"{rd.number}", hand_line, hand_col)
        st = _Round(r, seat, rd.number, rd.first, tuple(totals), Counter(rd.hand), sizes, [rd.pile],
                    r.deck_size - sum(sizes) - 1)
        st.took = [Counter() for _ in range(n)]
        st.known = [Counter() for _ in range(n)]
        _check_seen(st, *rd.lines["hand"])
        yield SeenStep(rd.lines["pile"][0], None, st.view("draw"), tuple(totals))
        ended = False
        entries = list(rd.entries)
        for k, e in enumerate(entries):
            if ended:
                raise _fail(e, "the round is over: a new round begins with 'round R'")
            nxt = entries[k + 1] if k + 1 < len(entries) else None
            if st.out is not None and e.kind not in ("out", "score"):
                raise _fail(e, f"the round is over: seat {st.out} has no card left (its 'out', then the round's "
                               "'score:')")
            if e.kind == "score":
                words = _words(e.text, e.at)
                if len(words) != n:
                    raise _fail(e, f"score: give {n} points, one per seat; got {len(words)}", e.at)
                points = [_number(w, e.line, c, "score", -10**6) for w, c in words]
                if st.out is None and not st.blocked:
                    raise _fail(e, "score: the round has not ended: no seat has gone out and no 'blocked' line "
                                   "stopped it")
                _check_own_points(st, points[seat], e, words[seat][1])
                totals = [t + p for t, p in zip(totals, points)]
                ended = True
            elif e.kind == "blocked":
                if e.text not in rules_lib.blocked_reasons(r.game):
                    raise _fail(e, f"blocked {e.text!r}: the reasons are {', '.join(rules_lib.blocked_reasons(r.game))}",
                                e.at)
                if st.drew or st.moves:
                    raise _fail(e, "blocked: a round stops between two turns, not in the middle of one")
                _check_blocked(st, e)
                st.blocked = True
            elif e.kind == "restock":
                before = st.view("draw")
                _restock(st, e)
                if r.stock_exhausted == "flip_no_shuffle" and st.mover == seat:
                    # Basic rummy turns the pile over as the seat draws from the stock: its draw is decided before
                    # the turning (the pile's top or the stock), and the round may stop right after it (a cycle).
                    st.flipped = True
                    yield SeatPoint(before, e, "stock")
            else:
                yield from _entry(st, e, nxt)
                _check_seen(st, e.line, e.column)
            yield SeenStep(e.line, e, st.view("draw"), tuple(totals))
        if not ended:
            at = entries[-1].line + 1 if entries else rd.lines["pile"][0] + 1
            raise RecordError(f"round {rd.number} has no 'score:' line (every seat's points in the round)", at, 1)


def _check_blocked(st: _Round, e: Entry) -> None:
    """A round blocked for lack of stock, or by the turn cap, as the rules reference blocks it (docs/rules.md
    items 10 and 22)."""
    r = st.r
    if e.text == "stock":
        if st.stock:
            raise _fail(e, f"blocked 'stock', but the stock holds {st.stock} cards", e.at)
        mode = r.stock_exhausted
        if mode == "flip_no_shuffle":
            rebuilt = len(st.pile) >= 1
        else:
            rebuilt = not (mode == "turn_once_then_block" and st.restocks) and len(st.pile) >= 2
        if rebuilt:
            raise _fail(e, f"blocked 'stock', but under stock_exhausted = {mode} the stock is rebuilt from the pile: "
                           "write 'restock'", e.at)
    elif e.text == "turn_cap" and st.turn < r.turn_cap:
        raise _fail(e, f"blocked by the turn cap after {st.turn} turns; the cap is {r.turn_cap}", e.at)


def _check_own_points(st: _Round, written: int, e: Entry, column: int) -> None:
    """The record's seat's points of the round, as the rules reference scores its last hand
    (:func:`sim.rules.round_scores`): the only hand the record knows, so the only points it can check (a
    basic rummy winner's gain counts the other hands, and is not checked)."""
    r, seat = st.r, st.seat
    winner = None if st.blocked else st.out
    if r.game == "basic" and winner == seat:
        return
    # A rami sec: the winner laid its first cards in the turn it went out (flat_200: while no other seat had
    # opened), docs/rules.md section 5.2.
    rami_sec = winner is not None and st.first_lay.get(winner) == st.out_turn and not (
        r.rami_sec == "flat_200" and any(s in st.opened for s in range(r.players) if s != winner))
    hands = [cardlib.format(sorted(st.hand.elements())) if s == seat else "" for s in range(r.players)]
    opened = [s in st.opened for s in range(r.players)]
    points = rules_lib.round_scores(hands, opened, r, winner, rami_sec=rami_sec, blocked=winner is None)[seat]
    if written != points:
        held = cardlib.format(sorted(st.hand.elements())) or "no card"
        why = "" if winner != seat else " (it went out)"
        raise _fail(e, f"score: seat {seat} scores {points} points by the rules with {held} in hand{why}, "
                       f"not {written}", column)


def _check_seen(st: _Round, line: int, column: int) -> None:
    """No card beyond its copies among the cards the seat sees (its hand, the table, the pile, the cards known
    held)."""
    seen = list(st.hand.elements()) + list(st.pile)
    for m in st.table:
        seen += [_JOKER if i == m.joker else int(c) for i, c in enumerate(m.cards)]
    for s, known in enumerate(st.known):
        if s != st.seat:
            seen += list(known.elements())
    try:
        rules_lib.check_cards(seen, st.r, hand=False)
    except ValueError as exc:
        raise RecordError(f"the cards seen (the hand, the table, the pile, the cards known held) cannot all be in "
                          f"the deck: {exc}", line, column) from None


def _restock(st: _Round, e: Entry) -> None:
    if st.drew or st.moves:
        raise _fail(e, "restock: the stock is rebuilt between two turns, before the next draw")
    if st.stock:
        raise _fail(e, f"restock: the stock still holds {st.stock} cards")
    if st.r.stock_exhausted == "turn_once_then_block" and st.restocks:
        raise _fail(e, "restock: these rules turn the pile over once, then the round is blocked")
    keep = [] if st.r.stock_exhausted == "flip_no_shuffle" else st.pile[-1:]
    st.stock = len(st.pile) - len(keep)
    st.pile = keep
    st.restocks += 1


def _may_i_points(st: _Round, until: int | None, e: Entry) -> Iterator[SeatPoint]:
    """After a stock draw, ask the seats in play order up to ``until`` (the seat that says "Puis-je ?"; ``None``:
    every seat left): the record's seat's own answer is a point of decision when it is asked."""
    if st.asking is None:
        return
    n = st.r.players
    while True:
        asker = (st.asking + 1) % n
        if asker == st.mover or not (st.granted < st.r.may_i_limit and st.pile and st.stock):
            if until is not None:
                raise _fail(e, f"seat {until} cannot say \"Puis-je ?\" here (asked in play order after the "
                               "stock draw, while the pile and the stock hold cards, up to the rules' limit)")
            st.asking = None
            return
        st.asking = asker
        if asker == st.seat:
            played = f'ask for {cardlib.Card(st.pile[-1])} ("Puis-je ?")' if until == asker else "pass"
            yield SeatPoint(st.view("may_i", asker), e, played)
        if asker == until:
            return


def _entry(st: _Round, e: Entry, nxt: Entry | None) -> Iterator[SeatPoint]:
    r, n, seat = st.r, st.r.players, st.seat
    s = e.seat
    assert s is not None
    if not 0 <= s < n:
        raise _fail(e, f"seat {s} is out of range: the game has seats 0 .. {n - 1}")
    if e.kind == "asks":
        yield from _may_i_points(st, s, e)
    else:
        yield from _may_i_points(st, None, e)
    if e.kind == "out":
        if st.sizes[s]:
            raise _fail(e, f"seat {s} holds {st.sizes[s]} cards: it is not out")
        return
    mover = st.mover
    if e.kind != "asks" and s != mover:
        raise _fail(e, f"it is seat {mover}'s turn (turn {st.turn} of the round, seat {st.first} first)")
    draws = not (st.turn == 0 and r.first_player_extra_card)
    if e.kind in ("drew", "took"):
        if st.drew or st.moves:
            raise _fail(e, f"seat {s} has drawn already in this turn")
        if not draws:
            raise _fail(e, "the first player starts by throwing, without drawing (first_player_extra_card)")
        if s == seat and not st.flipped:
            played = "stock"
            if e.kind == "took":
                words = _words(e.text, e.at)
                if not words:
                    raise _fail(e, "'took' names the pile's top it takes: 'S took C'")
                played = f"take {cardlib.Card(_card_at(words[0][0], e.line, words[0][1]))}"
            yield SeatPoint(st.view("draw"), e, played)
    elif e.kind in _LAYING_WORDS or e.kind == "threw":
        if draws and not st.drew:
            raise _fail(e, f"seat {s} draws before it lays or throws: 'S drew' or 'S took C' first")
    if e.kind == "drew":
        words = _words(e.text, e.at)
        if s == seat and len(words) != 1:
            raise _fail(e, "your own draw from the stock names its card: 'S drew C'", e.at)
        if s != seat and words:
            raise _fail(e, "a draw of another seat from the stock is unseen: write 'S drew'", e.at)
        if not st.stock:
            raise _fail(e, "the stock is empty: write 'restock' (or the round's end) first")
        st.stock -= 1
        st.sizes[s] += 1
        if s == seat:
            code = _card_at(words[0][0], e.line, words[0][1])
            st.hand[code] += 1
            st.moves.append(f"drew {cardlib.Card(code)}")
        else:
            st.moves.append("drew")
        st.drew = True
        if r.may_i:
            st.asking, st.granted = mover, 0
        return
    if e.kind in ("took", "asks"):
        words = _words(e.text, e.at)
        if not words:
            raise _fail(e, f"'{e.kind}' names the pile's top it takes: 'S {e.kind} C'")
        code = _card_at(words[0][0], e.line, words[0][1])
        if not st.pile or st.pile[-1] != code:
            top = cardlib.Card(st.pile[-1]) if st.pile else "nothing (the pile is empty)"
            raise _fail(e, f"the pile's top is {top}, not {cardlib.Card(code)}", words[0][1])
        if e.kind == "took" and not st.stock and r.stock_exhausted != "flip_no_shuffle":
            raise _fail(e, "the stock is empty: it is rebuilt ('restock') or the round blocked before any draw "
                           f"(stock_exhausted = {r.stock_exhausted})")
        if e.kind == "took" and r.discard_take == "only_after_opening" and s not in st.opened:
            raise _fail(e, f"seat {s} has not opened: these rules let it take the pile only after opening")
        st.pile.pop()
        st.sizes[s] += 1
        st.took[s][code] += 1
        st.known[s][code] += 1
        if e.kind == "took":
            st.drew = True
            st.taken = code
            st.moves.append(f"took {cardlib.Card(code)}")
            if s == seat:
                st.hand[code] += 1
            return
        if s == mover:
            raise _fail(e, "the mover is not asked \"Puis-je ?\"")
        st.granted += 1
        st.stock -= 1  # the penalty card
        st.sizes[s] += 1
        st.moves.append(f"{s} asks {cardlib.Card(code)}")
        if s == seat:
            if len(words) != 3 or words[1][0] != "penalty":
                raise _fail(e, "your own \"Puis-je ?\" names the penalty card you drew: 'S asks C penalty P'")
            st.hand[code] += 1
            st.hand[_card_at(words[2][0], e.line, words[2][1])] += 1
        elif len(words) != 1:
            raise _fail(e, "another seat's penalty card is unseen: write 'S asks C'", words[1][1])
        return
    if e.kind in _LAYING_WORDS:
        text = _laying(st, e)
        if s == seat:
            yield SeatPoint(st.view("lay"), e, text)
        _apply_laying(st, e, text)
        st.moves.append(text)
        return
    # A throw.
    words = _words(e.text, e.at)
    if len(words) != 1:
        raise _fail(e, "a throw names its card: 'S threw C'", e.at)
    code = _card_at(words[0][0], e.line, words[0][1])
    if s == seat:
        yield SeatPoint(st.view("lay"), e, None, cardlib.Card(code).text())
        if st.hand[code] == 0:
            raise _fail(e, f"seat {s} holds no {cardlib.Card(code)} to throw", words[0][1])
        st.hand[code] -= 1
        st.hand += Counter()
    if st.sizes[s] < 1:
        raise _fail(e, f"seat {s} holds no card to throw")
    if st.taken is not None and code == st.taken and s == mover:
        raise _fail(e, f"{cardlib.Card(code)} was taken from the pile in this turn: neither it nor its twin is "
                       "thrown in the same turn (docs/rules.md item 11)", words[0][1])
    if st.taken is not None and r.discard_take == "must_use" and not st.laid_now[st.taken]:
        raise _fail(e, f"seat {s} took {cardlib.Card(st.taken)} from the pile and ends its turn without laying it: "
                       "these rules lay a card taken from the pile in the same turn (discard_take = must_use)")
    st.sizes[s] -= 1
    st.pile.append(code)
    st.lose(s, [code])
    if not st.sizes[s]:
        st.out, st.out_turn = s, st.turn
    st.turn += 1
    st.moves = []
    st.drew = False
    st.flipped = False
    st.taken = None
    st.laid_now = Counter()
    st.asking = None


def _laying(st: _Round, e: Entry) -> str:
    """The laying of ``e`` as the lab's choices write it (melds canonical), checked against the table."""
    r = st.r
    words = e.text.split()
    kind = words[0]
    body = e.text[len(kind):].strip()
    body_at = e.at + len(e.text) - len(e.text[len(kind):].lstrip())
    if kind in ("open", "meld"):
        parts = []
        at = body_at
        for piece in (body.split("+") if kind == "open" else [body]):
            lead = len(piece) - len(piece.lstrip())
            parts.append(_meld_from_text(piece.strip(), e, at + lead, e.seat or 0, r).text())
            at += len(piece) + 1
        return f"{kind} " + " + ".join(parts)
    if kind == "add":
        m = re.fullmatch(r"(\S+) to (\d+)(?: (low|high))?", body)
        if not m:
            raise _fail(e, "write an addition 'add C to M [low|high]'", body_at)
        code = _card_at(m.group(1), e.line, body_at)
        meld = _table_meld(st, int(m.group(2)), e)
        end = _end_place(meld, code, m.group(3), e) if meld.kind == "run" else m.group(3)
        return f"add {cardlib.Card(code)} to {m.group(2)}" + (f" {end}" if end else "")
    m = re.fullmatch(r"(\S+) from (\d+), (meld (.+)|joker to (\d+)(?: (low|high))?)", body)
    if not m:
        raise _fail(e, "write a recovery 'recover C from M, meld ...' or 'recover C from M, joker to M [low|high]'",
                    body_at)
    code = _card_at(m.group(1), e.line, body_at)
    _table_meld(st, int(m.group(2)), e)
    head = f"recover {cardlib.Card(code)} from {m.group(2)}, "
    if m.group(4) is not None:
        return head + "meld " + _meld_from_text(m.group(4), e, body_at + m.start(4), e.seat or 0, r).text()
    target = _table_meld(st, int(m.group(5)), e)
    end = m.group(6)
    if target.kind == "run" and end is None:
        raise _fail(e, "a joker added to a run says its end: 'joker to M low' or 'high'")
    return head + f"joker to {m.group(5)}" + (f" {end}" if end else "")


def _table_meld(st: _Round, ident: int, e: Entry) -> StartMeld:
    if not 0 <= ident < len(st.table):
        raise _fail(e, f"the table has no meld {ident} (melds 0 .. {len(st.table) - 1}, numbered as laid)")
    return st.table[ident]


def _take_from_hand(st: _Round, e: Entry, codes: list[int]) -> None:
    """Cards that leave the mover's hand to the table: the seat's own must be in its hand."""
    s = e.seat
    assert s is not None
    if s == st.seat:
        missing = Counter(codes) - st.hand
        if missing:
            raise _fail(e, f"seat {s} holds no {cardlib.format(sorted(missing.elements()))} to lay")
        st.hand -= Counter(codes)
    if st.sizes[s] < len(codes):
        raise _fail(e, f"seat {s} lays {len(codes)} cards but holds {st.sizes[s]}")
    st.sizes[s] -= len(codes)
    st.laid_now.update(codes)


def _apply_laying(st: _Round, e: Entry, text: str) -> None:
    r = st.r
    s = e.seat
    assert s is not None
    kind = text.split()[0]
    if kind in ("meld", "add", "recover") and s not in st.opened and not r.add_before_opening:
        raise _fail(e, f"seat {s} has not opened: its first laying is 'open ...' (docs/rules.md)")
    if kind == "open":
        if s in st.opened:
            raise _fail(e, f"seat {s} has opened already: lay 'meld ...'")
        melds = [StartMeld.of(meld_of_reading(s, _reading(t, r))) for t in text[len("open "):].split(" + ")]
        codes = [c for m in melds for c in _codes(m)]
        _take_from_hand(st, e, codes)
        lays_all = st.sizes[s] == 0
        _check_opening(st, e, melds, lays_all)
        st.table += melds
        st.opened.add(s)
        st.lose(s, codes)
    elif kind == "meld":
        meld = StartMeld.of(meld_of_reading(s, _reading(text[len("meld "):], r)))
        codes = _codes(meld)
        _take_from_hand(st, e, codes)
        st.table.append(meld)
        st.lose(s, codes)
        if r.add_before_opening:
            st.opened.add(s)
    elif kind == "add":
        m = re.fullmatch(r"add (\S+) to (\d+)(?: (low|high))?", text)
        assert m is not None
        code = int(cardlib.parse(m.group(1))[0])
        _take_from_hand(st, e, [code])
        _add(st.table[int(m.group(2))], code, m.group(3), e, r)
        st.lose(s, [code])
    else:
        m = re.fullmatch(r"recover (\S+) from (\d+), (?:meld (.+)|joker to (\d+)(?: (low|high))?)", text)
        assert m is not None
        code = int(cardlib.parse(m.group(1))[0])
        _take_from_hand(st, e, [code])
        _recover(st.table[int(m.group(2))], code, e, r)
        st.lose(s, [code])
        st.known[s][_JOKER] += 1
        st.sizes[s] += 1
        if s == st.seat:
            st.hand[_JOKER] += 1
        if m.group(3) is not None:
            meld = StartMeld.of(meld_of_reading(s, _reading(m.group(3), r)))
            if meld.joker < 0:
                raise _fail(e, "the joker taken back is laid again in the same move: its meld holds it")
            codes = _codes(meld)
            _take_from_hand(st, e, codes)
            st.table.append(meld)
            st.lose(s, codes)
        else:
            _take_from_hand(st, e, [_JOKER])
            _add(st.table[int(m.group(4))], _JOKER, m.group(5), e, r)
            st.lose(s, [_JOKER])
    st.first_lay.setdefault(s, st.turn)
    if not st.sizes[s]:
        # The hand emptied by a laying (docs/rules.md items 18 and 28).
        if r.game == "contrat" and rules_lib.contract_deal(st.number) != rules_lib.WHOLE_HAND_DEAL:
            raise _fail(e, f"the laying empties seat {s}'s hand in deal {rules_lib.contract_deal(st.number)}: in "
                           "deals 1 to 6 a seat goes out only by throwing its last card")
        if r.game != "contrat" and r.go_out == "discard_only":
            raise _fail(e, f"the laying empties seat {s}'s hand, but these rules go out only by throwing the last "
                           "card (go_out = discard_only)")
        st.out, st.out_turn = s, st.turn


def _reading(text: str, r: rules_lib.Ruleset) -> Any:
    """The reading of a canonical meld text (``★`` at its place)."""
    codes = [_JOKER if w == "★" else int(cardlib.parse(w)[0]) for w in text.split()]
    readings = meld_readings(codes, r)
    return next((m for m in readings if m.text() == text), readings[0])


def _codes(meld: StartMeld) -> list[int]:
    return [_JOKER if i == meld.joker else int(c) for i, c in enumerate(meld.cards)]


def _check_opening(st: _Round, e: Entry, melds: list[StartMeld], lays_all: bool) -> None:
    """An opening worth the threshold (the best reading of each meld, docs/rules.md section 4), or the deal's
    contract in contrat; laying the whole hand needs neither where the rules say so."""
    r = st.r
    if lays_all and r.lay_all_ignores_opening:
        return
    if r.game == "contrat":
        sets, runs = r.contract(rules_lib.contract_deal(st.number))
        got = (sum(m.kind == "set" for m in melds), sum(m.kind == "run" for m in melds))
        if got != (sets, runs):
            raise _fail(e, f"the contract of deal {rules_lib.contract_deal(st.number)} is {sets} set(s) and {runs} "
                           f"run(s); this opening lays {got[0]} and {got[1]}")
        return
    if r.open_needs_natural_run and not any(m.kind == "run" and m.joker < 0 for m in melds):
        raise _fail(e, "an opening holds a run without joker (open_needs_natural_run)")
    points = sum(rules_lib.meld_points(_codes(m), r) or 0 for m in melds)
    threshold = r.open_threshold
    if r.open_threshold_rises and st.last_open:
        threshold = max(threshold, st.last_open + 1)
    if points < threshold:
        raise _fail(e, f"the opening is worth {points} points; it needs {threshold}")
    st.last_open = points


def seat_decisions(record: GameRecord) -> Iterator[SeatPoint]:
    """Every point of ``record`` where its seat may decide, in order (see :class:`SeatPoint`)."""
    return (point for point in _walk(record) if isinstance(point, SeatPoint))


def seen_steps(record: GameRecord) -> Iterator[SeenStep]:
    """What the record's seat sees after each round's deal and after each line of the round, in order (see
    :class:`SeenStep`)."""
    return (step for step in _walk(record) if isinstance(step, SeenStep))


def with_decision(view: SeatView, decision: str) -> SeatView:
    """``view`` standing at another decision of its seat (a :class:`SeatPoint`'s guess settled)."""
    return replace(view, decision=decision, asked=view.seat if decision == "may_i" else None)
