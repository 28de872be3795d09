"""A seat's view: a position as one seat sees it, written as short text a person can type (or as JSON).

A :class:`SeatView` holds everything one seat of a round knows at a
decision: the rules, the table's size, whose decision it is and which, that
seat's own hand, every hand's size, the melds on the table (their owners,
their cards, what each joker stands for), the discard pile, the stock's
size, who has opened, the cards each seat took from the pile and the cards
each other seat is publicly known to hold, the game's totals, and the moves
of the turn under way. It is the notation of ``docs/positions.md``:

.. code-block:: text

    rules: rami51
    players: 3
    round: 0
    turn: 7
    seat: 1
    mover: 1
    decision: discard
    hand: 2♣ 5♦ 9♦ 9♥ J♥ Q♥ K♥ 4♠ 8♠ ★
    hands: 12 10 9
    table: 0 7♣ 8♣ 9♣ + K♦ K♥ K♠; 1 3♦ 3♥ ★=3♠
    pile: 4♥ 10♣ Q♠
    stock: 74
    opened: 0 1
    took: 1 3♥
    known: none
    totals: 0 0 0
    moves: drew 9♦; meld 3♦ 3♥ ★

The grammar (one section a line, ``key: value``; blank lines and lines
starting with ``#`` are skipped; a key is written once; cards in the lab's
notation, :mod:`sim.cards`, ``7♥`` or ASCII ``7H``, jokers ``★`` or ``JK``):

==============  ==========================================================
section         value
==============  ==========================================================
``rules``       a preset, then ``knob=value`` overrides (``sim.rules``'s
                knobs and values: ``rami51 open_threshold=40
                discard_take=free``); ``players`` is its own section
``players``     the number of seats
``round``       the round, from 0; contrat may add ``deal D`` (checked)
``turn``        turns completed in the round before this one
``seat``        the seat whose view this is
``mover``       the seat whose turn it is
``decision``    ``draw``, ``lay``, ``discard``, ``may_i S`` (seat ``S`` is
                asked "Puis-je ?") or ``over``
``hand``        the seat's own cards, or ``none``
``hands``       every seat's number of cards, by seat
``table``       ``none``, or the melds by id (from 0), separated by ``;``,
                each ``OWNER CARDS`` with a joker written ``★=CARD`` (the
                card it stands for; a bare ``★`` where only one card fits)
``pile``        ``none``, or the pile from its bottom to its top;
                ``(N) CARDS`` when only the top cards are remembered, ``N``
                cards lying under them
``stock``       the stock's size; ``N restocked K`` once it was rebuilt
                ``K`` times this round
``opened``      ``none``, or the seats that have opened (laid their contract)
``laid``        optional, for rules where a seat may lay before it opens
                (``add_before_opening``): the seats that had laid cards
                before this turn (default: those that had opened)
``threshold``   optional, with ``open_threshold_rises``: the points an
                opening needs now (default ``open_threshold``)
``took``        optional: ``S CARDS; ...``, the cards each seat took from
                the pile this round (a draw or "Puis-je ?"); default none
``known``       optional: ``S CARDS; ...``, the cards each other seat is
                publicly known to hold (taken from the pile, or a joker
                taken back, not laid nor thrown since); default none
``totals``      every seat's total of the game before this round
``moves``       optional: the turn's moves so far, separated by ``;``:
                ``took C`` (the pile's top), ``drew`` or ``drew C`` (from
                the stock; the card when the seat is the mover), ``S asks
                C`` ("Puis-je ?"), and the mover's layings written as
                :meth:`sim.position.Position.legal_choices` writes them
                (``open ...``, ``meld ...``, ``add C to M high``,
                ``recover C from M, meld ...``); default none
==============  ==========================================================

:func:`parse_view` reads the text and checks it (cards against the
ruleset's deck, every card of the deck in one place, hand sizes, every
table meld legal by the rules reference :mod:`sim.rules.melds`, the
decision possible for the seat), raising :class:`ViewError` with the line
and column of the fault; :func:`format_view` writes it back (the same text
for the same view), :func:`to_json` and :func:`from_json` the JSON form.
:meth:`sim.position.Position.view` writes the view of any position of the
lab and :meth:`sim.position.Position.from_view` builds an engine position
from one.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

from sim import cards as cardlib
from sim import rules as rules_lib
from sim.checks import is_whole
from sim.rules.melds import MeldReading, meld_readings

__all__ = ["DECISIONS", "SeatView", "TableMeld", "ViewError", "format_view", "from_json", "parse_view", "ruleset_of",
           "rules_of", "to_json"]

DECISIONS = ("draw", "lay", "discard", "may_i", "over")
"""The decisions a view stands at, as :attr:`sim.position.Position.decision` names them."""

_REQUIRED = ("rules", "players", "round", "turn", "seat", "mover", "decision", "hand", "hands", "table", "pile",
             "stock", "opened", "totals")
_OPTIONAL = ("laid", "threshold", "took", "known", "moves")
_SECTIONS = _REQUIRED + _OPTIONAL
_NONE = "none"
_LAYING_WORDS = ("open", "meld", "add", "recover")


class ViewError(ValueError):
    """A view that cannot be read or cannot happen.

    ``line`` and ``column`` (from 1) locate the fault in the text; both are
    ``None`` for a fault of the view as a whole or of its JSON form (the
    message then names the key).
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 section: str | None = None, part: int | None = None) -> None:
        self.line = line
        self.column = column
        self.reason = message
        self.section = section
        self.part = part
        where = "" if line is None else f"line {line}, column {column or 1}: "
        super().__init__(where + message)

    def located(self, text: str) -> "ViewError":
        """The same error with the line and column of its section (and part) in ``text``, the view it was read
        from; itself when it has a place already or names no section of the text."""
        if self.line is not None or self.section is None:
            return self
        for n, raw in enumerate(text.splitlines(), start=1):
            key, colon, value = raw.partition(":")
            if colon and key.strip() == self.section:
                start = len(raw) - len(value) + 1 + len(value) - len(value.lstrip())
                parts = _parts(value.strip(), start)
                column = parts[self.part][1] if self.part is not None and self.part < len(parts) else start
                return ViewError(self.reason, n, column, self.section, self.part)
        return self


@dataclass(frozen=True)
class TableMeld:
    """One meld on the table: the seat that laid it, its cards as they lie (``★`` at a joker's place, a run
    from its lowest rank up, a set by suit, as ``docs/trace.md`` writes them) and the card its joker stands
    for (``None`` without one)."""

    owner: int
    cards: str
    stands_for: str | None = None


@dataclass(frozen=True)
class SeatView:
    """Everything one seat sees at a decision (see the module's docstring for each field's section).

    Card lists are notation strings: ``hand``, ``took`` and ``known`` in
    code order (:func:`sim.cards.format` of sorted codes); ``pile`` from
    its bottom to its top, the ``pile_unseen`` cards under it not written.
    ``laid`` the seats that had laid cards before this turn; ``threshold``
    the points an opening needs now (``None`` unless the rules make it
    rise). ``moves`` the turn's moves so far, each as the notation writes it.
    """

    rules: str
    overrides: tuple[tuple[str, Any], ...]
    players: int
    round: int
    turn: int
    seat: int
    mover: int
    decision: str
    asked: int | None
    hand: str
    hand_sizes: tuple[int, ...]
    table: tuple[TableMeld, ...]
    pile: str
    pile_unseen: int
    stock: int
    restocks: int
    opened: tuple[int, ...]
    laid: tuple[int, ...]
    threshold: int | None
    took: tuple[str, ...]
    known: tuple[str, ...]
    totals: tuple[int, ...]
    moves: tuple[str, ...] = field(default=())

    @property
    def deciding(self) -> int:
        """The seat that decides: the seat asked at ``may_i``, else the mover."""
        return self.asked if self.decision == "may_i" and self.asked is not None else self.mover

    def threshold_now(self, r: rules_lib.Ruleset) -> int:
        """The points an opening needs now under ``r`` (the view's ``threshold`` where the rules make it rise)."""
        return self.threshold if self.threshold is not None else r.open_threshold

    def ruleset(self) -> rules_lib.Ruleset:
        """The ruleset: the preset, its overrides and the number of players."""
        return ruleset_of(self.rules, dict(self.overrides), self.players)


# ------------------------------------------------------------------ rules


def ruleset_of(preset: str, overrides: Mapping[str, Any], players: int) -> rules_lib.Ruleset:
    """The ruleset of a preset with overrides and ``players`` seats (``RulesetError`` when it is not one)."""
    if "players" in overrides:
        raise rules_lib.RulesetError("players is its own section, not an override")
    return rules_lib.preset(preset, **dict(overrides), players=players)


@lru_cache(maxsize=64)  # a ruleset is immutable, and naming it builds every preset: every view asks it
def rules_of(r: rules_lib.Ruleset) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """``(preset, overrides)`` naming ``r``: the preset of its game that needs the fewest overrides (the
    first in ``sim.rules.PRESETS`` among equals), and the knobs that differ from it, in the knobs' order
    (``players`` left out: it is a section of its own)."""
    best: tuple[str, tuple[tuple[str, Any], ...]] | None = None
    mine = r.to_dict()
    for name in rules_lib.PRESETS:
        base = rules_lib.preset(name).to_dict()
        if base["game"] != r.game:
            continue
        diff = tuple((k, mine[k]) for k in rules_lib.KNOBS if k != "players" and mine[k] != base[k])
        if best is None or len(diff) < len(best[1]):
            best = (name, diff)
    assert best is not None  # every game has its preset
    return best


def _knob_text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _knob_value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


# ------------------------------------------------------------------ writing


def _cards(text: str, ascii: bool) -> str:
    return cardlib.ascii_text(text) if ascii else text


def _seat_cards(rows: Sequence[str], ascii: bool) -> str:
    parts = [f"{s} {_cards(c, ascii)}" for s, c in enumerate(rows) if c]
    return "; ".join(parts) if parts else _NONE


def _meld_text(meld: TableMeld, ascii: bool) -> str:
    joker = cardlib.JOKER.text(ascii)
    tokens = [_cards(t, ascii) if t != "★" else f"{joker}={_cards(meld.stands_for or '', ascii)}"
              for t in meld.cards.split()]
    return f"{meld.owner} " + " ".join(tokens)


def format_view(view: SeatView, ascii: bool = False) -> str:
    """The view as text, one section a line (the module's grammar); ``ascii`` writes ``7H`` and ``JK``."""
    rules_line = " ".join([view.rules, *(f"{k}={_knob_text(v)}" for k, v in view.overrides)])
    r = view.ruleset()
    round_line = str(view.round)
    if r.game == "contrat":
        round_line += f" deal {rules_lib.contract_deal(view.round)}"
    decision = view.decision + (f" {view.asked}" if view.decision == "may_i" else "")
    pile = _cards(view.pile, ascii) if view.pile else ""
    if view.pile_unseen:
        pile = f"({view.pile_unseen}) {pile}".rstrip()
    stock = str(view.stock) + (f" restocked {view.restocks}" if view.restocks else "")
    lines = [
        ("rules", rules_line),
        ("players", str(view.players)),
        ("round", round_line),
        ("turn", str(view.turn)),
        ("seat", str(view.seat)),
        ("mover", str(view.mover)),
        ("decision", decision),
        ("hand", _cards(view.hand, ascii) or _NONE),
        ("hands", " ".join(map(str, view.hand_sizes))),
        ("table", "; ".join(_meld_text(m, ascii) for m in view.table) or _NONE),
        ("pile", pile or _NONE),
        ("stock", stock),
        ("opened", " ".join(map(str, view.opened)) or _NONE),
    ]
    if r.add_before_opening:
        lines.append(("laid", " ".join(map(str, view.laid)) or _NONE))
    if r.open_threshold_rises:
        lines.append(("threshold", str(view.threshold)))
    lines += [
        ("took", _seat_cards(view.took, ascii)),
        ("known", _seat_cards(view.known, ascii)),
        ("totals", " ".join(map(str, view.totals))),
        ("moves", "; ".join(_cards(m, ascii) for m in view.moves) or _NONE),
    ]
    return "\n".join(f"{key}: {value}" for key, value in lines) + "\n"


def to_json(view: SeatView) -> dict[str, Any]:
    """The view as plain JSON values (:func:`from_json` reads it back)."""
    out: dict[str, Any] = {}
    for f in fields(view):
        value = getattr(view, f.name)
        if f.name == "overrides":
            value = dict(value)
        elif f.name == "table":
            value = [{"owner": m.owner, "cards": m.cards, "stands_for": m.stands_for} for m in value]
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


# ------------------------------------------------------------------ reading


@dataclass
class _Token:
    text: str
    column: int


def _tokens(value: str, start: int) -> list[_Token]:
    """The white-space separated words of ``value``, each with its column (``value`` begins at ``start``)."""
    return [_Token(m.group(), start + m.start()) for m in re.finditer(r"\S+", value)]


def _parts(value: str, start: int, sep: str = ";") -> list[tuple[str, int]]:
    """``value`` split at ``sep``, each part stripped, with the column where it begins."""
    out = []
    at = 0
    for piece in value.split(sep):
        lead = len(piece) - len(piece.lstrip())
        out.append((piece.strip(), start + at + lead))
        at += len(piece) + len(sep)
    return out


@dataclass
class _Source:
    """Where each section sits in the text: its line and the column its value starts at."""

    lines: dict[str, tuple[int, int]] = field(default_factory=dict)

    def error(self, key: str, message: str, column: int | None = None) -> ViewError:
        if key not in self.lines:
            return ViewError(f"{key}: {message}")
        line, start = self.lines[key]
        return ViewError(f"{key}: {message}", line, column or start)


def _int(token: _Token, key: str, src: _Source, low: int = 0, high: int | None = None) -> int:
    if not re.fullmatch(r"\d+", token.text):
        raise src.error(key, f"{token.text!r} is not a whole number", token.column)
    n = int(token.text)
    if n < low or (high is not None and n > high):
        span = f"{low} to {high}" if high is not None else f"at least {low}"
        raise src.error(key, f"{n} is out of range: {span}", token.column)
    return n


def _card(token: _Token, key: str, src: _Source) -> cardlib.Card:
    try:
        read = cardlib.parse(token.text)
    except ValueError as exc:
        raise src.error(key, str(exc), token.column) from None
    if len(read) != 1:  # an empty place (a JSON view's "stands_for": "" ) or two cards where one belongs
        raise src.error(key, f"expected one card, got {token.text!r}", token.column)
    return read[0]


def _card_list(value: str, start: int, key: str, src: _Source) -> list[cardlib.Card]:
    if value.strip() == _NONE:
        return []
    return [_card(t, key, src) for t in _tokens(value, start)]


def _seats(value: str, start: int, key: str, src: _Source, players: int) -> tuple[int, ...]:
    if value.strip() == _NONE:
        return ()
    seats = [_int(t, key, src, 0, players - 1) for t in _tokens(value, start)]
    if len(set(seats)) != len(seats):
        raise src.error(key, "a seat is named twice")
    return tuple(sorted(seats))


def _seat_card_rows(value: str, start: int, key: str, src: _Source, players: int) -> tuple[str, ...]:
    rows: list[list[int]] = [[] for _ in range(players)]
    if value.strip() == _NONE:
        return tuple("" for _ in rows)
    seen = set()
    for part, col in _parts(value, start):
        tokens = _tokens(part, col)
        if len(tokens) < 2:
            raise src.error(key, "give a seat then its cards, e.g. '1 9♠ Q♣', parts separated by ';'", col)
        seat = _int(tokens[0], key, src, 0, players - 1)
        if seat in seen:
            raise src.error(key, f"seat {seat} is named twice", tokens[0].column)
        seen.add(seat)
        rows[seat] = [int(_card(t, key, src)) for t in tokens[1:]]
    return tuple(cardlib.format(sorted(r)) for r in rows)


def _read_meld(part: str, col: int, src: _Source, r: rules_lib.Ruleset, players: int) -> TableMeld:
    tokens = _tokens(part, col)
    if len(tokens) < 2:
        raise src.error("table", "give a meld as its owner's seat then its cards, e.g. '1 7♣ 8♣ 9♣'", col)
    owner = _int(tokens[0], "table", src, 0, players - 1)
    naturals: list[cardlib.Card] = []
    wanted: list[cardlib.Card | None] = []
    jokers = 0
    for t in tokens[1:]:
        face, eq, stands = t.text.partition("=")
        card = _card(_Token(face, t.column), "table", src)
        if card.is_joker:
            jokers += 1
            wanted.append(_card(_Token(stands, t.column + len(face) + 1), "table", src) if eq else None)
        elif eq:
            raise src.error("table", f"{t.text!r}: only a joker says what it stands for (★=8♣)", t.column)
        else:
            naturals.append(card)
    what = " ".join(t.text for t in tokens[1:])
    try:
        readings = meld_readings(naturals + [cardlib.JOKER] * jokers, r)
    except ValueError as exc:
        raise src.error("table", f"{what}: {exc}", tokens[1].column) from None
    if not readings:
        raise src.error("table", f"{what} is not a meld under these rules (docs/rules.md section 2)",
                        tokens[1].column)
    reading = _joker_reading(readings, wanted, what, src, tokens[1].column)
    return meld_of_reading(owner, reading)


def _joker_reading(readings: list[MeldReading], wanted: list[cardlib.Card | None], what: str, src: _Source,
                   column: int) -> MeldReading:
    if not wanted:
        return readings[0]
    (stands,) = wanted  # jokers_per_meld is 1: meld_readings found none with two
    if stands is not None:
        fits = [m for m in readings if m.stands_for == (stands,)]
        if not fits:
            could = " or ".join(sorted({str(m.stands_for[0]) for m in readings}))
            raise src.error("table", f"{what}: the joker cannot stand for {stands} here; it can be {could}", column)
        return fits[0]
    if len({m.kind for m in readings}) == 1 and (readings[0].kind == "set" or len(readings) == 1):
        return readings[0]
    could = " or ".join(f"★={m.stands_for[0]}" for m in readings)
    raise src.error("table", f"{what}: say what the joker stands for: {could}", column)


def meld_of_reading(owner: int, reading: MeldReading) -> TableMeld:
    """The :class:`TableMeld` of ``owner`` for a reading of the rules reference, written as the lab keeps it:
    a set's joker stands for the first suit the set lacks (any suit it lacks takes it back)."""
    if reading.kind == "set" and reading.stands_for:
        rank = reading.order[0].rank
        suits = {c.suit for c in reading.order if c not in reading.stands_for}
        first = min(s for s in range(4) if s not in suits)
        stands: cardlib.Card | None = cardlib.card(rank, first)
        order = sorted([c for c in reading.order if c not in reading.stands_for] + [stands], key=lambda c: c.suit)
    else:
        stands = reading.stands_for[0] if reading.stands_for else None
        order = list(reading.order)
    text = " ".join("★" if c == stands else c.text() for c in order)
    return TableMeld(owner, text, None if stands is None else stands.text())


def _canonical_move(text: str, column: int, src: _Source, players: int) -> str:
    """A move of the ``moves`` section with its cards written canonically, its shape checked."""
    words = text.split()
    if not words:
        raise src.error("moves", "an empty move (two ';' in a row?)", column)

    def card_text(word: str, at: int) -> str:
        core = word.rstrip(",")
        return _card(_Token(core, at), "moves", src).text() + word[len(core):]

    head = words[0]
    if head == "took" and len(words) == 2:
        return f"took {card_text(words[1], column)}"
    if head == "drew" and len(words) <= 2:
        return "drew" + (f" {card_text(words[1], column)}" if len(words) == 2 else "")
    if len(words) == 3 and words[1] == "asks":
        seat = _int(_Token(words[0], column), "moves", src, 0, players - 1)
        return f"{seat} asks {card_text(words[2], column)}"
    if head in _LAYING_WORDS:
        out = []
        for w in words:
            bare = w.rstrip(",")
            is_card = True
            try:
                cardlib.parse(bare)
            except ValueError:
                is_card = False
            out.append(card_text(w, column) if is_card and bare not in ("+",) else w)
        return " ".join(out)
    raise src.error("moves", f"{text!r} is not a move: took C, drew [C], S asks C, or a laying as the choices "
                             "write it (open ..., meld ..., add C to M [low|high], recover C from M, ...)", column)


def parse_view(text: str) -> SeatView:
    """Read a view written in the notation (the module's grammar) and check that it can happen.

    Raises
    ------
    ViewError
        A line that is no section, an unknown, repeated or missing section,
        a bad number, seat or card, rules that are no ruleset, or a view
        that cannot happen (see :func:`check_view`); ``line`` and ``column``
        locate it.
    """
    if not isinstance(text, str):
        raise TypeError(f"a view is text, got {type(text).__name__}")
    src = _Source()
    values: dict[str, str] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key, colon, value = raw.partition(":")
        key = key.strip()
        indent = len(raw) - len(raw.lstrip())
        if not colon:
            raise ViewError(f"expected 'section: value', e.g. 'hand: 7♥ 8♥ 9♥'; got {stripped[:40]!r}", n,
                            indent + 1)
        if key not in _SECTIONS:
            raise ViewError(f"unknown section {key!r}; the sections are: {', '.join(_SECTIONS)}", n, indent + 1)
        if key in values:
            raise ViewError(f"section {key!r} is written twice (first on line {src.lines[key][0]})", n, indent + 1)
        start = len(raw) - len(value) + 1
        lead = len(value) - len(value.lstrip())
        values[key] = value.strip()
        src.lines[key] = (n, start + lead)
        if not values[key]:
            raise ViewError(f"section {key!r} is empty (write 'none' for nothing)", n, start)
    missing = [k for k in _REQUIRED if k not in values]
    if missing:
        last = max((line for line, _ in src.lines.values()), default=0) + 1
        raise ViewError(f"missing section{'s' if len(missing) > 1 else ''}: {', '.join(missing)}", last, 1)

    def at(key: str) -> int:
        return src.lines[key][1]

    def one(key: str) -> list[_Token]:
        return _tokens(values[key], at(key))

    # The rules first: every other section is read against them.
    rule_tokens = one("rules")
    overrides: dict[str, Any] = {}
    for t in rule_tokens[1:]:
        knob, eq, value = t.text.partition("=")
        if not eq or not knob or not value:
            raise src.error("rules", f"{t.text!r}: give overrides as knob=value, e.g. open_threshold=40", t.column)
        if knob in overrides:
            raise src.error("rules", f"{knob} is set twice", t.column)
        overrides[knob] = _knob_value(value)
    players_tokens = one("players")
    if len(players_tokens) != 1:
        raise src.error("players", "give one number, e.g. 'players: 4'")
    players = _int(players_tokens[0], "players", src, rules_lib.MIN_PLAYERS, rules_lib.MAX_PLAYERS)
    try:
        r = ruleset_of(rule_tokens[0].text, overrides, players)
    except rules_lib.RulesetError as exc:
        raise src.error("rules", str(exc)) from None
    preset, canonical = rules_of(r)
    if preset != rule_tokens[0].text:
        # The same rules are written from another preset: keep the reader's, in the knobs' order.
        base = rules_lib.preset(rule_tokens[0].text).to_dict()
        preset = rule_tokens[0].text
        canonical = tuple((k, r.to_dict()[k]) for k in rules_lib.KNOBS
                          if k != "players" and r.to_dict()[k] != base[k])

    def number(key: str, low: int = 0, high: int | None = None) -> int:
        tokens = one(key)
        if len(tokens) != 1:
            raise src.error(key, "give one whole number")
        return _int(tokens[0], key, src, low, high)

    def seat(key: str) -> int:
        return number(key, 0, players - 1)

    round_tokens = one("round")
    rnd = _int(round_tokens[0], "round", src, 0)
    if len(round_tokens) > 1:
        if (r.game != "contrat" or len(round_tokens) != 3 or round_tokens[1].text != "deal"):
            raise src.error("round", "write the round, then in contrat 'deal D', e.g. 'round: 3 deal 4'",
                            round_tokens[1].column)
        deal = _int(round_tokens[2], "round", src, 1, len(rules_lib.CONTRACTS))
        if deal != rules_lib.contract_deal(rnd):
            raise src.error("round", f"round {rnd} plays deal {rules_lib.contract_deal(rnd)}, not deal {deal}",
                            round_tokens[2].column)
    turn = number("turn")
    viewer = seat("seat")
    mover = seat("mover")
    decision_tokens = one("decision")
    kind = decision_tokens[0].text
    if kind not in DECISIONS:
        raise src.error("decision", f"{kind!r} is not a decision: one of {', '.join(DECISIONS)}")
    asked = None
    if kind == "may_i":
        if len(decision_tokens) != 2:
            raise src.error("decision", "name the seat asked: 'may_i 2'")
        asked = _int(decision_tokens[1], "decision", src, 0, players - 1)
    elif len(decision_tokens) != 1:
        raise src.error("decision", f"'{kind}' takes no seat (only may_i names the seat asked)",
                        decision_tokens[1].column)
    hand = sorted(int(c) for c in _card_list(values["hand"], at("hand"), "hand", src))
    sizes_tokens = one("hands")
    if len(sizes_tokens) != players:
        raise src.error("hands", f"give {players} hand sizes, one per seat; got {len(sizes_tokens)}")
    sizes = tuple(_int(t, "hands", src, 0) for t in sizes_tokens)
    table = []
    if values["table"] != _NONE:
        table = [_read_meld(part, col, src, r, players) for part, col in _parts(values["table"], at("table"))]
    pile_value, pile_at, unseen = values["pile"], at("pile"), 0
    match = re.match(r"\((\d+)\)\s*", pile_value)
    if match:
        unseen = int(match.group(1))
        pile_value, pile_at = pile_value[match.end():], pile_at + match.end()
        if not pile_value:
            pile_value = _NONE
    pile = [int(c) for c in _card_list(pile_value, pile_at, "pile", src)]
    stock_tokens = one("stock")
    stock = _int(stock_tokens[0], "stock", src, 0)
    restocks = 0
    if len(stock_tokens) > 1:
        if len(stock_tokens) != 3 or stock_tokens[1].text != "restocked":
            raise src.error("stock", "write the stock's size, then 'restocked K' if it was rebuilt",
                            stock_tokens[1].column)
        restocks = _int(stock_tokens[2], "stock", src, 1)
    opened = _seats(values["opened"], at("opened"), "opened", src, players)
    threshold = None
    if "threshold" in values:
        if not r.open_threshold_rises:
            raise src.error("threshold", "these rules have a fixed threshold (open_threshold_rises is false)")
        threshold = number("threshold")
    elif r.open_threshold_rises:
        threshold = r.open_threshold
    moves_value = values.get("moves", _NONE)
    moves = () if moves_value == _NONE else tuple(
        _canonical_move(part, col, src, players) for part, col in _parts(moves_value, at("moves")))
    if "laid" in values:
        if not r.add_before_opening:
            raise src.error("laid", "these rules lay nothing before opening: 'opened' says who laid")
        laid = _seats(values["laid"], at("laid"), "laid", src, players)
    else:
        laid = default_laid(opened, mover, moves)
    took = _seat_card_rows(values.get("took", _NONE), at("took") if "took" in values else 0, "took", src, players)
    known = _seat_card_rows(values.get("known", _NONE), at("known") if "known" in values else 0, "known", src,
                            players)
    totals_tokens = one("totals")
    if len(totals_tokens) != players:
        raise src.error("totals", f"give {players} totals, one per seat; got {len(totals_tokens)}")
    totals = []
    for t in totals_tokens:
        if not re.fullmatch(r"-?\d+", t.text):
            raise src.error("totals", f"{t.text!r} is not a whole number", t.column)
        totals.append(int(t.text))
    view = SeatView(
        rules=preset, overrides=canonical, players=players, round=rnd, turn=turn, seat=viewer, mover=mover,
        decision=kind, asked=asked, hand=cardlib.format(hand), hand_sizes=sizes, table=tuple(table),
        pile=cardlib.format(pile), pile_unseen=unseen, stock=stock, restocks=restocks, opened=opened, laid=laid,
        threshold=threshold, took=took, known=known, totals=tuple(totals), moves=moves,
    )
    check_view(view, src)
    return view


def default_laid(opened: Sequence[int], mover: int, moves: Sequence[str]) -> tuple[int, ...]:
    """The seats that had laid before this turn when the rules lay nothing before opening: those that had
    opened, less the mover when it opens in this turn's moves."""
    opens_now = any(m.startswith("open ") for m in moves)
    return tuple(s for s in opened if not (s == mover and opens_now))


def from_json(data: Any) -> SeatView:
    """Read the JSON form (:func:`to_json`); unknown or missing keys and bad values raise :class:`ViewError`."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise ViewError(f"not JSON: {exc.msg}", exc.lineno, exc.colno) from None
    if not isinstance(data, dict):
        raise ViewError(f"a view in JSON is an object of its fields, got {type(data).__name__}")
    names = [f.name for f in fields(SeatView)]
    unknown = [k for k in data if k not in names]
    if unknown:
        raise ViewError(f"unknown key {unknown[0]!r}; the keys are: {', '.join(names)}")
    missing = [k for k in names if k not in data and k != "moves"]
    if missing:
        raise ViewError(f"missing key{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
    try:
        table = tuple(_json_meld(m, f"table[{i}]") for i, m in enumerate(_json_list(data["table"], "table")))
        overrides = data["overrides"]
        if not isinstance(overrides, dict):
            raise ViewError("overrides: an object of knob: value, got " + _json_kind(overrides))
        view = SeatView(
            rules=_json_text(data["rules"], "rules"), overrides=tuple(overrides.items()),
            players=_json_whole(data["players"], "players"), round=_json_whole(data["round"], "round"),
            turn=_json_whole(data["turn"], "turn"), seat=_json_whole(data["seat"], "seat"),
            mover=_json_whole(data["mover"], "mover"), decision=_json_text(data["decision"], "decision"),
            asked=None if data["asked"] is None else _json_whole(data["asked"], "asked"),
            hand=_json_text(data["hand"], "hand"), hand_sizes=_json_wholes(data["hand_sizes"], "hand_sizes"),
            table=table, pile=_json_text(data["pile"], "pile"),
            pile_unseen=_json_whole(data["pile_unseen"], "pile_unseen"), stock=_json_whole(data["stock"], "stock"),
            restocks=_json_whole(data["restocks"], "restocks"), opened=_json_wholes(data["opened"], "opened"),
            laid=_json_wholes(data["laid"], "laid"),
            threshold=None if data["threshold"] is None else _json_whole(data["threshold"], "threshold"),
            took=_json_texts(data["took"], "took"), known=_json_texts(data["known"], "known"),
            totals=_json_wholes(data["totals"], "totals"), moves=_json_texts(data.get("moves", []), "moves"),
        )
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        if isinstance(exc, ViewError):
            raise
        raise ViewError(f"a key holds the wrong kind of value: {exc}") from None
    # The text form checks every value as it reads it: the JSON form is read through it, so both say the same.
    return parse_view(format_view(view))


def _json_kind(value: Any) -> str:
    """How a JSON value is spoken of in a refusal: its kind and, when short, the value itself."""
    kind = {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list", dict: "an object",
            type(None): "null"}.get(type(value), type(value).__name__)
    shown = json.dumps(value, ensure_ascii=False) if isinstance(value, (int, float, str)) else ""
    return f"{kind} {shown}" if shown and len(shown) <= 40 else kind


def _json_whole(value: Any, key: str) -> int:
    """``value`` when it is a JSON whole number; a view's counts and seats are never ``1.5``, ``"7"`` or ``true``."""
    if not is_whole(value):
        raise ViewError(f"{key}: a whole number, got {_json_kind(value)}")
    return int(value)


def _json_text(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise ViewError(f"{key}: a string, got {_json_kind(value)}")
    return value


def _json_list(value: Any, key: str) -> Sequence[Any]:
    if not isinstance(value, (list, tuple)):  # a tuple from Python (dataclasses.asdict) is a list too
        raise ViewError(f"{key}: a list, got {_json_kind(value)}")
    return value


def _json_wholes(value: Any, key: str) -> tuple[int, ...]:
    return tuple(_json_whole(x, f"{key}[{i}]") for i, x in enumerate(_json_list(value, key)))


def _json_texts(value: Any, key: str) -> tuple[str, ...]:
    return tuple(_json_text(x, f"{key}[{i}]") for i, x in enumerate(_json_list(value, key)))


def _json_meld(value: Any, key: str) -> TableMeld:
    if not isinstance(value, dict):
        raise ViewError(f"{key}: an object with owner, cards and stands_for, got {_json_kind(value)}")
    unknown = sorted(set(value) - {"owner", "cards", "stands_for"})
    if unknown:
        raise ViewError(f"{key}: unknown key {unknown[0]!r}; a meld's keys are: owner, cards, stands_for")
    if "owner" not in value or "cards" not in value:
        raise ViewError(f"{key}: a meld has an owner and its cards")
    stands_for = value.get("stands_for")
    return TableMeld(_json_whole(value["owner"], f"{key}.owner"), _json_text(value["cards"], f"{key}.cards"),
                     None if stands_for is None else _json_text(stands_for, f"{key}.stands_for"))



# ------------------------------------------------------------------ checking


def check_view(view: SeatView, src: _Source | None = None) -> None:
    """Refuse a view that cannot happen, naming the section at fault (:class:`ViewError`).

    Checks: the seats and the decision (``may_i`` only in rules that play
    "Puis-je ?", asking another seat than the mover; a draw before any move
    of the turn), the hand against its size, every card against the deck's
    copies and jokers (the seat's hand, the table, the pile and the cards
    known held, together), every card of the deck in one place (hands,
    table, pile, stock), the cards known held against each hand's size, and
    who laid the table's melds against who has opened.
    """
    src = src or _Source()
    r = view.ruleset()
    n = view.players
    if len(view.hand_sizes) != n or len(view.totals) != n or len(view.took) != n or len(view.known) != n:
        raise src.error("hands", f"every seat needs a hand size, a total and its cards taken and known ({n} seats)")
    hand = cardlib.parse(view.hand)
    if len(hand) != view.hand_sizes[view.seat]:
        raise src.error("hand", f"{len(hand)} cards, but 'hands' gives seat {view.seat} "
                                f"{view.hand_sizes[view.seat]}")
    most = rules_lib.max_hand_cards(r)
    for s, size in enumerate(view.hand_sizes):
        if size > most:
            raise src.error("hands", f"seat {s} holds {size} cards: a {r.game} hand holds at most {most}")
    if view.decision == "may_i":
        if not r.may_i:
            raise src.error("decision", "these rules play no \"Puis-je ?\" (may_i is false)")
        if view.asked == view.mover:
            raise src.error("decision", f"seat {view.mover} is the mover: \"Puis-je ?\" is asked of the others")
        if not view.moves or not view.moves[0].startswith("drew"):
            raise src.error("decision", "\"Puis-je ?\" is asked after the mover drew from the stock: "
                                        "the moves begin with 'drew'")
        if not view.pile and not view.pile_unseen:
            raise src.error("decision", "\"Puis-je ?\" asks for the pile's top, and the pile is empty")
    if view.decision == "draw" and view.moves:
        raise src.error("decision", "a draw is the turn's first decision: no move comes before it")
    draws = not (view.turn == 0 and r.first_player_extra_card)
    if view.decision in ("lay", "discard") and draws and not (view.moves and view.moves[0].split()[0] in
                                                               ("took", "drew")):
        raise src.error("decision", f"a {view.decision} comes after the turn's draw: begin 'moves' with "
                                    "'took C' or 'drew'")
    for s in view.laid:
        if view.turn == 0:
            raise src.error("laid" if r.add_before_opening else "opened",
                            f"seat {s} cannot have laid before turn 0, the round's first")
    # Every card the seat sees, against the deck.
    seen: list[cardlib.Card] = list(hand)
    table_cards = 0
    for m in view.table:
        cards = cardlib.parse(m.cards)
        table_cards += len(cards)
        seen += cards
    pile = cardlib.parse(view.pile)
    seen += pile
    for s, row in enumerate(view.known):
        known = cardlib.parse(row)
        if s == view.seat and known:
            raise src.error("known", f"seat {s} sees its own hand: its cards are not listed as known")
        if len(known) > view.hand_sizes[s]:
            raise src.error("known", f"seat {s} is known to hold {len(known)} cards but holds "
                                     f"{view.hand_sizes[s]}")
        seen += known
    try:
        rules_lib.check_cards(seen, r, hand=False)
    except ValueError as exc:
        raise src.error("hand", f"the cards seen (hand, table, pile and cards known held) cannot all be in "
                                f"the deck: {exc}") from None
    total = sum(view.hand_sizes) + table_cards + len(pile) + view.pile_unseen + view.stock
    if total != r.deck_size:
        raise src.error("stock", f"hands {sum(view.hand_sizes)} + table {table_cards} + pile "
                                 f"{len(pile) + view.pile_unseen} + stock {view.stock} = {total} cards, but the "
                                 f"{r.game} deck holds {r.deck_size}")
    owners = sorted({m.owner for m in view.table})
    for s in owners:
        if s not in view.opened:
            raise src.error("table", f"seat {s} laid a meld but has not opened")
    if r.game != "basic":
        for s in view.opened:
            if s not in owners:
                raise src.error("opened", f"seat {s} has opened but owns no meld of the table")
    if r.open_threshold_rises and (view.threshold is None or view.threshold < r.open_threshold):
        raise src.error("threshold", f"an opening needs at least open_threshold = {r.open_threshold} points")
    # The took/known rows are written in code order: a text whose rows are not is read again canonically.
    for row_name in ("took", "known"):
        for row in getattr(view, row_name):
            codes = [int(c) for c in cardlib.parse(row)]
            if codes != sorted(codes):
                raise src.error(row_name, "cards out of code order")




# ------------------------------------------------------------------ the turn's start


@dataclass
class StartMeld:
    """A table meld while the turn's moves are undone: its owner, ``"run"`` or ``"set"``, the card each place
    stands for (a run from its lowest position up, a set by suit) and the place of its joker (-1: none)."""

    owner: int
    kind: str
    cards: list[cardlib.Card]
    joker: int

    @classmethod
    def of(cls, meld: TableMeld) -> "StartMeld":
        tokens = meld.cards.split()
        joker = tokens.index("★") if "★" in tokens else -1
        cards = [cardlib.parse(meld.stands_for or "")[0] if t == "★" else cardlib.parse(t)[0] for t in tokens]
        naturals = [c for i, c in enumerate(cards) if i != joker]
        kind = "set" if len({c.rank for c in naturals}) == 1 else "run"
        return cls(meld.owner, kind, cards, joker)

    def text(self) -> str:
        """The meld as the choices and the trace write it (``★`` at the joker's place)."""
        return " ".join("★" if i == self.joker else c.text() for i, c in enumerate(self.cards))

    def table_meld(self) -> TableMeld:
        stands = None if self.joker < 0 else self.cards[self.joker].text()
        return TableMeld(self.owner, self.text(), stands)

    def positions(self) -> list[int]:
        """A run's rank positions, 1 (ace low) .. 14 (ace high); a set's rank repeated."""
        if self.kind == "set":
            return [self.cards[0].rank] * len(self.cards)
        # A run lies from its lowest position up: an ace after a king is position 14.
        return [self.cards[0].rank + i for i in range(len(self.cards))]

    def relabel(self) -> None:
        """A set's joker stands for the first suit its naturals lack, as the lab keeps it."""
        if self.kind != "set" or self.joker < 0:
            return
        naturals = [c for i, c in enumerate(self.cards) if i != self.joker]
        rank = naturals[0].rank
        first = min(s for s in range(4) if s not in {c.suit for c in naturals})
        self.cards = sorted(naturals + [cardlib.card(rank, first)], key=lambda c: c.suit)
        self.joker = next(i for i, c in enumerate(self.cards) if c.suit == first)


@dataclass
class TurnStart:
    """The round when the turn under way began, as far as the seat can tell (:func:`turn_start`).

    ``hand`` the seat's own cards then (codes); ``needs[s]`` the cards
    another seat must then have held (the cards it laid this turn from
    its hand, and those it was known to hold); ``sizes`` every hand's size;
    ``table`` the melds; ``pile`` its cards (bottom first, the unseen ones
    not written); ``draws`` the stock's top cards in the order the turn
    drew them (the mover's card, then each "Puis-je ?" card), ``None``
    where the seat did not see the card; ``took`` and ``known`` by seat;
    ``opened`` the seats that had opened; ``opens`` whether the mover opens
    in this turn's moves.
    """

    hand: list[int]
    needs: list[Counter]
    sizes: list[int]
    table: list[StartMeld]
    pile: list[int]
    draws: list[int | None]
    took: list[Counter]
    known: list[Counter]
    opened: tuple[int, ...]
    opens: bool
    lays: bool


_MOVE_PATTERNS = (
    ("took", re.compile(r"took (\S+)$")),
    ("drew", re.compile(r"drew(?: (\S+))?$")),
    ("asks", re.compile(r"(\d+) asks (\S+)$")),
    ("open", re.compile(r"open (.+)$")),
    ("meld", re.compile(r"meld (.+)$")),
    ("add", re.compile(r"add (\S+) to (\d+)(?: (low|high))?$")),
    ("recover_meld", re.compile(r"recover (\S+) from (\d+), meld (.+)$")),
    ("recover_add", re.compile(r"recover (\S+) from (\d+), joker to (\d+)(?: (low|high))?$")),
)


def read_move(move: str) -> tuple[str, tuple[str | None, ...]]:
    """``(kind, fields)`` of one canonical move: ``took``, ``drew``, ``asks``, ``open``, ``meld``, ``add``,
    ``recover_meld`` or ``recover_add``; ``ValueError`` when it is none of them."""
    for kind, pattern in _MOVE_PATTERNS:
        m = pattern.match(move)
        if m:
            return kind, m.groups()
    raise ValueError(f"{move!r} is not a move")


def _code(text: str) -> int:
    return int(cardlib.parse(text)[0])


def turn_start(view: SeatView) -> TurnStart:
    """Undo the moves of the turn under way: the round as it stood when the turn began.

    Raises :class:`ViewError` (``section="moves"``, ``part`` the move) when
    a move does not fit the view: a card the seat does not hold, a meld
    the table does not show as the move left it, an addition at a place the
    meld cannot have taken it.
    """
    n, seat, mover = view.players, view.seat, view.mover
    hand = Counter(int(c) for c in cardlib.parse(view.hand))
    needs = [Counter() for _ in range(n)]
    sizes = list(view.hand_sizes)
    table = [StartMeld.of(m) for m in view.table]
    pile = [int(c) for c in cardlib.parse(view.pile)]
    took = [Counter(int(c) for c in cardlib.parse(t)) for t in view.took]
    known_now = [Counter(int(c) for c in cardlib.parse(k)) for k in view.known]
    moves = [read_move(m) for m in view.moves]
    asks = [i for i, (k, _) in enumerate(moves) if k == "asks"]
    draws: list[int | None] = [None] * (1 + len(asks))
    # What each move did to the cards each seat is known to hold, in play order: +1 a card taken, -1 a card laid.
    known_ops: list[list[tuple[int, int]]] = [[] for _ in range(n)]

    def fail(i: int, message: str) -> ViewError:
        return ViewError(f"moves: {view.moves[i]!r}: {message}", section="moves", part=i)

    def give_back(s: int, codes: list[int]) -> None:
        # Cards that left the seat's hand in this turn go back into it.
        if s == seat:
            hand.update(codes)
        else:
            needs[s].update(codes)
        sizes[s] += len(codes)

    def take_away(i: int, s: int, code: int | None) -> int:
        """Take back a card the seat got in this turn; returns it (the seat's own: any card when not named)."""
        sizes[s] -= 1
        if sizes[s] < 0:
            raise fail(i, f"seat {s} would have held fewer than no cards")
        if s != seat:
            if code is not None and needs[s][code] > 0:
                needs[s][code] -= 1
            return -1 if code is None else code
        if code is None:
            if not hand:
                raise fail(i, "the seat holds no card it could have drawn")
            code = min(hand)
        if hand[code] == 0:
            raise fail(i, f"the seat's hand holds no {cardlib.Card(code)} it could have got by this move")
        hand[code] -= 1
        return code

    def pop_meld(i: int, text: str) -> StartMeld:
        if not table:
            raise fail(i, "the table has no meld it laid")
        last = table.pop()
        if last.text() != text or last.owner != mover:
            raise fail(i, f"the table's last meld is seat {last.owner}'s {last.text()}, not the mover's {text}")
        return last

    def meld_at(i: int, ident: str | None) -> StartMeld:
        m = int(ident or -1)
        if not 0 <= m < len(table):
            raise fail(i, f"the table has no meld {m} when the move is played")
        return table[m]

    def unadd(i: int, meld: StartMeld, code: int, end: str | None) -> None:
        joker = code == int(cardlib.JOKER)
        if meld.kind == "run":
            if end not in ("low", "high"):
                raise fail(i, "an addition to a run says its end, low or high")
            place = 0 if end == "low" else len(meld.cards) - 1
            if (place == meld.joker) != joker or (not joker and int(meld.cards[place]) != code):
                raise fail(i, f"the {end} end of the meld is not {cardlib.Card(code)}")
        else:
            if end is not None:
                raise fail(i, "an addition to a set has no end")
            place = meld.joker if joker else next((j for j, c in enumerate(meld.cards)
                                                   if int(c) == code and j != meld.joker), -1)
            if place < 0:
                raise fail(i, f"the meld holds no {cardlib.Card(code)}")
        if len(meld.cards) <= 3:
            raise fail(i, "a meld that held fewer than three cards")
        del meld.cards[place]
        if joker:
            meld.joker = -1
        elif meld.joker > place:
            meld.joker -= 1
        meld.relabel()

    def unrecover(i: int, meld: StartMeld, code: int) -> None:
        if meld.joker >= 0:
            raise fail(i, "the meld holds a joker still")
        place = next((j for j, c in enumerate(meld.cards) if int(c) == code), -1)
        if place < 0:
            raise fail(i, f"the meld holds no {cardlib.Card(code)} put in the joker's place")
        meld.joker = place
        meld.relabel()

    def cards_of(text: str) -> list[int]:
        return [int(c) for c in cardlib.parse(text)]

    joker = int(cardlib.JOKER)
    for i in range(len(moves) - 1, -1, -1):
        kind, f = moves[i]
        if kind == "took":
            code = _code(f[0])
            take_away(i, mover, code)
            pile.append(code)
            took[mover][code] -= 1
            if took[mover][code] < 0:
                raise fail(i, f"'took' does not list {cardlib.Card(code)} for seat {mover}")
        elif kind == "drew":
            draws[0] = take_away(i, mover, None if f[0] is None else _code(f[0])) if (
                mover == seat) else None
            if mover != seat:
                sizes[mover] -= 1
        elif kind == "asks":
            asker, code = int(f[0]), _code(f[1])
            if asker == mover:
                raise fail(i, "the mover is not asked \"Puis-je ?\"")
            take_away(i, asker, code)
            draws[1 + asks.index(i)] = take_away(i, asker, None) if asker == seat else None
            if asker != seat:
                sizes[asker] -= 1
            pile.append(code)
            took[asker][code] -= 1
            if took[asker][code] < 0:
                raise fail(i, f"'took' does not list {cardlib.Card(code)} for seat {asker}")
        elif kind == "open":
            laid: list[int] = []
            for text in reversed(f[0].split(" + ")):
                laid += cards_of(pop_meld(i, text).text().replace("★", "JK"))
            give_back(mover, laid)
        elif kind == "meld":
            give_back(mover, cards_of(pop_meld(i, f[0]).text().replace("★", "JK")))
        elif kind == "add":
            code = _code(f[0])
            unadd(i, meld_at(i, f[1]), code, f[2])
            give_back(mover, [code])
        elif kind == "recover_meld":
            relaid = pop_meld(i, f[2])
            code = _code(f[0])
            unrecover(i, meld_at(i, f[1]), code)
            give_back(mover, [code] + [int(c) for j, c in enumerate(relaid.cards) if j != relaid.joker])
        else:  # recover_add
            code = _code(f[0])
            unadd(i, meld_at(i, f[2]), joker, f[3])
            unrecover(i, meld_at(i, f[1]), code)
            give_back(mover, [code])
    # The cards each seat was known to hold when the turn began: the fewest that the moves turn into the
    # cards known now (a card laid while none of its code was known leaves the count at none).
    for i, (kind, f) in enumerate(moves):
        if kind == "took":
            known_ops[mover].append((_code(f[0]), 1))
        elif kind == "asks":
            known_ops[int(f[0])].append((_code(f[1]), 1))
        elif kind in ("open", "meld"):
            for text in (f[0].split(" + ") if kind == "open" else [f[0]]):
                known_ops[mover] += [(c, -1) for c in cards_of(text.replace("★", "JK"))]
        elif kind == "add":
            known_ops[mover].append((_code(f[0]), -1))
        elif kind == "recover_meld":
            known_ops[mover] += [(_code(f[0]), -1), (joker, 1)]
            known_ops[mover] += [(c, -1) for c in cards_of(f[2].replace("★", "JK"))]
        elif kind == "recover_add":
            known_ops[mover] += [(_code(f[0]), -1), (joker, 1), (joker, -1)]
    known: list[Counter] = [Counter() for _ in range(n)]
    for s in range(n):
        if s == seat:
            continue
        for code in set(known_now[s]) | {c for c, _ in known_ops[s]}:
            ops = [d for c, d in known_ops[s] if c == code]
            goal = known_now[s][code]
            start = next((x for x in range(goal + len(ops) + 1) if _known_after(x, ops) == goal), None)
            if start is None:
                raise ViewError(f"known: seat {s}'s {cardlib.Card(code)} cannot follow from this turn's moves",
                                section="known")
            if start:
                known[s][code] = start
    for s in range(n):
        if min(took[s].values(), default=0) < 0:
            raise ViewError(f"took: seat {s}'s cards taken do not hold this turn's", section="took")
        if s != seat:
            # A card known held and a card laid this turn may be the same card.
            needs[s] = needs[s] | known[s]
            if sum(needs[s].values()) > sizes[s]:
                raise ViewError(f"hands: seat {s} laid or is known to hold more cards than its hand held",
                                section="hands")
    opens = any(k == "open" for k, _ in moves)
    opened = tuple(s for s in view.opened if not (s == mover and opens))
    lays = any(k not in ("took", "drew", "asks") for k, _ in moves)
    return TurnStart(hand=sorted(hand.elements()), needs=needs, sizes=sizes, table=table, pile=pile, draws=draws,
                     took=took, known=known, opened=opened, opens=opens, lays=lays)


def _known_after(start: int, ops: list[int]) -> int:
    x = start
    for d in ops:
        x = x + 1 if d > 0 else max(x - 1, 0)
    return x
