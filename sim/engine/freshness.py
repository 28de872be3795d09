"""Keep numba's on-disk cache of the engine in step with the source.

numba checks a cached kernel against the modification time and size of the
one file that defines it, not of the files whose functions were compiled into
it: the round loop of ``play.py`` inlines the compiled policies
(``policies.py``), the meld searches (``meld_search.py``,
``contract_search.py``) and the table (``table.py``). A change to one of
those alone would leave the loop's cached machine code as it was, and games
would go on being played by the old code without a word (a user who updates
the package, or a branch switch, is enough).

So before any kernel is defined, :func:`refresh` compares one fingerprint of
every source file that kernels are compiled from with the fingerprint
recorded beside each file's cache, and where they differ drops that file's
cached kernels, which then compile afresh on first use.

The kernels also compile in values computed from a file outside the engine:
Rami contrat's contract table, which ``params.py`` reads from the rules
(:data:`FROZEN_SOURCES`). numba freezes a global's value into the machine
code it caches, so that file takes part in the fingerprint too.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from pathlib import Path

__all__ = ["FROZEN_SOURCES", "KERNEL_SOURCES", "engine_stamp", "fingerprint", "refresh", "refresh_engine_cache"]

_log = logging.getLogger(__name__)

_ENGINE = Path(__file__).resolve().parent
KERNEL_SOURCES: tuple[Path, ...] = tuple(sorted(_ENGINE.glob("*.py")))
"""The files whose functions are compiled into kernels: the engine's modules, compiled policies included."""

FROZEN_SOURCES: tuple[Path, ...] = (_ENGINE.parent / "rules" / "ruleset.py",)
"""Files outside the engine whose values the kernels compile in as constants: the contract table of the rules."""

_STAMP = ".rami-sources"


def fingerprint(files: Iterable[Path]) -> str:
    """SHA-256 over the names and bytes of ``files`` (a missing file counts as empty)."""
    digest = hashlib.sha256()
    for path in sorted(Path(f) for f in files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()


def refresh(sources: dict[Path, Path], stamp: str) -> list[Path]:
    """Drop the cached kernels of every source whose recorded fingerprint is not ``stamp``.

    Parameters
    ----------
    sources : dict of Path to Path
        Each source file and the folder that holds its cached kernels (numba
        names them ``<file stem>.<function>-<line>.pyXY.nbi`` and ``.nbc``).
    stamp : str
        The fingerprint of the current sources.

    Returns
    -------
    list of Path
        The cache files removed.
    """
    removed: list[Path] = []
    for source, cache in sources.items():
        record = cache / f"{source.stem}{_STAMP}"
        try:
            if record.exists() and record.read_text() == stamp:
                continue
            for pattern in (f"{source.stem}.*.nbi", f"{source.stem}.*.nbc"):
                for stale in cache.glob(pattern):
                    stale.unlink(missing_ok=True)
                    removed.append(stale)
            if cache.is_dir():
                record.write_text(stamp)
        except OSError as exc:  # a read-only install: numba then caches elsewhere or not at all
            _log.debug("cannot refresh the kernel cache in %s: %s", cache, exc)
    return removed


def _cache_folder(source: Path) -> Path | None:
    """Where numba keeps the cached kernels of ``source``, by numba's own rules (None if it cannot cache)."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    locators = getattr(impl, "_locator_classes", ())

    def probe() -> None:  # only its line number is read
        return None

    for locator_class in locators:
        try:
            locator = locator_class.from_function(probe, str(source))
        except Exception:  # noqa: BLE001 - a locator that does not apply here
            continue
        if locator is not None:
            return Path(locator.get_cache_path())
    return None


def engine_stamp() -> str:
    """The fingerprint the engine's cached kernels are recorded with: the kernel sources and the frozen ones."""
    return fingerprint(KERNEL_SOURCES + FROZEN_SOURCES)


def refresh_engine_cache() -> list[Path]:
    """Drop the engine's cached kernels if any kernel source changed since they were compiled."""
    files = list(KERNEL_SOURCES)
    stamp = engine_stamp()
    try:
        sources = {f: folder for f in files if f.exists() and (folder := _cache_folder(f)) is not None}
    except ImportError:
        return []
    removed = refresh(sources, stamp)
    if removed:
        _log.info("engine sources changed: %d cached kernel files dropped; they compile again", len(removed))
    return removed
