"""The heuristic family's parameters by name: the slot each fills in the engine's vector, its range, its meaning.

The engine reads a seat's parameters as a vector (``params[P_*]``,
:mod:`sim.engine.policies`, whose docstring tells what each slot does);
strategies name them, and this table is the one place that maps a name to
its slot and range (``docs/strategies.md`` shows it).
"""

from __future__ import annotations

from sim.engine.policies import (
    P_ADD,
    P_DISCARD,
    P_FEED_WEIGHT,
    P_JOKERS,
    P_MAY_I,
    P_NEAR_WEIGHT,
    P_OPEN_ALL,
    P_OPEN_CARDS,
    P_OPEN_EXTRA,
    P_RECOVER,
    P_SEARCH_HORIZON,
    P_SEARCH_INFER,
    P_SEARCH_PRUNE,
    P_SEARCH_REJECT,
    P_SEARCH_TURN,
    P_SEARCH_SALT,
    P_SEARCH_SEES,
    P_SEARCH_TRIALS,
    P_SEARCH_WIDTH,
    P_TAKE,
    P_TAKE_NEAR,
    P_UNOPENED_KEEP,
)

__all__ = ["CEILING_PARAMETERS", "CHOICE_PARAMETERS", "PARAMETERS", "SEARCH_PARAMETERS"]

CHOICE_PARAMETERS = ("jokers", "open_all", "discard", "take_near", "add", "recover", "may_i", "take")
"""Parameters that select a behaviour: whole numbers only."""

PARAMETERS: dict[str, tuple[int, float, float, str]] = {
    # name: (slot, lowest, highest, meaning); the table of sim.engine.policies' docstring, as data.
    "jokers": (P_JOKERS, 0, 2, "0 lay when they help, 1 for the opening, 2 keep to go out"),
    "open_extra": (P_OPEN_EXTRA, 0, 200, "open only with threshold + this many points"),
    "open_cards": (P_OPEN_CARDS, 0, 15, "open only when laying at least this many cards"),
    "open_all": (P_OPEN_ALL, 0, 1, "open only when the whole hand goes down"),
    "discard": (P_DISCARD, 0, 2, "0 highest penalty, 1 keep near-melds, 2 also avoid feeding"),
    "near_weight": (P_NEAR_WEIGHT, 0, 50, "points per unseen copy completing a near-meld"),
    "feed_weight": (P_FEED_WEIGHT, 0, 50, "penalty points for feeding the next player"),
    "take_near": (P_TAKE_NEAR, 0, 1, "take a discard that only builds a near-meld"),
    "add": (P_ADD, 0, 1, "1 add eagerly, 0 hold back cards that sit in a meld of the hand"),
    "recover": (P_RECOVER, 0, 1, "1 recover jokers when possible, 0 only to go out"),
    "may_i": (P_MAY_I, 0, 3, "Puis-je: 0 never, 1 completes a meld, 2 near-meld too, 3 as 1 before the contract only"),
    "take": (P_TAKE, 0, 1, "1 take the discard when it helps, 0 never take it"),
    "unopened_keep": (P_UNOPENED_KEEP, 0, 3, "before opening, how much less a card's penalty counts towards "
                      "throwing it: 0 not less, 1 not at all, above 1 the high cards are kept"),
}
"""Each parameter's slot in the vector, lowest and highest value, and meaning."""

SEARCH_PARAMETERS: dict[str, tuple[int, float, float, str]] = {
    # The search strategy's own numbers (sim.engine.search); its third
    # parameter, base, names a strategy rather than a number (strategies.get).
    "trials": (P_SEARCH_TRIALS, 2, 4096, "the most trials (re-deals) per choice of a decision"),
    "width": (P_SEARCH_WIDTH, 0, 200, "stop once every remaining difference's interval is narrower (points)"),
    "salt": (P_SEARCH_SALT, 0, 1_000_000, "a number mixed into the rollouts' seeds: two salts, two independent "
             "searches of the same positions (the search's own noise)"),
    "horizon": (P_SEARCH_HORIZON, 0, 1, "0 values a playout by the round's points, 1 by the chance it leaves of "
                "winning the game, in points (sim.engine.game_value)"),
    "infer": (P_SEARCH_INFER, 0, 10, "how strongly the re-deals lean on what the other seats' throws and passed-up "
              "discards say of their hands (0: every unseen card alike)"),
    "prune": (P_SEARCH_PRUNE, 0, 10, "drop a choice once its deficit is this many standard errors (0: the "
              "error-spending rule, which spends 5% over all looks)"),
    "reject": (P_SEARCH_REJECT, 0, 64, "deal a trial again, up to this many times, while some seat that has not "
               "opened holds a hand its strategy would open with (0: never)"),
    "turn": (P_SEARCH_TURN, 0, 1, "1: a laying is searched together with the seat's next decision of the same "
             "turn (each laying valued by its best continuation); 0: the rest of the turn as the base plays it"),
}
"""The search strategy's numeric parameters: slot, lowest and highest value, meaning (``trials`` and ``salt`` whole)."""

CEILING_PARAMETERS: dict[str, tuple[int, float, float, str]] = {
    # Set by the ceiling alone (strategies.ceiling), never by a name: a player that sees every hidden card.
    "sees": (P_SEARCH_SEES, 0, 1, "1: the rollouts keep the hidden cards as they are (the ladder's ceiling)"),
}
"""The search's slots only :func:`strategies.ceiling` sets."""
