"""A `rami` command run in a process of its own and stopped by SIGKILL once some of its files are on disk.

The resume tests (an experiment's run, a comparison) kill a real command
where it writes, not at a moment of the clock: the kill waits for ``least``
files that ``written()`` lists, so a loaded machine moves the kill only
later in the run, never before its first writes or after its end.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def kill_after_files(args: Sequence[str], written: Callable[[], list[Path]], least: int) -> list[Path]:
    """Run ``python -m sim ARGS``, SIGKILL it once ``written()`` lists ``least`` files, and return those it lists
    then; fails the test when the command ends first (it was too short to be killed midway)."""
    process = subprocess.Popen([sys.executable, "-m", "sim", *args], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + 600
    while len(written()) < least and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert process.poll() is None, "the command ended before it could be killed: " + process.stderr.read().decode()
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    return written()
