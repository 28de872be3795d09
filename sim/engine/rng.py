"""Random streams for the kernels: splitmix64, with no global state.

Every stream is one ``uint64`` of state in an array, seeded from the
simulation seed and the game, round or seat it serves, so a game replays alone
from ``(seed, game)`` and the deck of a round does not depend on what the
players' random choices consumed.
"""

from __future__ import annotations

import numpy as np

from sim.engine.jit import kernel

# The purposes of the streams: the last argument of :func:`derive_seed`, one
# number per kind of randomness, so that no two streams of one game or trial
# ever share a seed. Every recorded result (benchmarks/result_hashes.json,
# the reports, a user's saved datasets) depends on these numbers: they must
# never change, and a new purpose takes a new number.
STREAM_SEAT_POLICY = 1
"""A seat's random choices in a round of a game: ``derive_seed(seed, game, round * MAX_SEATS + seat, ...)``."""
STREAM_DECK = 2
"""The deck of a round of a game, its shuffle and later reshuffles: ``derive_seed(seed, game, round, ...)``."""
STREAM_ROLLOUT_SEAT_POLICY = 3
"""A seat's random choices in trial ``t`` of a rollout: ``derive_seed(seed, t, seat, ...)``."""
STREAM_ROLLOUT_DECK = 4
"""The reshuffles of the deck in trial ``t`` of a rollout: ``derive_seed(seed, t, 0, ...)``."""
STREAM_ROLLOUT_DEAL = 5
"""The re-deal of what the seat cannot see in trial ``t`` of a belief rollout: ``derive_seed(seed, t, 0, ...)``."""
STREAM_SEARCH = 6
"""The rollouts of a searching seat's ``k``-th searched decision of a game:
``derive_seed(seed, game, k, ...)`` seeds that decision's rollout, whose trials
then use the three rollout purposes above."""
STREAM_HELD_DEAL = 7
"""The cards a condition fixes in a conditioned deal (``sim.deals``): how many copies of each named card each
held hand gets and where the named cards left over go, for the ``k``-th deal of round ``r`` of a game:
``derive_seed(derive_seed(seed, game, r, ...), k, 0, ...)``."""
STREAM_GAME_FUTURE = 8
"""The futures of the game drawn after trial ``t`` of a searching seat's rollout, when it values the game
(``sim.engine.game_value``): ``derive_seed(seed, t, 0, ...)``, the same for every choice of the trial."""
STREAMS = (STREAM_SEAT_POLICY, STREAM_DECK, STREAM_ROLLOUT_SEAT_POLICY, STREAM_ROLLOUT_DECK, STREAM_ROLLOUT_DEAL,
           STREAM_SEARCH, STREAM_HELD_DEAL, STREAM_GAME_FUTURE)
"""Every purpose, each a different number."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@kernel
def mix64(z: np.uint64) -> np.uint64:
    """The splitmix64 finaliser: a bijective scramble of 64 bits."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@kernel
def derive_seed(seed: np.uint64, a: np.int64, b: np.int64, c: np.int64) -> np.uint64:
    """A stream seed for ``(seed, a, b, c)``: e.g. game, round, and ``c`` a purpose (a ``STREAM_*`` number)."""
    z = mix64(np.uint64(seed) + _GOLDEN)
    z = mix64(z ^ (np.uint64(a) + _GOLDEN))
    z = mix64(z ^ (np.uint64(b) * _M1 + _GOLDEN))
    return mix64(z ^ (np.uint64(c) * _M2 + _GOLDEN))


@kernel
def next_u64(state: np.ndarray, i: np.int64) -> np.uint64:
    """Advance stream ``state[i]`` and return 64 random bits."""
    state[i] = state[i] + _GOLDEN
    return mix64(state[i])


@kernel
def below(state: np.ndarray, i: np.int64, n: np.int64) -> np.int64:
    """A uniform integer in ``[0, n)`` from stream ``state[i]`` (n >= 1)."""
    # Multiply-high keeps the bias below 2**-32 for the small n used here.
    r = next_u64(state, i) >> np.uint64(32)
    return np.int64((r * np.uint64(n)) >> np.uint64(32))


@kernel
def uniform(state: np.ndarray, i: np.int64) -> np.float64:
    """A uniform float in ``[0, 1)`` from stream ``state[i]``."""
    return np.float64(next_u64(state, i) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def shuffle(cards: np.ndarray, n: np.int64, state: np.ndarray, i: np.int64) -> None:
    """Fisher-Yates shuffle of ``cards[:n]`` in place."""
    # The draws of :func:`below`, with the stream's state kept in a local:
    # written through the array, it is stored and reloaded at every card,
    # since the compiler cannot tell the two arrays apart.
    z = state[i]
    for k in range(n - 1, 0, -1):
        z = z + _GOLDEN
        r = mix64(z) >> np.uint64(32)
        j = np.int64((r * np.uint64(k + 1)) >> np.uint64(32))
        tmp = cards[k]
        cards[k] = cards[j]
        cards[j] = tmp
    state[i] = z
