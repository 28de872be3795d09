"""The command-line contract of ``docs/cli.md`` on every command but ``tournament``, ``compare`` and ``tune``.

A bad value exits 2, a folder that cannot be used exits 1, Ctrl-C exits 130;
each is one line on stderr and creates nothing. The table runs each case
through the real ``rami`` group (click's runner) in an empty working folder
and compares the folder before and after; the property tests feed random
option values to each command's parsing and checks (the part that runs
before anything is written or played).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sim
from sim.cli import main
from sim.cli.advise import check_advise
from sim.cli.agree import check_agree
from sim.cli.analyse import check_analyse
from sim.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    BadValue,
    Interrupted,
    as_options,
    bad_value,
    made_folder,
    table_from,
)
from sim.cli.experiment import check_report, check_run
from sim.cli.lookups import check_hand, ruleset_from
from sim.cli.simulate import check_simulate

ROOT = Path(__file__).resolve().parent.parent
BIG = str(2**64)


def tree(folder: Path) -> list[str]:
    """Every path under ``folder``, relative: what a refused command must leave as it found."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """An empty working folder, plus a foreign non-empty folder and a file for the output cases."""
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine\n")
    (tmp_path / "afile").write_text("a file\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def assert_refused(result, code, needles, before, folder):
    assert result.exit_code == code, (result.exit_code, result.output)
    assert isinstance(result.exception, SystemExit), result.exception  # nothing escaped as a traceback
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.output and "dataclasses" not in lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert tree(folder) == before, "a refused command created something"


RUN = ["experiment", "run", "waiting_to_open"]
CASES = [
    # (arguments, exit code, words the one-line error must hold)
    # experiment
    (["experiment", "run", "nonexistent"], 2, ["NAME 'nonexistent'", "waiting_to_open"]),
    (["experiment", "run"], 2, ["Missing argument 'NAME'"]),
    (["experiment", "run", "../../x"], 2, ["unknown experiment"]),
    (["experiment", "list", "extra"], 2, ["unexpected extra argument"]),
    (["experiment", "walk"], 2, ["No such command"]),
    ([*RUN, "--games", "1"], 2, ["--games", "x>=2"]),
    ([*RUN, "--games", "0"], 2, ["--games"]),
    ([*RUN, "--games", "ten"], 2, ["--games", "'ten'"]),
    ([*RUN, "--games", "2.5"], 2, ["--games"]),
    ([*RUN, "--games", "10", "--precision", "0.1"], 2, ["--games or --precision"]),
    ([*RUN, "--precision", "0"], 2, ["--precision", "x>=0.001"]),
    ([*RUN, "--precision", "1e-9"], 2, ["--precision", "x>=0.001"]),
    ([*RUN, "--precision", "-1"], 2, ["--precision"]),
    ([*RUN, "--precision", "nan"], 2, ["--precision", "not a finite number"]),
    ([*RUN, "--precision", "inf"], 2, ["--precision", "not a finite number"]),
    ([*RUN, "--seed", "-1"], 2, ["--seed", "0<=x<=18446744073709551615"]),
    ([*RUN, "--seed", BIG], 2, ["--seed"]),
    ([*RUN, "--set", "games=1"], 2, ["--set", "'games'", "at least 2"]),
    ([*RUN, "--set", "bogus=1"], 2, ["--set", "unknown config key 'bogus'", "the keys are"]),
    ([*RUN, "--set", "games"], 2, ["--set", "expected key=value"]),
    ([*RUN, "--set", "games=many"], 2, ["--set", "'games'", "whole number"]),
    ([*RUN, "--set", "workers=0"], 2, ["--set", "'workers'"]),
    ([*RUN, "--set", "precision=1e-9"], 2, ["--set precision=1e-09", "at least 0.001"]),
    (["experiment", "run", "joker_fork", "--precision", "0.1"], 2, ["--precision must be unset"]),
    # keys each fine alone that make a table the experiment's game refuses: refused before data/ is made
    (["experiment", "run", "expert_vs_greedy", "--set", "players=6", "--out", "run"], 2,
     ["--set", "'players' = 6", "2 to 5 players"]),
    (["experiment", "run", "holding_jokers", "--set", "players=3,7", "--out", "run"], 2, ["--set", "'players' = 7"]),
    (["experiment", "run", "discard_pile", "--set", "rules=free,never", "--out", "run"], 2,
     ["--set", "'discard_take' = 'never'"]),
    (["experiment", "run", "bot_losses", "--set", "players=6", "--out", "run"], 2, ["--set", "'players' = 6"]),
    ([*RUN, "--out", ""], 2, ["--out is empty"]),
    ([*RUN, "--out", " "], 2, ["--out is empty"]),
    ([*RUN, "--out", "foreign"], 1, ["--out foreign", "not a run of experiment waiting_to_open",
                                     "choose an empty or new folder"]),
    ([*RUN, "--out", "afile"], 1, ["afile is a file"]),
    ([*RUN, "--out", "afile/deeper/still"], 1, ["afile is a file"]),
    # report
    (["report", "--only", "nonexistent"], 2, ["--only 'nonexistent'", "unknown experiment"]),
    (["report", "--only", "may_i", "--only", "../x"], 2, ["--only '../x'"]),
    (["report", "--out", ""], 2, ["--out is empty"]),
    (["report", "--out", "foreign"], 1, ["not an edition of `rami report`"]),
    (["report", "--out", "afile"], 1, ["afile is a file"]),
    (["report", "--quick", "--fast"], 2, ["No such option"]),
    # rollout
    (["rollout", "--game", "18446744073709551616", "--event", "5"], 2, ["--game", "0<=x<=2147483646"]),
    (["rollout", "--game", str(2**31 - 1), "--event", "5"], 2, ["--game"]),
    (["rollout", "--game", "-1", "--event", "5"], 2, ["--game"]),
    (["rollout"], 2, ["Missing option '--event'"]),
    (["rollout", "--event", "0"], 2, ["--event", "x>=1"]),
    (["rollout", "--event", "5", "--trials", "0"], 2, ["--trials"]),
    (["rollout", "--event", "5", "--mode", "psychic"], 2, ["--mode", "'psychic'"]),
    (["rollout", "--event", "5", "--width", "0"], 2, ["--width"]),
    (["rollout", "--event", "5", "--width", "nan"], 2, ["--width", "not a finite number"]),
    (["rollout", "--event", "5", "--width", "inf"], 2, ["--width", "not a finite number"]),
    (["rollout", "--event", "5", "--rollout-seed", str(2**63)], 2, ["--rollout-seed"]),
    (["rollout", "--event", "5", "--max-rounds", "0"], 2, ["--max-rounds"]),
    (["rollout", "--event", "5", "--seed", BIG], 2, ["--seed"]),
    (["rollout", "--event", "5", "--strategies", ""], 2, ["--strategies is empty"]),
    (["rollout", "--event", "5", "--strategies", "greedy,genius"], 2, ["--strategies", "'genius'"]),
    (["rollout", "--event", "5", "--set", "players=9"], 2, ["players", "2 to 5 players"]),
    # analyse
    (["analyse", "--html", "afile/game.html"], 1, ["--html afile/game.html", "does not exist"]),
    (["analyse", "--html", ""], 2, ["--html"]),
    (["analyse", "--seats", "9"], 2, ["--seats '9'", "out of range"]),
    (["analyse", "--seats", "x"], 2, ["--seats 'x'"]),
    (["analyse", "--trials", "0"], 2, ["--trials"]),
    (["analyse", "--width", "inf"], 2, ["--width", "not a finite number"]),
    (["analyse", "--mode", "both"], 2, ["--mode", "'both'"]),
    (["analyse", "--mark", "bad=20"], 2, ["--mark", "grow with the mark"]),
    (["analyse", "--trace", "afile"], 2, ["--trace 'afile'", "not JSON"]),
    (["analyse", "--trace", "foreign"], 2, ["--trace", "foreign"]),
    (["analyse", "--trace", "missing.json"], 2, ["--trace 'missing.json'", "cannot read it"]),
    (["analyse", "--trace", "afile", "--game", "2"], 2, ["--trace names its game", "--game"]),
    # record
    (["record"], 2, ["Missing option '--seat'"]),
    (["record", "--seat", "9"], 2, ["--seat 9", "out of range"]),
    (["record", "--seat", "0", "--trace", "afile"], 2, ["--trace 'afile'", "not JSON"]),
    (["record", "--seat", "0", "--trace", "afile", "--seed", "2"], 2, ["--trace names its game", "--seed"]),
    # review
    (["review"], 2, ["Missing argument 'RECORD'"]),
    (["review", "missing.txt"], 2, ["RECORD 'missing.txt'", "cannot read it"]),
    (["review", "afile"], 2, ["afile: line 1, column 1", "expected the head"]),
    (["review", "afile", "--trials", "0"], 2, ["--trials"]),
    (["review", "afile", "--mark", "bad=20"], 2, ["--mark", "grow with the mark"]),
    # agree
    (["agree", "expert", "--games", "-1"], 2, ["--games", "-1"]),
    (["agree", "expert", "--games", "0"], 2, ["--games"]),
    (["agree", "genius"], 2, ["STRATEGY", "unknown strategy 'genius'"]),
    (["agree", "expert,greedy"], 2, ["STRATEGY 'expert,greedy'", "give one strategy"]),
    (["agree", ""], 2, ["STRATEGY is empty"]),
    (["agree"], 2, ["Missing argument 'STRATEGY'"]),
    (["agree", "expert", "--yardstick", "oracle"], 2, ["--yardstick", "unknown strategy 'oracle'"]),
    (["agree", "expert", "--yardstick", "search:trials=1"], 2, ["--yardstick", "trials"]),
    (["agree", "expert", "--field", "greedy,genius"], 2, ["--field", "'genius'"]),
    (["agree", "expert", "--field", "greedy,greedy,greedy,greedy,greedy"], 2, ["--field names 5 other seats"]),
    (["agree", "expert", "--seats", "7"], 2, ["--seats '7'", "out of range"]),
    (["agree", "expert", "--seats", "0,1,2,3"], 2, ["--seats '0,1,2,3'", "leave one to the field"]),
    (["agree", "expert", "--seats", ""], 2, ["--seats"]),
    (["agree", "expert", "--workers", "0"], 2, ["--workers"]),
    (["agree", "expert", "--examples", "-1"], 2, ["--examples"]),
    (["agree", "expert", "--seed", BIG], 2, ["--seed"]),
    (["agree", "expert", "--rules", "rami52"], 2, ["unknown preset 'rami52'"]),
    # advise
    (["advise", "--rollouts", "5"], 2, ["--rollouts 5 needs --event"]),
    (["advise", "--rollouts", "-1", "--event", "9"], 2, ["--rollouts"]),
    (["advise", "--event", "-1"], 2, ["--event"]),
    (["advise", "--strategy", "genius"], 2, ["--strategy", "'genius'"]),
    (["advise", "--strategy", "greedy,greedy"], 2, ["--strategy 'greedy,greedy'", "give one strategy"]),
    (["advise", "--strategy", ""], 2, ["--strategy"]),
    (["advise", "--game", BIG], 2, ["--game"]),
    (["advise", "--rollout-seed", "-1"], 2, ["--rollout-seed"]),
    (["advise", "--max-rounds", "0"], 2, ["--max-rounds"]),
    (["advise", "--rules", "rami52"], 2, ["unknown preset 'rami52'"]),
    (["advise", "--position", "hand: 7H"], 2, ["--position: line 2, column 1", "missing sections"]),
    (["advise", "--position", "afile"], 2, ["--position: line 1, column 1", "expected 'section: value'"]),
    (["advise", "--position", "x:y", "--seed", "3"], 2, ["--seed cannot go with it"]),
    (["advise", "--position", "x:y", "--mode", "clairvoyant"], 2, ["knows no hidden card"]),
    (["advise", "--width", "2"], 2, ["--width go with --position"]),
    # info (its argument; what it says of a dataset is tested with the store)
    (["info", ""], 2, ["PATH", "does not exist"]),
    (["info", "no-such-dataset"], 2, ["PATH", "'no-such-dataset' does not exist"]),
    (["info"], 2, ["Missing argument 'PATH'"]),
    # hand, rules, strategies
    (["hand", "7H 8H 9H", "--set", "players=9"], 2, ["players"]),
    (["hand", "7H 8H 9H", "--rules", "nope"], 2, ["unknown preset 'nope'"]),
    (["hand", "7H 8H 9H", "--set", "=3"], 2, ["--set '=3'", "expected knob=value"]),
    (["hand", "7H 8H 99H"], 2, ["HAND", "'99H'"]),
    (["hand", "7H", ""], 2, ["HAND: argument 2 of 2 is empty"]),
    (["rules", "--set", "open_threshold=lots"], 2, ["open_threshold"]),
    (["rules", "--set", "open_threshold=-5"], 2, ["open_threshold"]),
    (["rules", "--rules", ""], 2, ["--rules"]),
    (["strategies", "extra"], 2, ["unexpected extra argument"]),
    (["strategies", "--verbose"], 2, ["No such option"]),
    # study (the refusals of a study file's keys are tested in test_studies.py)
    (["study"], 2, ["Missing argument 'FILE'"]),
    (["study", "no-such-study.toml"], 2, ["study file 'no-such-study.toml' does not exist"]),
    (["study", "afile"], 2, ["afile: not valid TOML"]),
    (["study", str(ROOT / "docs" / "studies" / "joker_policy.toml"), "--games", "1"], 2, ["--games", "x>=2"]),
    (["study", str(ROOT / "docs" / "studies" / "joker_policy.toml"), "--out", "foreign"], 1,
     ["not an edition of `rami report`"]),
    # odds
    (["odds", "--rules", "rami52"], 2, ["unknown preset 'rami52'"]),
    (["odds", "--precision", "0"], 2, ["--precision", "0.0001<=x<=0.5"]),
    (["odds", "--precision", "nan"], 2, ["--precision", "not a finite number"]),
    (["odds", "--max-hands", "10"], 2, ["--max-hands", "1000<=x"]),
    (["odds", "--seed", BIG], 2, ["--seed"]),
    (["odds", "--thresholds", "51,x"], 2, ["--thresholds", "'x'"]),
    (["odds", "--thresholds", ""], 2, ["--thresholds"]),
    (["odds", "--players", "9"], 2, ["--players"]),
    (["odds", "--players", "3", "--set", "players=4"], 2, ["--players 3", "players=4"]),
    (["odds", "--rules", "contrat", "--hand-size", "10"], 2, ["--hand-size", "contract table"]),
    (["odds", "--hand-size", "30"], 2, ["--hand-size"]),
    (["odds", "--set", "open_threshold=lots"], 2, ["open_threshold"]),
    # simulate
    (["simulate", "--out", ""], 2, ["--out is empty"]),
    (["simulate", "--games", BIG], 2, ["--games", "1<=x<=2147483647"]),
    (["simulate", "--games", str(2**31)], 2, ["--games"]),
    (["simulate", "--batch-size", "0"], 2, ["--batch-size"]),
    (["simulate", "--condition", "jokers(9) >= 1"], 2, ["--condition", "column 8", "seat 9"]),
    (["simulate", "--condition", "jokers(0) >="], 2, ["--condition", "cannot be read"]),
    (["simulate", "--condition", "jokers(0) == 4 and opening(1) >= 100"], 2, ["--condition", "too rare to sample"]),
    (["simulate", "--workers", "-1"], 2, ["--workers"]),
    (["simulate", "--strategies", "greedy,greedy", "--games", "2", "--workers", "1", "--quiet", "--out", "foreign"],
     1, ["foreign"]),
    (["simulate", "--strategies", "ceiling,greedy", "--out", "games"], 2,
     ["--strategies 'ceiling'", "sees the hidden cards", "rami ladder"]),
    # play (tests/test_play.py has the rest)
    (["play", "--no-browser", "--port", "65536"], 2, ["--port", "0<=x<=65535"]),
    (["play", "--no-browser", "--strategies", "ceiling"], 2, ["--strategies 'ceiling'", "sees the hidden cards"]),
    (["play", "--no-browser", "--seat", "4"], 2, ["--seat 4", "0 to 3"]),
    # ladder, review, record and play: every option of the newer commands (their own files have the rest)
    (["ladder", "random,greedy", "--resamples", "0", "--out", "ladder"], 2, ["--resamples"]),
    (["ladder", "random,greedy", "--set", "players=6", "--out", "ladder"], 2, ["--set", "'players' = 6"]),
    (["ladder", "random,greedy", "--timing-games", "-1", "--out", "ladder"], 2, ["--timing-games"]),
    (["ladder", "random,greedy", "--workers", "0", "--out", "ladder"], 2, ["--workers"]),
    (["ladder", "random,greedy", "--seed", BIG, "--out", "ladder"], 2, ["--seed"]),
    (["ladder", "random,greedy", "--rules", "rami52", "--out", "ladder"], 2, ["unknown preset 'rami52'"]),
    (["ladder", "random,genius", "--out", "ladder"], 2, ["'genius'"]),
    (["ladder", "random,greedy", "--out", ""], 2, ["--out is empty"]),
    (["ladder", "random,greedy", "--out", "afile"], 1, ["afile is a file"]),
    (["review", "afile", "--width", "nan"], 2, ["--width", "not a finite number"]),
    (["review", "afile", "--rollout-seed", "-1"], 2, ["--rollout-seed"]),
    (["review", "afile", "--workers", "0"], 2, ["--workers"]),
    (["review", "afile", "--html", "afile/page.html"], 1, ["--html afile/page.html", "does not exist"]),
    (["record", "--seat", "0", "--rules", "rami52"], 2, ["unknown preset 'rami52'"]),
    (["record", "--seat", "0", "--set", "players=9"], 2, ["players"]),
    (["record", "--seat", "0", "--strategies", "greedy,genius"], 2, ["'genius'"]),
    (["record", "--seat", "0", "--seed", BIG], 2, ["--seed"]),
    (["record", "--seat", "0", "--game", "-1"], 2, ["--game"]),
    (["record", "--seat", "0", "--max-rounds", "0"], 2, ["--max-rounds"]),
    (["record", "--seat", "0", "--trace", "missing.json"], 2, ["--trace", "missing.json"]),
    (["play", "--no-browser", "--rules", "rami52"], 2, ["unknown preset 'rami52'"]),
    (["play", "--no-browser", "--set", "players=9"], 2, ["players"]),
    (["play", "--no-browser", "--strategies", "genius"], 2, ["'genius'"]),
    (["play", "--no-browser", "--seed", BIG], 2, ["--seed"]),
    (["play", "--no-browser", "--port", "-1"], 2, ["--port"]),
    (["play", "--no-browser", "--records", "afile/records"], 1, ["afile"]),
    (["ladder", "random", "--out", "ladder"], 2, ["PLAYERS 'random'", "at least 2 players"]),
    (["ladder", "random,greedy", "--games", "1", "--out", "ladder"], 2, ["--games"]),
    (["ladder", "random,greedy,random", "--out", "ladder"], 2, ["PLAYERS", "listed twice"]),
    (["ladder", "random,greedy", "--reference", "ceiling"], 2, ["--reference 'ceiling'"]),
    (["ladder", "random,greedy", "--quiet", "--out", "foreign"], 1, ["foreign"]),
]


@pytest.mark.parametrize("args,code,needles", CASES, ids=[" ".join(c[0])[:70] for c in CASES])
def test_each_bad_input_is_one_line_its_exit_code_and_creates_nothing(workdir, args, code, needles):
    before = tree(workdir)
    assert_refused(CliRunner().invoke(main, args), code, needles, before, workdir)


def test_the_table_covers_every_command_of_this_contract():
    covered = {args[0] for args, _, _ in CASES}
    mine = set(main.commands) - {"tournament", "compare", "tune"}
    assert mine <= covered, mine - covered


NEWER = ("ladder", "review", "record", "play")
"""The commands added last: the table holds a bad value of each of their options."""


def test_the_table_holds_a_bad_value_of_every_option_of_the_newer_commands():
    for name in NEWER:
        options = {opt for p in main.commands[name].params if isinstance(p, click.Option) and not p.is_flag
                   for opt in p.opts if opt.startswith("--")}
        # --scheduler names a cluster to reach: its refusals are tested with the cluster (tests/test_distributed.py).
        options -= {"--scheduler"}
        given = {a for args, _, _ in CASES if args[0] == name for a in args}
        assert options <= given, (name, sorted(options - given))


def test_a_real_process_keeps_the_contract(tmp_path):
    """``python -m sim``: the exit code and the one line of a few cases, and no folder made."""
    for args, code, needle in [
        ([*RUN, "--games", "1", "--out", "run"], 2, "--games"),
        (["report", "--only", "nonexistent", "--out", "edition"], 2, "--only"),
        (["rollout", "--game", "18446744073709551616", "--event", "5"], 2, "--game"),
        ([*RUN, "--out", str(tmp_path / "afile" / "run")], 1, "is a file"),
    ]:
        (tmp_path / "afile").write_text("x")
        before = tree(tmp_path)
        done = subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True, cwd=tmp_path,
                              timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == code, done.stderr
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("Error: ") and needle in done.stderr
        assert tree(tmp_path) == before


def test_an_ascii_console_gets_ascii_cards_and_an_ascii_error():
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "sim", "hand", "K♣ K♦ K♥ 9♠ 10♠ J♠ ★"], capture_output=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.isascii() and b"KC KD KH 9S 10S JS JK" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "sim", "hand", "7♥ 7♥ 7♥"], capture_output=True, env=env, timeout=300)
    assert bad.returncode == 2 and bad.stderr.isascii() and b"3 copies of 7H" in bad.stderr


# ---------------------------------------------------------- output folders
def test_a_refused_or_interrupted_command_leaves_no_folder_it_made(tmp_path):
    target = tmp_path / "results" / "experiments" / "x" / "seed-1"
    with pytest.raises(ValueError), made_folder(target):
        assert target.is_dir()
        raise ValueError("refused while running")
    assert tree(tmp_path) == []
    with pytest.raises(Interrupted) as caught, made_folder(target, kept=lambda: "kept the runs"):
        (target / "summary.json").write_text("{}")
        raise KeyboardInterrupt
    assert caught.value.exit_code == EXIT_INTERRUPTED and caught.value.format_message() == "interrupted: kept the runs"
    assert (target / "summary.json").exists()  # what was written is kept
    with pytest.raises(Interrupted) as caught, made_folder(tmp_path / "new"):
        raise KeyboardInterrupt
    assert caught.value.format_message() == "interrupted: nothing was kept" and not (tmp_path / "new").exists()


def test_an_earlier_output_of_the_same_command_is_accepted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    import experiments
    from experiments.runner import claim_data

    run = tmp_path / "run"
    may_i = experiments.load("may_i")
    claim_data(run / "data", may_i, may_i.config(seed=1))
    (run / "summary.json").write_text('{"experiment": "may_i"}')
    assert check_run("may_i", None, None, 1, (), "run")[2] == Path("run")
    with pytest.raises(click.ClickException, match="not a run of experiment waiting_to_open"):
        check_run("waiting_to_open", None, None, 1, (), "run")  # another experiment's run
    with pytest.raises(click.ClickException, match="holds the data of a run of may_i with another config"):
        check_run("may_i", None, None, 2, (), "run")  # the same experiment at another seed
    edition = tmp_path / "edition"
    (edition / "may_i" / "seed-1").mkdir(parents=True)
    assert check_report(True, "edition", ("may_i", "may_i")) == (["may_i"], Path("edition"))
    (edition / "README.md").write_text("notes\n")
    with pytest.raises(click.ClickException, match="not an edition"):
        check_report(True, "edition", ())
    (edition / "index.md").write_text("# Rami lab reports (quick edition)\n")
    assert check_report(True, "edition", ())[1] == Path("edition")  # an index says it is an edition
    assert check_report(False, None, ())[1] == Path("reports")


@pytest.mark.skipif(not hasattr(signal, "SIGINT"), reason="needs SIGINT")
def test_ctrl_c_during_an_experiment_exits_130_with_one_line_and_keeps_what_it_played(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "sim", *RUN, "--games", "4000", "--out", "exp/run", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 300
    while not (tmp_path / "exp" / "run").is_dir() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert (tmp_path / "exp" / "run").is_dir(), "the command never made its folder"
    time.sleep(3)  # into the games (or the engine's first compilation)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if not line.startswith("compiling")]
    assert lines == ["Error: interrupted: the finished batches are kept in exp/run; the same command plays only "
                     "the rest"], err
    info = subprocess.run([sys.executable, "-m", "sim", "info", "exp/run"], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert info.returncode == 0 and "not finished" in info.stdout, info.stdout + info.stderr


# --------------------------------------------------------------- Python API
def test_the_python_api_refuses_a_string_where_a_list_or_a_position_belongs():
    from experiments.tournament import tournament

    with pytest.raises(TypeError, match="position must be a sim.Position"):
        sim.rollout(["9♠"])
    # A string is a position typed in the seat view notation (docs/positions.md), read with line and column.
    with pytest.raises(ValueError, match="^line 1, column 1: expected 'section: value'"):
        sim.rollout("text")
    with pytest.raises(TypeError, match=r"strategies must be a list, e\.g\. \['greedy', 'random'\]"):
        tournament("greedy,random", "rami51")


def test_library_messages_are_put_in_the_options_words():
    assert bad_value("--games", 1, "at least 2").format_message() == "--games 1: allowed: at least 2"
    assert bad_value("--set precision=", 1e-9, "at least 0.001").exit_code == EXIT_USAGE
    assert bad_value("--mode", "x", "belief").format_message() == "--mode 'x': allowed: belief"
    with pytest.raises(BadValue, match="^--max-games must be at least 2, got 1$"), \
            as_options({"max_games": "--max-games"}):
        raise ValueError("max_games must be at least 2, got 1")
    with pytest.raises(BadValue, match="^--games must be at least 2 games"), as_options({"games": "--games"}):
        raise ValueError("config key 'games' must be at least 2 games")
    with pytest.raises(BadValue, match="a strategy file under another name"), as_options():
        raise ValueError("give a copy another name (dataclasses.replace(strategy, name=...)) to play it")


# ------------------------------------------------ random values: properties
NUMBERS = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", " ", "nan", "inf", "-inf", "1e-9", "0", "-1", "1", "2", "0.5", "1e400", "0x10", "١٢"]),
)
WORDS = st.one_of(
    st.sampled_from(["", " ", "greedy", "expert", "../x", "x=1", "=", ",", "a\x00b", "rami51", "basic", "contrat",
                     "may_i", "waiting_to_open", "joker_fork", "nonexistent", "results/x"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12),
)
# Strategy lists from known names only: an item `module:Name` imports that module.
SEATS = st.lists(st.sampled_from(["greedy", "expert", "random", "cautious", "genius", "", "greedy:jokers=2",
                                  "greedy:jokers=9", "open_extra=3"]), max_size=6).map(",".join)
SETTINGS = st.sampled_from(["players=3", "players=9", "players=0", "open_threshold=30", "open_threshold=-1",
                            "open_threshold=lots", "game=basic", "bogus=1", "x", "=1", "games=1", "games=5",
                            "precision=1e-9", "precision=0.05", "workers=0", "seed=-1", "resamples=10"])

TRACED = {"--rules": st.sampled_from(["rami51", "basic", "contrat", "rami52", ""]), "--set": SETTINGS,
          "--strategies": SEATS, "--seed": NUMBERS, "--game": NUMBERS, "--max-rounds": NUMBERS}
COMMANDS = {
    # command: (its options and their random values, positional arguments, its checks after click's)
    "experiment run": ({"--games": NUMBERS, "--precision": NUMBERS, "--seed": NUMBERS, "--set": SETTINGS,
                        "--out": WORDS}, st.lists(WORDS, min_size=1, max_size=1),
                       lambda p: check_run(p["name"], p["games"], p["precision"], p["seed"], p["settings"],
                                           p["out"])),
    "report": ({"--only": WORDS, "--out": WORDS}, st.just([]),
               lambda p: check_report(p["quick"], p["out"], p["only"])),
    "advise": ({**TRACED, "--event": NUMBERS, "--strategy": st.one_of(SEATS, WORDS), "--rollouts": NUMBERS,
                "--rollout-seed": NUMBERS}, st.just([]),
               lambda p: check_advise(p["ruleset"], p["overrides"], p["seat_names"], p["index"], p["strategy"],
                                      p["rollouts"])),
    "rollout": ({**TRACED, "--event": NUMBERS, "--trials": NUMBERS, "--mode": WORDS, "--width": NUMBERS,
                 "--rollout-seed": NUMBERS}, st.just([]),
                lambda p: table_from(p["ruleset"], p["overrides"], p["seat_names"])),
    "analyse": ({**TRACED, "--seats": WORDS, "--trials": NUMBERS, "--width": NUMBERS, "--mode": WORDS,
                 "--mark": WORDS, "--workers": NUMBERS, "--rollout-seed": NUMBERS, "--trace": WORDS}, st.just([]),
                lambda p: check_analyse(p["ruleset"], p["overrides"], p["seat_names"], p["seat_text"], p["marks"],
                                        p["trace_file"], [])),
    "agree": ({"--rules": TRACED["--rules"], "--set": SETTINGS, "--yardstick": st.one_of(SEATS, WORDS),
               "--field": st.one_of(SEATS, WORDS), "--games": NUMBERS, "--seats": WORDS, "--seed": NUMBERS,
               "--workers": NUMBERS, "--max-rounds": NUMBERS, "--examples": NUMBERS},
              st.lists(st.one_of(SEATS, WORDS), min_size=1, max_size=1),
              lambda p: check_agree(p["strategy"], p["yardstick"], p["ruleset"], p["overrides"], p["field"],
                                    p["seat_text"])),
    "simulate": ({**TRACED, "--games": NUMBERS, "--workers": NUMBERS, "--batch-size": NUMBERS, "--out": WORDS},
                 st.just([]), lambda p: check_simulate(p["ruleset"], p["overrides"], p["seat_names"], p["out"])),
    "hand": ({"--rules": TRACED["--rules"], "--set": SETTINGS}, st.lists(WORDS, max_size=4),
             lambda p: check_hand(p["hand"], p["ruleset"], p["overrides"])),
    "rules": ({"--rules": TRACED["--rules"], "--set": SETTINGS}, st.just([]),
              lambda p: ruleset_from(p["ruleset"], p["overrides"])),
    "info": ({}, st.lists(WORDS, min_size=1, max_size=1), lambda p: None),
}


def _command(path: str) -> click.Command:
    command: click.Command = main
    for name in path.split():
        command = command.commands[name]
    return command


@st.composite
def invocations(draw, path: str) -> tuple[list[str], list[str]]:
    options, positional, _ = COMMANDS[path]
    chosen = draw(st.lists(st.sampled_from(sorted(options)), unique=True, max_size=len(options))) if options else []
    args = [item for option in chosen for item in (option, draw(options[option]))]
    return [*args, "--", *draw(positional)], chosen


@pytest.mark.parametrize("path", list(COMMANDS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_values_pass_every_check_or_are_refused_with_one_line_naming_their_option(workdir, path, data):
    """Click's parsing and the command's own checks (all that runs before anything is made or played):
    a value passes, or is refused as a usage error (exit 2) naming its option, or an output folder that
    cannot be used (exit 1); never another exception; and nothing is created."""
    args, chosen = data.draw(invocations(path))
    before = tree(workdir)
    command = _command(path)
    try:
        with command.make_context(path, list(args)) as ctx:
            COMMANDS[path][2](ctx.params)
    except click.UsageError as exc:  # click's own (a bad option value, a missing argument) and BadValue
        message = exc.format_message()
        assert exc.exit_code == EXIT_USAGE and message.strip(), message
        if isinstance(exc, click.BadParameter) and exc.param is not None:
            assert exc.param.opts[0] in message or exc.param.name.upper() in message, message
    except BadValue as exc:
        message = exc.format_message()
        named = [*chosen, "NAME", "HAND", "STRATEGY", "no cards given", "players", "knob", "preset", "ruleset", "seats"]
        assert any(word in message for word in named), (message, args)
    except click.ClickException as exc:  # an output folder that cannot be used
        assert exc.exit_code == 1 and "--out" in exc.format_message(), exc.format_message()
    assert tree(workdir) == before


def test_the_last_game_a_command_names_is_the_apis():
    # The command line keeps its own copy so that commands which play nothing
    # do not load the engine; the two must not drift apart.
    from sim.api import LAST_GAME
    from sim.cli.common import GAME_MAX

    assert GAME_MAX == LAST_GAME
