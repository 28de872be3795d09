"""Results that are never lost: a writer killed at any instant, two writers at once, damaged files.

The writers killed here are real processes running ``sim.simulate(out=...)``
and stopped by SIGKILL. Starting a fresh Python for each would cost seconds
of imports and kernel loading, so one helper process loads the engine once
and forks a writer per run; the test kills the writer, and the helper reaps
it and reports how it ended.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

import sim
from sim import store
from sim.cli import main

RULES, SEATS, SEED, GAMES, BATCH = "basic", ["greedy", "random"], 3, 40, 2

# Reads commands on stdin: "run FOLDER GAMES" forks a writer and answers its
# pid; "reap PID" waits for it and answers how it ended.
_HELPER = textwrap.dedent(f"""
    import os, sys
    import sim
    from sim import rules
    from sim.engine.warm import ensure_compiled
    ensure_compiled(rules.preset({RULES!r}, players={len(SEATS)}))  # no frame built yet: forking is safe
    print("ready", flush=True)
    for line in sys.stdin:
        command, *args = line.split()
        if command == "run":
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    sim.simulate({RULES!r}, {SEATS!r}, n_games=int(args[1]), seed={SEED}, batch_size={BATCH},
                                 workers=1, out=args[0])
                    code = 0
                finally:
                    os._exit(code)
            print(pid, flush=True)
        elif command == "reap":
            _, status = os.waitpid(int(args[0]), 0)
            print("killed" if os.WIFSIGNALED(status) else f"exit {{os.WEXITSTATUS(status)}}", flush=True)
""")


class Writers:
    """The helper process: forks writers on request."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        assert self._answer() == "ready"

    def _answer(self) -> str:
        line = self.proc.stdout.readline().strip()
        assert line, "the helper process ended"
        return line

    def start(self, out: Path, games: int = GAMES) -> int:
        self.proc.stdin.write(f"run {out} {games}\n")
        self.proc.stdin.flush()
        return int(self._answer())

    def reap(self, pid: int) -> str:
        self.proc.stdin.write(f"reap {pid}\n")
        self.proc.stdin.flush()
        return self._answer()

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def writers():
    helper = Writers()
    yield helper
    helper.close()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference") / "d"
    sim.simulate(RULES, SEATS, n_games=GAMES, seed=SEED, batch_size=BATCH, workers=1, out=out)
    return {table: sim.load(out, table).collect() for table in store.TABLES}


def _batches_written(out: Path) -> int:
    return len(list(out.glob("games/*.parquet")))


def test_a_writer_killed_at_20_random_instants_resumes_to_the_uninterrupted_dataset(tmp_path, writers, reference):
    # An uninterrupted run first, to time its start (no batch yet) and one batch.
    began = time.monotonic()
    pid = writers.start(tmp_path / "whole")
    while not _batches_written(tmp_path / "whole"):
        time.sleep(0.005)
    first_batch = time.monotonic() - began
    assert writers.reap(pid) == "exit 0"
    batches = GAMES // BATCH
    one_batch = (time.monotonic() - began - first_batch) / (batches - 1)
    rng = random.Random(21)
    partial = 0
    for k in range(20):
        out = tmp_path / f"killed-{k}"
        pid = writers.start(out)
        # One instant in four falls before the first batch is written (the run's start: no manifest, or one
        # without a batch); the others while batches are being written, a random time after the j-th batch
        # appeared. Instants are placed by the batches seen, not by the clock alone, so that a loaded machine,
        # which slows one run and not another, still kills runs in the middle of their batches.
        if k % 4 == 0:
            time.sleep(first_batch * rng.random())
        else:
            seen = rng.randrange(1, batches)
            while _batches_written(out) < seen:
                time.sleep(0.002)
            time.sleep(one_batch * rng.random())
        os.kill(pid, signal.SIGKILL)
        ended = writers.reap(pid)
        # What the killed run left loads (its finished batches) and shows no problem.
        if (out / store.MANIFEST).exists():
            survey = store.check(out)
            assert survey.problems == [], (k, survey.problems)
            if survey.done:
                games = sim.load(out, "games").collect()
                assert games.equals(reference["games"].filter(pl.col("game").is_in(games["game"].unique().to_list())))
            partial += ended == "killed" and 0 < len(survey.done) < batches
        # The same command again (here, not in a fresh process: the lock of the killed run must be gone).
        ds = sim.simulate(RULES, SEATS, n_games=GAMES, seed=SEED, batch_size=BATCH, workers=1, out=out)
        assert ds.games_found + ds.games_played == GAMES
        for table in store.TABLES:
            assert sim.load(out, table).collect().equals(reference[table]), (k, table)
        assert store.check(out).problems == [] and not list((out / ".tmp").iterdir())
    # The fifteen instants placed after a batch fell while batches were being written (a writer that finished
    # its remaining batches within a fraction of one would not count).
    assert partial >= 12, partial


def test_a_second_writer_is_refused_and_a_killed_writer_leaves_no_lock(tmp_path, writers, reference):
    out = tmp_path / "d"
    pid = writers.start(out, games=100_000)
    deadline = time.monotonic() + 60
    while not list((out / "games").glob("*.parquet")) and time.monotonic() < deadline:
        time.sleep(0.02)
    with pytest.raises(store.DatasetError, match=rf"being written by another run now \(process {pid} on .*\); "
                                                 r"wait for it to end, or choose another output folder"):
        sim.simulate(RULES, SEATS, n_games=GAMES, seed=SEED, batch_size=BATCH, workers=1, out=out)
    result = subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", "simulate", "--rules", RULES,
                             "--strategies", ",".join(SEATS), "--games", "10", "--seed", str(SEED), "--quiet",
                             "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
    assert "being written by another run now" in result.stderr and "Traceback" not in result.stderr
    os.kill(pid, signal.SIGKILL)
    assert writers.reap(pid) == "killed"
    # The system released the killed run's lock: the same command resumes at once.
    ds = sim.simulate(RULES, SEATS, n_games=GAMES, seed=SEED, batch_size=BATCH, workers=1, out=out)
    assert ds.games_played + ds.games_found == GAMES
    for table in store.TABLES:
        assert sim.load(out, table).filter(pl.col("game") < GAMES).collect().equals(reference[table])
    # A writer in this process holds the lock until it is closed.
    identity = json.loads((out / store.MANIFEST).read_text())["identity"]
    writer = store.open_dataset(out, identity, {"command": "test"}, players=len(SEATS))
    with pytest.raises(store.DatasetError, match=f"process {os.getpid()} on"):
        store.open_dataset(out, identity, {"command": "test"}, players=len(SEATS))
    writer.close("complete", 0)
    store.open_dataset(out, identity, {"command": "test"}, players=len(SEATS)).close("complete", 0)


def _made(tmp_path: Path, name: str = "d") -> Path:
    out = tmp_path / name
    sim.simulate(RULES, SEATS, n_games=12, seed=SEED, batch_size=4, workers=1, out=out)
    return out


def _damage(out: Path, how: str) -> Path:
    """Damage the batch of games 4..7 of ``out``'s games table; the file (or the missing file's path)."""
    victim = out / "games" / store.batch_name(4, 7)
    data = victim.read_bytes()
    if how == "truncated":
        victim.write_bytes(data[: len(data) - 100])
    elif how == "emptied":
        victim.write_bytes(b"")
    elif how == "corrupt footer":
        # The magic bytes stay; the footer (thrift metadata) before them is overwritten.
        footer = int.from_bytes(data[-8:-4], "little")
        victim.write_bytes(data[: len(data) - 8 - footer] + bytes([0xFF]) * footer + data[-8:])
    elif how == "deleted":
        victim.unlink()
    return victim


@pytest.mark.parametrize("how", ["truncated", "emptied", "deleted", "corrupt footer"])
def test_a_damaged_batch_is_named_with_what_to_do_by_load_info_and_resume(tmp_path, how, reference):
    out = _made(tmp_path)
    victim = _damage(out, how)
    expected = {"truncated": "truncated or corrupt", "emptied": "too short for a parquet file",
                "deleted": "missing (the manifest lists games 4..7)", "corrupt footer": "corrupt parquet footer"}[how]
    # rami info: exit 1, one line per problem, naming the file.
    result = CliRunner().invoke(main, ["info", str(out)])
    assert result.exit_code == 1, result.output
    problems = [line for line in result.stderr.splitlines() if str(victim) in line]
    assert len(problems) == 1 and expected in problems[0] and "again" in problems[0], result.stderr
    assert "Traceback" not in result.output
    # sim.load: refused at once, with the file's name (the deep footer check is rami info's).
    if how != "corrupt footer":
        with pytest.raises(store.DatasetError, match=f"{victim}: .*{expected.split(' (')[0]}") as error:
            sim.load(out, "games")
        assert "again" in str(error.value) and "\n" not in str(error.value)
    # The same command again: a damaged file is refused with what to do; once deleted, its games are played again.
    if how != "deleted":
        with pytest.raises(store.DatasetError, match=f"{victim}: .*delete it, then run this command again"):
            sim.simulate(RULES, SEATS, n_games=12, seed=SEED, batch_size=4, workers=1, out=out)
        victim.unlink()
    ds = sim.simulate(RULES, SEATS, n_games=12, seed=SEED, batch_size=4, workers=1, out=out)
    assert ds.games_played == 4
    for table in store.TABLES:
        assert sim.load(out, table).collect().equals(reference[table].filter(reference[table]["game"] < 12))
    assert CliRunner().invoke(main, ["info", str(out)]).exit_code == 0


def test_every_problem_of_a_dataset_is_one_line_of_info(tmp_path):
    out = _made(tmp_path)
    _damage(out, "truncated")
    (out / "rounds" / store.batch_name(8, 11)).unlink()
    (out / "rounds" / "notes.txt").write_text("mine")
    result = CliRunner().invoke(main, ["info", str(out)])
    assert result.exit_code == 1
    assert len(result.stderr.splitlines()) == 3, result.stderr
    # Only whole batches count; what made the dataset is still shown, to know the command to run again.
    assert "4 games on disk (0..3); 3 problems" in result.stdout and "runs        1" in result.stdout
    with pytest.raises(store.DatasetError, match="and 2 more problems: rami info"):
        sim.load(out)
    one = CliRunner().invoke(main, ["info", str(out / "games" / store.batch_name(4, 7))])
    assert one.exit_code == 1 and "truncated or corrupt" in one.stderr and "Traceback" not in one.output


def test_the_manifest_lists_every_finished_batch_as_spans(tmp_path):
    out = tmp_path / "d"
    sim.simulate(RULES, SEATS, n_games=10, seed=SEED, batch_size=4, workers=1, out=out)
    # Batches 0..3, 4..7 and 8..9: one span of size 4, its last batch shorter.
    assert json.loads((out / store.MANIFEST).read_text())["batches"] == [{"first": 0, "last": 9, "size": 4}]
    sim.simulate(RULES, SEATS, n_games=7, first_game=10, seed=SEED, batch_size=3, workers=1, out=out)
    manifest = json.loads((out / store.MANIFEST).read_text())
    assert manifest["batches"] == [{"first": 0, "last": 9, "size": 4}, {"first": 10, "last": 16, "size": 3}]
    on_disk = sorted(f.name for f in (out / "games").iterdir())
    assert on_disk == [store.batch_name(a, b) for a, b in [(0, 3), (4, 7), (8, 9), (10, 12), (13, 15), (16, 16)]]
    assert store.check(out).done == [(0, 3), (4, 7), (8, 9), (10, 12), (13, 15), (16, 16)]
