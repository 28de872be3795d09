"""Compiling ahead in a second process (sim.ahead): the groups it compiles, what happens when it fails."""

from __future__ import annotations

import logging
import subprocess
import sys
import tempfile

import pytest

from sim import ahead


def test_a_second_process_compiles_a_group_and_says_it_is_ready():
    # On the suite's cache this loads the entries; on an empty one it compiles them, as a report's helper does.
    with ahead.start(["positions"]) as compiling:
        assert compiling.process is not None
        assert compiling.wait(["positions"])
        assert compiling.ready == {"positions"}
        # A group it was not asked for is left to the caller.
        assert not compiling.wait(["searching"])
    assert compiling.process is None


def test_a_process_that_fails_leaves_the_compiling_to_the_caller_and_says_why(caplog):
    errors = tempfile.TemporaryFile()
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit('no compiler here')"],
                               stdout=subprocess.PIPE, stderr=errors, text=True)
    with caplog.at_level(logging.WARNING, logger="sim.ahead"), ahead.Ahead(["searching"], process, errors) as compiling:
        assert not compiling.wait(["searching"])
        assert compiling.process is None
    assert "exit 1" in caplog.text and "no compiler here" in caplog.text and "compiling here instead" in caplog.text


def test_a_long_wait_says_once_that_it_compiles_and_ends_when_the_group_is_ready():
    errors = tempfile.TemporaryFile()
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.5); print('ready positions', flush=True)"
                                "; time.sleep(0.5); print('ready searching', flush=True)"],
                               stdout=subprocess.PIPE, stderr=errors, text=True)
    said = []
    with ahead.Ahead(["positions", "searching"], process, errors) as compiling:
        assert compiling.wait(["positions"], lambda: said.append(1), notice_after=0.3)
        assert said == [1] and compiling.ready == {"positions"} and compiling.process is not None
        # Ready within the notice's time: nothing is said.
        assert compiling.wait(["searching"], lambda: said.append(2), notice_after=30.0)
        assert said == [1] and compiling.ready == {"positions", "searching"}


def test_a_process_that_cannot_start_leaves_the_compiling_to_the_caller(monkeypatch, caplog):
    monkeypatch.setattr(ahead.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(ahead.sys, "executable", "/nonexistent/python")
    with caplog.at_level(logging.WARNING, logger="sim.ahead"), ahead.start(["searching"]) as compiling:
        assert compiling.process is None and not compiling.wait(["searching"])
    assert "could not start" in caplog.text


def test_unknown_groups_are_refused_by_name():
    with pytest.raises(ValueError, match=r"unknown groups of entries \['openings'\]; known: \['positions', 'searching'\]"):
        ahead.start(["positions", "openings"])
    done = subprocess.run([sys.executable, "-m", "sim.ahead", "openings"], capture_output=True, text=True)
    assert done.returncode == 2 and "unknown group of entries 'openings'" in done.stderr and not done.stdout


def test_one_core_starts_no_process_and_every_wait_says_compile_here(monkeypatch):
    monkeypatch.setattr(ahead.os, "cpu_count", lambda: 1)
    with ahead.start(["searching", "positions"]) as compiling:
        assert compiling.process is None and compiling.names == ["positions", "searching"]
        assert not compiling.wait(["searching"])


def test_the_groups_are_compiled_in_their_fixed_order_whatever_the_order_asked(monkeypatch):
    monkeypatch.setattr(ahead.os, "cpu_count", lambda: 1)
    assert ahead.start(["searching", "positions", "searching"]).names == ["positions", "searching"]
    assert ahead.start([]).names == []
