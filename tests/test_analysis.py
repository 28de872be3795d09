"""Game analysis (:mod:`sim.analysis`): the choice played at every decision, losses and marks, the command."""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

import sim
from sim import rules
from sim.analysis import MARK_THRESHOLDS, MARKS, Analysis, Decision
from sim.analysis.analyse import DEFAULT_BATCH, DEFAULT_TRIALS, DEFAULT_WIDTH, analyse, played_choice, walk
from sim.cli import main
from sim.cli import analyse as cli_analyse
from sim.position import Position
from sim.seat_view import format_view


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# ----------------------------------------------------------- the choice played


def _unopenable(stock_exhausted: str) -> rules.Ruleset:
    """Rami 51 for two where nobody opens, so that the stock runs out and is restocked (or the pile flipped)."""
    return rules.as_ruleset("rami51").replace(players=2, open_threshold=120, stock_exhausted=stock_exhausted,
                                              turn_cap=220)


@pytest.mark.parametrize("preset, seating, rounds, games", [
    ("rami51", ["random", "greedy", "expert", "cautious"], 2, 2),
    ("rami51", ["random", "random"], 3, 3),
    ("contrat", ["random", "greedy", "expert"], 2, 2),
    ("basic", ["random", "cautious", "greedy"], 2, 3),
    (_unopenable("flip_no_shuffle"), ["random", "greedy"], 1, 1),
    (_unopenable("turn_once_then_block"), ["random", "greedy"], 1, 1),
])
def test_the_choice_found_at_every_decision_is_legal_and_replays_the_trace(preset, seating, rounds, games):
    checked = 0
    for game in range(games):
        events = sim.play_traced(preset, seating, seed=21, game=game, max_rounds=rounds)
        deal = restocks = 0
        # The steps are checked as the walk yields them: a position holds its round's arrays (more than a
        # megabyte), and a contrat game's hundreds held at once took the suite's memory past a gigabyte.
        k = -1
        for k, step in enumerate(walk(events)):
            p = step.position
            # Every event of every round is accounted for: each is written by one decision's choice, the deal,
            # or the machine between decisions (restocks, going out).
            assert p.decision in ("draw", "lay", "discard", "may_i")
            assert step.played in p.legal_choices()
            deal = max(i for i in range(step.event + 1) if events[i]["type"] == "deal")
            after = p.apply(step.played)
            early = step.event < 300  # the checks that replay the round from its deal, kept to its start
            if early and k % 4 == 0:
                got = after.events
                assert got == events[deal:deal + len(got)], (game, step.event, step.played)
            else:
                # The events the choice adds are the trace's next ones (reading only those keeps this linear).
                # A draw starts at the restock before it, which the position holds already unless the draw
                # itself turns the pile over.
                restocked = events[step.event]["type"] == "restock"
                at = step.event + (restocked and p.ruleset.stock_exhausted != "flip_no_shuffle")
                new = after.events_after(p.event_rows)
                assert (new or step.played in ("stop", "pass")) and new == events[at:at + len(new)], (game, step.event)
            restock = events[step.event]["type"] == "restock"
            restocks += restock
            if early and k % 9 == 0 and step.played not in ("stop", "pass") or restock and restocks <= 2:
                # The decision's event is where Position.from_trace stands at it.
                again = Position.from_trace(events, step.event)
                assert (again.seat, again.decision) == (p.seat, p.decision)
                assert again.legal_choices() == p.legal_choices()
            checked += 1
        assert k >= 0, game
    assert checked > 50


def _cycled() -> list[dict]:
    """Basic rummy for two greedy seats (seed 20, one round): the stock runs out twice and the second turning of
    the pile brings the deterministic seats back to the first one's position, so the round is blocked (``cycle``)
    by a draw from the stock: its events are that seat's ``restock`` and the ``blocked``, and no ``draw``."""
    events = sim.play_traced("basic", ["greedy", "greedy"], seed=20, max_rounds=1)
    assert [e["type"] for e in events[-4:-2]] == ["restock", "blocked"] and events[-3]["reason"] == "cycle"
    return events


def test_a_round_blocked_by_the_turning_of_the_pile_is_walked_to_its_last_decision():
    events = _cycled()
    # Counted as they come, the last one kept: the round's positions held at once took hundreds of megabytes.
    walked, last, seen = 0, None, []
    for last in walk(events):
        walked += 1
        seen.append((last.event, last.position.seat, last.position.decision, last.played))
    # Every decision of the round, as its seats' own strategies step through it from the deal.
    deal = next(i for i, e in enumerate(events) if e["type"] == "deal")
    p, decisions = Position.from_trace(events, deal), 0
    while p.decision != "over":
        decisions += 1
        _, p = p.step()
    assert p.play_out().blocked == "cycle" and walked == decisions
    # The last one is the draw whose turning of the pile stopped the round: "stock", standing at the restock.
    turned = len(events) - 4
    assert (last.event, last.position.decision, last.played) == (turned, "draw", "stock")
    assert played_choice(events, turned, "draw") == "stock"
    assert last.position.legal_choices() == [f"take {events[turned - 1]['card']}", "stock"]
    assert last.position.apply("stock").decision == "over"
    again = Position.from_trace(events, turned)
    assert (again.decision, again.seat, again.legal_choices()) == ("draw", last.position.seat,
                                                                  last.position.legal_choices())
    # The analysis values every decision of both seats, that one too.
    a = analyse(events, trials=2, batch=2, width=None, workers=1)
    assert [(d.event, d.seat, d.kind, d.played) for d in a.decisions] == \
        seen
    assert {c.choice for c in a.decisions[-1].candidates} == {"stock", f"take {events[turned - 1]['card']}"}


def test_puis_je_answers_are_decisions_of_the_asking_seat_with_the_traced_choice():
    # Rami contrat: after each draw from the stock the other seats are asked in turn; greedy asks for a card that
    # completes a meld, random at random. Seat 1's answers come at the others' turns.
    events = sim.play_traced("contrat", ["greedy", "random", "greedy"], seed=4, max_rounds=1)
    a = analyse(events, seats=[1, 2], trials=16, width=None, batch=8)
    asked = [d for d in a.decisions if d.kind == "may_i"]
    assert asked and {d.seat for d in asked} == {1, 2}
    traced = [(i, e) for i, e in enumerate(events) if e["type"] == "may_i" and e["seat"] in (1, 2)]
    asks = [d for d in asked if d.played != "pass"]
    assert [(d.event, d.seat, d.played) for d in asks] == [
        (i, e["seat"], f'ask for {e["card"]} ("Puis-je ?")') for i, e in traced]
    for d in asked:
        choices = {c.choice for c in d.candidates}
        assert len(choices) == 2 and "pass" in choices and d.played in choices and d.best in choices
        assert next(c for c in choices if c != "pass").startswith("ask for ")
        if d.played != "pass":
            again = Position.from_trace(events, d.event)
            assert (again.decision, again.seat, again.legal_choices()[0]) == ("may_i", d.seat, d.played)
    summary = a.summary()
    assert "may_i" in summary["kind"].to_list()
    assert "may_i" in a.frame()["kind"].to_list() and "may_i" in str(a)
    from sim.analysis import to_html

    assert "Puis-je ?" in to_html(a)


def test_a_trace_that_does_not_replay_is_refused():
    events = sim.play_traced("rami51", ["greedy"] * 3, seed=2, max_rounds=1)
    i = next(i for i, e in enumerate(events) if e["type"] == "discard" and i > 20)
    bad = [dict(e) for e in events]
    other = next(c for c in Position.from_trace(events, i).legal_choices() if c != events[i]["card"])
    bad[i]["card"] = other
    with pytest.raises(ValueError, match="cannot be replayed"):
        list(walk(bad))
    with pytest.raises(ValueError, match="not the choice of a lay"):
        played_choice(events, 0, "lay")


# --------------------------------------------------------- losses and marks

H0 = "7♣ 8♣ 9♣ 10♣ J♣ Q♣ K♣ 5♥ 5♦ 5♠ 2♥ 3♥ 4♥"
H1 = "Q♦ K♦ A♦ J♠ Q♠ K♠ 10♥ 10♣ 10♠ 2♦ 3♦ 4♦ 8♥"


def _scripted_trace(discard: str) -> list[dict]:
    """A round of two greedy seats where seat 0, whose hand lacks one card to go out, draws it (K♠), waits,
    and throws ``discard``: K♠ lets it go out next turn, 10♣ breaks its run and leaves the round to seat 1."""
    p = Position.deal("rami51", ["greedy", "greedy"], [H0, H1], pile="9♦", stock="K♠")
    after = p.apply("stock").apply("stop").apply(discard)
    head = {"type": "game_start", "players": 2, "ruleset": p.ruleset.to_dict(), "strategies": ["greedy", "greedy"],
            "max_rounds": 1, "deterministic": False, "seed": 0, "game": 0}
    return [head, *after.events, *after.play_out().events]


@pytest.fixture(scope="module")
def blunder() -> Analysis:
    return analyse(_scripted_trace("10♣"), seats=[0], trials=40, mode="clairvoyant")


def test_a_clearly_bad_discard_is_marked_with_a_positive_loss(blunder):
    d = next(d for d in blunder.decisions if d.kind == "discard")
    assert d.played == "10♣" and d.event == 3 and d.round == 0 and d.seat == 0
    # In the true deal seat 0 goes out next turn unless it breaks its hand: 10♣ costs its 10 points.
    assert d.loss == pytest.approx(10.0) and d.loss_ci[0] > 0 and d.mark == "very bad"
    assert d.best != d.played and next(c for c in d.candidates if c.best).loss == 0
    assert [c.choice for c in d.candidates if c.played] == ["10♣"]
    assert all(c.loss >= 0 for c in d.candidates)


def test_a_decision_is_rolled_out_again_from_its_event_with_the_analysis_seed():
    events = sim.play_traced("rami51", ["expert", "greedy", "cautious"], seed=8, max_rounds=1)
    a = analyse(events, seats=[2], trials=60, seed=3)
    chosen = [d for d in a.decisions if len(d.candidates) > 1 and d.played != "stop"]
    assert chosen
    for d in chosen[:3]:
        again = sim.rollout(Position.from_trace(events, d.event), n=a.trials, mode=a.mode, seed=a.seed,
                            width=DEFAULT_WIDTH, batch=DEFAULT_BATCH)
        assert [(c.choice, c.trials, c.points) for c in again.choices] == \
            [(c.choice, c.trials, c.points) for c in d.candidates]


def test_a_forced_decision_costs_nothing_and_is_never_marked(blunder):
    draw = blunder.decisions[0]
    assert (draw.kind, draw.played, len(draw.candidates)) == ("draw", "stock", 1)
    assert draw.loss == 0 and draw.loss_ci == (0.0, 0.0) and draw.mark is None and draw.best == "stock"
    assert draw.candidates[0].trials == 0 and math.isnan(draw.candidates[0].points)


def test_the_best_choice_played_has_no_loss():
    a = analyse(_scripted_trace("K♠"), seats=[0], trials=40, mode="clairvoyant")
    d = next(d for d in a.decisions if d.kind == "discard")
    assert d.played == "K♠" and d.loss == 0 and d.mark is None


def test_marks_follow_their_thresholds(blunder):
    raised = analyse(blunder.events, seats=[0], trials=40, mode="clairvoyant", thresholds={"very bad": 11})
    d = next(d for d in raised.decisions if d.kind == "discard")
    assert d.mark == "bad" and raised.thresholds == {"doubtful": 2.0, "bad": 5.0, "very bad": 11.0}


def test_in_basic_rummy_a_loss_is_still_positive_when_it_cost_points():
    events = sim.play_traced("basic", ["random", "greedy"], seed=4, max_rounds=1)
    a = analyse(events, seats=[0], trials=60, width=None)
    assert not a.lower_is_better
    for d in a.decisions:
        for c in d.candidates:
            if c.trials and not c.best:
                best = next(b for b in d.candidates if b.best)
                # Points are the winner's gain here: giving some up is a positive loss.
                assert c.loss == pytest.approx(best.points - c.points, abs=1e-9) or c.trials < best.trials
                assert c.loss_ci[0] <= c.loss <= c.loss_ci[1]


def test_the_figures_do_not_depend_on_the_threads():
    events = sim.play_traced("rami51", ["expert", "greedy", "cautious"], seed=8, max_rounds=1)
    one = analyse(events, seats=[1], trials=60, workers=1, seed=5)
    two = analyse(events, seats=[1], trials=60, workers=2, seed=5)
    assert one.to_dict() == two.to_dict()
    assert one.frame().equals(two.frame())


def test_bad_arguments_are_refused_with_what_is_allowed():
    events = sim.play_traced("rami51", ["greedy"] * 2, seed=1, max_rounds=1)
    for kwargs, match in [({"seats": [2]}, "seat 2 is out of range"), ({"seats": ["a"]}, "whole numbers"),
                          ({"seats": []}, "seats must be"), ({"trials": 0}, "trials must be"),
                          ({"trials": 2.5}, "trials must be"), ({"mode": "psychic"}, "mode must be"),
                          ({"thresholds": {"awful": 3}}, "unknown mark"), ({"width": 0}, "width must be"),
                          ({"thresholds": {"bad": 1}}, "grow with the mark"), ({"workers": 0}, "workers must be")]:
        with pytest.raises(ValueError, match=match):
            analyse(events, **kwargs)
    for bad in ([], [{"type": "deal"}], "game"):
        with pytest.raises(ValueError, match="whole trace"):
            analyse(bad)


def test_frame_summary_and_json_shape(blunder):
    frame = blunder.frame()
    assert frame.height == len(blunder.decisions)
    assert frame.columns == ["event", "round", "turn", "seat", "kind", "played", "best", "loss", "loss_lo",
                             "loss_hi", "mark", "choices", "trials", "listed"]
    summary = blunder.summary()
    assert summary.columns == ["seat", "kind", "decisions", "choices", "loss", "loss_lo", "loss_hi", "error_rate",
                               "doubtful", "bad", "very_bad", "unlisted"]
    whole = summary.filter(pl.col("kind") == "all").row(0, named=True)
    assert whole["decisions"] == frame.height and whole["very_bad"] >= 1
    assert whole["error_rate"] == pytest.approx(frame["loss"].mean())
    # The total's interval: the decisions' half-widths added in quadrature around the total.
    half = float((((frame["loss_hi"] - frame["loss_lo"]) / 2) ** 2).sum()) ** 0.5
    assert (whole["loss_lo"], whole["loss_hi"]) == pytest.approx((whole["loss"] - half, whole["loss"] + half))
    for kind in summary.filter(pl.col("kind") != "all").iter_rows(named=True):
        mine = frame.filter(pl.col("kind") == kind["kind"])
        if mine.height == 1:  # one decision: its own interval
            assert (kind["loss_lo"], kind["loss_hi"]) == pytest.approx((mine["loss_lo"][0], mine["loss_hi"][0]))
    data = json.loads(json.dumps(blunder.to_dict(), allow_nan=False))
    assert set(data) == {"seats", "mode", "trials", "seed", "thresholds", "lower_is_better", "decisions", "summary"}
    d = data["decisions"][0]
    assert set(d) == {f.name for f in Decision.__dataclass_fields__.values()}
    assert d["candidates"][0]["points"] is None  # a forced decision's lone choice was never rolled out
    assert "events" in blunder.to_dict(events=True)
    text = str(blunder)
    assert "very bad" in text and "Per seat and kind" in text and "10♣" in text
    assert set(MARKS) == {"doubtful", "bad", "very bad"}


# --------------------------------------------------------------- the command


def test_sim_analyse_is_the_analysis():
    assert sim.analyse is analyse and sim.analysis.analyse is analyse


def test_the_command_defaults_are_the_librarys():
    assert (cli_analyse.DEFAULT_TRIALS, cli_analyse.DEFAULT_WIDTH) == (DEFAULT_TRIALS, DEFAULT_WIDTH)
    assert cli_analyse.MARK_NAMES == MARKS and cli_analyse.DEFAULT_MARKS == MARK_THRESHOLDS


def test_rami_analyse_prints_every_decision_of_a_seat_and_its_error_rate(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["analyse", "--strategies", "expert,greedy,cautious", "--seed", "3", "--max-rounds", "1", "--seats", "1",
            "--trials", "50"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "Per seat and kind" in result.output and "error rate" in result.output
    events = sim.play_traced("rami51", ["expert", "greedy", "cautious"], seed=3, max_rounds=1)
    mine = [s for s in walk(events) if s.position.seat == 1]
    body = result.output.split("Per seat and kind")[0]
    assert sum(1 for line in body.splitlines() if line[:6].strip().isdigit()) == len(mine)
    # --json, and the same game read back from a trace file as `rami advise --json` writes it.
    listed = CliRunner().invoke(main, ["advise", "--strategies", "expert,greedy,cautious", "--seed", "3",
                                       "--max-rounds", "1", "--json"])
    (tmp_path / "game.json").write_text(listed.output, encoding="utf-8")
    from_file = CliRunner().invoke(main, ["analyse", "--trace", "game.json", "--seats", "1", "--trials", "50",
                                          "--json"])
    assert from_file.exit_code == 0, from_file.output
    data = json.loads(from_file.output)
    assert data["seats"] == [1] and len(data["decisions"]) == len(mine)
    direct = json.loads(CliRunner().invoke(main, [*args, "--json"]).output)
    assert direct == data
    # Each decision's position, in the seat view notation, is the seat's view there: read back, it stands at that
    # decision with the very choices the analysis weighed.
    for d, step in zip(data["decisions"], mine):
        typed = sim.Position.from_view(d["position"])
        assert d["position"] == format_view(step.position.view())
        assert (typed.seat, typed.decision, typed.turn) == (1, d["kind"], d["turn"])
        assert sorted(typed.legal_choices()) == sorted(step.position.legal_choices())
        assert {c["choice"] for c in d["candidates"]} <= set(typed.legal_choices())
    assert _tree(tmp_path) == ["game.json"]


@pytest.mark.parametrize("args, needles", [
    (["--seats", "4"], ["--seats '4'", "out of range", "0 to 3"]),
    (["--seats", "a"], ["--seats 'a'", "not a seat number"]),
    (["--seats", ""], ["--seats ''"]),
    (["--seats", "0,,1"], ["--seats '0,,1'"]),
    (["--trials", "0"], ["--trials"]),
    (["--trials", "x"], ["--trials"]),
    (["--width", "0"], ["--width"]),
    (["--width", "nan"], ["--width", "not a finite number"]),
    (["--mode", "both"], ["--mode", "'both'"]),
    (["--mode", "psychic"], ["--mode", "'psychic'"]),
    (["--mark", "awful=3"], ["--mark 'awful=3'"]),
    (["--mark", "bad=x"], ["--mark 'bad=x'", "not a number"]),
    (["--mark", "bad=1"], ["--mark", "grow with the mark"]),
    (["--workers", "0"], ["--workers"]),
    (["--rollout-seed", str(2**63)], ["--rollout-seed"]),
    (["--strategies", "greedy,genius"], ["--strategies", "'genius'"]),
    (["--trace", "missing.json"], ["--trace", "missing.json"]),
    (["--trace", "empty.json"], ["--trace 'empty.json'", "empty"]),
    (["--trace", "cut.json"], ["--trace 'cut.json'", "not JSON"]),
    (["--trace", "other.json"], ["--trace 'other.json'", "not a trace"]),
    (["--trace", "headless.json"], ["--trace 'headless.json'", "game_start"]),
    (["--trace", "cut.json", "--seed", "3"], ["--trace names its game", "--seed"]),
])
def test_rami_analyse_refuses_bad_values_with_exit_2_and_creates_nothing(tmp_path, monkeypatch, args, needles):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.json").write_text("", encoding="utf-8")
    (tmp_path / "cut.json").write_text('[{"type": "game_start", "play', encoding="utf-8")
    (tmp_path / "other.json").write_text('{"type": "game_start"}', encoding="utf-8")
    (tmp_path / "headless.json").write_text('[{"type": "deal"}]', encoding="utf-8")
    before = _tree(tmp_path)
    result = CliRunner().invoke(main, ["analyse", "--max-rounds", "1", *args] if "--trace" not in args
                                else ["analyse", *args])
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert _tree(tmp_path) == before


def test_the_summarys_interval_adds_the_decisions_half_widths_in_quadrature():
    from sim.analysis import MARK_THRESHOLDS, Analysis, Candidate, Decision

    def decision(event, kind, loss, half):
        ci = (loss - half, loss + half)
        played = Candidate("a", 10, 5.0, (4.0, 6.0), loss, ci, loss == 0, True)
        best = Candidate("b", 10, 5.0 - loss, (4.0, 6.0), 0.0, (0.0, 0.0), True, False)
        return Decision(event, 0, event, 0, kind, "a", "b", loss, ci, None, (best, played))

    analysis = Analysis((), (0,), "belief", 10, 0, dict(MARK_THRESHOLDS), True,
                        (decision(1, "draw", 3.0, 3.0), decision(2, "discard", 1.0, 4.0), decision(3, "discard", 0.0, 0.0)))
    rows = {r["kind"]: r for r in analysis.summary().iter_rows(named=True)}
    assert (rows["draw"]["loss_lo"], rows["draw"]["loss_hi"]) == pytest.approx((0.0, 6.0))
    assert (rows["discard"]["loss_lo"], rows["discard"]["loss_hi"]) == pytest.approx((-3.0, 5.0))
    assert (rows["all"]["loss"], rows["all"]["loss_lo"], rows["all"]["loss_hi"]) == pytest.approx((4.0, -1.0, 9.0))
    assert rows["all"]["error_rate"] == pytest.approx(4.0 / 3)
    assert "[-1.00, +9.00]" in str(analysis)
