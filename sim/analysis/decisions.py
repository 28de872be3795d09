"""The analysis of a game's decisions: what was played, what was best, what it cost.

These are the values :func:`sim.analyse` returns and the game page
(:func:`sim.analysis.to_html`) draws. A *decision* is one choice of one seat
at a position of a trace (``sim.Position``): the draw (``take 9♠`` or
``stock``), each laying (``open ...``, ``meld ...``, ``add ...``,
``recover ...``, ``stop``), the discard (the card thrown) and, in Rami
contrat, the answer to "Puis-je ?". Its candidates are the legal choices,
each valued by rollouts on common futures; the *loss* of the played choice
is its paired difference from the best one's points (positive: it cost
points), with a 95% interval over the rollout's trials.

A decision is *marked* only when the loss's interval excludes zero, and then
by the loss itself, as GNU Backgammon marks a move "doubtful", "bad" or
"very bad" by the equity it gave up: the thresholds are in round points
(:data:`MARK_THRESHOLDS`, configurable per analysis).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Analysis", "Candidate", "Decision", "KINDS", "MARKS", "MARK_THRESHOLDS", "mark"]

# The kinds of decision: a turn's own in its order, then "may_i", a seat's answer to "Puis-je ?" after another
# seat's draw from the stock (Rami contrat); the summary lists them in this order.
KINDS = ("draw", "lay", "discard", "may_i")

# The marks, mildest first.
MARKS = ("doubtful", "bad", "very bad")

# The smallest loss, in round points, that earns each mark (when the
# interval excludes zero). A Rami 51 round's points for a hand caught with
# cards run from a few to about a hundred; two points is the price of a
# small card kept too long, ten of a card that let an opponent go out.
MARK_THRESHOLDS: dict[str, float] = {"doubtful": 2.0, "bad": 5.0, "very bad": 10.0}


def mark(loss: float, loss_ci: tuple[float, float], thresholds: dict[str, float] = MARK_THRESHOLDS) -> str | None:
    """The mark a loss earns: ``None`` unless its interval lies wholly above zero, then the worst threshold it reaches."""
    if not loss_ci[0] > 0:
        return None
    earned = None
    for name in MARKS:
        if loss >= thresholds[name]:
            earned = name
    return earned


@dataclass(frozen=True)
class Candidate:
    """One legal choice at a decision, valued by rollouts.

    ``points``: the seat's mean round points after it, with its 95%
    interval; ``loss``: its paired difference from the best choice (0 for
    the best), positive when it costs points, with its interval;
    ``trials``: the trials it was played (fewer when the sequential stop
    dropped it as clearly behind).
    """

    choice: str
    trials: int
    points: float
    points_ci: tuple[float, float]
    loss: float
    loss_ci: tuple[float, float]
    best: bool
    played: bool


@dataclass(frozen=True)
class Decision:
    """One analysed decision of one seat.

    ``event``: the index in the trace of the first event of the decision
    (what ``sim.Position.from_trace(events, event)`` stops at); ``round``,
    ``turn`` (discards before it in the round) and ``seat`` locate it;
    ``kind`` is ``"draw"``, ``"lay"``, ``"discard"`` or ``"may_i"``;
    ``played`` and ``best`` are choice texts (card notation, as
    ``Position.legal_choices()`` writes them); ``loss`` and ``loss_ci``
    those of the played candidate; ``mark`` one of :data:`MARKS` or
    ``None``; ``candidates`` best first; ``position`` the deciding seat's
    view there in the seat view notation (:mod:`sim.seat_view`, what
    ``sim.Position.from_view`` and ``rami advise --position`` read), so that
    a position met in an analysis can be copied out and studied.

    ``listed`` is false for a legal laying of a game record that the engine
    does not list among the seat's choices (:func:`sim.review`): the engine's
    choices are valued as usual, the laying played is the last candidate with
    no trials, and its ``loss`` and ``loss_ci`` are NaN with no mark; the
    summary counts it apart (``unlisted``), in no loss and no error rate.
    """

    event: int
    round: int
    turn: int
    seat: int
    kind: str
    played: str
    best: str
    loss: float
    loss_ci: tuple[float, float]
    mark: str | None
    candidates: tuple[Candidate, ...]
    position: str | None = None
    listed: bool = True


@dataclass(frozen=True)
class Analysis:
    """Every analysed decision of a traced game, with how they were analysed.

    ``events`` is the trace (``docs/trace.md``); ``seats`` the seats
    analysed; ``mode`` ``"belief"`` or ``"clairvoyant"``; ``trials`` the
    most trials a candidate was played; ``seed`` the rollouts' seed;
    ``thresholds`` the marks' thresholds; ``lower_is_better`` whether fewer
    round points are better (every game but basic rummy, whose winner scores).
    """

    events: tuple[dict, ...]
    seats: tuple[int, ...]
    mode: str
    trials: int
    seed: int
    thresholds: dict[str, float]
    lower_is_better: bool
    decisions: tuple[Decision, ...]

    # ------------------------------------------------------------ reading

    def frame(self) -> Any:
        """A polars frame, one row per decision: where it stands, the choices played and best, the loss
        with its interval (``loss_lo``, ``loss_hi``), the mark, how many legal choices it had
        (``choices``; 1: forced), the trials its played choice was rolled out and whether the engine listed
        it (``listed``; an unlisted laying is not valued: its loss is NaN)."""
        import polars as pl

        rows = [{"event": d.event, "round": d.round, "turn": d.turn, "seat": d.seat, "kind": d.kind,
                 "played": d.played, "best": d.best, "loss": d.loss, "loss_lo": d.loss_ci[0],
                 "loss_hi": d.loss_ci[1], "mark": d.mark, "choices": len(d.candidates) - (not d.listed),
                 "trials": next(c.trials for c in d.candidates if c.played), "listed": d.listed}
                for d in self.decisions]
        schema = {"event": pl.Int64, "round": pl.Int64, "turn": pl.Int64, "seat": pl.Int64, "kind": pl.Utf8,
                  "played": pl.Utf8, "best": pl.Utf8, "loss": pl.Float64, "loss_lo": pl.Float64,
                  "loss_hi": pl.Float64, "mark": pl.Utf8, "choices": pl.Int64, "trials": pl.Int64,
                  "listed": pl.Boolean}
        return pl.DataFrame(rows, schema=schema)

    def summary(self) -> Any:
        """A polars frame per seat and kind of decision (and ``"all"``): ``decisions``, ``choices`` (those
        with more than one legal choice), ``loss`` (their total) with ``loss_lo`` and ``loss_hi``,
        ``error_rate`` (mean loss per valued decision) and one count per mark (``doubtful``, ``bad``,
        ``very_bad``), then ``unlisted`` (the layings of a record the engine does not list: no rollout valued
        them, so they are counted in ``decisions`` alone, in no loss and no error rate), seats and kinds in
        order.

        The total's 95% interval is the rollouts' noise: each decision's interval half-width is read as
        1.96 standard errors and the decisions' errors are added as independent (each decision is rolled
        out on trials of its own position). It says how well these decisions of this game were measured,
        not what another game would give; the error rate's interval is the total's over the decisions.
        """
        import polars as pl

        rows = []
        kinds = [k for k in KINDS if any(d.kind == k for d in self.decisions)]
        for seat in self.seats:
            for kind in (*kinds, "all"):
                every = [d for d in self.decisions if d.seat == seat and (kind == "all" or d.kind == kind)]
                mine = [d for d in every if d.listed]
                total = float(sum(d.loss for d in mine))
                # Half-widths of independent normal intervals add in quadrature.
                half = math.sqrt(sum(((d.loss_ci[1] - d.loss_ci[0]) / 2) ** 2 for d in mine))
                row: dict[str, Any] = {"seat": seat, "kind": kind, "decisions": len(every),
                                       "choices": sum(len(d.candidates) > 1 for d in mine),
                                       "loss": total, "loss_lo": total - half, "loss_hi": total + half,
                                       "error_rate": total / len(mine) if mine else 0.0}
                for name in MARKS:
                    row[name.replace(" ", "_")] = sum(d.mark == name for d in mine)
                row["unlisted"] = len(every) - len(mine)
                rows.append(row)
        schema = {"seat": pl.Int64, "kind": pl.Utf8, "decisions": pl.Int64, "choices": pl.Int64,
                  "loss": pl.Float64, "loss_lo": pl.Float64, "loss_hi": pl.Float64, "error_rate": pl.Float64,
                  **{m.replace(" ", "_"): pl.Int64 for m in MARKS}, "unlisted": pl.Int64}
        return pl.DataFrame(rows, schema=schema)

    def to_dict(self, events: bool = False) -> dict[str, Any]:
        """The analysis as plain JSON values: its settings, every decision with its candidates, the summary
        rows; the trace too with ``events``. A number that is not one (the points of a forced decision's
        lone choice, never rolled out) is ``None``."""
        def clean(value: Any) -> Any:
            if isinstance(value, float):
                return value if math.isfinite(value) else None
            if isinstance(value, (list, tuple)):
                return [clean(v) for v in value]
            if isinstance(value, dict):
                return {k: clean(v) for k, v in value.items()}
            return value

        out = {"seats": list(self.seats), "mode": self.mode, "trials": self.trials, "seed": self.seed,
               "thresholds": dict(self.thresholds), "lower_is_better": self.lower_is_better,
               "decisions": [clean(asdict(d)) for d in self.decisions],
               "summary": clean(self.summary().to_dicts())}
        if events:
            out["events"] = [dict(e) for e in self.events]
        return out

    def __str__(self) -> str:
        better = "fewer" if self.lower_is_better else "more"
        thresholds = ", ".join(f"{name} >= {self.thresholds[name]:g}" for name in MARKS)
        lines = [f"Analysis of seat{'s' if len(self.seats) > 1 else ''} {', '.join(map(str, self.seats))} "
                 f"({self.mode}, at most {self.trials} trials per choice, seed {self.seed}; loss in round points "
                 f"given up against the best choice ({better} points are better), 95% interval; marked only when "
                 f"the interval excludes 0: {thresholds})",
                 f"{'event':>6} {'round':>5} {'turn':>4} {'seat':>4}  {'kind':<7} {'played':<34} {'best':<34} "
                 f"{'loss':>6}  {'95% interval':<17} mark"]
        for d in self.decisions:
            if not d.listed:
                loss, ci, best = "", "not listed", d.best
            elif len(d.candidates) < 2:
                loss, ci, best = "", "forced", ""
            else:
                loss, ci = f"{d.loss:6.2f}", f"[{d.loss_ci[0]:+.2f}, {d.loss_ci[1]:+.2f}]"
                best = "=" if d.best == d.played else d.best
            lines.append(f"{d.event:>6} {d.round:>5} {d.turn:>4} {d.seat:>4}  {d.kind:<7} {_cut(d.played):<34} "
                         f"{_cut(best):<34} {loss:>6}  {ci:<17} {d.mark or ''}")
        unlisted = any(not d.listed for d in self.decisions)
        lines.append("")
        lines.append("Per seat and kind (loss: the total, with the 95% interval of the rollouts' noise, the "
                     "decisions' intervals combined as independent; error rate: mean loss per decision, forced "
                     "ones counted as 0" + ("; unlisted: layings played that are not among the engine's choices, "
                                            "not valued by rollouts, in no loss and no error rate" if unlisted else "")
                     + "):")
        lines.append(f"{'seat':>4}  {'kind':<7} {'decisions':>9} {'choices':>7} {'loss':>8} {'95% interval':<19} "
                     f"{'error rate':>10} " + " ".join(f"{m:>9}" for m in MARKS)
                     + (f" {'unlisted':>9}" if unlisted else ""))
        for row in self.summary().iter_rows(named=True):
            ci = f"[{row['loss_lo']:+.2f}, {row['loss_hi']:+.2f}]"
            lines.append(f"{row['seat']:>4}  {row['kind']:<7} {row['decisions']:>9} {row['choices']:>7} "
                         f"{row['loss']:8.2f} {ci:<19} {row['error_rate']:10.3f} "
                         + " ".join(f"{row[m.replace(' ', '_')]:>9}" for m in MARKS)
                         + (f" {row['unlisted']:>9}" if unlisted else ""))
        return "\n".join(lines)


def _cut(text: str, width: int = 34) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
