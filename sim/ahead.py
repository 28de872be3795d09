"""Compiling in a second process what a run will need later.

A first run on a machine compiles the engine's entries as it meets them,
each in turn on one core: the plain game loop (which plays traced games
too), then the position machine and rollouts, or the searching game (some
forty-five seconds for the first of these two, which compiles the round
again for them both; the other then takes some ten). A run that knows what
it will meet, such as the report, can have those compiled meanwhile by a second Python process
(``python -m sim.ahead NAME ...``) on another core: the process plays a
small call of each named group of entries (:data:`WARM_UPS`), which compiles
it into numba's cache, and says ``ready NAME`` on its standard output. The
run waits for a group (:meth:`Ahead.wait`) before its first use, and then
loads it from the cache instead of compiling it.

Nothing depends on the second process for its results: the machine code it
caches is the code the run would have compiled (numba keys every cached
entry on the source, the argument types and the processor, so a cache is
never used on a machine it was not compiled for), and when the process
fails or is gone, the run compiles the group itself, as without it. With a
warm cache, the process only loads the entries, a few seconds of the other
core.
"""

from __future__ import annotations

import functools
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
import typing
from collections.abc import Callable, Iterable

from sim.engine.warm import NOTICE_AFTER, compile_with_notice

log = logging.getLogger(__name__)


def _searching() -> None:
    """The searching table's entry (:func:`sim.search_effort` and a simulation with a ``search`` seat play it)."""
    from sim.api import simulate

    simulate("rami51", ["search:trials=2", "expert", "expert", "expert"], n_games=1, workers=1, max_rounds=1)


def _positions() -> None:
    """A traced game, a position taken from it, its playouts and a game's analysis (the forks, ``sim.analyse``)."""
    from sim.api import play_traced
    from sim.position import Position
    from sim.rollouts import rollout

    events = play_traced("rami51", ["expert"] * 4, seed=0, game=0)
    for index in range(1, len(events)):
        position = Position.from_trace(events, index)
        if len(position.legal_choices()) >= 2:
            position.step()
            rollout(position, n=2, workers=1)
            return


WARM_UPS: dict[str, Callable[[], None]] = {"positions": _positions, "searching": _searching}
"""The groups of entries a second process can compile, by name: each a small call that compiles its group.

The process compiles them in this order, whatever order they are asked in,
and the report plays its experiments in the order the groups are ready
(:func:`experiments.report.run_order`). Whichever group comes first types
and compiles the round and the position machine, which the second then
links: on an empty cache, the positions took 48.5 s and then the searching
game 8.5 s, against 50.5 s and then 8.3 s the other way round. The
positions come first because the report has more to do with them (three
experiments against one): while the second process still compiles the
searching game, the report plays the forks and the bot's losses instead of
waiting for their entries with nothing left to play.
"""


def warm_group(name: str) -> None:
    """Compile or load the group of entries ``name`` of :data:`WARM_UPS` (``"positions"``, ``"searching"``)."""
    WARM_UPS[name]()


def warm_up(name: str) -> tuple[tuple[str, str], Callable[[], None]]:
    """The warm-up of the group ``name`` a cluster's workers run before their first piece
    (:meth:`sim.distributed.Cluster.warm`): its key and the picklable call."""
    if name not in WARM_UPS:
        raise ValueError(f"unknown group of entries {name!r}; known: {sorted(WARM_UPS)}")
    return ("group", name), functools.partial(warm_group, name)


class Ahead:
    """A second process compiling groups of entries (see the module's docstring); :func:`start` makes one.

    A thread reads the process's output as it comes: ``ready NAME`` marks a
    group ready; the end of the output (the process ended, or failed) ends
    every wait.
    """

    def __init__(self, names: list[str], process: subprocess.Popen | None, errors: typing.IO[bytes] | None = None
                 ) -> None:
        self.names = names
        self.process = process
        self.ready: set[str] = set()
        self._errors = errors
        self._ended = process is None
        self._heard = threading.Condition()
        if process is not None:
            threading.Thread(target=self._listen, args=(process,), daemon=True).start()

    def _listen(self, process: subprocess.Popen) -> None:
        for line in process.stdout:
            word, _, name = line.strip().partition(" ")
            if word == "ready":
                with self._heard:
                    self.ready.add(name)
                    self._heard.notify_all()
        process.stdout.close()
        with self._heard:  # the output ended: no more group will be ready
            self._ended = True
            self._heard.notify_all()

    def wait(self, names: Iterable[str], notice: Callable[[], None] | None = None,
             notice_after: float = NOTICE_AFTER) -> bool:
        """Wait until the process has compiled ``names``; whether it did (else the caller compiles them).

        ``notice`` is called once when the wait lasts longer than
        ``notice_after`` seconds: the entries are still being compiled.
        """
        names = set(names)

        def over() -> bool:
            return names <= self.ready or self._ended or not names <= set(self.names)

        with self._heard:
            heard = self._heard.wait_for(over, notice_after)
        if not heard:
            if notice is not None:
                notice()
            with self._heard:
                self._heard.wait_for(over)
        if self._ended and self.process is not None:
            self._finish()
        return names <= self.ready

    def _finish(self) -> None:
        """Reap the process once its output ended; log why it failed, if it did."""
        process, self.process = self.process, None
        code = process.wait()
        if code != 0:
            text = ""
            if self._errors is not None:
                self._errors.seek(0)
                text = self._errors.read().decode("utf-8", "replace").strip()
            log.warning("compiling ahead stopped (exit %s); compiling here instead%s", code,
                        f": {text.splitlines()[-1]}" if text else "")
        self._close_errors()

    def _close_errors(self) -> None:
        if self._errors is not None:
            self._errors.close()
            self._errors = None

    def close(self) -> None:
        """Stop the process if it still runs (what it cached so far stays valid)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None
        self._close_errors()

    def __enter__(self) -> "Ahead":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start(names: Iterable[str]) -> Ahead:
    """Start a process compiling the groups ``names`` (of :data:`WARM_UPS`), in the order of :data:`WARM_UPS`.

    On a machine of one core a second process would only slow the run: none
    is started, and every :meth:`Ahead.wait` returns False at once. A process
    that cannot be started is logged, and the caller compiles as without one.
    """
    asked = set(names)
    unknown = sorted(asked - set(WARM_UPS))
    if unknown:
        raise ValueError(f"unknown groups of entries {unknown}; known: {sorted(WARM_UPS)}")
    names = [n for n in WARM_UPS if n in asked]
    if not names or (os.cpu_count() or 1) < 2:
        return Ahead(names, None)
    errors = tempfile.TemporaryFile()
    try:
        process = subprocess.Popen([sys.executable, "-m", "sim.ahead", *names], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=errors, text=True)
    except OSError as exc:
        errors.close()
        log.warning("compiling ahead could not start (%s); compiling here instead", exc)
        return Ahead(names, None)
    return Ahead(names, process, errors)


def main(argv: list[str]) -> int:
    """Compile each named group in turn, saying ``ready NAME`` after each."""
    for name in argv:
        if name not in WARM_UPS:
            print(f"unknown group of entries {name!r}; known: {sorted(WARM_UPS)}", file=sys.stderr)
            return 2
    for name in argv:
        # In a thread of the engine's compiling kind: numba's recursion keeps to one frame chunk there.
        compile_with_notice(WARM_UPS[name])
        print("ready", name, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
