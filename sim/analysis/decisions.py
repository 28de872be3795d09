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

from dataclasses import dataclass

__all__ = ["Analysis", "Candidate", "Decision", "MARKS", "MARK_THRESHOLDS", "mark"]

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
    ``None``; ``candidates`` best first.
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
