"""Plain-language sentences written from findings.

The wording follows the interval: a difference whose 95% interval lies on
one side of zero names the arm that does better; one whose interval holds
zero says there is no measurable difference at this size, never a winner.
"""

from __future__ import annotations

import math

from experiments.findings import Finding

__all__ = ["difference_sentence", "fmt", "game_name", "interval_text", "is_share", "level_sentence", "share_digits", "verdict"]


def is_share(metric: str) -> bool:
    """Whether ``metric`` is a proportion (written as a percentage)."""
    return any(word in metric for word in ("share", "rate", "wins", "won"))


def fmt(metric: str, value: float, signed: bool = False) -> str:
    """``value`` in the unit of ``metric``: percentages for shares, else points or turns."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if math.isinf(value):
        # An unbounded end (a rating whose seat always finishes ahead): the sign a reader knows, not "inf".
        return ("+∞" if signed else "∞") if value > 0 else "−∞"
    if is_share(metric):
        if value == 0:
            return "0pp" if signed else "0%"
        digits = share_digits(value)
        text = f"{100 * value:+.{digits}f}" if signed else f"{100 * value:.{digits}f}"
        return text + ("pp" if signed else "%")
    digits = 1 if abs(value) >= 10 else 2
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


GAME_NAMES = {"rami51": "Rami 51", "contrat": "Rami contrat", "basic": "basic rummy"}


def game_name(ruleset: str) -> str:
    """A preset's name as a player says it ("Rami 51"); a ruleset file's name as given."""
    return GAME_NAMES.get(ruleset, ruleset)


def share_digits(value: float) -> int:
    """Decimals a percentage needs to show two significant digits when below 1% (one decimal above, four at most).

    A blocked rate of 0.02% written "0.0%" reads as never; written "0.020%" it reads as rare.
    """
    percent = abs(100 * value)
    if percent >= 1 or percent == 0:
        return 1
    return min(4, 1 - math.floor(math.log10(percent)))


def interval_text(f: Finding, signed: bool = False) -> str:
    """``"low to high"`` of the finding's 95% bootstrap interval (``"no interval at this size"`` when the
    resamples gave none)."""
    if math.isnan(f.estimate.low) or math.isnan(f.estimate.high):
        return "no interval at this size"
    return f"{fmt(f.metric, f.estimate.low, signed)} to {fmt(f.metric, f.estimate.high, signed)}"


def verdict(f: Finding) -> str:
    """``"higher"``, ``"lower"`` or ``"none"``: where the interval of a difference lies."""
    e = f.estimate
    if e.excludes_zero:
        return "higher" if e.estimate > 0 else "lower"
    return "none"


def difference_sentence(f: Finding, a: str, b: str) -> str:
    """One sentence on the difference ``a − b`` of finding ``f`` and its interval.

    Parameters
    ----------
    f : Finding
        A difference (two arms); ``f.metric`` names the quantity.
    a, b : str
        How the sentence names the two arms.
    """
    e = f.estimate
    where = f" ({f.group})" if f.group else ""
    size = f"{e.clusters:,} {e.unit}s"
    if e.high <= e.low:
        return (f"No measurable difference in {f.metric}{where} between {a} and {b}: "
                f"{fmt(f.metric, e.estimate, True)} in every resampling of the {size} (the quantity took one value "
                "game after game, so the resampling measures no chance variation to compare it with).")
    if verdict(f) == "none":
        return (f"No measurable difference in {f.metric}{where} between {a} and {b}: "
                f"{fmt(f.metric, e.estimate, True)} (95% interval {interval_text(f, True)}, "
                f"which includes zero; {size}).")
    amount = fmt(f.metric, abs(e.estimate)).replace("%", " percentage points")
    direction = "more" if e.estimate > 0 else "fewer"
    if is_share(f.metric):
        direction = "higher" if e.estimate > 0 else "lower"
        head = f"{a[0].upper() + a[1:]}: {f.metric}{where} {amount} {direction} than {b}"
    else:
        head = f"{a[0].upper() + a[1:]} scores {amount} {direction} {f.metric}{where} than {b}"
    judged = ""
    if f.better:
        good = (e.estimate < 0) == (f.better == "lower")
        judged = ": better" if good else ": worse"
    return f"{head}{judged} (95% interval {interval_text(f, True)}; {size})."


def level_sentence(f: Finding, subject: str) -> str:
    """One sentence on a level (one arm): ``subject`` has ``metric`` of ``estimate`` (interval)."""
    e = f.estimate
    where = f" ({f.group})" if f.group else ""
    return (f"{subject[0].upper() + subject[1:]}{where}: {f.metric} {fmt(f.metric, e.estimate)} "
            f"(95% interval {interval_text(f)}; {e.clusters:,} {e.unit}s).")
