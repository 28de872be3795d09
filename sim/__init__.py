"""Rami lab: rules, a compiled engine and strategies for French rummy.

``sim.cards`` reads and writes cards, ``sim.rules`` holds rulesets and the
pure-Python rules reference.
"""

from sim import cards, rules

__all__ = ["cards", "rules"]
