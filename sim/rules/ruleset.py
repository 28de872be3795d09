"""The ruleset: every rule difference of docs/rules.md as one validated knob.

A :class:`Ruleset` is immutable. Presets are TOML files shipped beside this
module (``presets/*.toml``); :func:`preset` loads one and applies overrides,
:func:`load` reads a user's TOML file. Every construction path runs the same
validation, so a ruleset that exists is one the engine can play.

The knobs (``docs/rules.md`` sections 2 to 8 state the rules, section 9 the decisions;
``docs/rulesets.md`` the file format):

=============================  =====================================================
knob                           meaning and allowed values
=============================  =====================================================
``game``                       family: ``rami51``, ``contrat``, ``basic``
``players``                    seats at the table (rami51 2-5, contrat 3-5, basic 2-6)
``decks``                      52-card decks shuffled together (1 or 2)
``jokers``                     jokers added, 0 .. 2 per deck, or ``"players-1"``
``deal``                       cards dealt to each player, or ``"auto"`` (basic: by
                               player count; contrat: by the deal's contract)
``first_player_extra_card``    the first player gets one more card and starts by
                               discarding without drawing
``min_run``                    fewest cards in a run (3; 4 in contrat)
``ace_high``                   Q-K-A allowed (K-A-2 never is)
``jokers_per_meld``            at most this many jokers in one meld (1)
``add_before_opening``         cards may be added to table melds before the player
                               has laid anything (basic rummy)
``open_threshold``             points the first laying must reach (51)
``open_needs_natural_run``     the first laying must hold a run without joker
``open_threshold_rises``       each later opener must beat the previous opening
``lay_all_ignores_opening``    laying the whole hand at once needs no threshold
``discard_take``               ``must_use``, ``free`` or ``only_after_opening``
``discard_playable``           ``allowed`` or ``forbidden``: discarding a card that
                               fits a table meld
``last_card_no_discard_take``  a player holding one card may not take a discard
                               that could be added to the table
``joker_recovery_from_set``    ``missing_suit`` or ``unambiguous_only``
``go_out``                     ``lay_or_discard`` or ``discard_only``
``stock_exhausted``            ``reshuffle``, ``turn_once_then_block`` or
                               ``flip_no_shuffle``
``blocked_scoring``            a blocked round scores ``nothing`` or ``hands``
``ace_penalty``                points of an ace left in hand (11; contrat 15; basic 1)
``joker_penalty``              points of a joker left in hand (20; 25; contrat 15)
``unopened_penalty``           points of a player who has not opened (100), or
                               ``"count_cards"``
``rami_sec``                   ``double``, ``flat_200`` or ``none``
``game_target``                a game ends after the round where a total reaches it
                               (rami51; 0 where the game is a fixed number of rounds)
``game_rounds``                rounds in a game (contrat 7, basic 3; 0 = play to
                               ``game_target``)
``may_i``                      "Puis-je ?" is played (contrat)
``may_i_limit``                most cards leaving the discard by "Puis-je ?" for one
                               stock draw (3)
``turn_cap``                   turns after which a round is recorded as blocked
=============================  =====================================================
"""

from __future__ import annotations

import dataclasses
import difflib
import tomllib
from dataclasses import dataclass, fields
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from sim.cards import N_NATURAL

__all__ = [
    "CONTRACTS",
    "GAMES",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PLAYERS",
    "WHOLE_HAND_DEAL",
    "PRESETS",
    "Ruleset",
    "RulesetError",
    "as_ruleset",
    "contract_deal",
    "load",
    "preset",
]

GAMES = ("rami51", "contrat", "basic")
PRESETS = ("rami51", "rami51-ducale", "rami51-classic", "contrat", "basic")

CONTRACTS: tuple[tuple[int, int, int], ...] = (
    # (sets, runs, cards dealt) for deals 1 .. 7 of Rami contrat (docs/rules.md section 6.2)
    (2, 0, 10),
    (1, 1, 10),
    (0, 2, 10),
    (3, 0, 12),
    (2, 1, 12),
    (1, 2, 12),
    (0, 3, 12),
)
"""The one table of Rami contrat's deals: every room reads it from here.

The reference reads it through :meth:`Ruleset.contract` and
:meth:`Ruleset.hand_size`; the compiled engine turns it into constants of
its kernels when it is imported (``sim.engine.params``), and the engine's
kernel cache is fingerprinted with this file so that a change here compiles
them again.
"""

WHOLE_HAND_DEAL = 7
"""The contrat deal whose contract must hold the whole hand: it is laid only to go out (docs/rules.md item 28)."""


def contract_deal(round_index: int) -> int:
    """The contrat deal, 1 .. 7, that round ``round_index`` (0-based) plays.

    Plain arithmetic, so a numpy array of round indices gets its deals
    elementwise (the results frame's ``contract`` column).

    >>> contract_deal(0), contract_deal(6)
    (1, 7)
    """
    return round_index % len(CONTRACTS) + 1

_CHOICES: dict[str, tuple[str, ...]] = {
    "game": GAMES,
    "discard_take": ("must_use", "free", "only_after_opening"),
    "discard_playable": ("allowed", "forbidden"),
    "joker_recovery_from_set": ("missing_suit", "unambiguous_only"),
    "go_out": ("lay_or_discard", "discard_only"),
    "stock_exhausted": ("reshuffle", "turn_once_then_block", "flip_no_shuffle"),
    "blocked_scoring": ("nothing", "hands"),
    "rami_sec": ("double", "flat_200", "none"),
}
PLAYERS: dict[str, tuple[int, int]] = {"rami51": (2, 5), "contrat": (3, 5), "basic": (2, 6)}
"""The fewest and most players each game is played by (both included)."""

MIN_PLAYERS = min(low for low, _ in PLAYERS.values())
"""The fewest players any game is played by: a table's lower bound before its game is known."""

MAX_PLAYERS = max(high for _, high in PLAYERS.values())
"""The most players any game is played by; the engine's arrays hold this many seats (its ``MAX_SEATS``,
tested equal)."""
_BASIC_DEAL = {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}


class RulesetError(ValueError):
    """A ruleset knob has a wrong name, type or value, or knobs contradict each other."""


@dataclass(frozen=True)
class Ruleset:
    """Every rule of one way to play, as data. See the module docstring for the knobs."""

    game: str = "rami51"
    players: int = 4
    decks: int = 2
    jokers: int | str = 4
    deal: int | str = 13
    first_player_extra_card: bool = False
    min_run: int = 3
    ace_high: bool = True
    jokers_per_meld: int = 1
    add_before_opening: bool = False
    open_threshold: int = 51
    open_needs_natural_run: bool = False
    open_threshold_rises: bool = False
    lay_all_ignores_opening: bool = False
    discard_take: str = "must_use"
    discard_playable: str = "allowed"
    last_card_no_discard_take: bool = False
    joker_recovery_from_set: str = "missing_suit"
    go_out: str = "lay_or_discard"
    stock_exhausted: str = "reshuffle"
    blocked_scoring: str = "nothing"
    ace_penalty: int = 11
    joker_penalty: int = 20
    unopened_penalty: int | str = 100
    rami_sec: str = "double"
    game_target: int = 500
    game_rounds: int = 0
    may_i: bool = False
    may_i_limit: int = 3
    turn_cap: int = 1000

    def __post_init__(self) -> None:
        _validate(self)

    # ----------------------------------------------------------------- derived
    @property
    def n_jokers(self) -> int:
        """Jokers in the deck, with ``"players-1"`` resolved."""
        return self.players - 1 if self.jokers == "players-1" else int(self.jokers)

    @property
    def deck_size(self) -> int:
        """Physical cards in the deck: 108 for Rami 51, 52 for basic rummy."""
        return N_NATURAL * self.decks + self.n_jokers

    def hand_size(self, round_index: int = 0) -> int:
        """Cards dealt to each player in round ``round_index`` (0-based).

        Contrat deals follow the contract table (round 7 is deal 1 again only
        if ``game_rounds`` were longer, which validation forbids).
        """
        if self.game == "contrat":
            return CONTRACTS[contract_deal(round_index) - 1][2]
        if self.deal == "auto":
            return _BASIC_DEAL[self.players]
        return int(self.deal)

    def contract(self, deal: int) -> tuple[int, int]:
        """``(sets, runs)`` of contrat deal ``deal`` (1 .. 7)."""
        if not 1 <= deal <= 7:
            raise RulesetError(f"deal must be 1 .. 7 for a contract, got {deal}")
        sets, runs, _ = CONTRACTS[deal - 1]
        return sets, runs

    def replace(self, **overrides: Any) -> "Ruleset":
        """A copy with some knobs changed; unknown knobs are refused."""
        _check_names(overrides)
        return dataclasses.replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        """All knobs, in declaration order (what a TOML preset holds)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


KNOBS: tuple[str, ...] = tuple(f.name for f in fields(Ruleset))


def _check_names(knobs: Mapping[str, Any]) -> None:
    for name in knobs:
        if name not in KNOBS:
            close = difflib.get_close_matches(name, KNOBS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise RulesetError(
                f"unknown knob {name!r}{hint}; the knobs are: {', '.join(KNOBS)}"
            )


def _fail(knob: str, value: Any, allowed: str) -> None:
    raise RulesetError(f"knob {knob!r} = {value!r} is not allowed: {allowed}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _validate(r: Ruleset) -> None:
    # Types first, so later checks compare like with like.
    for f in fields(r):
        value = getattr(r, f.name)
        if f.name in _CHOICES:
            if value not in _CHOICES[f.name]:
                _fail(f.name, value, "one of " + ", ".join(_CHOICES[f.name]))
        elif f.type == "bool":
            if not isinstance(value, bool):
                _fail(f.name, value, "true or false")
        elif f.type == "int":
            if not _is_int(value):
                _fail(f.name, value, "a whole number")
    if not (_is_int(r.jokers) or r.jokers == "players-1"):
        _fail("jokers", r.jokers, 'a whole number or "players-1"')
    if not (_is_int(r.deal) or r.deal == "auto"):
        _fail("deal", r.deal, 'a whole number or "auto"')
    if not (_is_int(r.unopened_penalty) or r.unopened_penalty == "count_cards"):
        _fail("unopened_penalty", r.unopened_penalty, 'a whole number or "count_cards"')

    lo, hi = PLAYERS[r.game]
    if not lo <= r.players <= hi:
        _fail("players", r.players, f"{r.game} is played by {lo} to {hi} players")
    if r.decks not in (1, 2):
        _fail("decks", r.decks, "1 or 2")
    if not 0 <= r.n_jokers <= 2 * r.decks:
        _fail("jokers", r.jokers, f"0 to {2 * r.decks} with {r.decks} deck(s) (2 jokers a deck)")
    if not 3 <= r.min_run <= 13:
        _fail("min_run", r.min_run, "3 to 13")
    if r.jokers_per_meld != 1:
        _fail("jokers_per_meld", r.jokers_per_meld, "1 (a meld holds at most one joker)")
    if r.open_threshold < 0:
        _fail("open_threshold", r.open_threshold, "0 or more points")
    for knob in ("ace_penalty", "joker_penalty", "game_target", "game_rounds"):
        if getattr(r, knob) < 0:
            _fail(knob, getattr(r, knob), "0 or more")
    if _is_int(r.unopened_penalty) and r.unopened_penalty < 0:
        _fail("unopened_penalty", r.unopened_penalty, '0 or more, or "count_cards"')
    if r.may_i_limit < 1:
        _fail("may_i_limit", r.may_i_limit, "1 or more")
    if r.turn_cap < 1:
        _fail("turn_cap", r.turn_cap, "1 or more turns")

    if r.game == "contrat":
        if r.decks != 2:
            _fail("decks", r.decks, "2 in contrat (two 52-card decks)")
        if r.deal != "auto":
            _fail("deal", r.deal, 'contrat deals follow the contracts: "auto"')
        if r.first_player_extra_card:
            _fail("first_player_extra_card", True, "false in contrat")
        if not 1 <= r.game_rounds <= len(CONTRACTS):
            _fail("game_rounds", r.game_rounds, "1 to 7 deals in contrat")
        if r.go_out != "discard_only":
            _fail("go_out", r.go_out, "discard_only in contrat (deal 7 goes out by laying, built in)")
        if r.rami_sec != "none":
            _fail("rami_sec", r.rami_sec, "none in contrat")
        if r.stock_exhausted == "flip_no_shuffle":
            _fail("stock_exhausted", r.stock_exhausted, "reshuffle or turn_once_then_block in contrat")
    else:
        if r.may_i:
            _fail("may_i", True, '"Puis-je ?" belongs to contrat: false in ' + r.game)
    if r.game == "rami51":
        if not _is_int(r.deal):
            _fail("deal", r.deal, "a whole number of cards in rami51")
        if r.game_rounds == 0 and r.game_target <= 0:
            _fail("game_target", r.game_target, "more than 0 when game_rounds is 0")
    if r.game == "basic":
        if r.game_rounds < 1:
            _fail("game_rounds", r.game_rounds, "1 or more rounds in basic rummy")
        if r.open_threshold != 0 or r.open_needs_natural_run:
            _fail("open_threshold", r.open_threshold, "0 and no natural run in basic rummy (no opening)")
    if _is_int(r.deal) and not 1 <= r.deal <= 20:
        _fail("deal", r.deal, "1 to 20 cards each")

    # Enough cards: every hand, the first player's extra card, the first
    # discard, and at least one card left in the stock.
    biggest = max(r.hand_size(i) for i in range(len(CONTRACTS) if r.game == "contrat" else 1))
    needed = r.players * biggest + int(r.first_player_extra_card) + 2
    if needed > r.deck_size:
        _fail(
            "deal",
            r.deal,
            f"{r.players} hands of {biggest} need {needed} cards with the first discard "
            f"and one stock card, but the deck holds {r.deck_size}",
        )


def _from_mapping(knobs: Mapping[str, Any], source: str) -> Ruleset:
    _check_names(knobs)
    try:
        return Ruleset(**knobs)
    except TypeError as exc:  # pragma: no cover - names were checked above
        raise RulesetError(f"{source}: {exc}") from exc


def _preset_knobs(name: str) -> dict[str, Any]:
    if name not in PRESETS:
        close = difflib.get_close_matches(name, PRESETS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise RulesetError(f"unknown preset {name!r}{hint}; the presets are: {', '.join(PRESETS)} "
                           "(or give the path of a ruleset .toml file)")
    return dict(_preset_file(name))


@cache
def _preset_file(name: str) -> dict[str, Any]:
    """The knobs of preset file ``name``, read once per process (an experiment names its presets for every arm
    and table; the knobs are plain values, so a shallow copy is the caller's own)."""
    text = resources.files("sim.rules").joinpath("presets", f"{name}.toml").read_text("utf-8")
    return tomllib.loads(text)


def preset(name: str = "rami51", **overrides: Any) -> Ruleset:
    """A named preset of docs/rules.md section 8, with knobs overridden.

    >>> preset("rami51", open_threshold=30).open_threshold
    30
    """
    knobs = _preset_knobs(name)
    _check_names(overrides)
    knobs.update(overrides)
    return _from_mapping(knobs, f"preset {name!r}")


_FAMILY_PRESET = {"rami51": "rami51", "contrat": "contrat", "basic": "basic"}
"""The preset a ruleset file starts from when it names its game but no preset."""


def _read_toml(path: Path) -> dict[str, Any]:
    """The knobs of a ruleset file; every way of not being one is a RulesetError naming the file."""
    if not path.exists():
        raise RulesetError(f"ruleset file {str(path)!r} does not exist; give a preset "
                           f"({', '.join(PRESETS)}) or the path of a ruleset TOML file")
    if path.is_dir():
        raise RulesetError(f"{str(path)!r} is a folder; give a ruleset TOML file or a preset ({', '.join(PRESETS)})")
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError:
        raise RulesetError(f"{path}: not a ruleset TOML file (not UTF-8 text)") from None
    except OSError as exc:
        raise RulesetError(f"cannot read ruleset file {str(path)!r}: {exc.strerror}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"{path}: not valid TOML ({exc}); docs/rulesets.md shows the format") from None


def load(path: str | Path, **overrides: Any) -> Ruleset:
    """Read a ruleset from a TOML file (format: ``docs/rulesets.md``).

    The file holds knobs at the top level and lists only what differs from
    its starting point: ``preset = "name"`` when given, else the preset of
    its ``game`` (``rami51``, ``contrat`` or ``basic``), else ``rami51``.

    Raises
    ------
    RulesetError
        The file is missing, unreadable or not TOML, a knob is unknown or
        not allowed, or ``game`` contradicts ``preset``; the message names
        the file.
    """
    path = Path(path)
    knobs = _read_toml(path)
    try:
        base = knobs.pop("preset", None)
        game = knobs.get("game")
        if base is None:
            base = _FAMILY_PRESET.get(game, "rami51") if isinstance(game, str) else "rami51"
        elif not isinstance(base, str) or base not in PRESETS:
            raise RulesetError(f"preset = {base!r} is not a preset; the presets are: {', '.join(PRESETS)}")
        merged = _preset_knobs(base)
        if game is not None and game != merged["game"]:
            raise RulesetError(
                f"game = {game!r} contradicts preset = {base!r} (a {merged['game']} preset); "
                f"drop one of them, or start from the {game!r} preset"
            )
        _check_names(knobs)
        merged.update(knobs)
        _check_names(overrides)
        merged.update(overrides)
        return _from_mapping(merged, str(path))
    except RulesetError as exc:
        raise RulesetError(f"{path}: {exc}") from None


def _looks_like_a_file(text: str) -> bool:
    return bool(text.strip()) and (text.endswith(".toml") or "/" in text or "\\" in text or Path(text).exists())


def as_ruleset(ruleset: "Ruleset | str | Path") -> Ruleset:
    """A ruleset object from a ruleset, a preset name, or a path to a TOML file.

    A string that is a preset name is that preset; one that ends in
    ``.toml``, holds a path separator, or names an existing file or folder is
    read as a ruleset file (:func:`load`), whatever its extension.
    """
    if isinstance(ruleset, Ruleset):
        return ruleset
    if isinstance(ruleset, Path):
        return load(ruleset)
    if isinstance(ruleset, str):
        if ruleset in PRESETS or not _looks_like_a_file(ruleset):
            return preset(ruleset)
        return load(ruleset)
    raise TypeError(f"expected a Ruleset, a preset name or a ruleset file path, got {type(ruleset).__name__}")
