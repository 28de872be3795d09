"""The results store: a simulation written as a parquet dataset, batch by batch.

A dataset is a folder::

    PATH/
      manifest.json                      what made it (identity) and every run
      rounds/games-000000000000-000000001999.parquet   one row per game, round, seat
      games/games-000000000000-000000001999.parquet    one row per game and seat
      .tmp/                              files being written (never read)

Each finished batch of games gives one file per table, named after its
inclusive game range. A file is written under ``.tmp/`` and renamed into its
table folder, so a file in ``rounds/`` or ``games/`` is always whole: a run
killed at any moment leaves at most a temporary file, removed by the next run.
Every file carries the dataset's provenance in its parquet key-value metadata
(key :data:`METADATA_KEY`), so a file copied out of its folder still says what
made it.

The *identity* of a dataset (ruleset, strategies, seed, rotation, round cap,
tables, rules and package versions) is fixed when the dataset is created.
A later run on the same folder must have the same identity: it then plays
only the games not yet on disk (resume, or a larger game range). Anything
else (another identity, a foreign file, a damaged file) is refused with the
file's name and the reason, before any game is played.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import polars as pl

__all__ = [
    "FORMAT", "MANIFEST", "METADATA_KEY", "TABLES", "Dataset", "DatasetError", "Writer", "batch_name",
    "describe_ranges", "file_provenance", "games_on_disk", "load", "now", "open_dataset", "read_manifest",
]

FORMAT = 1
"""Version of the dataset layout and manifest."""
MANIFEST = "manifest.json"
METADATA_KEY = "rami_lab"
"""Parquet key-value metadata key holding a file's provenance (JSON)."""
TABLES = ("rounds", "games")
"""The tables a dataset may hold: per round and seat, per game and seat."""
_TMP = ".tmp"
_BATCH = re.compile(r"games-(\d{12})-(\d{12})\.parquet")


class DatasetError(ValueError):
    """An output folder cannot be used: the message names the file and the reason."""


def batch_name(first: int, last: int) -> str:
    """File name of the batch holding games ``first .. last`` (inclusive)."""
    return f"games-{first:012d}-{last:012d}.parquet"


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _canonical(value: Any) -> Any:
    """``value`` as JSON would give it back (tuples become lists), for comparison."""
    return json.loads(json.dumps(value, sort_keys=True))


def _differences(there: dict[str, Any], here: dict[str, Any]) -> list[str]:
    """What differs between two identities, in words (ruleset knobs one by one)."""
    out = []
    for key in sorted(set(there) | set(here)):
        a, b = there.get(key), here.get(key)
        if a == b:
            continue
        if key == "ruleset" and isinstance(a, dict) and isinstance(b, dict):
            out += [f"{k} {a.get(k)!r} there, {b.get(k)!r} here"
                    for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        else:
            out.append(f"{key} {json.dumps(a)} there, {json.dumps(b)} here")
    return out


@dataclass(frozen=True)
class Dataset:
    """A results dataset on disk.

    Attributes
    ----------
    path : Path
        The dataset folder.
    manifest : dict
        The manifest as written when the last run ended (see ``docs/results.md``).
    games_played : int
        Games this call played (0 when every requested game was already on disk).
    games_found : int
        Games of the requested range that were already on disk.
    """

    path: Path
    manifest: dict[str, Any]
    games_played: int = 0
    games_found: int = 0

    @property
    def tables(self) -> list[str]:
        """The tables this dataset holds (``"rounds"`` is absent for a per-game-only run)."""
        return list(self.manifest["identity"]["tables"])

    def scan(self, table: str = "rounds") -> pl.LazyFrame:
        """The table as a lazy frame (see :func:`load`)."""
        return load(self.path, table)


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of the dataset at ``path``; :class:`DatasetError` when there is none or it is damaged."""
    root = Path(path)
    file = root / MANIFEST
    if not root.is_dir():
        raise DatasetError(f"{root}: no such dataset folder")
    if not file.is_file():
        raise DatasetError(f"{root}: no {MANIFEST}, so not a results dataset")
    try:
        manifest = json.loads(file.read_text("utf-8"))
        manifest["identity"]["tables"]
    except (ValueError, KeyError, TypeError) as exc:
        raise DatasetError(f"{file}: damaged manifest ({exc})") from None
    if manifest.get("format") != FORMAT:
        raise DatasetError(f"{file}: dataset format {manifest.get('format')!r}; this version reads format {FORMAT}")
    return manifest


def load(path: str | os.PathLike[str], table: str = "rounds") -> pl.LazyFrame:
    """One table of a results dataset as a polars ``LazyFrame``, in game order.

    Parameters
    ----------
    path : str or path-like
        The dataset folder (what ``simulate(..., out=PATH)`` or ``rami
        simulate --out PATH`` wrote).
    table : {"rounds", "games"}
        ``"rounds"``: one row per game, round and seat (columns
        :data:`sim.api.ROUND_COLUMNS`); ``"games"``: one row per game and seat
        (:data:`sim.api.GAME_COLUMNS`).

    Returns
    -------
    polars.LazyFrame
        Every batch file of the table; nothing is read until it is collected.
        The same files read with ``pl.scan_parquet(PATH / table)`` or
        ``pandas.read_parquet(PATH / table)``.
    """
    if table not in TABLES:
        raise ValueError(f"table must be one of {', '.join(TABLES)}, got {table!r}")
    manifest = read_manifest(path)
    if table not in manifest["identity"]["tables"]:
        raise DatasetError(f"{path} holds only the {', '.join(manifest['identity']['tables'])} table; "
                           f"load(path, table={manifest['identity']['tables'][0]!r})")
    folder = Path(path) / table
    files = sorted(folder.glob("games-*.parquet"))
    if not files:
        raise DatasetError(f"{folder}: no finished batch yet")
    return pl.scan_parquet(files)


def file_provenance(file: str | os.PathLike[str]) -> dict[str, Any]:
    """The provenance stored in one batch file's parquet metadata."""
    import pyarrow.parquet as pq

    try:
        meta = pq.read_metadata(file).metadata or {}
    except (OSError, ValueError) as exc:
        raise DatasetError(f"{file}: truncated or not a parquet file ({exc})") from None
    raw = meta.get(METADATA_KEY.encode())
    if raw is None:
        raise DatasetError(f"{file}: a parquet file without rami-lab provenance")
    return json.loads(raw)


def _check_target(root: Path) -> None:
    """Refuse an output place that cannot hold a dataset, before anything is played."""
    if root.exists() and not root.is_dir():
        raise DatasetError(f"{root} is a file; a dataset is a folder (choose another name)")
    ancestor = root
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise DatasetError(f"cannot create {root}: {ancestor} is a file, not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise DatasetError(f"cannot write {root}: no write permission in {ancestor}")


@dataclass
class Writer:
    """An open dataset: where batches go, and the runs' record.

    Made by :func:`open_dataset`, which has checked the folder; the driver
    calls :meth:`write` for each finished batch and :meth:`close` at the end.
    """

    root: Path
    manifest: dict[str, Any]
    done: list[tuple[int, int]] = field(default_factory=list)
    written: int = 0
    """Games written by this run."""

    @property
    def tables(self) -> list[str]:
        return list(self.manifest["identity"]["tables"])

    def missing(self, first: int, count: int, batch_size: int) -> list[tuple[int, int]]:
        """Batches ``(first, count)`` covering the games of ``first .. first + count - 1`` not on disk."""
        todo = []
        position, end = first, first + count
        for a, b in sorted(self.done) + [(end, end)]:
            gap_end = min(a, end)
            while position < gap_end:
                size = min(batch_size, gap_end - position)
                todo.append((position, size))
                position += size
            position = max(position, b + 1)
            if position >= end:
                break
        return todo

    def write(self, first: int, count: int, files: dict[str, bytes]) -> None:
        """Write one finished batch: each table's file under ``.tmp``, then renamed into place."""
        name = batch_name(first, first + count - 1)
        for table in self.tables:
            tmp = self.root / _TMP / f"{table}-{name}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
            tmp.write_bytes(files[table])
            os.replace(tmp, self.root / table / name)
        self.done.append((first, first + count - 1))
        self.written += count

    def close(self, status: str, games_played: int) -> dict[str, Any]:
        """Record the run's end (``status``: complete, interrupted or failed) in the manifest."""
        run = self.manifest["runs"][-1]
        run.update(ended=now(), status=status, games_played=games_played)
        _write_manifest(self.root, self.manifest)
        return self.manifest


def _write_manifest(root: Path, manifest: dict[str, Any]) -> None:
    tmp = root / _TMP / f"{MANIFEST}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    os.replace(tmp, root / MANIFEST)


def _scan_batches(root: Path, identity: dict[str, Any], players: int) -> list[tuple[int, int]]:
    """Game ranges of the finished batches on disk, every file checked; orphans removed.

    A batch is finished when each table holds its file. A file of one table
    whose twin is missing (the run stopped between the two renames) is the
    dataset's own, checked, and removed: its games are played again.
    """
    found: dict[tuple[int, int], set[str]] = {}
    for table in identity["tables"]:
        folder = root / table
        if not folder.exists():
            continue
        for entry in sorted(folder.iterdir()):
            shown = f"{root / table / entry.name}"
            match = _BATCH.fullmatch(entry.name)
            if not match or not entry.is_file():
                raise DatasetError(f"{shown}: foreign file in the dataset (not a batch file); move it away")
            first, last = int(match[1]), int(match[2])
            meta = file_provenance(entry)
            if _canonical(meta.get("identity")) != identity:
                reasons = _differences(meta.get("identity") or {}, identity)
                raise DatasetError(f"{shown}: made by another command ({'; '.join(reasons[:3])})")
            if (meta.get("table"), meta.get("first_game"), meta.get("last_game")) != (table, first, last):
                raise DatasetError(f"{shown}: its metadata says table {meta.get('table')}, games "
                                   f"{meta.get('first_game')}..{meta.get('last_game')}: not what its name says")
            if table == "games":
                import pyarrow.parquet as pq

                rows = pq.read_metadata(entry).num_rows
                if rows != (last - first + 1) * players:
                    raise DatasetError(f"{shown}: {rows} rows where {last - first + 1} games of {players} seats "
                                       f"need {(last - first + 1) * players}")
            found.setdefault((first, last), set()).add(table)
    done = []
    for (first, last), tables in sorted(found.items()):
        if tables == set(identity["tables"]):
            done.append((first, last))
        else:
            for table in tables:
                (root / table / batch_name(first, last)).unlink()
    for (a0, a1), (b0, b1) in zip(done, done[1:]):
        if b0 <= a1:
            raise DatasetError(f"{root}: batch files {batch_name(a0, a1)} and {batch_name(b0, b1)} overlap")
    return done


def open_dataset(path: str | os.PathLike[str], identity: dict[str, Any], run: dict[str, Any],
                 players: int) -> Writer:
    """Check ``path`` and open it for writing: a new dataset, or one made with the same identity.

    Parameters
    ----------
    path : str or path-like
        The dataset folder; created (with its parents) when missing.
    identity : dict
        What makes two runs' rows comparable (JSON-able): it must equal the
        manifest's when the folder already holds a dataset.
    run : dict
        Provenance of this run (command, versions, start time, game range...).
    players : int
        Seats per game (the games table holds that many rows per game).

    Raises
    ------
    DatasetError
        The folder cannot be written, holds something else than this
        dataset, or holds a dataset made by another command. Nothing has
        been played or changed then (but for removing this dataset's own
        leftovers of a killed run).
    """
    if isinstance(path, str) and not path.strip():
        raise DatasetError("the output path is empty; give a folder name, e.g. results")
    root = Path(path)
    _check_target(root)
    identity = _canonical(identity)
    manifest: dict[str, Any]
    if root.is_dir() and any(root.iterdir()):
        allowed = {MANIFEST, _TMP, *TABLES}
        for entry in sorted(root.iterdir()):
            if entry.name not in allowed:
                raise DatasetError(f"{entry}: foreign file in the output folder (not part of a results dataset); "
                                   f"choose an empty or new folder")
        if not (root / MANIFEST).exists():
            if any(f.is_file() for table in TABLES if (root / table).is_dir() for f in (root / table).iterdir()):
                raise DatasetError(f"{root}: batch files but no {MANIFEST}; not a dataset this run can add to")
            # Killed before its manifest was written: nothing of it to keep.
            manifest = {"format": FORMAT, "identity": identity, "runs": []}
        else:
            manifest = read_manifest(root)
        if manifest["identity"] != identity:
            reasons = _differences(manifest["identity"], identity)
            raise DatasetError(f"{root} holds a dataset made by another command ({'; '.join(reasons[:4])}); "
                               f"choose another output folder, or remove this one to start again")
        for table in TABLES:
            if table not in identity["tables"] and (root / table).exists():
                raise DatasetError(f"{root / table}: a table this dataset does not hold")
    else:
        manifest = {"format": FORMAT, "identity": identity, "runs": []}
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / _TMP
        if tmp.exists():
            # Leftovers of a killed run: never renamed, so never part of the dataset.
            shutil.rmtree(tmp)
        tmp.mkdir()
        for table in identity["tables"]:
            (root / table).mkdir(exist_ok=True)
    except OSError as exc:
        raise DatasetError(f"cannot write {root}: {exc.strerror or exc}") from None
    done = _scan_batches(root, identity, players)
    manifest["runs"].append({**_canonical(run), "status": "running"})
    try:
        _write_manifest(root, manifest)
    except OSError as exc:
        raise DatasetError(f"cannot write {root / MANIFEST}: {exc.strerror or exc}") from None
    return Writer(root, manifest, done)


def games_on_disk(path: str | os.PathLike[str]) -> list[tuple[int, int]]:
    """Inclusive game ranges of the finished batches of a dataset, merged, in order."""
    manifest = read_manifest(path)
    tables = manifest["identity"]["tables"]
    sets = []
    for table in tables:
        ranges = set()
        for entry in (Path(path) / table).glob("games-*.parquet"):
            match = _BATCH.fullmatch(entry.name)
            if match:
                ranges.add((int(match[1]), int(match[2])))
        sets.append(ranges)
    batches = sorted(set.intersection(*sets)) if sets else []
    merged: list[tuple[int, int]] = []
    for a, b in batches:
        if merged and a == merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged


def describe_ranges(ranges: Sequence[tuple[int, int]]) -> str:
    """``0..9,999, 20,000..29,999`` for inclusive ranges."""
    return ", ".join(f"{a:,}..{b:,}" for a, b in ranges) or "none"
