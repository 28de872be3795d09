"""sim.engine.warm: the kernels are made ready before a run, and only a compilation is told.

The notice on a truly empty numba cache is checked by
``benchmarks/bench_engine.py`` (a minute or more of compiling: not for the
suite); here a notice delay of zero makes loading from the cache count as
"taking a while", which exercises the same path from the engine to the
user's terminal.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import threading

from sim.engine.jit import run_in_thread
from sim.engine.warm import ensure_compiled
from sim.rules import preset


def test_a_loaded_engine_is_ready_without_a_notice():
    told = []
    ensure_compiled(preset("rami51"), lambda: told.append("compiling"))  # compiles or loads, told or not
    told.clear()
    # Loaded now: well inside the notice delay, nothing to tell.
    assert ensure_compiled(preset("rami51"), lambda: told.append("compiling")) < 60
    assert told == []


def test_rami_simulate_says_nothing_of_compiling_once_compiled(tmp_path):
    ensure_compiled(preset("basic", players=2))
    run = subprocess.run(
        [sys.executable, "-c", "from sim.cli import main; main()", "simulate", "--rules", "basic",
         "--strategies", "greedy,random", "--games", "5", "--quiet", "--out", str(tmp_path / "r.parquet")],
        capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "compiling" not in run.stderr


def _run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)


def test_rami_simulate_says_it_is_compiling_while_the_engine_is_not_ready(tmp_path):
    # The CLI's first simulation goes through sim.simulate, which makes the
    # engine ready itself: the notice must still reach the terminal, once.
    run = _run_python(
        "import sim.engine.warm as w; w.NOTICE_AFTER = 0\n"
        "from sim.cli import main\n"
        f"main(['simulate', '--games', '5', '--quiet', '--out', {str(tmp_path / 'r')!r}])"
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("compiling the engine (first run only)") == 1


def test_a_python_simulation_says_it_is_compiling_too():
    run = _run_python(
        "import sim.engine.warm as w; w.NOTICE_AFTER = 0\n"
        "import sim\n"
        "sim.simulate('basic', ['greedy', 'random'], n_games=3, workers=1)\n"
        "sim.simulate('basic', ['greedy', 'random'], n_games=3, workers=1)"  # ready now: no second notice
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("compiling the engine (first run only)") == 1


def test_a_refused_folder_is_refused_before_any_compiling(tmp_path):
    import sim

    sim.simulate("basic", ["greedy", "random"], n_games=3, seed=1, workers=1, out=tmp_path / "d")
    run = _run_python(
        "import sim.engine.warm as w; w.NOTICE_AFTER = 0\n"
        "import sim\n"
        f"sim.simulate('basic', ['greedy', 'random'], n_games=3, seed=2, workers=1, out={str(tmp_path / 'd')!r})"
    )
    assert run.returncode != 0
    assert "IdentityError" in run.stderr and "seed" in run.stderr  # a DatasetError: another identity
    assert "compiling" not in run.stderr


def _oscillate(pad: int, times: int) -> None:
    """Call ``times`` times down to a depth ``pad`` frames below here plus 40 to 42: the compiler's pattern."""

    def down(n: int) -> int:
        return 0 if n == 0 else down(n - 1) + 1

    def at(k: int) -> None:
        if k:
            at(k - 1)
            return
        for i in range(times):
            down(40 + i % 3)

    at(pad)


def test_the_compiling_thread_keeps_its_frames_in_one_chunk():
    # Some of these depths put a chunk boundary of the frame stack under the
    # oscillation; a thread started by run_in_thread never maps a new chunk
    # there (thousands of page faults otherwise, one per crossing).
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for pad in range(0, 300, 37):
        finished = run_in_thread(lambda p=pad: _oscillate(p, 5_000))
        assert finished.wait(60)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert faults < 2_000


def test_run_in_thread_runs_the_work_in_another_thread():
    seen = []
    finished = run_in_thread(lambda: seen.append(threading.get_ident()))
    assert finished.wait(10)
    assert seen and seen[0] != threading.get_ident()


def test_a_run_compiles_the_entry_it_plays_and_no_other(monkeypatch):
    # A searching table is played by an entry of its own: a run readies it when it uses it (with the compiling
    # notice when that takes a while) and never when it does not. Conditioned deals are played by each table's
    # own entry: nothing more to ready.
    import sim
    from sim import api, batches
    from sim.engine import play as E

    played = []
    real = batches.run_batch

    def spy(kr, seed, start, count, kinds, params, max_rounds, *args, **kw):
        played.append((bool(E.searching(kinds)), kw.get("orders") is not None))
        return real(kr, seed, start, count, kinds, params, max_rounds, *args, **kw)

    monkeypatch.setattr(api, "READY_ENTRIES", set())
    monkeypatch.setattr(batches, "run_batch", spy)
    sim.simulate("rami51", ["greedy"] * 3, n_games=2, seed=3, workers=1)
    assert api.READY_ENTRIES == {False} and set(played) == {(False, False)}  # the plain loop: batches alone
    before = len(played)
    sim.simulate("rami51", ["search:trials=2", "greedy", "greedy"], n_games=1, seed=3, workers=1, max_rounds=1)
    searched = played[before:]
    assert api.READY_ENTRIES == {False, True}
    assert set(searched) == {(True, False)} and len(searched) == 2  # readied by one short game, then the batch
    before = len(played)
    sim.simulate("rami51", ["greedy"] * 3, n_games=1, seed=3, workers=1, condition="jokers(0) >= 1")
    assert played[before:] == [(False, True)]  # the batch alone
    before = len(played)
    sim.simulate("rami51", ["search:trials=2", "greedy", "greedy"], n_games=1, seed=3, workers=1, max_rounds=1,
                 condition="jokers(0) >= 1")
    assert api.READY_ENTRIES == {False, True}
    assert played[before:] == [(True, True)]  # the batch alone


def _game_entries_compiled() -> dict[str, int]:
    """The entries defined in ``sim.engine.play`` and ``sim.engine.search`` (the batches Python calls) compiled or
    loaded, with their versions."""
    from numba.core.dispatcher import Dispatcher

    from sim.engine import play, search

    return {name: len(value.overloads) for module in (play, search) for name, value in vars(module).items()
            if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__ and value.overloads}


def test_a_traced_game_plays_on_the_simulations_entry():
    # One compiled game loop for Python: a traced game after a simulation compiles (or loads) no game loop of
    # its own, nor a new version of the simulation's, and a batch of dealt games neither.
    import sim

    sim.simulate("rami51", ["greedy"] * 4, n_games=2, seed=5, workers=1)
    compiled = _game_entries_compiled()
    assert compiled.get("play_batch", 0) >= 1
    events = sim.play_traced("rami51", ["greedy"] * 4, seed=5, game=1)
    sim.simulate("rami51", ["greedy"] * 4, n_games=1, seed=5, workers=1, condition="jokers(0) >= 1")
    assert _game_entries_compiled() == compiled
    assert events[0]["type"] == "game_start" and events[-1]["type"] == "game_end"


def test_a_searching_table_plays_its_batches_and_traced_games_on_one_entry():
    # The searching table's one entry (sim.engine.search.search_batch): its traced game and its dealt games
    # compile (or load) no other, nor a new version of it.
    import sim

    seats = ["search:trials=2", "greedy", "greedy"]
    sim.simulate("rami51", seats, n_games=1, seed=5, workers=1, max_rounds=1)
    compiled = _game_entries_compiled()
    assert compiled.get("search_batch", 0) == 1
    events = sim.play_traced("rami51", seats, seed=5, game=1, max_rounds=1)
    sim.simulate("rami51", seats, n_games=1, seed=5, workers=1, max_rounds=1, condition="jokers(0) >= 1")
    assert _game_entries_compiled() == compiled
    assert events[0]["type"] == "game_start" and events[-1]["type"] == "game_end"
