"""Recompute the reports' headline numbers from ``sim.simulate`` alone, with another seed and code of its own.

An independent check of the committed edition: for each report, its
headline findings are read from ``reports/<experiment>/seed-1/summary.json``
and measured again here, on games played by ``sim.simulate`` at another seed
(11 by default), with this file's own arithmetic (no function of
``experiments/``): points per round as a ratio of sums over games (the
reports' estimand), the share of won rounds among the rounds someone won, a
Kaplan-Meier share opened by a turn, each with a 95% percentile interval
that resamples whole games. Two estimates agree when their difference is
within 1.96 standard errors of a difference (each standard error read from
its interval's width), the test an independent replication passes 95% of
the time.

The forks (lay the joker now, open now) are not recomputed: their headline
is measured at positions of traced games by rollouts, not on whole games
that ``sim.simulate`` plays.

Usage::

    python benchmarks/check_headlines.py                 # 1,500 games per arm, seed 11
    python benchmarks/check_headlines.py --games 400 --seed 12
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

import sim
from sim import rules

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ intervals


def _resample_counts(n_games: int, rng: np.random.Generator, n: int) -> np.ndarray:
    """How often each game is drawn in each of ``n`` resamples, shape (n, games)."""
    return rng.multinomial(n_games, np.full(n_games, 1.0 / n_games), size=n).astype(np.float64)


def ratio(parts: Sequence[tuple[np.ndarray, np.ndarray, float]], rng: np.random.Generator,
          n: int = 1000) -> tuple[float, float, float]:
    """``sum_k sign_k * sum(totals_k) / sum(counts_k)`` over games, with a game-resampled 95% interval.

    Every part holds one value per game of the same games (same order), so a
    difference of two arms is resampled game by game.
    """
    games = parts[0][0].size
    w = _resample_counts(games, rng, n)
    point = sum(sign * t.sum() / c.sum() for t, c, sign in parts)
    draws = sum(sign * (w @ t) / (w @ c) for t, c, sign in parts)
    low, high = np.quantile(draws, [0.025, 0.975])
    return float(point), float(low), float(high)


# ------------------------------------------------------------------ playing


def focal_totals(ruleset, focal: str, others: Sequence[str], games: int, seed: int,
                 value: str = "points") -> tuple[np.ndarray, np.ndarray]:
    """Per game, ``value`` summed over the focal player's rounds and their count, the focal strategy in every seat.

    The focal strategy is played from each seat in turn on the same deals
    (duplicate deals): seat ``k`` in the ``k``-th game of each deal.
    """
    n = len(others) + 1
    totals = np.zeros(games)
    counts = np.zeros(games)
    for k in range(n):
        seated = list(others)
        seated.insert(k, focal)
        df = sim.simulate(ruleset, seated, n_games=games, seed=seed).filter(pl.col("seat") == k)
        per = df.group_by("game").agg(pl.col(value).cast(pl.Float64).sum().alias("t"), pl.len().alias("c")).sort("game")
        totals[per["game"].to_numpy()] += per["t"].to_numpy()
        counts[per["game"].to_numpy()] += per["c"].to_numpy()
    return totals, counts


def table_totals(ruleset, strategies: Sequence[str], games: int, seed: int,
                 value: str = "points") -> tuple[np.ndarray, np.ndarray]:
    """Per game, ``value`` summed over every seat-round and their count."""
    df = sim.simulate(ruleset, list(strategies), n_games=games, seed=seed)
    per = df.group_by("game").agg(pl.col(value).cast(pl.Float64).sum().alias("t"), pl.len().alias("c")).sort("game")
    return per["t"].to_numpy(), per["c"].to_numpy().astype(np.float64)


# ------------------------------------------------------------------ the checks


def _report(name: str, metric: str, arms: Sequence[str], group: str | None = None) -> dict | None:
    path = ROOT / "reports" / name / "seed-1" / "summary.json"
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except OSError:
        return None
    for f in summary["findings"]:
        if f["metric"] == metric and f["arms"] == list(arms) and (group is None or f["group"] == group):
            return f
    return None


def _agree(reported: dict, mine: tuple[float, float, float]) -> tuple[bool, float]:
    se_a = (reported["high"] - reported["low"]) / 3.92
    se_b = (mine[2] - mine[1]) / 3.92
    se = math.hypot(se_a, se_b)
    z = abs(reported["estimate"] - mine[0]) / se if se > 0 else (0.0 if reported["estimate"] == mine[0] else math.inf)
    return z <= 1.96, z


def paired_points(ruleset, focal: str, reference: str, others: Sequence[str], games: int, seed: int, rng):
    ta, ca = focal_totals(ruleset, focal, others, games, seed)
    if reference == others[0] and len(set(others)) == 1:
        tb, cb = table_totals(ruleset, [reference, *others], games, seed)  # every seat plays the reference
    else:
        tb, cb = focal_totals(ruleset, reference, others, games, seed)
    return ratio([(ta, ca, 1.0), (tb, cb, -1.0)], rng)


def won_round_share(game: str, players: int, games: int, seed: int, rng):
    """The first player's share of the rounds someone won, minus 1/players; and the share of rounds nobody won."""
    df = sim.simulate(game, ["greedy"] * players, n_games=games, seed=seed)
    rounds = (df.group_by("game", "round")
              .agg((pl.col("blocked").cast(pl.String) == "none").first().alias("won"),
                   (pl.col("went_out") & (pl.col("seat") == pl.col("first"))).any().alias("first_out"))
              .group_by("game").agg(pl.col("won").sum().alias("won"), pl.col("first_out").sum().alias("first"),
                                    pl.len().alias("rounds"))
              .sort("game"))
    won = rounds["won"].to_numpy().astype(float)
    first = rounds["first"].to_numpy().astype(float)
    n = rounds["rounds"].to_numpy().astype(float)
    share = ratio([(first - won / players, won, 1.0)], rng)
    blocked = ratio([(n - won, n, 1.0)], rng)
    return share, blocked


def opened_by(threshold: int, players: int, turn: int, games: int, seed: int, rng, n: int = 500):
    """Kaplan-Meier share of seat-rounds opened by the seat's own turn ``turn``, games resampled."""
    ruleset = rules.as_ruleset("rami51").replace(open_threshold=threshold)
    df = sim.simulate(ruleset, ["greedy"] * players, n_games=games, seed=seed)
    time_ = np.where(df["opened"].to_numpy(), df["open_turn"].fill_null(0).to_numpy(), df["seat_turns"].to_numpy())
    event = df["opened"].to_numpy()
    game = df["game"].to_numpy()
    horizon = turn
    # Per game and turn t (1..turn): openings at t, and seat-rounds still waiting at t (lasting at least t turns).
    ev = np.zeros((games, horizon))
    risk = np.zeros((games, horizon))
    for t in range(1, horizon + 1):
        ev[:, t - 1] = np.bincount(game[(time_ == t) & event], minlength=games)
        risk[:, t - 1] = np.bincount(game[time_ >= t], minlength=games)

    def share(e: np.ndarray, r: np.ndarray) -> np.ndarray:
        return 1.0 - np.prod(1.0 - np.divide(e, r, out=np.zeros_like(e), where=r > 0), axis=-1)

    point = float(share(ev.sum(axis=0), risk.sum(axis=0)))
    w = _resample_counts(games, rng, n)
    draws = share(w @ ev, w @ risk)
    low, high = np.quantile(draws, [0.025, 0.975])
    return point, float(low), float(high)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1500, help="games per arm (default 1500)")
    parser.add_argument("--seed", type=int, default=11, help="simulation seed, other than the reports' 1 and 2")
    args = parser.parse_args(argv)
    if args.games < 20:
        parser.error(f"--games must be at least 20, got {args.games}")
    n, seed = args.games, args.seed
    rng = np.random.default_rng([seed, 2026])
    g3 = ["greedy"] * 3
    rami51 = "rami51"
    checks = [
        ("waiting_to_open", "points per round", ("wait for 60", "first chance"), None,
         lambda: paired_points(rami51, "greedy:open_extra=9", "greedy", g3, n, seed, rng)),
        ("waiting_to_open", "points per round", ("whole hand", "first chance"), None,
         lambda: paired_points(rami51, "greedy:open_all=1", "greedy", g3, n, seed, rng)),
        ("holding_jokers", "points per round", ("4 players: keeps jokers for the opening",
                                                "4 players: lays jokers at once"), "4 players",
         lambda: paired_points(rami51, "greedy:jokers=1", "greedy", g3, n, seed, rng)),
        ("holding_jokers", "points per round", ("4 players: keeps jokers for a rami sec",
                                                "4 players: lays jokers at once"), "4 players",
         lambda: paired_points(rami51, "greedy:jokers=2", "greedy", g3, n, seed, rng)),
        ("discard_pile", "points per round", ("must_use: never takes", "must_use: takes when it helps"),
         "discard_take = must_use", lambda: paired_points(rami51, "greedy:take=0", "greedy", g3, n, seed, rng)),
        ("may_i", "points per round", ("asks naively (greedy)", "never asks"), None,
         lambda: paired_points("contrat", "greedy:may_i=1", "greedy:may_i=0", g3, n, seed, rng)),
        ("may_i", "points per round", ("asks before its contract only", "never asks"), None,
         lambda: paired_points("contrat", "greedy:may_i=3", "greedy:may_i=0", g3, n, seed, rng)),
        ("expert_vs_greedy", "points per round", ("expert at the table", "greedy in its seat"), None,
         lambda: paired_points(rami51, "expert", "greedy", g3, n, seed, rng)),
    ]
    for variant, knobs in (("threshold 0", {"open_threshold": 0}), ("tierce franche", {"open_needs_natural_run": True})):
        def play(knobs=knobs):
            base = rules.as_ruleset(rami51)
            ta, ca = table_totals(base.replace(**knobs), ["greedy"] * 4, n, seed)
            tb, cb = table_totals(base, ["greedy"] * 4, n, seed)
            return ratio([(ta, ca, 1.0), (tb, cb, -1.0)], rng)
        checks.append(("rule_variants", "points per round", (variant, "standard"), None, play))
    seat_cache: dict = {}

    def seat(game: str, players: int, which: int):
        if (game, players) not in seat_cache:
            seat_cache[(game, players)] = won_round_share(game, players, n, seed, rng)
        return seat_cache[(game, players)][which]

    for game, players in (("contrat", 3), ("rami51", 4), ("basic", 4)):
        arm = f"{game}, {players} players"
        checks.append(("seat_advantage", "share of won rounds above 1/players", (arm,), "first player",
                       lambda g=game, p=players: seat(g, p, 0)))
        checks.append(("seat_advantage", "rounds with no winner", (arm,), "all seats",
                       lambda g=game, p=players: seat(g, p, 1)))
    for turn in (1, 3, 10):
        checks.append(("time_to_open", f"share opened by own turn {turn}", ("threshold 51, 4 players",), None,
                       lambda t=turn: opened_by(51, 4, t, n, seed, rng)))

    print(f"Headlines of reports/ (seed 1) recomputed from sim.simulate at seed {seed}, {n:,} games per arm; "
          "95% intervals resample games.")
    agreed = total = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for name, metric, arms, group, compute in checks:
        reported = _report(name, metric, arms, group)
        label = f"{metric}: {' − '.join(arms)}" + (f" ({group})" if group and group not in arms[0] else "")
        print(f"{name} · {label}")
        if reported is None:
            print("    not in the edition (run `rami report` first)")
            continue
        mine = compute()
        scale = 100.0 if any(w in metric for w in ("share", "rounds with")) else 1.0
        ok, z = _agree(reported, mine)
        agreed += ok
        total += 1

        signed = len(arms) == 2 or " above " in metric
        sign = "+" if signed else ""
        unit = ("pp" if signed else "%") if scale == 100.0 else ""

        def fmt(e: float, lo: float, hi: float) -> str:
            return f"{scale * e:{sign}.2f}{unit} ({scale * lo:{sign}.2f} to {scale * hi:{sign}.2f})"

        print(f"    report {fmt(reported['estimate'], reported['low'], reported['high'])}   "
              f"recomputed {fmt(*mine)}   agree: {'yes' if ok else 'NO'} (z {z:.2f})")
    print(f"{agreed} of {total} headlines agree; {time.perf_counter() - wall:.0f} s wall, "
          f"{time.process_time() - cpu:.0f} CPU seconds. Not recomputed: joker_fork and opening_fork "
          "(positions and rollouts, not whole games).")
    return 0 if agreed == total else 1


if __name__ == "__main__":
    sys.exit(main())
