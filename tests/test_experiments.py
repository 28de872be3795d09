"""The experiment framework against known answers, and every experiment end to end at a tiny size."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import experiments
import sim
from experiments import configs, metrics, report, stats, wording
from experiments import waiting_to_open as waiting
from experiments.arms import Arm, play_arm, play_arms
from experiments.findings import Finding, rounds_by_arm, rounds_of
from experiments.runner import DATA, load_dataset, read_summary
from experiments.stats import Estimate

# ------------------------------------------------------------ interval coverage


def _clustered_sample(rng: np.random.Generator, n: int, mean: float) -> tuple[np.ndarray, np.ndarray]:
    """Clusters of 1-12 correlated units (a shared cluster effect) with a known mean per unit."""
    counts = rng.integers(1, 13, n).astype(float)
    effect = rng.normal(0.0, 3.0, n)
    totals = np.array([(mean + e + rng.exponential(4.0, int(k)) - 4.0).sum() for e, k in zip(effect, counts)])
    return totals, counts


def test_ratio_intervals_cover_a_known_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(2024)
    repeats, covered_boot, covered_normal = 400, 0, 0
    for _ in range(repeats):
        totals, counts = _clustered_sample(rng, 80, 7.5)
        e = stats.ratio_estimate(totals, counts, rng, n_resamples=300)
        covered_boot += e.low <= 7.5 <= e.high
        covered_normal += e.normal_low <= 7.5 <= e.normal_high
    # Binomial sd of the coverage over 400 repeats is about 1.1 points.
    assert 0.915 <= covered_boot / repeats <= 0.98
    assert 0.915 <= covered_normal / repeats <= 0.98


def test_paired_difference_covers_a_known_difference():
    rng = np.random.default_rng(11)
    covered, ratios = 0, []
    for _ in range(300):
        counts = rng.integers(3, 9, 60).astype(float)
        luck = rng.normal(0.0, 5.0, 60) * counts  # the deal's luck, shared by both arms
        a = luck + rng.normal(1.0, 1.0, 60) * counts
        b = luck + rng.normal(0.0, 1.0, 60) * counts
        e = stats.paired_difference(a, counts, b, counts, rng, n_resamples=300)
        covered += e.low <= 1.0 <= e.high
        ratios.append(e.variance_ratio)
    assert 0.91 <= covered / 300 <= 0.985
    # The shared luck cancels: paired variance ~ 2 / (2 + 2 * 25) of the unpaired.
    assert np.median(ratios) == pytest.approx(2 / 52, rel=0.35)


def test_estimates_are_seeded_and_reject_bad_input():
    t, c = np.arange(10.0), np.ones(10)
    assert stats.ratio_estimate(t, c, 3) == stats.ratio_estimate(t, c, 3)
    with pytest.raises(ValueError, match="same clusters"):
        stats.paired_difference(t, c, t[:5], c[:5], 0)
    with pytest.raises(ValueError, match="positive sum"):
        stats.ratio_estimate(t, np.zeros(10), 0)


def test_survival_curve_by_hand():
    # Two games, one seat each: game 0 opens at turn 2; game 1 is censored after turn 3.
    events = np.array([[0, 1, 0, 0], [0, 0, 0, 0]])
    at_risk = np.array([[1, 1, 0, 0], [1, 1, 1, 0]])
    curve, low, high, median, by = stats.survival_curve(events, at_risk, 0, 100, by_time=2)
    assert stats.survival_curve(events, at_risk, 0, 100, by_time=(1, 2))[4][1] == by
    assert curve.tolist() == [1.0, 0.5, 0.5, 0.5]
    assert median.estimate == 2.0 and by.estimate == 0.5
    assert (low <= curve + 1e-12).all() and (curve <= high + 1e-12).all()


def test_opening_times_count_events_and_censoring():
    frame = pl.DataFrame({
        "arm": ["a"] * 3, "game": [0, 0, 1], "opened": [True, False, True],
        "open_turn": [2, -1, 1], "seat_turns": [5, 3, 4],
    })
    keys, events, at_risk = metrics.opening_times(frame, horizon=5)
    assert keys["game"].to_list() == [0, 1]
    assert events.tolist() == [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0]]
    assert at_risk.tolist() == [[2, 2, 1, 0, 0], [1, 0, 0, 0, 0]]


# ---------------------------------------------------------------- wording


def _finding(est: float, low: float, high: float, metric: str = "points per round") -> Finding:
    return Finding(metric, ("wait for 70", "first chance"), Estimate(est, low, high, low, high, 500), 500, 4000,
                   better="lower")


def test_conclusion_flips_wording_when_the_interval_crosses_zero():
    clear = wording.difference_sentence(_finding(3.2, 1.5, 4.9), "waiting for 70 points", "opening at once")
    assert clear.startswith("Waiting for 70 points scores 3.20 more points per round than opening at once: worse")
    assert "no measurable" not in clear.lower()
    unclear = wording.difference_sentence(_finding(0.8, -0.7, 2.3), "waiting for 70 points", "opening at once")
    assert unclear.startswith("No measurable difference in points per round between waiting for 70 points")
    assert "includes zero" in unclear and "scores" not in unclear
    better = wording.difference_sentence(_finding(-2.0, -3.0, -1.0), "a", "b")
    assert "2.00 fewer points per round than b: better" in better
    share = wording.difference_sentence(_finding(0.05, 0.02, 0.08, "rami sec rate"), "a", "b")
    assert share == ("A: rami sec rate 5.0 percentage points higher than b: worse "
                     "(95% interval +2.0pp to +8.0pp; 500 games).")


# ------------------------------------------------------------------ config


def test_config_rejects_unknown_keys_and_wrong_types():
    with pytest.raises(ValueError, match="unknown config key 'wait' for waiting_to_open; the keys are"):
        waiting.Config.from_dict({"wait": 3})
    with pytest.raises(ValueError, match="'players' takes a whole number"):
        waiting.Config().with_settings(["players=four"])
    c = waiting.Config().with_settings(["waits=60,75", "players=3", "whole_hand=false"])
    assert (c.waits, c.players, c.whole_hand) == ((60, 75), 3, False)
    assert waiting.Config.from_dict(json.loads(json.dumps(c.to_dict()))) == c


# ------------------------------------------------- common deals on engine data


def test_arms_with_one_seed_are_dealt_the_same_cards_in_every_shared_round():
    a = sim.play_traced("rami51", ["greedy"] * 4, seed=3, game=5)
    b = sim.play_traced("rami51", ["greedy:open_extra=19", "greedy", "greedy", "greedy"], seed=3, game=5)
    deals_a = [e for e in a if e["type"] == "deal"]
    deals_b = [e for e in b if e["type"] == "deal"]
    shared = min(len(deals_a), len(deals_b))
    assert shared >= 2
    assert deals_a[:shared] == deals_b[:shared]
    # Play differs, so the games are not simply equal.
    assert [e for e in a if e["type"] != "deal"] != [e for e in b if e["type"] != "deal"]


def test_duplicate_arm_rotates_every_strategy_through_every_seat():
    arm = Arm("x", "rami51", ("greedy:open_extra=19", "greedy", "greedy"), duplicate=True)
    df = play_arm(arm, seed=4, first_game=10, n_games=3, workers=1)
    assert sorted(df["rotation"].unique().to_list()) == [0, 1, 2]
    assert sorted(df["game"].unique().to_list()) == [10, 11, 12]
    focal = df.filter(pl.col("strategy_index") == 0).select("rotation", "seat").unique().sort("rotation")
    assert focal["seat"].to_list() == [0, 1, 2]
    assert (df.filter(pl.col("strategy_index") == 0)["strategy"] == "greedy:open_extra=19").all()
    # A game range is the same games wherever it starts.
    longer = play_arm(arm, seed=4, first_game=8, n_games=5, workers=1).filter(pl.col("game") >= 10)
    assert longer.sort("rotation", "game", "round", "seat").equals(df.sort("rotation", "game", "round", "seat"))


def _focal_points(frame: pl.DataFrame, arm: str) -> tuple[np.ndarray, np.ndarray]:
    table = metrics.per_game(frame, pl.col("points"), pl.col("strategy_index") == 0)
    return metrics.cluster_arrays(table, arm=arm)


def test_paired_design_matches_the_unpaired_in_expectation_with_less_variance_on_engine_data():
    wait = Arm("wait", "rami51", ("greedy:open_extra=19", "greedy", "greedy"), duplicate=True)
    first = Arm("first", "rami51", ("greedy",) * 3, duplicate=True)
    paired, unpaired, ratios = [], [], []
    for rep in range(6):
        same = play_arms([wait, first], seed=100 + rep, first_game=0, n_games=40, workers=2)
        other = play_arm(first, seed=900 + rep, first_game=0, n_games=40, workers=2)
        ta, ca = _focal_points(same, "wait")
        tb, cb = _focal_points(same, "first")
        to, co = _focal_points(other, "first")
        e = stats.paired_difference(*metrics.paired_arrays(
            metrics.per_game(same, pl.col("points"), pl.col("strategy_index") == 0), {"arm": "wait"}, {"arm": "first"}),
            rep, n_resamples=200)
        paired.append(e.estimate)
        ratios.append(e.variance_ratio)
        unpaired.append(stats.unpaired_difference(ta, ca, to, co, rep, n_resamples=50).estimate)
    paired, unpaired = np.array(paired), np.array(unpaired)
    se = math.sqrt(paired.var(ddof=1) / 6 + unpaired.var(ddof=1) / 6)
    assert abs(paired.mean() - unpaired.mean()) < 3 * se
    assert paired.var(ddof=1) < unpaired.var(ddof=1)
    assert max(ratios) < 1.0  # measured in every replication, not assumed


def test_sequential_mode_adds_games_until_the_interval_is_narrow_enough():
    config = waiting.Config(games=12, seed=5, waits=(70,), whole_hand=False, resamples=200, workers=2)
    fixed = waiting.run(config)
    width = max(f.estimate.width for f in fixed.findings if f.headline)
    target = width / 1.6
    seq = waiting.run(config.replace(precision=target, max_games=400))
    games = seq.frame["game"].n_unique()
    assert games > 12
    assert max(f.estimate.width for f in seq.findings if f.headline) <= target
    # The first games are the fixed run's games, not replayed differently.
    first = seq.frame.filter(pl.col("game") < 12)
    assert first.equals(fixed.frame)
    capped = waiting.run(config.replace(precision=target / 100, max_games=20))
    assert capped.frame["game"].n_unique() == 20


# ------------------------------------------------------- experiments end to end


def _tiny(config: configs.Config) -> configs.Config:
    return config.replace(games=6, resamples=60, workers=2)


@pytest.fixture(scope="module")
def tiny_report(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("reports")
    report.build_report(folder, quick=True, configure=_tiny)
    return folder


@pytest.mark.parametrize("name", experiments.REPORTED)
def test_every_experiment_runs_end_to_end_and_writes_its_page(tiny_report, name):
    experiment = experiments.load(name)
    assert experiment.title.endswith("?") and experiment.name == name
    folder = tiny_report / name
    for seed in report.SEEDS:
        summary = read_summary(folder / f"seed-{seed}")
        assert summary["config"]["seed"] == seed and summary["config"]["games"] == 6
        assert experiment.config_type.from_dict(summary["config"]) == _tiny(report.edition_config(experiment, seed, True))
        assert summary["conclusions"] and summary["findings"]
        for f in summary["findings"]:
            assert {"metric", "arms", "estimate", "low", "high", "unit", "games", "rounds"} <= set(f)
            # The strength ladder resamples deals (a deal with all its rotations), as `rami ladder` does.
            assert f["unit"] == ("deal" if name == "strength_ladder" else "game") and f["games"] >= 2
        rows = load_dataset(folder / f"seed-{seed}" / "data").collect()
        # A fork experiment keeps one row per position, from the games that offered its decision.
        assert rows["game"].n_unique() == 6 if experiment.sequential else \
            summary["provenance"]["games"] == 6 and 2 <= rows["game"].n_unique() <= 6
    md = (folder / "index.md").read_text(encoding="utf-8")
    page = (folder / "index.html").read_text(encoding="utf-8")
    assert md.startswith(f"# {experiment.title}") and "## Conclusion" in md
    assert md.index("## Conclusion") < md.index("## Findings") < md.index("## Provenance")
    assert f"rami experiment run {name} --seed 1 --games 6" in md
    assert "seed 2: estimate (95% interval)" in md and "rules version" in md
    assert "data:image/png;base64," in page and "<img" in page
    figures = list((folder / "figures").iterdir())
    assert {p.suffix for p in figures} == {".png", ".svg"}


def test_the_index_links_every_experiment(tiny_report):
    index = (tiny_report / "index.html").read_text(encoding="utf-8")
    for name in experiments.REPORTED:
        assert f"href='{name}/index.html'" in index
    assert "quick edition" in index


def test_a_page_citing_an_experiment_played_after_it_is_written_once_that_one_has_run(tiny_report):
    # The searching experiment plays last (its game compiles meanwhile in a second process); the pages that
    # read its summary were held back until then, so each links to it.
    order = report.run_order(experiments.REPORTED)
    citing = [n for n in experiments.REPORTED if "search_player" in experiments.load(n).cites]
    assert citing and all(order.index(n) < order.index("search_player") for n in citing)
    for name in citing:
        assert "../search_player/index.html" in (tiny_report / name / "index.md").read_text(encoding="utf-8")


def test_rule_variants_page_writes_cards_in_card_notation(tiny_report):
    assert "7♣ 8♣ 9♣" in (tiny_report / "rule_variants" / "index.md").read_text(encoding="utf-8")


def test_two_seeds_are_compared_by_their_claims():
    experiment = experiments.load("waiting_to_open")
    config = experiment.config()
    a = report.claims(experiment, [_finding(3.2, 1.5, 4.9)], config)
    assert report.compare_claims(a, report.claims(experiment, [_finding(2.1, 0.3, 3.9)], config))[0][3]
    assert not report.compare_claims(a, report.claims(experiment, [_finding(0.8, -0.7, 2.3)], config))[0][3]
    assert not report.compare_claims(a, report.claims(experiment, [_finding(-3.2, -4.9, -1.5)], config))[0][3]


def test_seeds_that_disagree_are_flagged():
    a = _finding(3.0, 1.0, 5.0)
    b = _finding(0.5, -1.0, 2.0)
    assert not report.agreement(a, b) and report.agreement(a, _finding(2.0, 0.5, 3.5))
    level = Finding("share of games won above 1/players", ("basic, 4 players",),
                    Estimate(-0.013, -0.023, -0.002, -0.023, -0.002, 6000), 6000, 18000)
    near = Finding(level.metric, level.arms, Estimate(-0.003, -0.013, 0.007, -0.013, 0.007, 6000), 6000, 18000)
    assert not report.agreement(level, near)  # the intervals overlap, but only one excludes zero
    assert report.agreement(near, near)


# --------------------------------------------------------------------- CLI


def test_cli_lists_and_runs_an_experiment(tmp_path):
    from click.testing import CliRunner

    from sim.cli import main

    runner = CliRunner()
    listed = runner.invoke(main, ["experiment", "list"])
    assert listed.exit_code == 0 and all(name in listed.output for name in experiments.EXPERIMENTS)
    out = tmp_path / "run"
    result = runner.invoke(main, ["experiment", "run", "waiting_to_open", "--games", "4", "--seed", "2",
                                  "--set", "waits=70", "--set", "whole_hand=false", "--set", "resamples=50",
                                  "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "points per round" in result.output and (out / "summary.json").exists()
    assert read_summary(out)["config"]["waits"] == [70]
    bad = runner.invoke(main, ["experiment", "run", "waiting_to_open", "--set", "bogus=1"])
    assert bad.exit_code == 2 and "--set: unknown config key 'bogus'" in bad.output
    blocker = tmp_path / "file"
    blocker.write_text("")
    bad = runner.invoke(main, ["experiment", "run", "waiting_to_open", "--out", str(blocker / "sub")])
    assert bad.exit_code == 1 and "is a file, not a folder" in bad.output
    bad = runner.invoke(main, ["experiment", "run", "nothing"])
    assert bad.exit_code == 2 and "unknown experiment 'nothing'" in bad.output


def test_cli_report_writes_an_edition_and_says_where_to_open_it(tmp_path):
    from click.testing import CliRunner

    from sim.cli import main

    result = CliRunner().invoke(main, ["report", "--quick", "--only", "time_to_open", "--out", str(tmp_path),
                                       "--quiet"])
    assert result.exit_code == 0, result.output
    assert f"open {(tmp_path / 'index.html').resolve()}" in result.output
    assert (tmp_path / "time_to_open" / "index.html").exists()
    bad = CliRunner().invoke(main, ["report", "--only", "nothing"])
    assert bad.exit_code == 2 and "unknown experiment" in bad.output


# ---------------------------------------------------------------- notebook


def test_the_notebook_runs_headless_on_a_tiny_dataset(tiny_report, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    notebook = Path(__file__).resolve().parent.parent / "reports" / "experiments.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    monkeypatch.setenv("RAMI_EXPERIMENT", str(tiny_report / "waiting_to_open" / "seed-1"))
    NotebookClient(nb, timeout=180, kernel_name="python3",
                   resources={"metadata": {"path": str(notebook.parent)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)


def test_reuse_analyses_stored_rows_again_without_playing(tiny_report):
    run = tiny_report / "time_to_open" / "seed-1"
    files = sorted((run / DATA).rglob("*.parquet"))
    before = ([f.stat().st_mtime_ns for f in files], read_summary(run)["findings"])
    report.build_report(tiny_report, quick=True, names=["time_to_open"], configure=_tiny, reuse=True)
    assert sorted((run / DATA).rglob("*.parquet")) == files
    assert [f.stat().st_mtime_ns for f in files] == before[0]
    assert read_summary(run)["findings"] == before[1]


def test_rounds_by_arm_counts_each_arms_rounds_as_rounds_of_does():
    rows = pl.DataFrame({
        "arm": ["a", "a", "a", "a", "b", "b", "b"],
        "rotation": [0, 0, 1, 0, 0, 0, 0],
        "game": [0, 0, 0, 1, 0, 0, 3],
        "round": [0, 0, 0, 2, 0, 1, 0],
        "seat": [0, 1, 0, 0, 0, 0, 2],
    })
    by_arm = rounds_by_arm(rows)
    assert by_arm == {arm: rounds_of(rows.filter(pl.col("arm") == arm)) for arm in ("a", "b")}
    assert by_arm == {"a": 3, "b": 3}
    assert by_arm["a"] + by_arm["b"] == rounds_of(rows)


def test_no_page_of_the_report_shows_an_internal_value(tiny_report):
    """No nan, inf, None or Python repr where a person reads: every page of the edition, its game pages too."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    import page_scan

    assert page_scan.scan(tiny_report) == []


def test_an_editions_rows_made_by_other_strategies_are_played_afresh(tiny_report, caplog):
    # A strategy's definition (a default) may change while an experiment's config, which names strategies, does
    # not: the edition's run then holds datasets of another identity, which the report replaces, as it replaces a
    # run of another config, rather than stopping; the rows played again are the same games.
    run = tiny_report / "expert_vs_greedy" / "seed-1"
    before = load_dataset(run / DATA).collect()
    estimates = [f["estimate"] for f in read_summary(run)["findings"]]
    manifest_file = sorted((run / DATA).rglob("manifest.json"))[0]
    manifest = json.loads(manifest_file.read_text())
    manifest["identity"]["strategies"][0]["params"]["a_parameter_of_old"] = 1
    manifest_file.write_text(json.dumps(manifest))
    with caplog.at_level("WARNING"):
        report.build_report(tiny_report, quick=True, names=["expert_vs_greedy"], configure=_tiny)
    assert "holds a dataset made by another command" in caplog.text and "afresh" in caplog.text
    assert "a_parameter_of_old" not in manifest_file.read_text()
    after = load_dataset(run / DATA).collect()
    assert after.sort(after.columns).equals(before.sort(before.columns))
    assert [f["estimate"] for f in read_summary(run)["findings"]] == pytest.approx(estimates, rel=1e-12)
