"""The ``rami`` command line: one module per group of commands.

``common`` holds the command group and the options every command shares;
each other module adds its commands to that group when imported.
"""

from sim.cli import advise, agree, analyse, experiment, info, ladder, lookups, odds, play, record, rollout, simulate, tournament  # noqa: F401  (they register their commands)
from sim.cli.common import main

__all__ = ["main"]
