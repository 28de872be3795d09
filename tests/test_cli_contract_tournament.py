"""The command-line contract of `rami tournament`, `rami compare` and `rami tune`.

A bad value exits 2 with one line naming the option as typed and what is
allowed, before anything is created or played: run through the real
command group (its error handling included), in an empty folder that must
stay empty.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from experiments import sequential
from sim.api import COMPILE_NOTICE
from sim.cli import main
from sim.cli import tournament as cli_tournament

ROOT = Path(__file__).resolve().parent.parent

BAD = [
    # (argument list, words the one line must hold)
    (["tournament", "greedy"], "STRATEGIES"),
    (["tournament", "greedy,greedy"], "listed twice"),
    (["tournament", "greedy,,random"], "STRATEGIES"),
    (["tournament", "greedy,nope"], "STRATEGIES"),
    (["tournament", "greedy,random", "--players", "7"], "--players"),
    (["tournament", "greedy,random", "--players", "3"], "--players"),
    (["tournament", "greedy,random", "--games", "1"], "--games"),
    (["tournament", "greedy,random", "--games", "x"], "--games"),
    (["tournament", "greedy,random", "--seed", "-1"], "--seed"),
    (["tournament", "greedy,random", "--seed", str(2**64)], "--seed"),
    (["tournament", "greedy,random", "--resamples", "10"], "--resamples"),
    (["tournament", "greedy,random", "--workers", "0"], "--workers"),
    (["tournament", "greedy,random", "--out", ""], "--out"),
    (["tournament", "greedy,random", "--rules", "nope"], "nope"),
    (["tournament", "greedy,random", "--set", "open_threshold=-5"], "open_threshold"),
    (["compare", "expert", "expert"], "play exactly alike"),
    (["compare", "greedy", "greedy:add=1"], "play exactly alike"),
    (["compare", "nope", "greedy"], "A"),
    (["compare", "expert", "nope"], "B"),
    (["compare", "expert", "greedy", "--alpha", "0"], "--alpha"),
    (["compare", "expert", "greedy", "--alpha", "0.5"], "--alpha"),
    (["compare", "expert", "greedy", "--beta", "nan"], "--beta"),
    (["compare", "expert", "greedy", "--improvement", "inf"], "--improvement"),
    (["compare", "expert", "greedy", "--indifference", "-inf"], "--indifference"),
    (["compare", "expert", "greedy", "--improvement", "-1"], "--improvement"),
    (["compare", "expert", "greedy", "--objective", "wins", "--improvement", "1.5"], "--improvement"),
    (["compare", "expert", "greedy", "--batch", "0"], "--batch"),
    (["compare", "expert", "greedy", "--max-games", "50"], "--max-games"),
    (["compare", "expert", "greedy", "--field", ""], "--field"),
    (["compare", "expert", "greedy", "--field", "greedy,greedy,greedy,greedy,greedy,greedy"], "--field"),
    (["compare", "expert", "greedy", "--out", " "], "--out"),
    (["compare", "expert", "greedy", "--objective", "rounds"], "--objective"),
    (["tune", "greedy"], "--param"),
    (["tune", "greedy", "--param", "near_weight=0:1", "--param", "near_weight=0:2"], "--param"),
    (["tune", "greedy", "--param", "discard=0.5:2"], "--param"),
    (["tune", "greedy", "--param", "near_weight=0:inf"], "--param"),
    (["tune", "greedy", "--param", "near_weight=3"], "--param"),
    (["tune", "greedy", "--param", "nope=0:1"], "--param"),
    (["tune", "greedy", "--param", "near_weight=1:5"], "outside the range"),
    (["tune", "random", "--param", "near_weight=0:5"], "START"),
    (["tune", "nope", "--param", "near_weight=0:5"], "START"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--name", "../../x"], "--name"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--name", ""], "--name"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--out", ""], "--out"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--study", ""], "--study"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--improvement", "inf"], "--improvement"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--improvement", "0"], "--improvement"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--trials", "0"], "--trials"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--games", "1"], "--games"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--top", "0"], "--top"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--confirm-games", "1"], "--confirm-games"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--max-games", "99"], "--max-games"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--rules", "nope"], "nope"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--field", "greedy,nope"], "--field"),
    (["tune", "greedy", "--param", "near_weight=0:5", "--objective", "wins", "--improvement", "1"],
     "--improvement"),
]


def _run(args: list[str], folder: Path):
    """The real command group, standalone (its own error handling), run in ``folder``."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        return CliRunner().invoke(main, args, standalone_mode=True, env={"RAMI_TRACEBACK": None})
    finally:
        os.chdir(here)


def _assert_refused(result, words: str, folder: Path) -> None:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert words in lines[0]
    assert "Traceback" not in result.output and "Warning" not in result.output
    assert not list(folder.iterdir()), "a refused command created something"


@pytest.mark.parametrize("args,words", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_value_exits_2_with_one_line_and_creates_nothing(args, words, tmp_path):
    _assert_refused(_run(args, tmp_path), words, tmp_path)


def test_the_cli_first_look_is_the_tests():
    assert cli_tournament.MIN_FIRST_LOOK == sequential.MIN_FIRST_LOOK


def test_a_study_file_that_is_not_a_study_is_refused_before_any_game(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    result = _run(["tune", "greedy", "--param", "near_weight=0:5", "--study", str(junk), "--out",
                   str(tmp_path / "out")], tmp_path)
    assert result.exit_code == 2 and "not a study file" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.db"]


@pytest.mark.parametrize("command", [["tournament", "greedy,random", "--rules", "basic"],
                                     ["compare", "expert", "greedy", "--rules", "basic"],
                                     ["tune", "expert", "--rules", "basic", "--param", "feed_weight=0:20"]])
def test_a_foreign_non_empty_folder_is_refused(command, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    result = _run([*command, "--out", "mine"], tmp_path)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1 and "mine" in lines[0]
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


# ------------------------------------------------------------------ property: random option values

finite_or_not = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-3, 3).map(float))


def _text(value: float) -> str:
    return repr(value) if math.isfinite(value) else str(value)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(alpha=finite_or_not, beta=finite_or_not, indifference=finite_or_not, improvement=finite_or_not,
       batch=st.integers(-5, 300), max_games=st.integers(-5, 300))
def test_compare_validation_names_the_first_bad_option(alpha, beta, indifference, improvement, batch, max_games,
                                                       tmp_path_factory):
    folder = tmp_path_factory.mktemp("compare")
    # A and B play alike: a run whose every value is good is refused for that, so nothing is ever played.
    args = ["compare", "expert", "expert", "--alpha", _text(alpha), "--beta", _text(beta), "--indifference",
            _text(indifference), "--improvement", _text(improvement), "--batch", str(batch), "--max-games",
            str(max_games)]
    result = _run(args, folder)
    bad = {"--alpha": not 0 < alpha < 0.5, "--beta": not 0 < beta < 0.5,
           "--indifference": not math.isfinite(indifference), "--improvement": not math.isfinite(improvement),
           "--batch": batch < 1, "--max-games": max_games < 100}
    if not any(bad.values()) and improvement <= indifference:
        bad["--improvement"] = True
    words = next((option for option, wrong in bad.items() if wrong and option in result.output), None)
    if any(bad.values()):
        assert words is not None, (bad, result.output)
    else:
        words = "play exactly alike"
    _assert_refused(result, words, folder)


@settings(max_examples=40, deadline=None)
@given(trials=st.integers(-2, 5), games=st.integers(-2, 5), top=st.integers(-2, 3),
       confirm=st.integers(-2, 5), max_games=st.integers(0, 200), improvement=finite_or_not,
       low=st.floats(-2, 12, allow_nan=False), high=st.floats(-2, 12, allow_nan=False))
def test_tune_validation_names_a_bad_option(trials, games, top, confirm, max_games, improvement, low, high,
                                            tmp_path_factory):
    folder = tmp_path_factory.mktemp("tune")
    # START random has no parameters: a run whose every value is good is refused for that.
    args = ["tune", "random", "--param", f"near_weight={low!r}:{high!r}", "--trials", str(trials), "--games",
            str(games), "--top", str(top), "--confirm-games", str(confirm), "--max-games", str(max_games),
            "--improvement", _text(improvement)]
    result = _run(args, folder)
    bad = {"--trials": trials < 1, "--games": games < 2, "--top": top < 1, "--confirm-games": confirm < 2,
           "--max-games": max_games < 100, "--improvement": not math.isfinite(improvement) or improvement <= 0,
           "--param": not 0 <= low < high <= 100}
    named = [option for option, wrong in bad.items() if wrong and option in result.output]
    _assert_refused(result, named[0] if any(bad.values()) and named else "START", folder)
    assert any(bad.values()) == bool(named)


# ------------------------------------------------------------------ Ctrl-C

def test_ctrl_c_exits_130_with_one_line_and_a_tournament_resumes(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("RAMI_TRACEBACK", None)
    args = [sys.executable, "-m", "sim", "tournament", "greedy,cautious,expert", "--rules", "contrat",
            "--games", "3000", "--resamples", "50", "--quiet", "--workers", "1", "--out", "t"]
    proc = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 240
    # Interrupt once the first batch of games is on disk.
    while time.time() < deadline and not list((tmp_path / "t").glob("table-1/rotation-0/rounds/*.parquet")):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    # One line of error; before it, on a cache the test processes have not filled yet (a fresh clone, where
    # this file may run before any other compiled the contrat kernels), the first run's notice that it compiles.
    lines = [line for line in err.splitlines() if line.strip() and line != COMPILE_NOTICE]
    assert lines == ["Error: interrupted"], err
    assert list((tmp_path / "t").glob("table-1/rotation-0/rounds/*.parquet"))  # the finished batch is kept
