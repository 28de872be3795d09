"""``python -m sim``: the ``rami`` command, for environments without the console script."""

from sim.cli import main

main(prog_name="rami")
