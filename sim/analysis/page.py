"""The game page: one self-contained HTML file that shows a traced game, and its analysis when there is one.

:func:`to_html` takes an :class:`~sim.analysis.Analysis` or a plain trace
(the events of :func:`sim.play_traced`) and returns the page; :func:`write_html`
writes it. The page needs no network and no server: its style, its script
and its data are inline.

Where every card is at each step is read here, in Python, by the rules
reference (:func:`sim.rules.replay.replay_states`), which also checks the
trace: the page's script only draws the states it is given. Step ``i`` is
the position *after* event ``i``; an analysed decision whose first event is
``e`` is taken at the position before ``e`` (step ``e - 1``), except a
decision that starts at a ``deal`` or a ``restock``, which
``sim.Position.from_trace`` stands after (step ``e``).

:func:`review_html` (and :func:`write_review_html`) gives the page of a
game record's review (:func:`sim.review`): built from the record's views
alone (:func:`sim.game_record.seen_steps`), one step after each line of the
record, it holds the record's seat's own hand, the public events, and the
other hands as sizes only; no hidden card is in the page, since the record
knows none. A reviewed decision, whose ``event`` is the record's line that
answers it, stands at the step before that line.

The HTML comes from Jinja2 templates in ``sim/analysis/templates/``, through
:mod:`sim.markup` (autoescaped): a strategy's name or any other text of the
trace or the record is written as text, never as markup.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim import cards as cardlib
from sim import event_words, markup
from sim.analysis.decisions import MARKS, Analysis, Decision
from sim.game_record import Entry, GameRecord, SeenStep, seen_steps
from sim.modes import BELIEF
from sim.rules.facts import better_points
from sim.rules.replay import TableState, replay_states
from sim.seat_view import read_move

__all__ = ["KIND_WORDS", "MARK_SYMBOLS", "card_tokens", "decision_step", "page_data", "review_html",
           "review_page_data", "to_html", "write_html", "write_review_html"]

# The signs annotated games use beside a move, as GNU Backgammon and chess books do.
MARK_SYMBOLS = {"doubtful": "?!", "bad": "?", "very bad": "??"}

# A decision's kind as the page's headings say it.
KIND_WORDS = {"draw": "draw", "lay": "laying", "discard": "discard", "may_i": "\"Puis-je ?\""}

_SUIT_CLASS = {"♣": "clubs", "♦": "diamonds", "♥": "hearts", "♠": "spades"}

# The timeline's drawing area, in SVG user units.
_WIDTH, _HEIGHT, _MARGIN = 960.0, 170.0, 28.0

# Through the one owner of the pages' markup (sim.markup): autoescaped, so a name from a trace is text.
_ENVIRONMENT = markup.html_templates("sim.analysis")


def card_tokens(text: str) -> list[tuple[str, str]]:
    """``(token, class)`` of each word of a choice or caption: a card's suit class (``"hearts"``,
    ``"joker"``, ...) or ``""`` for a word that is no card."""
    out = []
    for word in text.split(" "):
        if word == "★":
            out.append((word, "card-text joker"))
        elif len(word) >= 2 and word[-1] in _SUIT_CLASS and word[:-1] in {
                "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}:
            out.append((word, "card-text " + _SUIT_CLASS[word[-1]]))
        else:
            out.append((word, ""))
    return out


_ENVIRONMENT.filters["card_tokens"] = card_tokens


def decision_step(events: Sequence[dict[str, Any]], decision: Decision) -> int:
    """The step (an event index) whose state is the position of ``decision`` (see the module's docstring)."""
    if events[decision.event].get("type") in ("deal", "restock"):
        return decision.event
    return decision.event - 1


def _caption(event: dict[str, Any]) -> str:
    """What one event did, as a sentence (cards in notation)."""
    return event_words.sentence(event_words.event_text(event))


def _to_move(events: Sequence[dict[str, Any]], i: int) -> int | None:
    """The seat whose hand the belief view shows at step ``i``: the next seat to act, else the one that acted."""
    if events[i]["type"] == "deal":
        return int(events[i]["first"])
    for j in (i + 1, i):
        if j < len(events) and "seat" in events[j] and events[j].get("round") == events[i].get("round"):
            return int(events[j]["seat"])
    return None


@dataclass(frozen=True)
class _Point:
    """One decision on the timeline, in SVG units."""

    x: float
    y: float
    seat: int
    step: int
    decision: int
    mark: str | None
    title: str


def _timeline(analysis: Analysis, steps: int, step_of: Sequence[int],
              rounds: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """The timeline's geometry: one point per decision (x by step, ``step_of[k]`` decision ``k``'s, y by loss),
    the rounds' boundaries (``(step, round)`` where each begins), one line per seat, and each seat's total loss."""
    top = max([d.loss for d in analysis.decisions if d.listed] + [1.0])
    span = max(steps - 1, 1)

    def x_of(step: int) -> float:
        return round(_MARGIN + (_WIDTH - 2 * _MARGIN) * step / span, 1)

    def y_of(loss: float) -> float:
        return round(_HEIGHT - _MARGIN - (_HEIGHT - 2 * _MARGIN) * max(loss, 0.0) / top, 1)

    points = []
    for k, d in enumerate(analysis.decisions):
        step = step_of[k]
        words = f"seat {d.seat}, round {d.round + 1}, turn {d.turn + 1}: {d.kind} {d.played}, "
        if d.listed:
            words += f"loss {d.loss:.2f} [{d.loss_ci[0]:.2f}, {d.loss_ci[1]:.2f}]"
        else:
            # A laying the engine does not list has no loss: its point lies on the axis.
            words += "not among the engine's choices, not valued"
        points.append(_Point(x_of(step), y_of(d.loss if d.listed else 0.0), d.seat, step, k, d.mark,
                             words + (f" ({d.mark})" if d.mark else "")))
    boundaries = [(x_of(step), number + 1) for step, number in rounds]
    lines = {s: " ".join(f"{p.x},{p.y}" for p in points if p.seat == s) for s in analysis.seats}
    totals = []
    for s in analysis.seats:
        mine = [d for d in analysis.decisions if d.seat == s]
        totals.append({"seat": s, "decisions": len(mine), "loss": sum(d.loss for d in mine if d.listed),
                       "marked": sum(1 for d in mine if d.mark)})
    return {"width": _WIDTH, "height": _HEIGHT, "margin": _MARGIN, "top": top, "zero": y_of(0.0),
            "top_y": y_of(top), "points": points, "rounds": boundaries, "lines": lines, "totals": totals}


def _state_json(state: TableState) -> dict[str, Any]:
    return {"hands": list(state.hands), "table": [[i, cards] for i, cards in state.table],
            "pile": state.pile.split()[-1] if state.pile else "", "pile_size": len(state.pile.split()),
            "stock": state.stock_size, "opened": list(state.opened), "totals": list(state.totals),
            "round": state.round}


def page_data(source: Analysis | Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What the page's script draws, as JSON-ready values: one state per event, and the
    analysed decisions at each step (``{}`` without an analysis; a step may hold two decisions of one
    seat, a laying and the discard that follows it)."""
    analysis = source if isinstance(source, Analysis) else None
    events = list(analysis.events if analysis else source)
    if not events or events[0].get("type") != "game_start":
        raise ValueError("a game page needs a whole trace from sim.play_traced, starting with its game_start event")
    states = replay_states(events)
    steps = []
    for i, (event, state) in enumerate(zip(events, states)):
        steps.append({"event": i, "type": event["type"], "caption": _caption(event), "to_move": _to_move(events, i),
                      **_state_json(state)})
    decisions = {}
    if analysis is not None:
        for k, d in enumerate(analysis.decisions):
            if not 0 < d.event < len(events):
                raise ValueError(f"decision {k} stands at event {d.event}, outside the trace's {len(events)} events")
            step = decision_step(events, d)
            decisions.setdefault(step, []).append({"index": k, "seat": d.seat, "kind": d.kind, "played": d.played,
                                                   "best": d.best, "mark": d.mark})
            steps[step]["to_move"] = d.seat
    return {"players": events[0]["players"], "strategies": list(events[0]["strategies"]), "seat": None,
            "steps": steps, "decisions": decisions,
            "view": BELIEF if analysis is not None and analysis.mode == BELIEF else "all"}


def to_html(source: Analysis | Sequence[dict[str, Any]]) -> str:
    """The game page of an analysis or of a plain trace, as one self-contained HTML document.

    Parameters
    ----------
    source : Analysis or list of dict
        An analysis (its decisions are shown with their candidates and the
        timeline of losses) or the events of :func:`sim.play_traced` (the
        cards and the navigation alone).

    Raises
    ------
    ValueError
        The events are not a whole trace, or a decision lies outside it.
    sim.rules.replay.ReplayError
        The trace breaks a rule: no state is drawn from it.
    """
    analysis = source if isinstance(source, Analysis) else None
    data = page_data(source)
    game = (analysis.events if analysis else list(source))[0]
    better = ("lower" if analysis.lower_is_better else "higher") if analysis else better_points(game["ruleset"]["game"])
    events = analysis.events if analysis else ()
    step_of = [decision_step(events, d) for d in analysis.decisions] if analysis else []
    rounds = [(i, e["round"]) for i, e in enumerate(events) if e["type"] == "deal"]
    return _render(
        data, analysis, step_of, rounds, better,
        title=f"{game['ruleset']['game']} game, seed {game['seed']}, game {game['game']}"
              + (": analysis" if analysis else ""),
        heading=f"{game['ruleset']['game']}, {game['players']} players: {', '.join(game['strategies'])}",
        source=f"Seed {game['seed']}, game {game['game']}.",
        seat_names=list(game["strategies"]),
    )


def _render(data: dict[str, Any], analysis: Analysis | None, step_of: Sequence[int],
            rounds: Sequence[tuple[int, int]], better: str, title: str, heading: str, source: str,
            seat_names: Sequence[str]) -> str:
    """The page of ``data`` (:func:`page_data`'s form) and ``analysis``, its decision ``k`` at step
    ``step_of[k]``, the rounds beginning at the steps of ``rounds``."""
    context = {
        "data": data,
        "analysis": analysis,
        "title": title,
        "heading": heading,
        "source": source,
        "seat_names": list(seat_names),
        "decisions": list(enumerate(analysis.decisions)) if analysis else [],
        "decision_steps": dict(enumerate(step_of)),
        "timeline": _timeline(analysis, len(data["steps"]), step_of, rounds) if analysis and analysis.decisions
        else None,
        "marks": MARKS,
        "kind_words": KIND_WORDS,
        "mark_symbols": MARK_SYMBOLS,
        "better": better,
        "caption": data["steps"][0]["caption"],
    }
    return _ENVIRONMENT.get_template("game.html.j2").render(context)


def write_html(source: Analysis | Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> None:
    """Write :func:`to_html`'s page to ``path`` (UTF-8)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(to_html(source))


# ------------------------------------------------------------------ a record's review


def _notation(text: str) -> str:
    """``text`` with every card written in the lab's notation (a record may write ``7H`` or ``JK``)."""
    words = []
    for word in text.split():
        try:
            cards = cardlib.parse(word)
        except ValueError:
            cards = []
        words.append(cards[0].text() if len(cards) == 1 else word)
    return " ".join(words)


def _record_caption(step: SeenStep, seat: int) -> str:
    """What one line of a record did, as a sentence (cards in notation)."""
    return event_words.sentence(_record_phrase(step, seat))


def _record_phrase(step: SeenStep, seat: int) -> str:
    e = step.entry
    if e is None:
        return event_words.dealt(step.view.round, step.view.mover)
    who = f"seat {e.seat}"
    text = _notation(e.text)
    if e.kind == "drew":
        return event_words.drew(who, text if e.seat == seat else None)
    if e.kind == "took":
        return event_words.took(who, text)
    if e.kind == "asks":
        cards = text.split()
        return event_words.asked(who, cards[0], cards[2] if len(cards) == 3 else None)
    if e.kind in ("open", "meld", "add", "recover"):
        # The laying as the view keeps it (melds written as the table lays them), the turn's last move.
        kind, f = read_move(step.view.moves[-1])
        if kind == "open":
            return event_words.opened(who, f[0])
        if kind == "meld":
            return event_words.laid(who, f[0])
        if kind == "add":
            return event_words.added(who, f[0], f[1], f[2] or "")
        if kind == "recover_meld":
            return event_words.recovered(who, f[0], f[1], f"lays {f[2]}")
        then = f"adds it to meld {f[2]}" + (f" at its {f[3]} end" if f[3] else "")
        return event_words.recovered(who, f[0], f[1], then)
    if e.kind == "threw":
        return event_words.threw(who, text)
    if e.kind == "out":
        return event_words.went_out(who)
    if e.kind == "restock":
        return event_words.restocked()
    if e.kind == "blocked":
        return event_words.blocked(e.text)
    return event_words.round_ended([int(p) for p in e.text.split()], step.view.round, totals=step.totals)


def _seen_json(step: SeenStep, seat: int) -> dict[str, Any]:
    """A step as the page's script draws it: the seat's own hand, every other hand as its size alone."""
    v = step.view
    pile = v.pile.split()
    return {"hands": [v.hand if s == seat else "" for s in range(v.players)], "sizes": list(v.hand_sizes),
            "table": [[i, m.cards] for i, m in enumerate(v.table)], "pile": pile[-1] if pile else "",
            "pile_size": len(pile) + v.pile_unseen, "stock": v.stock,
            "opened": [s in v.opened for s in range(v.players)], "totals": list(step.totals), "round": v.round,
            "line": step.line}


def review_page_data(record: GameRecord, analysis: Analysis | None = None) -> tuple[dict[str, Any], list[int]]:
    """What the review page's script draws (the form of :func:`page_data`, and ``seat``, every step's
    ``sizes`` and ``line``), and the step of each reviewed decision: step 0 is the record's start, then one
    step after each round's deal and after each line; a decision at the step before its line."""
    seat = record.seat
    n = record.ruleset.players
    start = {"event": 0, "type": "start", "caption": f"The record of seat {seat}: {record.ruleset.game} for {n} "
                                                     f"players", "to_move": None,
             "hands": [""] * n, "sizes": [0] * n, "table": [], "pile": "", "pile_size": 0, "stock": 0,
             "opened": [False] * n, "totals": list(record.totals), "round": None, "line": 0}
    steps = [start]
    for k, step in enumerate(seen_steps(record), start=1):
        steps.append({"event": k, "type": "deal" if step.entry is None else step.entry.kind,
                      "caption": _record_caption(step, seat), "to_move": step.view.mover, **_seen_json(step, seat)})
    step_of = []
    decisions: dict[int, list[dict[str, Any]]] = {}
    for k, d in enumerate(analysis.decisions if analysis is not None else ()):
        if d.seat != seat:
            raise ValueError(f"decision {k} is seat {d.seat}'s, not the record's seat {seat}'s")
        before = [i for i, st in enumerate(steps) if 0 < st["line"] < d.event]
        if not before:
            raise ValueError(f"decision {k} stands at line {d.event}, before the record's first round")
        step_of.append(before[-1])
        decisions.setdefault(before[-1], []).append({"index": k, "seat": d.seat, "kind": d.kind,
                                                     "played": d.played, "best": d.best, "mark": d.mark})
    names = ["this record" if s == seat else "" for s in range(n)]
    data = {"players": n, "strategies": names, "seat": seat, "steps": steps, "decisions": decisions,
            "view": "seat"}
    return data, step_of


def review_html(record: GameRecord, analysis: Analysis) -> str:
    """The game page of a record's review (:func:`sim.review`), drawn from the record's views alone (see the
    module's docstring).

    Raises
    ------
    ValueError
        A decision of ``analysis`` is not the record's seat's, or stands outside the record.
    """
    data, step_of = review_page_data(record, analysis)
    rounds = [(i, st["round"]) for i, st in enumerate(data["steps"]) if st["type"] == "deal"]
    seat = record.seat
    game = record.ruleset.game
    n = record.ruleset.players
    return _render(
        data, analysis, step_of, rounds, "lower" if analysis.lower_is_better else "higher",
        title=f"{game} game record of seat {seat}: review",
        heading=f"{game}, {n} players: the record of seat {seat}",
        source=f"A game written down from seat {seat}'s view: its own hand, the public moves, every other hand "
               f"by its size alone.",
        seat_names=data["strategies"],
    )


def write_review_html(record: GameRecord, analysis: Analysis, path: str | os.PathLike[str]) -> None:
    """Write :func:`review_html`'s page to ``path`` (UTF-8)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(review_html(record, analysis))
