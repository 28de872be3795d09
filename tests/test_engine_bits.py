"""The turn's bit-test shortcuts agree with the slower answers they stand in for.

Each shortcut of the compiled turn (sim/engine/play.py) must give exactly the
answer of the function it avoids calling, or the games would change: checked
here on random hands of every meld rule the rulesets allow.
"""

from __future__ import annotations

import numpy as np

from sim import cards
from sim.engine import melds as M
from sim.engine import play as E
from sim.engine.params import kernel_rules
from sim.rules import preset

DECK = cards.deck(2, 4)


def _hands(seed, count, largest):
    rng = np.random.default_rng(seed)
    for i in range(count):
        hand = [DECK[j] for j in rng.choice(len(DECK), int(rng.integers(0, largest)), replace=False)]
        yield i, rng, M.hand_words(hand)


def test_the_take_check_answers_as_card_in_meld():
    rulesets = [kernel_rules(preset(name, min_run=run, ace_high=high))
                for name in ("rami51", "basic") for run in (3, 4) for high in (False, True)]
    for i, rng, (lo, _, jk) in _hands(6, 4000, 15):
        r = rulesets[i % len(rulesets)]
        top = int(rng.integers(0, 52))
        assert E._completes(lo, jk, top, r) == M.card_in_meld(lo, jk, top, r.min_run, r.ace_high)


def test_the_highest_penalty_is_the_first_highest_card():
    # The greedy discard's shortcut must pick what card_penalty ranks first
    # (the lowest code among equals), for every ace value a ruleset allows.
    rulesets = [kernel_rules(preset("rami51", ace_penalty=ace)) for ace in (0, 1, 5, 10, 11, 15)]
    for i, rng, (lo, _, _) in _hands(7, 3000, 15):
        if lo == 0:
            continue
        r = rulesets[i % len(rulesets)]
        codes = [c for c in range(52) if int(lo) >> c & 1]
        worth = [E.card_penalty(c, r) for c in codes]
        assert E._highest_penalty(lo, r.ace_penalty) == codes[worth.index(max(worth))]
