"""The engine's cached kernels follow their sources (sim/engine/freshness.py).

numba checks a cached kernel against the one file that defines it; the round
loop compiles in code of other files (the strategies' policies, the meld
search), so the engine drops its cached kernels whenever any of those changes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sim.engine import freshness


def _cache(folder: Path, *names: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = [folder / name for name in names]
    for f in files:
        f.write_bytes(b"compiled")
    return files


def test_a_changed_source_drops_every_cached_kernel_and_an_unchanged_one_keeps_them(tmp_path):
    play, policies = tmp_path / "play.py", tmp_path / "policies.py"
    play.write_text("def loop(): pass\n")
    policies.write_text("def choose(): return 1\n")
    cache = tmp_path / "__pycache__"
    kept = _cache(cache, "play.loop-1.py311.nbi", "play.loop-1.py311.1.nbc", "policies.choose-1.py311.nbi")
    other = _cache(cache, "elsewhere.f-1.py311.nbi")[0]
    sources = {play: cache, policies: cache}

    first = freshness.refresh(sources, freshness.fingerprint(sources))
    assert sorted(first) == sorted(kept)  # no record yet: nothing is trusted
    assert other.exists()  # another module's cache is not touched

    again = _cache(cache, *(f.name for f in kept))
    assert freshness.refresh(sources, freshness.fingerprint(sources)) == []
    assert all(f.exists() for f in again)

    # Only the policies change: the loop that compiled them in is dropped too.
    policies.write_text("def choose(): return 2\n")
    dropped = freshness.refresh(sources, freshness.fingerprint(sources))
    assert sorted(dropped) == sorted(again)


def test_the_engine_records_its_sources_beside_numbas_cache(tmp_path):
    # A fresh numba cache folder: importing the engine records the fingerprint
    # of every kernel source there, and a second import finds it current.
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    code = "from sim.engine import freshness; print(len(freshness.refresh_engine_cache()))"
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert done.stdout.strip() == "0"
    records = list(tmp_path.rglob("*.rami-sources"))
    assert {r.name for r in records} >= {"play.rami-sources", "policies.rami-sources"}
    stamp = freshness.engine_stamp()
    assert all(r.read_text() == stamp for r in records)


def test_the_stamp_covers_the_contract_table_the_kernels_compile_in():
    # params.py reads Rami contrat's contracts from the rules' file into
    # constants of the kernels: a change there must drop the cached kernels too.
    from sim.engine import params
    from sim.rules import ruleset

    assert Path(ruleset.__file__).resolve() in freshness.FROZEN_SOURCES
    assert all(f.exists() for f in freshness.FROZEN_SOURCES)
    assert freshness.engine_stamp() != freshness.fingerprint(freshness.KERNEL_SOURCES)
    assert params.CONTRACT_SETS == tuple(sets for sets, _, _ in ruleset.CONTRACTS)
