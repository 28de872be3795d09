"""The rules: rulesets and the pure-Python rules reference.

This package is the ground truth the compiled engine is checked against; it
never imports the engine. The vectorised ``best_opening``, a compiled
search, is the API's :func:`sim.best_openings`.
"""

from sim.rules.deck import check_cards, max_hand_cards
from sim.rules.facts import BLOCKED_REASONS, POINTS_MEANING, better_points, blocked_reasons, first_player
from sim.rules.hands import best_collection, best_opening, max_melded_cards, meets_contract
from sim.rules.melds import MeldReading, candidate_melds, classify_meld, meld_points, meld_readings
from sim.rules.ruleset import (
    CONTRACTS,
    GAMES,
    KNOBS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLAYERS,
    PRESETS,
    WHOLE_HAND_DEAL,
    Ruleset,
    RulesetError,
    as_ruleset,
    contract_deal,
    load,
    preset,
)
from sim.rules.scoring import card_penalty, hand_penalty, round_scores

RULES_VERSION = 3
"""Bumped whenever a rule's behaviour changes, or what the table shows the players (never for a speed-up); stored
with results. 3: an opening that lays both copies of a card (one in a run, one in a set) shows both on the table,
where the engine's public counts noted one, so the strategies counting unseen copies read the table right."""

__all__ = [
    "BLOCKED_REASONS",
    "POINTS_MEANING",
    "CONTRACTS",
    "GAMES",
    "KNOBS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PLAYERS",
    "PRESETS",
    "RULES_VERSION",
    "WHOLE_HAND_DEAL",
    "MeldReading",
    "Ruleset",
    "RulesetError",
    "as_ruleset",
    "better_points",
    "blocked_reasons",
    "best_collection",
    "best_opening",
    "candidate_melds",
    "card_penalty",
    "check_cards",
    "classify_meld",
    "first_player",
    "contract_deal",
    "hand_penalty",
    "load",
    "max_hand_cards",
    "max_melded_cards",
    "meets_contract",
    "meld_points",
    "meld_readings",
    "preset",
    "round_scores",
]
