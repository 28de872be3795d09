"""The strength ladder (``experiments.ladder``, ``rami ladder``): real ladders of a few deals.

Small ladders of cheap players (the heuristics and a search of two trials)
in basic rummy and Rami 51: the reference's own figures are 0 by
construction, the results do not depend on the threads or on a resumed
folder, every interval holds its estimate, the rating is the Bradley–Terry
fit counted by hand, and the command keeps the contract of ``docs/cli.md``
(a bad value exits 2 with one line and creates nothing); the ceiling is
refused by every command but the ladder.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

import strategies
from experiments import ladder as ladder_lib
from sim.cli import main

BASIC_PLAYERS = ["random", "greedy", "expert", "search:trials=2"]
RAMI51_PLAYERS = ["random", "expert", "search:trials=2", "ceiling:trials=2"]


@pytest.fixture(scope="module")
def basic():
    """A basic rummy ladder of six deals on one thread."""
    return ladder_lib.ladder(BASIC_PLAYERS, "basic", games=6, seed=3, workers=1, timing_games=0)


@pytest.fixture(scope="module")
def rami51(tmp_path_factory):
    """A Rami 51 ladder of four deals, the ceiling among the players, written to a folder; and its folder."""
    folder = tmp_path_factory.mktemp("ladder") / "rami51"
    return ladder_lib.ladder(RAMI51_PLAYERS, "rami51", games=4, seed=2, workers=2, out=folder, timing_games=0), folder


def _intervals(result: ladder_lib.LadderResult):
    for r in result.rungs:
        yield r.name, "gain", r.gain.estimate, r.gain.low, r.gain.high
        yield r.name, "wins", r.wins.estimate, r.wins.low, r.wins.high
        yield r.name, "ahead", r.ahead.estimate, r.ahead.low, r.ahead.high
        yield r.name, "rating", r.rating, r.rating_low, r.rating_high


@pytest.mark.parametrize("which", ["basic", "rami51"])
def test_the_reference_measured_against_itself_is_exactly_zero(which, basic, rami51):
    result = basic if which == "basic" else rami51[0]
    ref = result.rung("expert")
    assert ref.reference and not ref.ceiling
    assert (ref.gain.estimate, ref.gain.low, ref.gain.high) == (0.0, 0.0, 0.0)
    assert (ref.rating, ref.rating_low, ref.rating_high) == (0.0, 0.0, 0.0)
    # Over a deal's rotations every ordered pair of seats is compared once each way: exactly half won.
    assert ref.ahead.estimate == 0.5 and ref.ahead.low == ref.ahead.high == 0.5
    # The shares of a game's win add up to 1 per rotation, and the focal seat takes every seat once.
    assert ref.wins.estimate == pytest.approx(1 / result.ruleset.players)


@pytest.mark.parametrize("which", ["basic", "rami51"])
def test_every_interval_holds_its_estimate(which, basic, rami51):
    result = basic if which == "basic" else rami51[0]
    for name, what, estimate, low, high in _intervals(result):
        assert low - 1e-9 <= estimate <= high + 1e-9, (name, what, estimate, low, high)
        if what != "rating":
            assert result.rung(name).gain.unit == "deal"


def test_random_is_rated_below_the_expert(basic, rami51):
    for result in (basic, rami51[0]):
        r = result.rung("random")
        assert r.gain.high < 0 and r.rating_high < 0, (result.ruleset.game, r)
        assert [x.name for x in result.players].index("random") > [x.name for x in result.players].index("expert")


def test_the_threads_do_not_change_the_ladder(basic):
    again = ladder_lib.ladder(BASIC_PLAYERS, "basic", games=6, seed=3, workers=2, timing_games=0)
    assert again.table().equals(basic.table())
    assert again.to_dict()["standings"] == basic.to_dict()["standings"]


def test_a_resumed_folder_gives_the_ladder_played_at_once(rami51, tmp_path):
    result, folder = rami51
    grown = tmp_path / "grown"
    ladder_lib.ladder(RAMI51_PLAYERS, "rami51", games=2, seed=2, workers=1, out=grown, timing_games=0)
    calls = []
    resumed = ladder_lib.ladder(RAMI51_PLAYERS, "rami51", games=4, seed=2, workers=1, out=grown, timing_games=0,
                                progress=lambda done, total: calls.append((done, total)))
    assert resumed.table().equals(result.table())
    # The first report counts the games found on disk: the reference's two, then only new deals are played.
    assert calls[0] == (2, 4 * (1 + 4 * 3))
    again = ladder_lib.ladder(RAMI51_PLAYERS, "rami51", games=4, seed=2, workers=1, out=folder, timing_games=0)
    assert again.table().equals(result.table())
    with pytest.raises(ValueError, match="holds a ladder with other settings"):
        ladder_lib.ladder(["random", "greedy"], "rami51", games=2, out=folder, timing_games=0)


def test_the_ceiling_is_labelled_and_ranked_with_no_player(rami51):
    result, _ = rami51
    ceiling = result.rung("ceiling:trials=2")
    assert ceiling.ceiling and "ceiling:trials=2" not in [r.name for r in result.players]
    row = result.table().filter(pl.col("player") == "ceiling:trials=2").row(0, named=True)
    assert row["rank"] is None and row["role"] == "ceiling"
    assert f"ceiling:trials=2: {ladder_lib.CEILING_WORDS}" in str(result)
    assert str(result).splitlines()[2 + [r.name for r in result.rungs].index("ceiling:trials=2")].startswith("-  ")


def test_the_rating_is_the_bradley_terry_fit_counted_by_hand(basic):
    # One player always compared with the reference: the fit is the log odds of its comparisons won.
    fitted = ladder_lib.rating_fit(np.array([3.0, 1.0, 2.0]), np.array([1.0, 3.0, 2.0]))
    assert fitted == pytest.approx([math.log(3), -math.log(3), 0.0], abs=1e-3)
    for r in basic.players:
        if not r.reference:
            share = r.ahead.estimate
            assert r.rating == pytest.approx(math.log(share / (1 - share)), abs=1e-3), r.name


def test_finishes_are_counted_against_every_other_seat():
    # One game, two rotations, three seats; final totals after round 1 (round 0 totals are ignored).
    rows = []
    for rotation, totals in ((0, (10, 20, 10)), (1, (30, 5, 40))):
        for seat, total in enumerate(totals):
            for rnd, t in ((0, 0), (1, total)):
                rows.append({"arm": "a", "game": 0, "rotation": rotation, "seat": seat, "round": rnd, "total": t,
                             "strategy_index": (seat - rotation) % 3})
    frame = pl.DataFrame(rows)
    lower = ladder_lib.finishes(frame, "lower").row(0, named=True)
    # Rotation 0, focal seat 0 (10): ahead of 20, tied with 10 -> 1.5; rotation 1, focal seat 1 (5): ahead of both -> 2.
    assert (lower["total"], lower["count"]) == (3.5, 4)
    higher = ladder_lib.finishes(frame, "higher").row(0, named=True)
    assert (higher["total"], higher["count"]) == (0.5, 4)


def test_the_timing_is_kept_apart_from_the_results(rami51):
    result, folder = rami51
    chosen = [strategies.get(name) for name in RAMI51_PLAYERS]
    result.timing = ladder_lib.measure_cpu(result.ruleset, chosen, strategies.get("expert"), result.frame, 2, 1)
    assert set(result.timing) == set(RAMI51_PLAYERS)
    for t in result.timing.values():
        assert t.cpu_seconds >= 0 and t.turns > 0 and t.games >= 1
    assert result.timing["search:trials=2"].decisions > 0 and result.timing["random"].decisions is None
    assert "cpu" not in " ".join(result.table().columns).lower()
    data = result.to_dict()
    assert {t["name"] for t in data["measured"]["timing"]} == set(RAMI51_PLAYERS)
    json.dumps(data, allow_nan=False)  # plain JSON: an infinite rating is null
    page = result.write(folder)
    assert page.is_file() and (folder / "figures" / "strength.png").is_file()
    assert pl.read_csv(folder / "ladder.csv").height == len(RAMI51_PLAYERS)


# ------------------------------------------------------------------ the command
def _invoke(args: list[str], folder: Path, monkeypatch):
    monkeypatch.chdir(folder)
    return CliRunner().invoke(main, args, env={"RAMI_TRACEBACK": None})


BAD = [
    (["ladder", "random"], "at least 2 players"),
    (["ladder", "random,nope"], "PLAYERS: unknown strategy 'nope'"),
    (["ladder", "random,search:trials=0"], "trials"),
    (["ladder", "random,greedy,random"], "'random' is listed twice"),
    (["ladder", "random,greedy", "--games", "0"], "--games"),
    (["ladder", "random,greedy", "--games", "-5"], "--games"),
    (["ladder", "random,greedy", "--reference", "ceiling"], "--reference 'ceiling'"),
    (["ladder", "random,greedy", "--reference", "nope"], "--reference"),
    (["ladder", "random,greedy", "--out", ""], "--out is empty"),
    (["ladder", "random,greedy", "--rules", "nope"], "--rules"),
    (["compare", "ceiling", "expert"], "A 'ceiling': ceiling sees the hidden cards"),
    (["compare", "expert", "greedy", "--field", "greedy,ceiling:trials=2,greedy"], "--field 'ceiling:trials=2'"),
    (["tournament", "ceiling,expert"], "STRATEGIES 'ceiling': ceiling sees the hidden cards"),
    (["simulate", "--strategies", "ceiling,expert", "--out", "games"], "--strategies 'ceiling'"),
    (["tune", "ceiling", "--param", "trials=2:8"], "START 'ceiling'"),
    (["experiment", "run", "bot_losses", "--set", "strategies=expert,ceiling:trials=2"],
     "--set strategies 'ceiling:trials=2'"),
]


@pytest.mark.parametrize("args,words", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_value_exits_2_with_one_line_and_creates_nothing(args, words, tmp_path, monkeypatch):
    result = _invoke(args + ["--out", "made"] if "--out" not in args else args, tmp_path, monkeypatch)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("Error: ") and words in lines[0], lines
    assert "only `rami ladder` seats it" in lines[0] or args[0] == "ladder"
    assert not list(tmp_path.iterdir()), "a refused command created something"


def test_a_study_seating_the_ceiling_is_refused_before_anything(tmp_path, monkeypatch):
    (tmp_path / "peek.toml").write_text('title = "Peeking"\ngame = "basic"\nplayers = 2\ngames = 10\n'
                                        'quick_games = 4\n[arms]\nfair = ["expert", "greedy"]\n'
                                        'peek = ["ceiling", "greedy"]\n')
    result = _invoke(["study", "peek.toml", "--out", "edition"], tmp_path, monkeypatch)
    assert result.exit_code == 2, result.output
    assert "ceiling sees the hidden cards" in result.output and "rami ladder" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["peek.toml"]


def test_a_foreign_folder_is_refused_and_the_command_writes_its_ladder(tmp_path, monkeypatch):
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine\n")
    refused = _invoke(["ladder", "random,greedy", "--out", "foreign"], tmp_path, monkeypatch)
    assert refused.exit_code == 1 and "not a ladder's" in refused.output
    done = _invoke(["ladder", "random,greedy", "--rules", "basic", "--games", "3", "--out", "mine", "--json",
                    "--quiet", "--timing-games", "0"], tmp_path, monkeypatch)
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert [s["player"] for s in data["standings"]][0] == "expert"
    assert {s["player"] for s in data["standings"]} == {"random", "greedy", "expert"}
    assert all(s["gain"]["deals"] == 3 for s in data["standings"])
    for name in ("ladder.json", "ladder.csv", "result.json", "index.html", "reference", "player-1", "player-2"):
        assert (tmp_path / "mine" / name).exists(), name


def test_the_rows_on_disk_are_the_rows_played_and_give_the_same_ladder(rami51, tmp_path):
    result, folder = rami51
    order = ("arm", "rotation", "game", "round", "seat")
    stored = ladder_lib.stored_rows(folder).sort(order)
    assert stored.equals(result.frame.sort(order))
    # The same games played in memory, on another number of threads, are the very rows written to the folder.
    assert ladder_lib.play(RAMI51_PLAYERS, "rami51", games=4, seed=2, workers=1).sort(order).equals(stored)
    assert ladder_lib.standings(stored, RAMI51_PLAYERS, "rami51", seed=2).table().equals(result.table())
    assert ladder_lib.stored_rows(folder, games=2)["game"].unique().sort().to_list() == [0, 1]
    with pytest.raises(ValueError, match="no ladder"):
        ladder_lib.stored_rows(tmp_path)


def test_each_seat_is_charged_its_share_of_the_clock_counted_by_hand():
    # The searching player's table, one timed deal: 10 turns of its seat, 10 of each expert seat. Rotation 1
    # (another seat's cards) is not the deal that was timed and must not count.
    frame = pl.DataFrame({"arm": ["s"] * 8, "rotation": [0] * 4 + [1] * 4, "game": [0] * 8,
                          "strategy_index": [0, 1, 2, 3, 3, 0, 1, 2], "seat_turns": [10] * 4 + [99] * 4})
    clocked = [ladder_lib.Clocked("expert", True, False, 100, 0.4, 4000, 0),
               ladder_lib.Clocked("s", False, True, 1, 2.0, 0, 50),
               ladder_lib.Clocked("greedy", False, False, 100, 0.2, 8000, 0)]
    assert [ladder_lib.Clocked.from_dict(c.to_dict()) for c in clocked] == clocked
    t = ladder_lib.charge(clocked, frame, 4)
    # The expert's table: 0.4 s over 4000 turns of its four seats, 1e-4 s a turn; each seat a quarter.
    assert (t["expert"].cpu_seconds, t["expert"].turns) == (pytest.approx(0.1), 1000)
    assert t["expert"].per_turn == pytest.approx(1e-4) and t["expert"].decisions is None
    # The search's table: 2 s less the three experts' 30 turns at 1e-4 s, over its own 10 turns and 50 decisions.
    assert (t["s"].cpu_seconds, t["s"].turns, t["s"].decisions) == (pytest.approx(1.997), 10, 50)
    assert t["s"].per_decision == pytest.approx(1.997 / 50)
    assert (t["greedy"].cpu_seconds, t["greedy"].turns, t["greedy"].games) == (pytest.approx(0.05), 2000, 100)
