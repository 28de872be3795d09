"""Rollouts: what each choice of a position is worth, played out many times on the same futures.

:func:`rollout` plays every candidate choice of a :class:`~sim.position.Position`
and then the rest of the round with the strategies, ``n`` times, and reports
for the deciding seat (the seat asked, at a "Puis-je ?") its mean round
points, how often it goes out, and each choice's difference from the best
with a 95% interval.

Modes. ``"belief"`` (the default) re-deals, at every trial, the cards the
seat cannot see (the other hands and the stock) consistently with what it
saw: the pile, the table, each hand's size, and the cards each other seat is
known to hold (taken from the pile or a joker taken back, and not laid or
thrown since). The value of a choice given what the player knows.
``"clairvoyant"`` keeps the true hidden cards; only the later randomness
varies (reshuffles of the stock, strategies that play at random): what the
choice would really have led to.

Common random numbers. Trial ``t`` of every choice starts from the same
re-deal with the same streams (:mod:`sim.engine.rollout`), so the ``k``-th
card drawn from the stock is the same card whichever choice was played. A
difference between two choices is measured on the same trials (paired), and
its variance is far below that of the values themselves; the result gives
the ratio (:attr:`Rollout.variance_reduction`).

Intervals and stopping. Every interval resamples the trial (a re-deal and a
future), normal-approximation intervals of a mean over trials. With a fixed
``n`` (the default) they are plain 95% intervals. With ``width``, the trials
run in batches and, after batch ``k``, every difference is checked: a choice
whose interval lies wholly on the worse side of zero is dropped (the result
says after how many trials), and the rollout stops once every remaining
difference's interval is narrower than ``width``. So that intervals looked at
after every batch stay valid, look ``k`` spends ``alpha_k = 0.05 * 6 / (pi**2 *
k**2)`` of the error (the ``alpha_k`` sum to 0.05 over all looks, a union
bound; the rule is the engine's, :func:`sim.engine.search.look_alpha`, which a
searching seat's looks read too): the intervals are wider than fixed-``n`` ones, and the chance that any
of them, at any look, misses its true difference stays below 5% per choice.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np

import strategies as strategy_lib
from sim import cards as cardlib
from sim import rules as rules_lib
from sim.checks import ROLLOUT_SEED_MAX, check_seed, check_whole
from sim.engine import rollout as engine_rollout
from sim.engine import search as engine_search
from sim.engine.rng import STREAM_ROLLOUT_DEAL, derive_seed
from sim.engine.state import MAX_CARDS, MAX_SEATS
from sim.intervals import Z95, mean_interval
from sim.modes import BELIEF, CLAIRVOYANT

if TYPE_CHECKING:
    # Only named: a rollout plays on from a position through its public calls (kernel_state, choice_codes,
    # copy), so that the position, which reads the known cards from here, is not imported back at run time.
    from sim.position import Position

__all__ = ["ChoiceValue", "Rollout", "known_cards", "redeal", "rollout"]

_MODES = {BELIEF: engine_rollout.MODE_BELIEF, CLAIRVOYANT: engine_rollout.MODE_CLAIRVOYANT}
_NO_LEAN = np.zeros((0, cardlib.N_CODES), dtype=np.float64)  # re-deals weigh every unseen card alike (no inference)


@dataclass(frozen=True)
class ChoiceValue:
    """One choice's rollout value for the seat to move.

    ``points`` is the mean round points of the seat over ``trials`` trials,
    ``points_ci`` its 95% interval; ``p_out`` how often the seat went out
    (``p_out_ci`` its interval);
    ``diff`` the mean paired difference ``points - points of the best``
    and ``diff_ci`` its interval (``(0, 0)`` for the best itself);
    ``dropped_after`` the trials after which the choice was dropped as
    clearly behind (``None`` if it ran to the end).
    """

    choice: str
    trials: int
    points: float
    points_ci: tuple[float, float]
    p_out: float
    p_out_ci: tuple[float, float]
    diff: float
    diff_ci: tuple[float, float]
    best: bool
    dropped_after: int | None


@dataclass(frozen=True)
class Rollout:
    """The result of :func:`rollout`: one :class:`ChoiceValue` per choice, best first."""

    seat: int
    decision: str
    mode: str
    seed: int
    trials: int
    lower_is_better: bool
    choices: tuple[ChoiceValue, ...]
    variance_reduction: float | None
    method: str
    points: np.ndarray = field(repr=False)  # float64 (choices, trials): the seat's points per trial, NaN: not played

    def to_dict(self) -> dict:
        """The result without the per-trial points, for JSON."""
        return {"seat": self.seat, "decision": self.decision, "mode": self.mode, "seed": self.seed,
                "trials": self.trials, "lower_is_better": self.lower_is_better, "method": self.method,
                "variance_reduction": self.variance_reduction,
                "choices": [dict(c.__dict__) for c in self.choices]}

    def __str__(self) -> str:
        better = "lower" if self.lower_is_better else "higher"
        trial = "a re-deal and a future" if self.mode == BELIEF else "a future of the true deal"
        lines = [f"Rollout of seat {self.seat}'s {self.decision} ({self.mode}, {self.trials} trials, seed {self.seed};"
                 f" round points, {better} is better; 95% intervals over trials, each {trial}; {self.method})"]
        for c in self.choices:
            lo, hi = c.points_ci
            dlo, dhi = c.diff_ci
            diff = "best" if c.best else f"{c.diff:+7.2f} [{dlo:+.2f}, {dhi:+.2f}]"
            dropped = f"  dropped after {c.dropped_after} trials" if c.dropped_after is not None else ""
            plo, phi = c.p_out_ci
            lines.append(f"  {c.choice:<28} {c.points:7.2f} [{lo:.2f}, {hi:.2f}]  out {c.p_out:5.1%} "
                         f"[{plo:.1%}, {phi:.1%}]  {diff}{dropped}")
        if self.variance_reduction is None:
            lines.append("  paired differences: no variance (the trials all played out alike)")
        else:
            lines.append(f"  paired differences: variance {self.variance_reduction:.1f} times smaller than "
                         "for independent trials")
        return "\n".join(lines)


def known_cards(position: Position) -> np.ndarray:
    """``int64 (MAX_SEATS, 53)``: the cards each seat is publicly known to hold.

    A card taken from the pile (a draw or a "Puis-je ?") and a joker taken
    back from the table are known until the seat lays or throws a card of
    that code. The deciding seat's own hand (:attr:`Position.seat`, the seat
    asked at a "Puis-je ?") is not counted (it sees it).

    The rule's reference is the searching round's
    :func:`sim.engine.search.note_public`, which keeps the count from the
    engine's state after every decision; this reads it from the position's
    events instead, and the tests check that both give the same count at
    every decision of many rounds.
    """
    known = np.zeros((MAX_SEATS, cardlib.N_CODES), dtype=np.int64)

    def lose(seat: int, text: str) -> None:
        for c in cardlib.parse(text):
            if known[seat, int(c)] > 0:
                known[seat, int(c)] -= 1

    for e in position.events:
        t, seat = e["type"], e.get("seat")
        if t == "draw" and e["source"] == "discard" or t == "may_i":
            known[seat, int(cardlib.parse(e["card"])[0])] += 1
        elif t == "recover":
            lose(seat, e["card"])
            known[seat, int(cardlib.JOKER)] += 1
        elif t == "open":
            for m in e["melds"]:
                lose(seat, m["cards"])
        elif t == "meld":
            lose(seat, e["cards"])
        elif t in ("add", "discard"):
            lose(seat, e["card"])
    known[position.seat] = 0
    return known


def evidence_counts(position: Position) -> np.ndarray:
    """``float64 (MAX_SEATS, 53)``: what each seat's throws and tops left for the stock said of its hand this round.

    The counts a searching seat with ``infer`` above 0 weighs its re-deals
    by, read from the round's events as its game loop notes them after each
    decision (:func:`sim.engine.search.note_evidence`, the one rule): a
    card thrown counts its partners; a draw from the stock counts the pile
    top's partners when the table saw the top takeable
    (:func:`sim.engine.search.could_take`: a pile, and the seat's opening
    where the pile is taken only after it), then fades the seat's counts.
    """
    from sim.engine import position as engine_position

    evidence = np.zeros((MAX_SEATS, cardlib.N_CODES), dtype=np.float64)
    pile: list[int] = []
    opened: set[int] = set()
    after_opening = position.ruleset.discard_take == "only_after_opening"
    for e in position.events:
        t, seat = e["type"], e.get("seat")
        if t == "deal":
            pile = [int(c) for c in cardlib.parse(e["pile"])]
        elif t == "restock":
            pile = [int(c) for c in cardlib.parse(e["pile"])]
        elif t == "open":
            opened.add(seat)
        elif t == "draw" and e["source"] == "stock":
            takeable = bool(pile) and (not after_opening or seat in opened)
            engine_search.note_evidence(seat, engine_position.PH_DRAW, 0, pile[-1] if pile else -1, takeable, evidence)
        elif (t == "draw" or t == "may_i") and pile:  # a position from a view starts with no pile's history
            pile.pop()
        elif t == "discard":
            engine_search.note_evidence(seat, engine_position.PH_DISCARD, int(cardlib.parse(e["card"])[0]), -1, False,
                                        evidence)
            pile.append(int(cardlib.parse(e["card"])[0]))
    return evidence


def redeal(position: Position, seed: int, trial: int = 0) -> Position:
    """The position as trial ``trial`` of a belief rollout seeded ``seed`` re-deals it.

    The deciding seat (:attr:`Position.seat`) sees exactly what it saw
    (:meth:`Position.observe`); the other hands and the stock are dealt
    again from the cards it cannot see.
    """
    after = position.copy()
    pool = np.zeros(MAX_CARDS, dtype=np.int64)
    # The stream run_trials re-deals trial ``trial`` with, so the position is that trial's.
    rng = np.array([derive_seed(np.uint64(seed), trial, 0, STREAM_ROLLOUT_DEAL)], dtype=np.uint64)
    state = after.kernel_state()
    engine_rollout.redeal(state.rules, state.round, state.g, position.seat, known_cards(position), rng, pool, _NO_LEAN,
                          np.zeros(MAX_CARDS, dtype=np.float64))
    return after


def rollout(
    position: Position,
    choices: Sequence[str] | None = None,
    n: int = 1000,
    mode: str = BELIEF,
    strategies: Sequence[str | strategy_lib.Strategy] | None = None,
    seed: int = 0,
    width: float | None = None,
    batch: int = 100,
    workers: int = 2,
) -> Rollout:
    """Play each choice of ``position`` and the rest of the round out ``n`` times (see the module's docstring).

    Parameters
    ----------
    position : Position
        A position at a decision (``draw``, ``lay`` or ``discard``).
    choices : sequence of str, optional
        The choices to compare (default: every legal choice).
    n : int
        Trials per choice (the most, with ``width``).
    mode : {"belief", "clairvoyant"}
    strategies : sequence, optional
        One strategy per seat for the rest of the round (default: the position's).
    seed : int
        The rollout's seed: trial ``t`` depends on ``(seed, t)`` alone.
    width : float, optional
        Stop once every difference's interval is narrower than this (points),
        dropping choices clearly behind; ``None``: exactly ``n`` trials.
    batch : int
        Trials per look when ``width`` is given.
    workers : int
        Threads playing trials side by side.

    Returns
    -------
    Rollout
    """
    if not all(callable(getattr(position, call, None)) for call in ("kernel_state", "choice_codes", "copy")):
        raise TypeError(f"position must be a sim.Position (e.g. sim.Position.from_trace(events, index)), "
                        f"got {type(position).__name__} {position!r:.60}")
    for name, value in (("choices", choices), ("strategies", strategies)):
        if isinstance(value, str):  # would be read letter by letter
            raise TypeError(f"{name} must be a list, e.g. [{value!r}], not a string")
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(_MODES)}, got {mode!r}")
    check_whole("n", n, 1)
    if width is not None and not (isinstance(width, (int, float)) and width > 0):
        raise ValueError(f"width must be a positive number of points, got {width!r}")
    seed = check_seed(seed, ROLLOUT_SEED_MAX)
    for name, value in (("batch", batch), ("workers", workers)):
        check_whole(name, value, 1)
    if position.decision == "over":
        raise ValueError("the round is over at this position: there is no choice to roll out")
    root = position.with_strategies(strategies) if strategies is not None else position
    legal = root.choice_codes()
    state = root.kernel_state()
    table = dict(reversed(legal))
    wanted = [text for text, _ in legal] if choices is None else list(choices)
    unknown = [c for c in wanted if c not in table]
    if unknown or not wanted:
        raise ValueError(f"not legal here: {', '.join(map(repr, unknown)) or 'no choice given'}; "
                         f"legal: {', '.join(table)}")
    codes = np.array([table[c] for c in wanted], dtype=np.int64)
    k = len(wanted)
    seat = root.seat
    known = known_cards(root) if mode == BELIEF else np.zeros((MAX_SEATS, cardlib.N_CODES), dtype=np.int64)
    points = np.full((k, n), np.nan)
    raw = np.zeros((k, n, MAX_SEATS), dtype=np.int64)
    out = np.zeros((k, n), dtype=np.bool_)
    active = np.ones(k, dtype=np.bool_)
    dropped: list[int | None] = [None] * k
    lower = rules_lib.better_points(root.ruleset.game) == "lower"
    sign = 1.0 if lower else -1.0  # "worse" is a positive signed difference

    def play(t0: int, t1: int) -> None:
        if t1 <= t0:
            return
        engine_rollout.run_trials_for_python(state.rules, state.round, state.g, state.turn, state.kinds, state.params,
                                             seat, known, _NO_LEAN, 0, _MODES[mode], np.uint64(seed), codes,
                                             np.full(k, -1, dtype=np.int64), active.copy(), t0, t1, raw, out)

    def run(t0: int, t1: int) -> None:
        cut = [t0 + (t1 - t0) * i // workers for i in range(workers + 1)]
        if workers > 1 and t1 - t0 >= 2 * workers:
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(lambda i: play(cut[i], cut[i + 1]), range(workers)))
        else:
            play(t0, t1)
        for j in range(k):
            if active[j]:
                points[j, t0:t1] = raw[j, t0:t1, seat]

    done = 0
    look = 0
    z = Z95
    while done < n:
        step = n - done if width is None else min(batch, n - done)
        run(done, done + step)
        done += step
        if width is None:
            break
        look += 1
        z = NormalDist().inv_cdf(1 - engine_search.look_alpha(look) / 2)
        best = _best(points, active, done, lower)
        narrow = True
        for j in range(k):
            if not active[j] or j == best:
                continue
            d = sign * (points[j, :done] - points[best, :done])
            _, lo, hi = mean_interval(d, z)
            if lo > 0:
                active[j] = False
                dropped[j] = done
            elif hi - lo >= width:
                narrow = False
        if narrow:
            break
    method = "fixed n" if width is None else f"stopped at {done} trials; alpha spent over {look} looks"
    return _summarise(root, wanted, points, out, dropped, done, mode, seed, lower, z, method)


def _best(points: np.ndarray, active: np.ndarray, done: int, lower: bool) -> int:
    means = np.where(active, np.nanmean(points[:, :done], axis=1), np.inf if lower else -np.inf)
    return int(np.argmin(means) if lower else np.argmax(means))


def _summarise(root: Position, wanted: list[str], points: np.ndarray, out: np.ndarray, dropped: list[int | None],
               done: int, mode: str, seed: int, lower: bool, z: float, method: str) -> Rollout:
    k = len(wanted)
    active = np.array([d is None for d in dropped])
    best = _best(points, active, done, lower)
    values = []
    independent = paired = 0.0
    for j in range(k):
        trials = dropped[j] or done
        x = points[j, :trials]
        mean, lo, hi = mean_interval(x, z)
        if j == best:
            diff, dci = 0.0, (0.0, 0.0)
        else:
            d = x - points[best, :trials]
            diff, dlo, dhi = mean_interval(d, z)
            dci = (dlo, dhi)
            if trials >= 2:
                independent += float(x.var(ddof=1) + points[best, :trials].var(ddof=1))
                paired += float(d.var(ddof=1))
        p, plo, phi = mean_interval(out[j, :trials].astype(np.float64), z)
        values.append(ChoiceValue(wanted[j], int(trials), mean, (lo, hi), p, (max(plo, 0.0), min(phi, 1.0)), diff,
                                  dci, j == best, dropped[j]))
    values.sort(key=lambda v: (v.dropped_after is not None, v.diff if lower else -v.diff))
    reduction = independent / paired if paired > 0 else None
    return Rollout(seat=root.seat, decision=root.decision, mode=mode, seed=int(seed), trials=int(done),
                   lower_is_better=lower, choices=tuple(values), variance_reduction=reduction, method=method,
                   points=points[:, :done])
