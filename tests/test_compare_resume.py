"""A comparison given a folder keeps its games there: a killed `rami compare` resumes, a longer one plays on.

The run killed here is a real ``rami compare`` process stopped by SIGKILL
once some of its batch files are on disk; the same command then finishes it,
and its verdict and every game's gain must be those of an uninterrupted run.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from experiments import sequential
from sim.cli import main
from tests.killing import kill_after_files

# Rami 51 at four greedy seats, the arms told apart by one habit: 2,000 duplicate games at one look, each arm's
# four rotations written in batches of 250 games (the store's least for a plain table), 16,000 games in all.
COMPARE = ["compare", "greedy:open_extra=10", "greedy", "--field", "greedy,greedy,greedy", "--batch", "2000",
           "--max-games", "2000", "--seed", "5", "--workers", "1", "--quiet", "--json"]


def _batch_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*/rotation-*/rounds/*.parquet"))


def _played(folder: Path, runs: slice = slice(None)) -> int:
    """Games the ``runs`` of every dataset in ``folder`` played (not those they found there); all by default."""
    manifests = [json.loads(m.read_text()) for m in folder.glob("*/rotation-*/manifest.json")]
    return sum(r["games_played"] for m in manifests for r in m["runs"][runs])


def test_a_killed_comparison_resumes_to_the_verdict_of_a_whole_run(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    done = CliRunner().invoke(main, [*COMPARE, "--out", str(whole)])
    assert done.exit_code == 0, done.output

    kept = kill_after_files([*COMPARE, "--out", str(killed)], lambda: _batch_files(killed), 3)
    assert kept and not (killed / "comparison.json").exists()

    resumed = CliRunner().invoke(main, [*COMPARE, "--out", str(killed)])
    assert resumed.exit_code == 0, resumed.output
    a, b = json.loads(done.output), json.loads(resumed.output)
    assert {k: v for k, v in a.items() if k not in ("out", "wall_seconds")} == \
           {k: v for k, v in b.items() if k not in ("out", "wall_seconds")}
    assert (whole / "gains.csv").read_text() == (killed / "gains.csv").read_text()
    # What was on disk was kept, not played again.
    assert _played(killed, slice(-1, None)) < 8 * 2000 and all(file.exists() for file in kept)


def test_a_comparison_plays_on_from_the_games_in_its_folder(tmp_path):
    out = tmp_path / "c"
    # The expert against greedy at two seats: 300 games decide nothing with so strict a test.
    kwargs = dict(field=["greedy"], indifference=0.0, improvement=0.01, alpha=1e-6, beta=1e-6, batch=100, seed=2)
    first = sequential.compare("expert", "greedy", "basic", max_games=100, out=out, **kwargs)
    assert first.games == 100 and _played(out) == 4 * 100
    longer = sequential.compare("expert", "greedy", "basic", max_games=300, out=out, **kwargs)
    fresh = sequential.compare("expert", "greedy", "basic", max_games=300, **kwargs)
    assert longer.games == fresh.games == 300 and longer.decision == "undecided"
    np.testing.assert_array_equal(longer.gains, fresh.gains)
    assert (longer.decision, longer.estimate, longer.low, longer.high) == \
           (fresh.decision, fresh.estimate, fresh.low, fresh.high)
    # The second run played only the games past the first hundred: no game of a dataset was played twice.
    assert _played(out) == 4 * 300
    # The test's own settings decide when to stop, not what is played: another batch reads the same games.
    again = sequential.compare("expert", "greedy", "basic", max_games=300, out=out, **{**kwargs, "batch": 50})
    assert _played(out) == 4 * 300
    np.testing.assert_array_equal(again.gains[:100], fresh.gains[:100])


@pytest.mark.parametrize("change, words", [
    (["--seed", "3"], "seed 2 there, 3 here"),
    (["--field", "random"], 'strategies "greedy" there, "random" here'),
    (["--rules", "rami51"], 'deal "auto" there, 13 here'),
    (["compare", "expert"], 'strategies "greedy:add=0" there, "expert" here'),
])
def test_a_folder_of_other_games_is_refused_before_any_game(tmp_path, change, words):
    out = tmp_path / "c"
    base = ["compare", "greedy:add=0", "greedy", "--rules", "basic", "--field", "greedy", "--batch", "100",
            "--max-games", "100", "--seed", "2", "--workers", "1", "--quiet", "--out", str(out)]
    assert CliRunner().invoke(main, base).exit_code == 0
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    args = list(base)
    for i in range(0, len(change), 2):
        if change[i] in args:
            args[args.index(change[i]) + 1] = change[i + 1]
        else:
            args[1:1] = change[i:i + 2]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 1, refused.output
    assert str(out) in refused.output and words in refused.output and "other settings" in refused.output
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_a_folder_of_other_files_is_refused(tmp_path):
    out = tmp_path / "c"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    refused = CliRunner().invoke(main, ["compare", "greedy:add=0", "greedy", "--rules", "basic", "--field", "greedy",
                                        "--out", str(out), "--quiet"])
    assert refused.exit_code == 1 and "not empty" in refused.output
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
