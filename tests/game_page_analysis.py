"""A small real analysis for the game page's tests and its screenshot: a traced game, a few of its
decisions, each valued by a real rollout (few trials, so the intervals are wide).

``sim.analyse`` does this for every decision of a game; the page's tests build theirs from the
same public pieces (``sim.play_traced``, ``sim.Position.from_trace``, ``sim.rollout``) so that
they need nothing but the page and the positions.
"""

from __future__ import annotations

import sim
from sim.analysis import MARK_THRESHOLDS, Analysis, Candidate, Decision, mark
from sim.seat_view import format_view

RULESET = "rami51"
STRATEGIES = ("greedy", "expert", "random")
SEED = 3



def pick_events(events: list[dict], wanted: int = 6) -> list[int]:
    """A few decisions of the first round with a choice to make: the random seat's (2) discards,
    where rollouts find losses, and the first draw or laying of any seat with two choices or more."""
    first_round = [i for i, e in enumerate(events) if e.get("round") == 0 and e["type"] != "deal"]
    other = next(i for i in first_round if events[i]["type"] in ("draw", "open", "meld", "add")
                 and events[i - 1]["type"] != "recover" and len(sim.Position.from_trace(events, i).legal_choices()) > 1)
    discards = [i for i in first_round if events[i]["type"] == "discard" and events[i]["seat"] == 2]
    return sorted([other, *discards[: wanted - 1]])


def decision_at(events: list[dict], index: int, n: int, seed: int) -> Decision:
    """Decision ``index`` of ``events``, its candidates valued by a belief rollout of ``n`` trials."""
    position = sim.Position.from_trace(events, index)
    played, _ = position.step()  # the seat's own strategy replays the trace's choice
    rolled = sim.rollout(position, n=n, mode="belief", seed=seed, workers=1)
    sign = 1.0 if rolled.lower_is_better else -1.0
    candidates = []
    for c in rolled.choices:
        lo, hi = sorted((sign * c.diff_ci[0], sign * c.diff_ci[1]))
        candidates.append(Candidate(choice=c.choice, trials=c.trials, points=c.points, points_ci=c.points_ci,
                                    loss=sign * c.diff, loss_ci=(lo, hi), best=c.best, played=c.choice == played))
    mine = next(c for c in candidates if c.played)
    best = next(c for c in candidates if c.best)
    return Decision(event=index, round=position.round, turn=position.turn, seat=position.seat,
                    kind=position.decision, played=played, best=best.choice, loss=mine.loss, loss_ci=mine.loss_ci,
                    mark=mark(mine.loss, mine.loss_ci), candidates=tuple(candidates),
                    position=format_view(position.view()))


def small_analysis(n: int = 40, seed: int = 11, wanted: int = 6) -> Analysis:
    """The analysis of :func:`pick_events`'s decisions of game ``SEED``."""
    events = sim.play_traced(RULESET, list(STRATEGIES), seed=SEED)
    decisions = tuple(decision_at(events, i, n, seed) for i in pick_events(events, wanted))
    return Analysis(events=tuple(events), seats=tuple(sorted({d.seat for d in decisions})), mode="belief",
                    trials=n, seed=seed, thresholds=dict(MARK_THRESHOLDS), lower_is_better=True, decisions=decisions)
