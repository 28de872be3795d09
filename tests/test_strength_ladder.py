"""The strength_ladder experiment: a tiny run of the three ladders, its findings against the stored rows, its page.

One run of two deals per game, with a cheap search and the ceiling at the
same budget, written to a folder: the findings are recomputed from the
parquet files with code of this test's own, the figures draw them, the
ceiling takes no rank, the machine's times stay out of the findings, and the
same run in the same folder plays nothing again.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import experiments
from experiments import strength_ladder as S
from experiments.runner import load_dataset

PLAYERS = ("random", "expert", "search:trials=2")


def _config(**changes) -> S.Config:
    tiny = {"games": 2, "contrat_games": 2, "basic_games": 3, "rami51_players": PLAYERS, "contrat_players": PLAYERS,
            "basic_players": PLAYERS, "ceiling_trials": 2, "ceiling_width": 0.25, "timing_games": 1, "resamples": 60,
            "workers": 2}
    return S.Config(**{**tiny, **changes})


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("strength") / "seed-1"
    return S.run(_config(), folder), folder


def test_the_experiment_is_reported_last_and_its_config_refuses_what_it_cannot_play():
    assert experiments.REPORTED[-2:] == ("search_player", "strength_ladder")
    assert experiments.load("strength_ladder") is S.EXPERIMENT and S.TITLE.endswith("?")
    with pytest.raises(ValueError, match="unknown config key 'players'"):
        S.Config.from_dict({"players": ["random"]})
    with pytest.raises(ValueError, match="sees the hidden cards"):
        _config(rami51_players=("random", "ceiling:trials=2"))
    with pytest.raises(ValueError, match="basic_players"):
        _config(basic_players=("random", "nobody"))
    with pytest.raises(ValueError, match="contrat_games"):
        _config(contrat_games=1)
    # The ceiling is named as the ladder names it (a parameter at its default left out), or left out.
    assert _config().ceiling == "ceiling:trials=2" and _config(ceiling_trials=0).ceiling is None
    assert _config(ceiling_width=0.5).ceiling == "ceiling:trials=2,width=0.5"


def _focal_points(folder, table: str, rotations: int) -> tuple[float, float]:
    """The player's (or, for the reference's table, the focal seat's) points and rounds over every rotation:
    in rotation k the player sits in seat k; the reference's table is one dataset in which every seat is focal once."""
    if table == "reference":
        rounds = pl.read_parquet(folder / "reference" / "rounds" / "*.parquet")
        return float(rounds["points"].sum()) * 1.0, float(rounds.height)
    points = count = 0.0
    for k in range(rotations):
        rounds = pl.read_parquet(folder / table / f"rotation-{k}" / "rounds" / "*.parquet").filter(pl.col("seat") == k)
        points += float(rounds["points"].sum())
        count += rounds.height
    return points, count


def test_the_points_against_the_expert_are_the_stored_rows_counted_by_hand(run):
    results, folder = run
    for game, group, sign in (("rami51", "Rami 51", -1), ("contrat", "Rami contrat", -1), ("basic", "basic rummy", 1)):
        data = folder / "data" / game
        ref_points, ref_rounds = _focal_points(data, "reference", 4)
        # player-1 is random, player-3 the search, player-4 the ceiling (player-2, the expert, is the reference).
        for table, name in (("player-1", "random"), ("player-3", "search:trials=2"), ("player-4", "ceiling:trials=2")):
            points, rounds = _focal_points(data, table, 4)
            gain = sign * (points / rounds - ref_points / ref_rounds)
            found = next(f for f in results.findings if f.metric == S.GAIN and f.group == group and f.arms[0] == name)
            assert found.estimate.estimate == pytest.approx(gain, rel=1e-9, abs=1e-9), (game, name)
            assert found.estimate.unit == "deal" and found.estimate.clusters == _config().deals(game)
        worth = next(f for f in results.findings if f.metric == S.WORTH and f.group == group)
        gains = {f.arms[0]: f.estimate.estimate for f in results.findings if f.metric == S.GAIN and f.group == group}
        # Both tables' points per round over their own rounds: the worth is the ceiling's gain less the search's.
        assert worth.arms == ("ceiling:trials=2", "search:trials=2")
        assert worth.estimate.estimate == pytest.approx(gains["ceiling:trials=2"] - gains["search:trials=2"])
    # The expert measured against itself is no finding; every other player has its three.
    assert not [f for f in results.findings if f.arms[0] == "expert"]
    assert len(results.findings) == 3 * (3 * 3 + 1)


def test_the_figures_draw_the_findings_with_the_ceiling_labelled_apart(run):
    results, _ = run
    figures = S.EXPERIMENT.draw(results)
    assert list(figures) == [S.figure_name(game) for game in S.GAMES]
    for game, fig in zip(S.GAMES, figures.values()):
        ax = fig.axes[0]
        labels = [t.get_text() for t in ax.texts]
        gains = {f.arms[0]: f.estimate.estimate for f in results.findings
                 if f.metric == S.GAIN and f.group == S.wording.game_name(game)}
        # Each label sits at its point: (CPU per turn, strength); a marker is drawn there.
        points = {(line.get_xdata()[0], line.get_ydata()[0]) for line in ax.lines if len(line.get_xdata()) == 1}
        assert all(tuple(t.xy) in points for t in ax.texts)
        drawn = {t.get_text(): t.xy for t in ax.texts}
        assert len(drawn) == 4 and drawn["expert (reference)"][1] == 0.0
        assert drawn["random"][1] == pytest.approx(gains["random"])
        assert drawn["search:trials=2"][1] == pytest.approx(gains["search:trials=2"])
        ceiling = next(label for label in labels if label.startswith("ceiling"))
        assert "what knowing the hidden cards is worth" in ceiling
        assert drawn[ceiling][1] == pytest.approx(gains["ceiling:trials=2"])
        # The horizontal axis is the machine's CPU per turn: positive for every entry timed.
        assert all(x > 0 for x, _ in drawn.values())


def test_the_machines_times_are_kept_apart_and_the_ceiling_takes_no_rank(run):
    results, _ = run
    measured = results.provenance["measured"]["timing"]
    for game in S.GAMES:
        names = [c["name"] for c in measured[game]]
        assert names == ["expert", "random", "search:trials=2", "ceiling:trials=2"]
        times = S.timings(results.frame, results.provenance["measured"], game)
        assert set(times) == set(names) and all(t.cpu_seconds >= 0 and t.turns > 0 for t in times.values())
        assert times["search:trials=2"].decisions > 0 and times["random"].decisions is None
    assert not any("CPU" in f.metric or "seconds" in f.metric for f in results.findings)
    blocks = S.page_blocks([results])
    tables = [b for b in blocks if b[0] == "table"]
    for table in tables[:3]:  # the three ladders
        ranks = {row[1]: row[0] for row in table[2]}
        ceiling = next(name for name in ranks if name.startswith("ceiling"))
        assert ranks[ceiling] == "—" and sorted(r for n, r in ranks.items() if n != ceiling) == ["1", "2", "3"]
    assert "CPU per turn (seed 1)" in tables[3][1] and len(tables[3][2]) == 3 * 4
    assert any("Knowing the hidden cards is worth" in line for line in results.conclusions)


def test_the_same_run_in_the_same_folder_plays_nothing_again(run):
    results, folder = run
    files = sorted((folder / "data").rglob("*.parquet"))
    stamps = [f.stat().st_mtime_ns for f in files]
    again = S.run(_config(), folder)
    assert sorted((folder / "data").rglob("*.parquet")) == files
    assert [f.stat().st_mtime_ns for f in files] == stamps
    assert [f.to_dict() for f in again.findings] == [f.to_dict() for f in results.findings]
    assert load_dataset(folder / "data").collect().height == results.frame.height
    assert math.isfinite(results.provenance["wall_seconds"])
