"""An experiment's rows go through the results store: a killed run resumes, a foreign config is refused.

The run killed here is a real ``rami experiment run`` process stopped by
SIGKILL once some of its batch files are on disk; the same command then
finishes it, and its summary must be the one an uninterrupted run writes.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import experiments
from experiments import waiting_to_open as waiting
from experiments.arms import play_arms
from experiments.experiment import Experiment
from experiments.runner import DATA, SUMMARY, read_summary
from sim.cli import main
from tests.killing import kill_after_files

# Two arms at 3 players: the reference table of three greedy players (one dataset: its rotations deal the very
# same game) and a duplicate arm played once per rotation (three datasets); 8 batches of 50 games each.
RUN = ["experiment", "run", "waiting_to_open", "--games", "400", "--seed", "3", "--set", "players=3",
       "--set", "waits=70", "--set", "whole_hand=false", "--set", "resamples=50", "--set", "workers=1", "--quiet"]


def _batch_files(folder: Path) -> list[Path]:
    return sorted((folder / DATA).glob("*/rotation-*/rounds/*.parquet"))


def _findings(folder: Path) -> list[dict]:
    return read_summary(folder)["findings"]


def test_a_killed_experiment_run_resumes_and_plays_only_the_missing_games(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    done = CliRunner().invoke(main, [*RUN, "--out", str(whole)])
    assert done.exit_code == 0, done.output

    kept = kill_after_files([*RUN, "--out", str(killed)], lambda: _batch_files(killed), 3)
    assert kept and not (killed / SUMMARY).exists()

    resumed = CliRunner().invoke(main, [*RUN, "--out", str(killed)])
    assert resumed.exit_code == 0, resumed.output
    assert _findings(killed) == _findings(whole)
    # What was on disk was kept, not played again: the resumed runs played fewer games than the whole run.
    manifests = [json.loads(m.read_text()) for m in (killed / DATA).glob("*/rotation-*/manifest.json")]
    played = sum(m["runs"][-1]["games_played"] for m in manifests)
    assert played < 4 * 400
    assert all(m["runs"][-1]["status"] == "complete" for m in manifests)
    for file in kept:
        assert file.exists()


def test_a_folder_of_another_config_is_refused_before_anything_is_played(tmp_path):
    out = tmp_path / "run"
    done = CliRunner().invoke(main, [*RUN[:4], "40", *RUN[5:], "--out", str(out)])
    assert done.exit_code == 0, done.output
    before = _batch_files(out)
    other = [*RUN[:4], "40", *RUN[5:]]
    other[other.index("waits=70")] = "waits=80"
    refused = CliRunner().invoke(main, [*other, "--out", str(out)])
    assert refused.exit_code == 1
    assert "another config" in refused.output and str(out) in refused.output
    assert _batch_files(out) == before
    # More games of the same config grow the run: the first 40 games are not played again.
    grown = CliRunner().invoke(main, [*RUN[:4], "60", *RUN[5:], "--out", str(out)])
    assert grown.exit_code == 0, grown.output
    assert read_summary(out)["provenance"]["games"] == 60
    assert set(before) <= set(_batch_files(out))


def test_a_dataset_of_other_strategies_in_a_run_is_one_line_of_error(tmp_path):
    # A run's datasets made by other strategy definitions (a changed default) are not this run's rows: the
    # command stops with the dataset's name and what differs, as a failure it describes, not an unexpected one.
    out = tmp_path / "run"
    assert CliRunner().invoke(main, [*RUN[:4], "20", *RUN[5:], "--out", str(out)]).exit_code == 0
    manifest_file = sorted((out / DATA).rglob("manifest.json"))[0]
    manifest = json.loads(manifest_file.read_text())
    manifest["identity"]["strategies"][0]["params"]["a_parameter_of_old"] = 1
    manifest_file.write_text(json.dumps(manifest))
    before = _batch_files(out)
    again = CliRunner().invoke(main, [*RUN[:4], "40", *RUN[5:], "--out", str(out)])
    assert again.exit_code == 1
    assert "holds a dataset made by another command" in again.output and "unexpected" not in again.output
    name = manifest["identity"]["strategies"][0]["name"]
    assert f"({name}: a_parameter_of_old 1 there, null here)" in again.output  # what differs, not both lists
    assert str(manifest_file.parent) in again.output and _batch_files(out) == before


def test_rami_info_describes_an_experiment_run_and_checks_every_dataset(tmp_path):
    out = tmp_path / "run"
    assert CliRunner().invoke(main, [*RUN[:4], "20", *RUN[5:], "--out", str(out)]).exit_code == 0
    info = CliRunner().invoke(main, ["info", str(out)])
    assert info.exit_code == 0, info.output
    assert "run of experiment waiting_to_open, 4 results datasets" in info.output
    assert "finished" in info.output and "wait-for-70/rotation-2: 20 games on disk" in info.output
    victim = _batch_files(out)[0]
    victim.write_bytes(victim.read_bytes()[:100])
    damaged = CliRunner().invoke(main, ["info", str(out)])
    assert damaged.exit_code == 1 and victim.name in damaged.output


def test_rows_through_the_store_are_the_rows_the_engine_plays():
    config = waiting.Config(games=30, seed=5, players=3, waits=(70,), whole_hand=False, resamples=50, workers=2)
    stored = waiting.run(config).frame
    arms = waiting.arms(config)
    direct = play_arms(arms, config.seed, 0, config.games, workers=2)
    direct = direct.sort("arm", "rotation", "game", "round", "seat", maintain_order=True)
    assert stored.columns == direct.columns and stored.dtypes == direct.dtypes
    assert stored.equals(direct)


def test_every_experiment_declares_its_typed_interface():
    for name in experiments.EXPERIMENTS:
        experiment = experiments.load(name)
        assert isinstance(experiment, Experiment) and experiment.name == name
        assert experiment.title.endswith("?") and experiment.about.strip()
        config = experiment.config(quick=True)
        assert isinstance(config, experiment.config_type)
        parts = experiment.parts(config)
        assert parts and len({p.name for p in parts}) == len(parts)
