"""The rollout modes: what a rollout's trials re-deal before they play a position out.

``belief`` re-deals, at every trial, the cards the seat cannot see,
consistently with what it saw (the value of a choice given what the player
knows); ``clairvoyant`` keeps the true hidden cards, and only the later
randomness varies (what the choice would really have led to). Every room
that names a mode (the rollouts, the analysis, advice, the command line, the
experiments) imports it from here: the words are written once.
"""

from __future__ import annotations

__all__ = ["BELIEF", "CLAIRVOYANT", "MODES"]

BELIEF = "belief"
"""Re-deal what the seat cannot see: the question a player faces (the default everywhere)."""

CLAIRVOYANT = "clairvoyant"
"""Keep the true hidden cards: what knowing them is worth."""

MODES: tuple[str, ...] = (BELIEF, CLAIRVOYANT)
"""Every rollout mode, the default first."""
