"""A game against the lab with one seat played by a person, one decision at a time.

A :class:`TableGame` deals the rounds of one game of the simulation
(:meth:`sim.Position.game_round`: the very deals ``sim.simulate`` plays
for that seed and game) and drives the position machine decision by
decision: at each decision of the person's seat it waits for a choice, one
of :meth:`sim.Position.legal_choices`; every other seat's decision is its
strategy's (:meth:`sim.Position.step`, a searching seat's rollouts
included). The events the engine writes make up the game's trace
(``docs/trace.md``), server-side only: the record of the person's seat
(:func:`sim.game_record.write_record`), the review (:func:`sim.review`)
and the review's game page come out of it as they do for any game of the
lab.

What the person is shown is the seat's view (:meth:`sim.Position.view`,
the seat view notation of :mod:`sim.seat_view`) and the record's lines
(what that seat saw of each move), never the trace: no card the seat cannot
see leaves this module (``tests/test_play.py`` holds two deals that differ
only in unseen cards to identical answers).

Every change of the game moves its decision counter on; a choice names the
decision it answers, so a stale one (a second click, a reloaded page
answering an old decision) is refused with :class:`PlayError` and changes
nothing.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim import event_words
from sim import rules as rules_lib
from sim.checks import is_whole
from sim.engine.play import MAX_ROUNDS
from sim.game_record import write_record
from sim.position import Position
from sim.seat_view import format_view, rules_of, to_json

__all__ = ["HUMAN", "PlayError", "TableGame", "game_result", "knob_meanings", "say"]

HUMAN = "you"
"""The name the person's seat plays under in the game's header and on the page."""

STAND_IN = "expert"
"""The strategy the engine seats at the person's place. It never chooses there (the person does), but the
searching seats' rollouts play the person's future with it, as they play every seat's with its base."""

ROUND_END = "next round"
"""The one choice at a round's end: the score is shown until the person goes on."""


class PlayError(ValueError):
    """A request the game refuses: ``status`` the HTTP status it answers with (400 a malformed request, 404
    nothing of the kind, 409 a choice that is not the current decision's), ``reason`` in words."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class Frame:
    """One decision played, as the person's seat saw it: ``index`` from 0 in the game, ``seat`` that decided,
    ``lines`` the record's lines it wrote (empty for a pass or a ``stop``), ``text`` those lines in words,
    ``view`` the seat's view after it (the JSON form of :class:`sim.seat_view.SeatView`)."""

    index: int
    seat: int | None
    lines: tuple[str, ...]
    text: tuple[str, ...]
    view: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"index": self.index, "seat": self.seat, "lines": list(self.lines), "text": list(self.text),
                "view": self.view}


# ------------------------------------------------------------------ the rules in words


def knob_meanings() -> dict[str, str]:
    """Each knob's meaning, read off the knob table of :mod:`sim.rules.ruleset`'s docstring (its one owner)."""
    from sim.rules import ruleset as ruleset_module

    meanings: dict[str, str] = {}
    current = None
    for line in (ruleset_module.__doc__ or "").splitlines():
        m = re.match(r"``(\w+)``\s+(.*)$", line)
        if m:
            current = m.group(1)
            meanings[current] = m.group(2).strip()
        elif current and line.startswith(" " * 31) and line.strip():
            meanings[current] += " " + line.strip()
        elif line.startswith("====="):
            current = None
    return {k: v.replace("``", "") for k, v in meanings.items()}


def game_result(r: rules_lib.Ruleset, rounds: int, totals: Sequence[int]) -> tuple[bool, int | None]:
    """``(over, winner)`` after ``rounds`` rounds with ``totals``: the game's end as the engine's game loop and
    the rules reference decide it (a fixed number of rounds, or a total reaching ``game_target`` with a single
    lowest total); ``winner`` ``None`` when the best total is shared."""
    higher = rules_lib.better_points(r.game) == "higher"
    best = max(totals) if higher else min(totals)
    if r.game_rounds > 0:
        over = rounds >= r.game_rounds
    else:
        over = max(totals) >= r.game_target and list(totals).count(best) == 1
    winners = [s for s, t in enumerate(totals) if t == best]
    return over, winners[0] if over and len(winners) == 1 else None


# ------------------------------------------------------------------ a record's line in words


def say(line: str, seat: int) -> str:
    """A line of the record of ``seat`` (:mod:`sim.game_record`'s grammar) in words, for the page's log: the
    person's own moves are "you", every event worded as on every page (:mod:`sim.event_words`)."""
    parts = line.split()
    if not parts:
        return ""
    if parts[0] == "first:":
        return f"Seat {parts[1]} plays first"
    if parts[0] == "hand:":
        return "Your hand: " + " ".join(parts[1:])
    if parts[0] == "pile:":
        return f"The pile starts with {parts[1]}"
    phrase = _line_phrase(parts, seat)
    return line if phrase is None else event_words.sentence(phrase)


def _line_phrase(parts: list[str], seat: int) -> str | None:
    """A record's event line in words (``None`` for a line that is no event)."""
    if parts[0] == "round":
        return event_words.dealt(int(parts[1]), deal=int(parts[3]) if len(parts) > 3 else None)
    if parts[0] == "restock":
        return event_words.restocked()
    if parts[0] == "blocked":
        return event_words.blocked(parts[1])
    if parts[0] == "score:":
        return event_words.round_ended([int(p) for p in parts[1:]])
    if not parts[0].isdigit() or len(parts) < 2:
        return None
    who = event_words.seat_name(int(parts[0]), you=seat)
    verb, rest = parts[1], parts[2:]
    if verb == "drew":
        return event_words.drew(who, rest[0] if rest else None)
    if verb == "took":
        return event_words.took(who, rest[0])
    if verb == "asks":
        return event_words.asked(who, rest[0], rest[2] if len(rest) > 2 else None)
    if verb == "open":
        return event_words.opened(who, " ".join(rest))
    if verb == "meld":
        return event_words.laid(who, " ".join(rest))
    if verb == "add" and len(rest) >= 3 and rest[1] == "to" and rest[2].isdigit():
        return event_words.added(who, rest[0], int(rest[2]), rest[3] if len(rest) > 3 else "")
    if verb == "recover" and len(rest) >= 5 and rest[1] == "from" and rest[2].rstrip(",").isdigit():
        # "recover C from M, meld MELD" or "recover C from M, joker to M2 [end]"
        lay, add = ("lay", "add") if who == event_words.YOU else ("lays", "adds")
        if rest[3] == "meld":
            then = f"{lay} {' '.join(rest[4:])}"
        else:
            then = f"{add} it to meld {rest[5]}" + (f" at its {rest[6]} end" if len(rest) > 6 else "")
        return event_words.recovered(who, rest[0], int(rest[2].rstrip(",")), then)
    if verb == "threw":
        return event_words.threw(who, rest[0])
    if verb == "out":
        return event_words.went_out(who)
    return None


# ------------------------------------------------------------------ the game


class TableGame:
    """One game: the person at ``seat``, ``opponents`` (one strategy per other seat, in seat order) elsewhere.

    Parameters
    ----------
    ruleset : Ruleset
        The rules; its ``players`` are ``len(opponents) + 1``.
    opponents : sequence of str
        The other seats' strategies, in seat order (the person's seat left out).
    seat : int
        The person's seat.
    seed, game : int
        The game of the simulation dealt (:meth:`sim.Position.game_round`). Neither is ever shown to the
        person before the game's end: the two name every card.
    deal : dict, optional
        A scripted first round instead (``{"hands": [...], "pile": ..., "stock": ...}``, as
        :meth:`sim.Position.deal` takes them); the later rounds are the game's own.
    records : Path, optional
        A folder where the record is written at the game's end.
    review_trials, review_width : the review's budget (:func:`sim.review`'s ``trials`` and ``width``).
    """

    def __init__(self, ruleset: rules_lib.Ruleset, opponents: Sequence[str], seat: int = 0, seed: int = 1,
                 game: int = 0, deal: dict[str, Any] | None = None, records: Path | None = None,
                 review_trials: int = 500, review_width: float = 2.0) -> None:
        if len(opponents) + 1 != ruleset.players:
            raise ValueError(f"{len(opponents)} opponents for {ruleset.players} players")
        if not is_whole(seat, 0, ruleset.players - 1):
            raise ValueError(f"seat must be 0 .. {ruleset.players - 1}, got {seat!r}")
        self.ruleset = ruleset
        self.seat = seat
        self.opponents = list(opponents)
        self.table = [*self.opponents[:seat], STAND_IN, *self.opponents[seat:]]
        self.names = [*self.opponents[:seat], HUMAN, *self.opponents[seat:]]
        self.seed = int(seed)
        self.game = int(game)
        self.records = records
        self.review_trials = review_trials
        self.review_width = review_width
        self.lock = threading.RLock()
        self.counter = 0
        self.frames: list[Frame] = []
        self.rounds: list[dict[str, Any]] = []
        self.totals = [0] * ruleset.players
        self.over: dict[str, Any] | None = None
        self.record_text: str | None = None
        self.record_path: Path | None = None
        self.review: dict[str, Any] = {"status": "waiting"}
        self.review_page: str | None = None
        preset, overrides = rules_of(ruleset)
        self.preset, self.overrides = preset, dict(overrides)
        self.events: list[dict[str, Any]] = [{
            "type": "game_start", "players": ruleset.players, "ruleset": ruleset.to_dict(), "strategies": self.names,
            "max_rounds": MAX_ROUNDS, "deterministic": False, "seed": self.seed, "game": self.game}]
        if deal is not None:
            first = Position.deal(ruleset, self.table, deal["hands"], deal["pile"], deal.get("stock", ""),
                                  seed=self.seed, game=self.game)
        else:
            first = Position.game_round(ruleset, self.table, seed=self.seed, game=self.game, round=0)
        self.position = first
        self.mark = 0
        self.round_start = 0
        self._played(None)
        self._play_on()

    # ------------------------------------------------------------ playing

    @property
    def phase(self) -> str:
        """``"play"`` (the person decides), ``"round_over"`` (the round's score is shown) or ``"game_over"``."""
        if self.over is not None:
            return "game_over"
        if self.position.decision == "over":
            return "round_over"
        return "play"

    def choices(self) -> list[str]:
        """The person's legal choices now (none when the game is over)."""
        phase = self.phase
        if phase == "play":
            return self.position.legal_choices()
        return [ROUND_END] if phase == "round_over" else []

    def choose(self, decision: Any, choice: Any) -> None:
        """Play ``choice`` (its index among :meth:`choices`, or its text) at decision ``decision``, then the other
        seats' decisions up to the person's next one or the round's end.

        Raises :class:`PlayError` (and changes nothing) for a decision that is not the current one, a game over,
        or a choice that is not legal.
        """
        with self.lock:
            if not is_whole(decision):
                raise PlayError(400, f"'decision' must be the decision counter, a whole number; got {decision!r}")
            if decision != self.counter:
                raise PlayError(409, f"decision {decision} is not the current one ({self.counter}): the game has "
                                     "moved on; read the state again")
            legal = self.choices()
            if not legal:
                raise PlayError(409, "the game is over: start a new one")
            if not (is_whole(choice) or isinstance(choice, str)):
                raise PlayError(400, f"'choice' must be a choice's id (a whole number) or its text; got {choice!r}")
            if isinstance(choice, int):
                if not 0 <= choice < len(legal):
                    raise PlayError(422, f"choice {choice} is not one of this decision's ids, 0 .. {len(legal) - 1}")
                text = legal[choice]
            else:
                if choice not in legal:
                    raise PlayError(422, f"{choice!r} is not a legal choice here; legal: {', '.join(legal)}")
                text = choice
            if self.phase == "round_over":
                self._next_round()
            else:
                self.position = self.position.apply(text)
                self._played(self.seat)
                self._play_on()
            self.counter += 1

    def _played(self, seat: int | None) -> None:
        """Note the events written since the last note as a frame (the record's lines of the person's seat)."""
        new = self.position.events_after(self.mark)
        self.mark = self.position.event_rows
        self._frame(seat, new)

    def _frame(self, seat: int | None, new: list[dict[str, Any]]) -> None:
        lines: list[str] = []
        if new:
            # The record's own writer says what the seat saw of these events (its header lines dropped).
            lines = [x for x in write_record([self.events[0], *new], self.seat).splitlines()[4:] if x]
        view = self.view = self.position.view(self.seat)
        self.frames.append(Frame(len(self.frames), seat, tuple(lines), tuple(say(x, self.seat) for x in lines),
                                 to_json(view)))

    def _play_on(self) -> None:
        """The other seats' decisions, each a frame, up to the person's next decision or the round's end."""
        while self.position.decision != "over" and self.position.seat != self.seat:
            deciding = self.position.seat
            _, self.position = self.position.step()
            self._played(deciding)
        if self.position.decision == "over":
            self._round_end()

    def _round_end(self) -> None:
        """Score the round (the engine's outcome: a blocked round's event too) and, when the game is decided,
        end it."""
        p = self.position
        outcome = p.play_out()
        n = self.ruleset.players
        points = list(outcome.points)
        self.totals = [t + x for t, x in zip(self.totals, points)]
        opened = [bool(x) for x in p.observe(self.seat).opened_seats[:n]]
        end = {"type": "round_end", "round": p.round, "winner": outcome.winner, "rami_sec": outcome.rami_sec,
               "hands": [p.hand(s) for s in range(n)], "opened": opened, "points": points,
               "totals": list(self.totals)}
        self.events += p.events + list(outcome.events) + [end]
        self._frame(None, [*outcome.events, end])
        self.rounds.append({"round": p.round, "winner": outcome.winner, "blocked": outcome.blocked,
                            "rami_sec": outcome.rami_sec, "points": points, "totals": list(self.totals)})
        over, winner = game_result(self.ruleset, len(self.rounds), self.totals)
        truncated = not over and len(self.rounds) >= MAX_ROUNDS
        if over or truncated:
            self.events.append({"type": "game_end", "rounds": len(self.rounds), "winner": winner,
                                "truncated": truncated, "totals": list(self.totals)})
            self.over = {"winner": winner, "truncated": truncated, "totals": list(self.totals)}
            self.record_text = write_record(self.events, self.seat)
            self._save_record()

    def _next_round(self) -> None:
        self.position = Position.game_round(self.ruleset, self.table, seed=self.seed, game=self.game,
                                            round=len(self.rounds), totals=self.totals)
        self.mark = 0
        self.round_start = len(self.frames)
        self._played(None)
        self._play_on()

    def _save_record(self) -> None:
        if self.records is None or self.record_text is None:
            return
        self.records.mkdir(parents=True, exist_ok=True)
        stem = f"{self.preset}-seed{self.seed}-game{self.game}-seat{self.seat}"
        path = self.records / f"{stem}.txt"
        k = 2
        while path.exists():
            path = self.records / f"{stem}-{k}.txt"
            k += 1
        path.write_text(self.record_text, encoding="utf-8")
        self.record_path = path

    # ------------------------------------------------------------ reading

    def state(self, since: int | None = None) -> dict[str, Any]:
        """What the person's page shows now (``docs/play.md``): the seat's view, its legal choices, the frames
        from ``since`` on (none without it), the round's log, the rounds' scores and, at the end, the result and
        the review."""
        with self.lock:
            r = self.ruleset
            view = self.view  # the seat's view after the last decision, its last frame's
            phase = self.phase
            kinds = {"play": self.position.decision, "round_over": "next_round", "game_over": None}
            log = [{"seat": f.seat, "text": t} for f in self.frames[self.round_start:] for t in f.text]
            out: dict[str, Any] = {
                "decision": self.counter,
                "phase": phase,
                "game": {"rules": self.preset, "overrides": self.overrides, "game": r.game, "players": r.players,
                         "seat": self.seat, "strategies": self.names,
                         "lower_is_better": rules_lib.better_points(r.game) == "lower"},
                "view": to_json(view),
                "to_decide": None,
                "frames": [f.to_dict() for f in self.frames[since:]] if since is not None else [],
                "frame_count": len(self.frames),
                "log": log,
                "rounds": list(self.rounds),
                "totals": list(self.totals),
                "over": self.over,
            }
            if r.game == "contrat":
                deal = rules_lib.contract_deal(view.round)
                sets, runs = r.contract(deal)
                out["contract"] = {"deal": deal, "sets": sets, "runs": runs}
            legal = self.choices()
            if legal:
                out["to_decide"] = {"kind": kinds[phase],
                                    "choices": [{"id": i, "text": t} for i, t in enumerate(legal)]}
            if phase == "play":
                out["position"] = format_view(view)
            if self.over is not None:
                out["review"] = dict(self.review)
                out["record"] = {"url": "/api/record", "saved": str(self.record_path) if self.record_path else None}
            return out

    def rules_text(self) -> dict[str, Any]:
        """The rules in force: the preset, its overrides, and every knob with its value and meaning."""
        meanings = knob_meanings()
        return {"rules": self.preset, "overrides": self.overrides, "game": self.ruleset.game,
                "knobs": [{"knob": k, "value": v, "meaning": meanings.get(k, "")}
                          for k, v in self.ruleset.to_dict().items()]}

    # ------------------------------------------------------------ hint

    def hint_view(self, decision: Any) -> tuple[int, str]:
        """``(decision, position text)`` of the person's current decision, for :func:`sim.advise`; a
        :class:`PlayError` when ``decision`` is not current or the person has nothing to decide."""
        with self.lock:
            if decision is not None and decision != self.counter:
                raise PlayError(409, f"decision {decision} is not the current one ({self.counter})")
            if self.phase != "play":
                raise PlayError(409, "there is no decision of yours to advise now")
            return self.counter, format_view(self.view)

    def hint(self, decision: Any = None) -> dict[str, Any]:
        """The current decision's choices ranked by belief rollouts, as ``rami advise --position`` ranks them
        from the person's view (:func:`sim.advise` with its defaults), each with its choice id."""
        import sim

        counter, text = self.hint_view(decision)
        advice = sim.advise(text)
        ids = {t: i for i, t in enumerate(self.position.legal_choices())} if counter == self.counter else {}
        data = advice.to_dict()
        rollout = data["rollout"]
        for c in rollout["choices"]:
            c["id"] = ids.get(c["choice"])
        return {"decision": counter, "position": data["position"], "strategies": data["strategies"],
                "rollout": rollout}

    # ------------------------------------------------------------ review

    def run_review(self) -> None:
        """Review the person's decisions from the record (:func:`sim.review`) and write the review's game page;
        the outcome goes into :attr:`review` (``status`` ``running``, ``ready`` or ``failed`` with a reason)."""
        import sim
        from sim.analysis.page import review_html
        from sim.game_record import parse_record

        if self.record_text is None:
            return
        self.review = {"status": "running"}
        try:
            record = parse_record(self.record_text)
            analysis = sim.review(record, trials=self.review_trials, width=self.review_width)
            page = review_html(record, analysis)
        except Exception as exc:  # noqa: BLE001 - the page says why the review failed; the game stays
            self.review = {"status": "failed", "reason": f"{type(exc).__name__}: {exc}"}
            return
        summary = analysis.summary().filter(kind="all").to_dicts()
        row = summary[0] if summary else {}
        choices = [d for d in analysis.decisions if len(d.candidates) > 1]
        costliest = sorted((d for d in choices if d.loss > 0), key=lambda d: -d.loss)[:5]
        self.review_page = page
        self.review = {
            "status": "ready", "url": "/review",
            "decisions": len(analysis.decisions), "choices": len(choices),
            "loss": row.get("loss"), "loss_ci": [row.get("loss_lo"), row.get("loss_hi")],
            "error_rate": row.get("error_rate"),
            "marks": {"doubtful": row.get("doubtful", 0), "bad": row.get("bad", 0),
                      "very bad": row.get("very_bad", 0)},
            "costliest": [{"round": d.round, "turn": d.turn, "kind": d.kind, "played": d.played, "best": d.best,
                           "loss": d.loss, "loss_ci": list(d.loss_ci), "mark": d.mark, "line": d.event}
                          for d in costliest],
        }
