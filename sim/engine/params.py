"""The ruleset as the kernels see it: a named tuple of plain integers.

Choice knobs become small integer codes (the constants below); the kernels
compile once for this tuple type, so every variant runs without recompiling.
Rami contrat's contract table, the same for every ruleset, is no knob: the
kernels compile it in as the ``CONTRACT_*`` tuples below.
"""

from __future__ import annotations

from typing import NamedTuple

from sim.rules import CONTRACTS, WHOLE_HAND_DEAL, Ruleset

GAME_RAMI51, GAME_CONTRAT, GAME_BASIC = 0, 1, 2
TAKE_MUST_USE, TAKE_FREE, TAKE_AFTER_OPENING = 0, 1, 2
RECOVER_MISSING_SUIT, RECOVER_UNAMBIGUOUS = 0, 1
OUT_LAY_OR_DISCARD, OUT_DISCARD_ONLY = 0, 1
STOCK_RESHUFFLE, STOCK_TURN_ONCE, STOCK_FLIP = 0, 1, 2
SEC_DOUBLE, SEC_FLAT_200, SEC_NONE = 0, 1, 2
PLAYABLE_ALLOWED, PLAYABLE_FORBIDDEN = 0, 1
BLOCKED_NOTHING, BLOCKED_HANDS = 0, 1
UNOPENED_COUNT_CARDS = -1

# Rami contrat's deals, one slot a deal (slot ``round % CONTRACT_DEALS``, deal 1
# in slot 0), as global tuples the kernels compile in as constants. They are
# read off the rules' one table, sim.rules.CONTRACTS, when this module is
# imported, never written out here; sim.engine.freshness fingerprints that
# table's file with the engine's sources, so a change to it compiles the
# kernels again instead of leaving the cached ones playing the old table.
CONTRACT_DEALS = len(CONTRACTS)
CONTRACT_SETS = tuple(sets for sets, _, _ in CONTRACTS)
CONTRACT_RUNS = tuple(runs for _, runs, _ in CONTRACTS)
CONTRACT_DEALT = tuple(dealt for _, _, dealt in CONTRACTS)
CONTRACT_WHOLE_HAND = WHOLE_HAND_DEAL - 1  # the slot of the deal whose contract holds the whole hand

_CODES = {
    "game": {"rami51": GAME_RAMI51, "contrat": GAME_CONTRAT, "basic": GAME_BASIC},
    "discard_take": {"must_use": TAKE_MUST_USE, "free": TAKE_FREE, "only_after_opening": TAKE_AFTER_OPENING},
    "joker_recovery_from_set": {"missing_suit": RECOVER_MISSING_SUIT, "unambiguous_only": RECOVER_UNAMBIGUOUS},
    "go_out": {"lay_or_discard": OUT_LAY_OR_DISCARD, "discard_only": OUT_DISCARD_ONLY},
    "stock_exhausted": {"reshuffle": STOCK_RESHUFFLE, "turn_once_then_block": STOCK_TURN_ONCE, "flip_no_shuffle": STOCK_FLIP},
    "rami_sec": {"double": SEC_DOUBLE, "flat_200": SEC_FLAT_200, "none": SEC_NONE},
    "discard_playable": {"allowed": PLAYABLE_ALLOWED, "forbidden": PLAYABLE_FORBIDDEN},
    "blocked_scoring": {"nothing": BLOCKED_NOTHING, "hands": BLOCKED_HANDS},
}


class KernelRules(NamedTuple):
    """Every knob of a :class:`~sim.rules.Ruleset` as an ``int``, under the knob's own name.

    Bools are 0/1, a choice knob holds its code (``_CODES``), ``jokers`` the
    count with ``"players-1"`` resolved and ``unopened_penalty`` its points
    or ``UNOPENED_COUNT_CARDS``. A field that is no knob is listed in
    :data:`DERIVED_FIELDS`; ``jokers_per_meld`` has no field (one value is
    played, which the meld search holds by construction).
    """

    game: int
    players: int
    decks: int
    jokers: int
    hand_size: int
    first_player_extra_card: int
    min_run: int
    ace_high: int
    add_before_opening: int
    open_threshold: int
    open_needs_natural_run: int
    open_threshold_rises: int
    lay_all_ignores_opening: int
    discard_take: int
    discard_playable: int
    last_card_no_discard_take: int
    joker_recovery_from_set: int
    go_out: int
    stock_exhausted: int
    blocked_scoring: int
    ace_penalty: int
    joker_penalty: int
    unopened_penalty: int
    rami_sec: int
    game_target: int
    game_rounds: int
    may_i: int
    may_i_limit: int
    turn_cap: int


DERIVED_FIELDS = {
    "hand_size": "the cards dealt each player (the knob deal, \"auto\" resolved); contrat deals follow CONTRACT_DEALT",
}
"""The fields of :class:`KernelRules` that are no knob, each with what it holds."""


def kernel_rules(r: Ruleset) -> KernelRules:
    """Translate a validated ruleset into the kernels' named tuple."""
    return KernelRules(
        game=_CODES["game"][r.game],
        players=r.players,
        decks=r.decks,
        jokers=r.n_jokers,
        hand_size=r.hand_size(0),
        first_player_extra_card=int(r.first_player_extra_card),
        min_run=r.min_run,
        ace_high=int(r.ace_high),
        add_before_opening=int(r.add_before_opening),
        open_threshold=r.open_threshold,
        open_needs_natural_run=int(r.open_needs_natural_run),
        open_threshold_rises=int(r.open_threshold_rises),
        lay_all_ignores_opening=int(r.lay_all_ignores_opening),
        discard_take=_CODES["discard_take"][r.discard_take],
        discard_playable=_CODES["discard_playable"][r.discard_playable],
        last_card_no_discard_take=int(r.last_card_no_discard_take),
        joker_recovery_from_set=_CODES["joker_recovery_from_set"][r.joker_recovery_from_set],
        go_out=_CODES["go_out"][r.go_out],
        stock_exhausted=_CODES["stock_exhausted"][r.stock_exhausted],
        blocked_scoring=_CODES["blocked_scoring"][r.blocked_scoring],
        ace_penalty=r.ace_penalty,
        joker_penalty=r.joker_penalty,
        unopened_penalty=(
            UNOPENED_COUNT_CARDS if r.unopened_penalty == "count_cards" else int(r.unopened_penalty)
        ),
        rami_sec=_CODES["rami_sec"][r.rami_sec],
        game_target=r.game_target,
        game_rounds=r.game_rounds,
        may_i=int(r.may_i),
        may_i_limit=r.may_i_limit,
        turn_cap=r.turn_cap,
    )
