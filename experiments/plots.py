"""Plots: functions that draw estimates with their 95% intervals and return ``(fig, ax)``.

They never save or show; the report writer does. Figures are made without
pyplot, so no window opens and no global state is touched, whatever the
backend. Every point carries its
interval, and the axis label says what was resampled.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from experiments.stats import Estimate

__all__ = ["budget_plot", "effect_curve", "panel_plot", "heat_map", "interval_plot", "position_plot", "series_plot",
           "strength_cost_plot", "survival_plot"]


def interval_plot(
    labels: Sequence[str],
    estimates: Sequence[Estimate],
    xlabel: str,
    title: str = "",
    reference: float | None = 0.0,
    own_scales: bool = False,
    percent: bool = False,
) -> tuple[Figure, Axes]:
    """One row per estimate: the point and its 95% bootstrap interval.

    Parameters
    ----------
    labels : sequence of str, length n
    estimates : sequence of Estimate, length n
    xlabel : str
        The metric and its unit (wrapped to the figure's width).
    reference : float or None
        A vertical line (zero for differences); None draws none.
    own_scales : bool
        One panel per row, each scaled to its own interval, and the value
        written beside it: for estimates of very different sizes, whose
        intervals would be invisible on one shared scale.
    percent : bool
        Ticks in percent (values are proportions; "pp" for differences).

    Returns
    -------
    (fig, ax) : the figure and its first (or only) axes.
    """
    if len(labels) != len(estimates):
        raise ValueError(f"{len(labels)} labels for {len(estimates)} estimates")
    n = len(labels)
    unit = estimates[0].unit if estimates else "game"
    label = "\n".join(textwrap.wrap(xlabel, 70)) + f"\n(points: estimate; bars: 95% interval, {unit}s resampled)"
    if percent:
        scale = 100.0
        suffix = "pp" if reference is not None else "%"
        ticks = (lambda v, _: f"{100 * v:+.{_tick_digits(estimates)}f}{suffix}") if reference is not None else \
            (lambda v, _: f"{100 * v:.{_tick_digits(estimates)}f}{suffix}")
    else:
        scale, ticks = 1.0, None
    if not own_scales or n <= 1:
        fig = Figure(figsize=(7.0, 0.45 * n + 1.6))
        ax = fig.subplots()
        y = np.arange(n)[::-1]
        est = np.array([e.estimate for e in estimates])
        lo = np.array([e.low for e in estimates])
        hi = np.array([e.high for e in estimates])
        ax.errorbar(est, y, xerr=[est - lo, hi - est], fmt="o", color="#1f4e79", ecolor="#6d8fb3", capsize=3,
                    markersize=4)
        if reference is not None:
            ax.axvline(reference, color="#999999", lw=1, ls="--")
        ax.set_yticks(y, labels)
        ax.set_xlabel(label)
        if ticks is not None:
            ax.xaxis.set_major_formatter(ticks)
        if title:
            ax.set_title(title)
        ax.grid(axis="x", alpha=0.3)
        fig.tight_layout()
        return fig, ax
    fig = Figure(figsize=(8.0, 0.9 * n + 1.8))
    axes = fig.subplots(n, 1)
    for ax, name, e in zip(axes, labels, estimates):
        half = max(e.high - e.low, abs(e.estimate) * 1e-3, 1e-9)
        ax.errorbar([e.estimate], [0], xerr=[[e.estimate - e.low], [e.high - e.estimate]], fmt="o", color="#1f4e79",
                    ecolor="#1f4e79", capsize=5, markersize=5, lw=2)
        ax.set_xlim(e.low - 1.5 * half, e.high + 1.5 * half)
        if reference is not None and e.low - 1.5 * half <= reference <= e.high + 1.5 * half:
            ax.axvline(reference, color="#999999", lw=1, ls="--")
        ax.set_yticks([0], [name])
        text = (f"{scale * e.estimate:+.3g} ({scale * e.low:+.3g} to {scale * e.high:+.3g})" if reference is not None
                else f"{scale * e.estimate:.3g} ({scale * e.low:.3g} to {scale * e.high:.3g})")
        ax.set_title(text + ("pp" if percent and reference is not None else "%" if percent else ""), fontsize=8,
                     loc="right")
        if ticks is not None:
            ax.xaxis.set_major_formatter(ticks)
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(axis="x", labelsize=8)
    # Under the whole figure, not the axes: long row labels leave the axes narrow.
    fig.supxlabel(label + "\n(each row on its own scale)", fontsize=9)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig, axes[0]


def _tick_digits(estimates: Sequence[Estimate]) -> int:
    """Decimals of percent ticks: enough for the widest interval's span to be read (0 to 3)."""
    span = max((abs(e.high) + abs(e.low) for e in estimates), default=1.0) * 100
    if span >= 5:
        return 0
    if span >= 0.5:
        return 1
    return 2 if span >= 0.05 else 3


def series_plot(
    x: Sequence[float],
    series: Mapping[str, Sequence[Estimate]],
    xlabel: str,
    ylabel: str,
    title: str = "",
    reference: float | None = None,
    percent: bool = False,
) -> tuple[Figure, Axes]:
    """One line per series over ``x``, every point with its 95% interval.

    Parameters
    ----------
    x : sequence of float, length n
        The x ticks.
    series : mapping of str to sequence of Estimate, or to (xs, estimates)
        A series on every ``x`` (length n), or on its own ``xs``.
    percent : bool
        Label the y axis in percentage points (values are proportions).
    """
    fig = Figure(figsize=(7.0, 4.2))
    ax = fig.subplots()
    offsets = np.linspace(-0.08, 0.08, max(len(series), 1)) if len(series) > 1 else [0.0]
    unit = "game"
    for shift, (label, points) in zip(offsets, series.items()):
        xs = x
        if isinstance(points, tuple):
            xs, points = points
        if len(points) != len(xs):
            raise ValueError(f"series {label!r} has {len(points)} points for {len(xs)} x values")
        est = np.array([p.estimate for p in points])
        lo = np.array([p.low for p in points])
        hi = np.array([p.high for p in points])
        unit = points[0].unit if points else unit
        ax.errorbar(np.asarray(xs, dtype=float) + shift, est, yerr=[est - lo, hi - est], fmt="o-", capsize=3,
                    markersize=4, label=label)
    if reference is not None:
        ax.axhline(reference, color="#999999", lw=1, ls="--")
    ax.set_xticks(list(x))
    if percent:
        ax.yaxis.set_major_formatter(lambda v, _: f"{100 * v:+.0f}pp")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{ylabel}\n(bars: 95% interval, {unit}s resampled)")
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(series) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig, ax


def position_plot(
    x: np.ndarray,
    values: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    xlabel: str,
    ylabel: str,
    title: str = "",
) -> tuple[Figure, Axes]:
    """One point per position: its value against ``x``, with the 95% interval of its own trials.

    Parameters
    ----------
    x, values, low, high : array of float, shape (n,)
        A position's covariate (cards in hand, opening points), its mean over
        trials and that mean's interval. Points sharing an ``x`` are spread
        sideways a little so that each stays visible.
    """
    x = np.asarray(x, dtype=float)
    if not len(x) == len(values) == len(low) == len(high):
        raise ValueError(f"x, values, low and high must have one entry per position, got {len(x)}, {len(values)}, "
                         f"{len(low)}, {len(high)}")
    values, low, high = (np.asarray(a, dtype=float) for a in (values, low, high))
    spread = np.zeros(len(x))
    for v in np.unique(x):
        at = np.flatnonzero(x == v)
        spread[at] = np.linspace(-0.25, 0.25, len(at)) if len(at) > 1 else 0.0
    fig = Figure(figsize=(7.0, 4.2))
    ax = fig.subplots()
    ax.errorbar(x + spread, values, yerr=[values - low, high - values], fmt="o", color="#1f4e79", ecolor="#b5c7db",
                capsize=2, markersize=3)
    ax.axhline(0.0, color="#999999", lw=1, ls="--")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{ylabel}\n(bars: 95% interval over the position's trials)")
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig, ax


def survival_plot(
    curves: Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    xlabel: str,
    ylabel: str,
    title: str = "",
    unit: str = "game",
) -> tuple[Figure, Axes]:
    """Step curves ``P(time > t)`` for ``t = 1 .. T`` with their 95% bands.

    Parameters
    ----------
    curves : mapping of str to (survival, low, high), arrays of shape (T,)
    """
    fig = Figure(figsize=(7.0, 4.2))
    ax = fig.subplots()
    for label, (s, lo, hi) in curves.items():
        # Everyone is still waiting before the first turn: the curve starts at (0, 1).
        t = np.arange(0, len(s) + 1)
        s, lo, hi = (np.concatenate([[1.0], a]) for a in (s, lo, hi))
        (line,) = ax.step(t, s, where="post", label=label)
        ax.fill_between(t, lo, hi, step="post", alpha=0.2, color=line.get_color())
    ax.axhline(0.5, color="#999999", lw=1, ls=":")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{ylabel}\n(bands: 95% interval, {unit}s resampled)")
    ax.set_ylim(0, 1.02)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig, ax


def effect_curve(
    levels: Sequence[str],
    estimates: Sequence[Estimate],
    xlabel: str,
    ylabel: str,
    title: str = "",
    percent: bool = False,
    reference: float | None = 0.0,
) -> tuple[Figure, Axes]:
    """A response over the levels of one factor: the points joined, and the band of their 95% intervals.

    Parameters
    ----------
    levels : sequence of str, length n
        The factor's levels, in the sweep's order (drawn evenly spaced).
    estimates : sequence of Estimate, length n
    """
    if len(levels) != len(estimates):
        raise ValueError(f"{len(levels)} levels for {len(estimates)} estimates")
    fig = Figure(figsize=(7.0, 4.2))
    ax = fig.subplots()
    x = np.arange(len(levels), dtype=float)
    est = np.array([e.estimate for e in estimates])
    lo = np.array([e.low for e in estimates])
    hi = np.array([e.high for e in estimates])
    ax.fill_between(x, lo, hi, color="#4c72b0", alpha=0.2, lw=0, label="95% interval")
    ax.plot(x, est, "o-", color="#4c72b0", label="estimate")
    if reference is not None:
        ax.axhline(reference, color="#999999", lw=1, ls="--")
    ax.set_xticks(x, list(levels))
    if percent:
        ax.yaxis.set_major_formatter(lambda v, _: f"{100 * v:+.0f}pp")
    unit = estimates[0].unit if estimates else "game"
    ax.set_xlabel(xlabel)
    ax.set_ylabel("\n".join(textwrap.wrap(ylabel, 45)) + f"\n(band: 95% interval, {unit}s resampled)")
    if title:
        ax.set_title("\n".join(textwrap.wrap(title, 70)))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig, ax


def heat_map(
    rows: Sequence[str],
    columns: Sequence[str],
    grid: Sequence[Sequence[Estimate]],
    row_label: str,
    column_label: str,
    value_label: str,
    title: str = "",
    percent: bool = False,
    signed: bool = True,
) -> tuple[Figure, Axes]:
    """A response over a grid of two factors: one coloured cell per pair of levels, its estimate and interval written in.

    Parameters
    ----------
    rows, columns : sequence of str
        The two factors' levels.
    grid : rows x columns Estimates
    signed : bool
        The values are differences: colours diverge from zero and numbers
        carry their sign; otherwise levels, coloured from the smallest to the largest.
    """
    values = np.array([[e.estimate for e in row] for row in grid], dtype=float)
    if values.shape != (len(rows), len(columns)):
        raise ValueError(f"grid of shape {values.shape} for {len(rows)} rows and {len(columns)} columns")
    fig = Figure(figsize=(1.6 + 1.5 * len(columns), 1.4 + 0.8 * len(rows)))
    ax = fig.subplots()
    if signed:
        bound = float(np.nanmax(np.abs(values))) or 1.0
        image = ax.imshow(values, cmap="RdBu_r", vmin=-bound, vmax=bound, aspect="auto")
        middle = 0.0
    else:
        image = ax.imshow(values, cmap="viridis", aspect="auto")
        middle = float(np.nanmean(values))
    scale, suffix = (100.0, "pp" if signed else "%") if percent else (1.0, "")
    sign = "+" if signed else ""
    for i, row in enumerate(grid):
        for j, e in enumerate(row):
            # Dark cells (far from the middle of the scale) get white text.
            far = abs(e.estimate - middle) > 0.5 * (float(np.nanmax(np.abs(values - middle))) or 1.0)
            colour = "white" if (far if signed else e.estimate < middle) else "black"
            ax.text(j, i, f"{scale * e.estimate:{sign}.2f}{suffix}\n[{scale * e.low:{sign}.2f}, "
                          f"{scale * e.high:{sign}.2f}]", ha="center", va="center", fontsize=8, color=colour)
    ax.set_xticks(range(len(columns)), list(columns))
    ax.set_yticks(range(len(rows)), list(rows))
    ax.set_xlabel(column_label)
    ax.set_ylabel(row_label)
    unit = grid[0][0].unit if grid and grid[0] else "game"
    bar = fig.colorbar(image, ax=ax)
    bar.set_label("\n".join(textwrap.wrap(value_label, 40)) + f"\n(cells: estimate [95% interval, {unit}s resampled])",
                  fontsize=8)
    if title:
        ax.set_title("\n".join(textwrap.wrap(title, 60)), fontsize=10)
    fig.tight_layout()
    return fig, ax


def budget_plot(
    budgets: Sequence[int],
    estimates: Sequence[Estimate],
    costs: Sequence[float],
    ylabel: str,
    cost_label: str,
    title: str = "",
) -> tuple[Figure, Axes]:
    """A difference at each budget with its 95% interval, and what each budget costs on a second axis.

    Parameters
    ----------
    budgets : sequence of int, length n
        The budgets (a search's trials), on a log-2 axis.
    estimates : sequence of Estimate, length n
        The difference measured at each budget (left axis, zero marked).
    costs : sequence of float, length n
        What each budget costs (right axis, squares); NaN where unmeasured.

    Returns
    -------
    (fig, ax) : the figure and the left axes; the right one is ``ax.right``.
    """
    if not len(budgets) == len(estimates) == len(costs):
        raise ValueError(f"{len(budgets)} budgets, {len(estimates)} estimates, {len(costs)} costs")
    fig = Figure(figsize=(7.0, 4.2))
    ax = fig.subplots()
    x = np.asarray(budgets, dtype=float)
    est = np.array([e.estimate for e in estimates])
    lo = np.array([e.low for e in estimates])
    hi = np.array([e.high for e in estimates])
    unit = estimates[0].unit if estimates else "game"
    drawn = ax.errorbar(x, est, yerr=[est - lo, hi - est], fmt="o-", capsize=3, markersize=5, color="#1f77b4",
                        label="difference (left axis)")
    ax.axhline(0.0, color="#999999", lw=1, ls="--")
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(x))
    ax.set_xticklabels([str(b) for b in budgets])
    ax.set_xlabel("budget (trials per choice)")
    ax.set_ylabel(f"{ylabel}\n(bars: 95% interval, {unit}s resampled)", color="#1f77b4")
    right = ax.twinx()
    (cost,) = right.plot(x, np.asarray(costs, dtype=float), "s--", color="#d62728", markersize=5,
                         label="cost (right axis)")
    ax.legend(handles=[drawn, cost], fontsize=8, loc="best")
    right.set_ylabel(cost_label, color="#d62728")
    right.set_ylim(bottom=0)
    ax.right = right  # type: ignore[attr-defined]
    if title:
        ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig, ax


def panel_plot(
    panels: Mapping[str, tuple[Sequence[str], Sequence[Estimate]]],
    title: str = "",
    columns: int = 2,
) -> tuple[Figure, Sequence[Axes]]:
    """One panel per measure, on its own scale: a row per level (a strategy) with its 95% interval.

    Parameters
    ----------
    panels : mapping of str to (labels, estimates)
        The measure (the panel's title) and its levels.
    columns : int
        Panels per row.

    Returns
    -------
    (fig, axes) : the figure and its panels, in the order of ``panels``.
    """
    n = len(panels)
    rows = max(1, -(-n // columns))
    fig = Figure(figsize=(4.0 * columns, 2.4 * rows + 0.6))
    axes = np.atleast_1d(fig.subplots(rows, columns)).ravel()
    unit = "game"
    for ax, (name, (labels, estimates)) in zip(axes, panels.items()):
        y = np.arange(len(labels))[::-1]
        est = np.array([e.estimate for e in estimates])
        lo = np.array([e.low for e in estimates])
        hi = np.array([e.high for e in estimates])
        unit = estimates[0].unit if len(estimates) else unit
        ax.errorbar(est, y, xerr=[est - lo, hi - est], fmt="o", color="#1f4e79", ecolor="#6d8fb3", capsize=3,
                    markersize=4)
        ax.set_yticks(y, list(labels))
        ax.set_title("\n".join(textwrap.wrap(name, 40)), fontsize=9)
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(labelsize=8)
    for ax in axes[n:]:
        ax.set_visible(False)
    fig.supxlabel(f"points: estimate; bars: 95% interval, {unit}s resampled (each panel on its own scale)", fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig, list(axes[:n])


def strength_cost_plot(
    labels: Sequence[str],
    estimates: Sequence[Estimate],
    costs: Sequence[float],
    ylabel: str,
    xlabel: str,
    apart: Sequence[bool] | None = None,
    title: str = "",
) -> tuple[Figure, Axes]:
    """Each entry's strength with its 95% interval against what it costs, on a log cost axis.

    Parameters
    ----------
    labels : sequence of str, length n
    estimates : sequence of Estimate, length n
        The strength of each entry (vertical, zero marked).
    costs : sequence of float, length n
        What each costs (horizontal, log scale); an entry whose cost is
        NaN or not positive is left out (the axis cannot place it).
    apart : sequence of bool, length n, optional
        Entries drawn apart (hollow, in another colour), as a bound that is
        no entry of the comparison (a ceiling).

    Returns
    -------
    (fig, ax) : the figure and its axes.
    """
    if not len(labels) == len(estimates) == len(costs):
        raise ValueError(f"{len(labels)} labels, {len(estimates)} estimates, {len(costs)} costs")
    apart = list(apart) if apart is not None else [False] * len(labels)
    fig = Figure(figsize=(7.5, 4.8))
    ax = fig.subplots()
    unit = estimates[0].unit if estimates else "game"
    for name, e, cost, aside in zip(labels, estimates, costs, apart):
        if not (np.isfinite(cost) and cost > 0):
            continue
        colour = "#d62728" if aside else "#1f4e79"
        ax.errorbar([cost], [e.estimate], yerr=[[e.estimate - e.low], [e.high - e.estimate]], fmt="o",
                    color=colour, ecolor=colour, capsize=3, markersize=6, mfc="white" if aside else colour)
        ax.annotate(name, (cost, e.estimate), textcoords="offset points", xytext=(6, 4), fontsize=8, color=colour)
    ax.axhline(0.0, color="#999999", lw=1, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{ylabel}\n(bars: 95% interval, {unit}s resampled)")
    ax.margins(x=0.15)
    if title:
        ax.set_title("\n".join(textwrap.wrap(title, 70)), fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig, ax
