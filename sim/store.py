"""The results store: a simulation written as a parquet dataset, batch by batch.

A dataset is a folder::

    PATH/
      manifest.json                      what made it (identity) and every run
      rounds/games-000000000000-000000001999.parquet   one row per game, round, seat
      games/games-000000000000-000000001999.parquet    one row per game and seat
      .tmp/                              files being written (never read)
      .lock                              locked by the run writing the dataset

Each finished batch of games gives one file per table, named after its
inclusive game range. A file is written under ``.tmp/``, flushed to the disk
and renamed into its table folder, so a file in ``rounds/`` or ``games/`` is
always whole: a run killed at any moment leaves at most a temporary file,
removed by the next run. The manifest lists the finished batches (brought up
to date every few seconds and at the end of a run), so a batch file deleted
later is noticed. One run at a time writes a dataset: it holds an operating
system lock on ``.lock``, which the system releases when the process ends,
however it ends. Every file carries the dataset's provenance in its parquet
key-value metadata (key :data:`METADATA_KEY`), so a file copied out of its
folder still says what made it.

The *identity* of a dataset (ruleset, strategies, seed, rotation, round cap,
tables, rules and package versions) is fixed when the dataset is created.
A later run on the same folder must have the same identity: it then plays
only the games not yet on disk (resume, or a larger game range). Anything
else (another identity, a foreign file, a damaged file, a run writing the
folder now) is refused with the file's name, the reason and what to do,
before any game is played. :func:`load` and :func:`check` find a truncated,
corrupt or missing batch file the same way.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import logging
import os
import re
import secrets
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import polars as pl

__all__ = [
    "FORMAT", "KNOWN_TABLES", "MANIFEST", "METADATA_KEY", "SCHEMAS", "TABLES", "Dataset", "DatasetError",
    "IdentityError", "Survey",
    "Writer",
    "batch_name", "check", "claim_folder", "describe_ranges", "encode", "file_provenance", "fill", "folder_fits",
    "games_on_disk", "load", "now", "open_dataset", "quiet_panics", "read_manifest",
]

log = logging.getLogger(__name__)

FORMAT = 1
"""Version of the dataset layout and manifest."""
MANIFEST = "manifest.json"
METADATA_KEY = "rami_lab"
"""Parquet key-value metadata key holding a file's provenance (JSON)."""
TABLES = ("rounds", "games")
"""The tables of a simulation: per round and seat, per game and seat."""
KNOWN_TABLES = (*TABLES, "positions", "traces")
"""Every table a dataset may hold: a simulation's, the positions of a fork experiment (one row per position), and
the analysed decisions (``positions``) and traced games (``traces``) of ``bot_losses``."""
_TMP = ".tmp"
_LOCK = ".lock"
_BATCH = re.compile(r"games-(\d{12})-(\d{12})\.parquet")
_PARQUET_MAGIC = b"PAR1"
_MANIFEST_EVERY = 5.0
"""Seconds between two updates of the manifest's batch list during a run."""
_AGAIN = "run the command that wrote the dataset again (rami info shows it): it plays the missing games again"
"""What to do about a batch whose games are lost: the same command replays exactly those games."""


def _simulation_schemas() -> dict[str, dict[str, pl.DataType]]:
    from sim.rules import BLOCKED_REASONS

    i32, flag = pl.Int32(), pl.Boolean()
    key = {"game": i32, "round": i32, "seat": i32}
    named = {"strategy": pl.Categorical(), "strategy_index": pl.Int16()}
    made = {"ruleset": pl.Categorical(), "rules_version": pl.Int16()}
    rounds = {**key, "first": i32, "opened": flag, "open_turn": i32, "open_points": i32, "jokers_laid": i32,
              "jokers_held": i32, "cards_left": i32, "points": i32, "went_out": flag, "rami_sec": flag,
              "blocked": pl.Enum(BLOCKED_REASONS), "contract": pl.Int8(), "turns": i32, "seat_turns": i32,
              "discard_takes": i32, "may_i": i32, "hand_value": i32, "total": i32, **named, **made}
    games = {"game": i32, "seat": i32, **named, "rounds": i32, "total": i32, "won": flag, "winner": i32,
             "truncated": flag, "rounds_won": i32, **made}
    return {"rounds": rounds, "games": games}


SCHEMAS: dict[str, dict[str, pl.DataType]] = _simulation_schemas()
"""The columns, in order, and their types in every batch file of a simulation's tables: what
:func:`sim.batches.batch_files` writes (a test holds the two equal; this copy spares a command that
only reads a dataset, ``rami info``, loading the engine). A file of a dataset whose columns differ
cannot be stacked with the others: :func:`check` and :func:`load` name it. The other tables
(``positions``, ``traces``) have their maker's columns: every file of one must have its first file's."""


class DatasetError(ValueError):
    """An output folder cannot be used: the message names the file and the reason."""


class IdentityError(DatasetError):
    """The folder holds a whole dataset of another identity: rows another command made (other strategies, seed,
    rules, versions...), which this run must neither add to nor read as its own."""


def batch_name(first: int, last: int) -> str:
    """File name of the batch holding games ``first .. last`` (inclusive)."""
    return f"games-{first:012d}-{last:012d}.parquet"


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _canonical(value: Any) -> Any:
    """``value`` as JSON would give it back (tuples become lists), for comparison."""
    return json.loads(json.dumps(value, sort_keys=True))


def _differences(there: dict[str, Any], here: dict[str, Any], prefix: str = "") -> list[str]:
    """What differs between two identities or settings, in words: a key whose value is a table on both sides
    (a ruleset, an experiment's config) by its own keys, one by one, and a list of as many tables on both sides
    (the seats' strategies) table by table, each named by its ``name`` where it has one."""
    out = []
    for key in sorted(set(there) | set(here)):
        a, b = there.get(key), here.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, prefix)
        elif (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
              and all(isinstance(x, dict) and isinstance(y, dict) for x, y in zip(a, b))):
            for x, y in zip(a, b):
                if x == y:
                    continue
                if "name" in x and x.get("name") == y.get("name"):
                    out += _differences(x, y, f"{prefix}{x['name']}: ")
                else:  # another strategy in that seat: its name says enough
                    out.append(f"{prefix}{key} {json.dumps(x.get('name', x))} there, {json.dumps(y.get('name', y))} "
                               "here")
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            out += _item_differences(a, b, f"{prefix}{key}")
        else:
            out.append(f"{prefix}{key} {json.dumps(a)} there, {json.dumps(b)} here")
    return list(dict.fromkeys(out))  # a difference every seat of one strategy shares, said once


def _item_differences(a: list[Any], b: list[Any], name: str) -> list[str]:
    """The items of two lists of one length that differ, each by its index (``identity[2][23] 0 there, 1 here``):
    a long list of numbers (a strategy's parameter vector) said whole is no help."""
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            out += _item_differences(x, y, f"{name}[{i}]")
        else:
            out.append(f"{name}[{i}] {json.dumps(x)} there, {json.dumps(y)} here")
    return out


def folder_fits(folder: str | os.PathLike[str], marker: str, record: dict[str, Any]) -> bool:
    """Whether a run that keeps ``record`` in ``folder/marker`` may write in ``folder``: a new or empty folder, or
    one a run of the same ``record`` began (see :func:`claim_folder`, which says why not)."""
    folder = Path(folder)
    try:
        return json.loads((folder / marker).read_text(encoding="utf-8")) == _canonical(record)
    except FileNotFoundError:
        return folder.is_dir() and not any(folder.iterdir()) or not folder.exists()
    except (OSError, ValueError):
        return False


def claim_folder(folder: str | os.PathLike[str], marker: str, record: dict[str, Any], what: str) -> None:
    """Take ``folder`` for a run that keeps ``record`` (its settings) in ``folder/marker``, or refuse before
    anything is played.

    The one owner of an output folder's claim (an experiment's run, a
    tournament, a ladder): a new or empty folder gets the marker (written
    whole); a folder whose marker holds the same record is resumed; a
    damaged marker, another record (said key by key) or a folder of other
    files is refused with a ``ValueError`` naming the folder and ``what``
    the run writes ("a tournament"). Datasets inside have their own identity
    check (:func:`open_dataset`).
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} is a file; {what} is written to a folder")
    file = folder / marker
    if file.is_file():
        try:
            there = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{file} is damaged ({_one_line(exc)}); give another folder, or remove this one to "
                             "start again") from None
        here = _canonical(record)
        if there != here:
            reasons = _differences(there, here) if isinstance(there, dict) else ["not a settings table there"]
            raise ValueError(f"{folder} holds {what} with other settings ({'; '.join(reasons[:4])}); give another "
                             "folder, or remove this one to start again")
        return
    if folder.is_dir() and any(folder.iterdir()):
        raise ValueError(f"{folder} is not empty and holds no {marker}: {what} is written to a new or empty folder; "
                         "give another folder")
    folder.mkdir(parents=True, exist_ok=True)
    _write_whole((json.dumps(record, indent=2) + "\n").encode("utf-8"), folder / f".{marker}{_TMP}", file)


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
        _listed(manifest)
    except (ValueError, KeyError, TypeError) as exc:
        raise DatasetError(f"{file}: damaged manifest ({exc})") from None
    if manifest.get("format") != FORMAT:
        raise DatasetError(f"{file}: dataset format {manifest.get('format')!r}; this version reads format {FORMAT}")
    return manifest


def _players(manifest: dict[str, Any]) -> int:
    """Seats per game of a dataset's games (0 when its identity names no ruleset)."""
    ruleset = manifest["identity"].get("ruleset")
    return int(ruleset.get("players", 0)) if isinstance(ruleset, dict) else 0


def _listed(manifest: dict[str, Any]) -> list[tuple[int, int]]:
    """The batches the manifest lists, as inclusive game ranges (none for a manifest written before the list)."""
    out = []
    for span in manifest.get("batches", []):
        first, last, size = span["first"], span["last"], span["size"]
        out += [(a, min(a + size, last + 1) - 1) for a in range(first, last + 1, size)]
    return out


def _spans(done: Sequence[tuple[int, int]]) -> list[dict[str, int]]:
    """Batches as spans of consecutive batches of one size: ``{"first", "last", "size"}``, the shortest list.

    A span's last batch may be shorter than ``size`` (the end of a game range).
    """
    spans: list[dict[str, int]] = []
    for a, b in sorted(done):
        span = spans[-1] if spans else None
        if span and a == span["last"] + 1 and (a - span["first"]) % span["size"] == 0 and b - a + 1 <= span["size"]:
            span["last"] = b
        else:
            spans.append({"first": a, "last": b, "size": b - a + 1})
    return spans


def _footer_problem(file: Path) -> str | None:
    """Why ``file`` is not a whole parquet file, from its magic bytes and footer length; None when it is.

    A parquet file starts and ends with ``PAR1``, the end preceded by the
    footer's length: a file cut short loses its end. This reads 12 bytes, so
    every file of a large dataset is checked whenever it is loaded.
    """
    try:
        fd = os.open(file, os.O_RDONLY)
        try:
            size = os.fstat(fd).st_size
            if size < 12:
                return f"{size} bytes, too short for a parquet file"
            head, tail = os.pread(fd, 4, 0), os.pread(fd, 8, size - 8)
        finally:
            os.close(fd)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    footer = int.from_bytes(tail[:4], "little")
    if head != _PARQUET_MAGIC or tail[4:] != _PARQUET_MAGIC:
        return "truncated or corrupt (it does not begin and end as a parquet file does)"
    if footer > size - 12:
        return f"corrupt (its footer claims {footer:,} bytes of a {size:,}-byte file)"
    return None


@dataclass
class Survey:
    """What a dataset's folder holds, file by file.

    Attributes
    ----------
    done : list of (int, int)
        Inclusive game ranges of the finished batches (a whole file in every
        table), in order.
    problems : list of str
        One line per damaged, foreign, made-elsewhere or missing file: its
        path, what is wrong and what to do.
    orphans : list of Path
        Whole files of a batch whose twin in the other table is not there (a
        run stopped between writing the two, or the twin was deleted): not
        part of the dataset; the next run removes them and plays their games
        again.
    """

    done: list[tuple[int, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    orphans: list[Path] = field(default_factory=list)


def _survey(root: Path, manifest: dict[str, Any], players: int, thorough: bool,
            columns: Sequence[str] | None = None) -> Survey:
    """Check every batch file of the dataset at ``root`` (see :func:`check`); the columns of the files of the
    tables ``columns`` only (default: every table)."""
    tables = manifest["identity"]["tables"]
    survey = Survey()
    # Each table's columns: the writer's for a simulation's tables, else those of the table's first whole file.
    schemas: dict[str, Mapping[str, pl.DataType]] = {t: SCHEMAS[t] for t in tables if t in SCHEMAS}
    found: dict[tuple[int, int], set[str]] = {}
    damaged: set[tuple[int, int]] = set()
    for table in tables:
        folder = root / table
        if not folder.is_dir():
            continue
        with os.scandir(folder) as listing:
            entries = sorted((item.name, item.is_file()) for item in listing)
        for name, is_file in entries:
            entry = folder / name
            match = _BATCH.fullmatch(name)
            if not match or not is_file:
                survey.problems.append(f"{entry}: foreign file in the dataset (not a batch file); move it away")
                continue
            first, last = int(match[1]), int(match[2])
            problem = _footer_problem(entry)
            if problem is not None:
                problem += f"; delete it, then {_AGAIN}"
            elif thorough:
                problem = _provenance_problem(entry, manifest["identity"], table, first, last, players)
            if problem is None and (columns is None or table in columns):
                problem = _contents_problem(entry, table, schemas, thorough)
            if problem is not None:
                survey.problems.append(f"{entry}: {problem}")
                damaged.add((first, last))
            else:
                found.setdefault((first, last), set()).add(table)
    listed = set(_listed(manifest))
    for batch in sorted(listed | set(found)):
        here = found.get(batch, set())
        if here == set(tables):
            survey.done.append(batch)
            continue
        if batch in damaged:
            continue
        if batch in listed:
            survey.problems += [f"{root / table / batch_name(*batch)}: missing (the manifest lists games "
                                f"{batch[0]:,}..{batch[1]:,}); {_AGAIN}" for table in tables if table not in here]
        survey.orphans += [root / table / batch_name(*batch) for table in sorted(here)]
    for (a0, a1), (b0, b1) in zip(survey.done, survey.done[1:]):
        if b0 <= a1:
            survey.problems.append(f"{root}: batch files {batch_name(a0, a1)} and {batch_name(b0, b1)} overlap; "
                                   f"move the one this dataset did not write away")
    return survey


def _provenance_problem(file: Path, identity: dict[str, Any], table: str, first: int, last: int,
                        players: int) -> str | None:
    """What is wrong with a whole parquet file's metadata in this dataset; None when nothing is."""
    import pyarrow
    import pyarrow.parquet as pq

    try:
        meta = pq.read_metadata(file)
    except (OSError, ValueError, pyarrow.ArrowException) as exc:  # a footer's field of a type arrow lacks too
        return f"corrupt parquet footer ({_one_line(exc)}); delete it, then {_AGAIN}"
    raw = (meta.metadata or {}).get(METADATA_KEY.encode())
    if raw is None:
        return "a parquet file without rami-lab provenance (not written by this dataset); move it away"
    try:
        prov = json.loads(raw)
    except ValueError:
        prov = None
    if not isinstance(prov, dict) or not isinstance(prov.get("identity"), dict):
        return f"damaged provenance in its metadata; delete it, then {_AGAIN}"
    if _canonical(prov["identity"]) != identity:
        reasons = _differences(prov["identity"], identity)
        return f"made by another command ({'; '.join(reasons[:3])}); move it away"
    if (prov.get("table"), prov.get("first_game"), prov.get("last_game")) != (table, first, last):
        return (f"its metadata says table {prov.get('table')}, games {prov.get('first_game')}.."
                f"{prov.get('last_game')}: not what its name says; move it away")
    if table == "games" and meta.num_rows != (last - first + 1) * players:
        return (f"{meta.num_rows} rows where {last - first + 1} games of {players} seats need "
                f"{(last - first + 1) * players}; delete it, then {_AGAIN}")
    return None


def _contents_problem(file: Path, table: str, schemas: dict[str, Mapping[str, pl.DataType]],
                      read_rows: bool) -> str | None:
    """What is wrong with a whole parquet file's columns and, with ``read_rows``, its rows; None when nothing is.

    A file's columns must be its table's (``schemas``; a table without an entry takes the first file's): a
    column renamed or retyped by a byte's change leaves the file readable alone, but it cannot be stacked
    with the others, and polars would refuse the whole table only when its rows are collected. They are
    read as polars reads them (about 0.15 ms a file), and a panic of polars's reader writes a Rust
    backtrace to stderr before it is raised: what polars reads is read with its stderr held back
    (:func:`quiet_panics`). With ``read_rows`` (the thorough check) pyarrow has read the footer first,
    and reads the rows first, refusing damage cleanly where polars's reader can panic or ask for more
    memory than there is.
    """
    import pyarrow
    import pyarrow.parquet as pq

    try:
        # Held back in the thorough check, which reads damaged pages; a load's footers have passed their check.
        with quiet_panics() if read_rows else contextlib.nullcontext():
            schema = pl.read_parquet_schema(file)
    except (OSError, ValueError, pyarrow.ArrowException, pl.exceptions.PolarsError,
            pl.exceptions.PanicException) as exc:
        return f"corrupt parquet footer ({_one_line(exc)[:160]}); delete it, then {_AGAIN}"
    want = schemas.setdefault(table, schema)
    difference = _schema_difference(schema, want, table)
    if difference is not None:
        return f"{difference}, so it does not stack with the others; delete it, then {_AGAIN}"
    if not read_rows:
        return None
    # Every page read, by pyarrow (a damaged page is refused in its words) and then as load's reader reads it
    # (polars checks what pyarrow lets pass, the text's UTF-8): a byte changed inside the rows (a disk's or a
    # copy's fault) leaves the footer whole, and would otherwise surface as polars's error when the rows are
    # collected, or end the process (a page claiming a length no memory holds).
    try:
        pq.read_table(file)
        with quiet_panics():
            pl.read_parquet(file)
    except (OSError, ValueError, pyarrow.ArrowException, pl.exceptions.PolarsError,
            pl.exceptions.PanicException) as exc:
        return f"corrupt rows ({_one_line(exc)[:160]}); delete it, then {_AGAIN}"
    return None


def _schema_difference(schema: Mapping[str, pl.DataType], want: Mapping[str, pl.DataType],
                       table: str) -> str | None:
    """The first difference of a file's columns from its table's, in words (names quoted: one line whatever a
    damaged name holds); None when they are the same."""
    def name(text: str) -> str:
        return repr(text if len(text) <= 40 else text[:40] + "...")

    for position, (got, expected) in enumerate(zip(schema, want), start=1):
        if got != expected:
            return f"column {position} is {name(got)} where the {table} table's is {name(expected)}"
        if schema[got] != want[expected]:
            return f"column {name(got)} is {schema[got]} where the {table} table's is {want[expected]}"
    if len(schema) > len(want):
        return f"an extra column {name(list(schema)[len(want)])} the {table} table does not have"
    if len(schema) < len(want):
        return f"no column {name(list(want)[len(schema)])}, which the {table} table has"
    return None


@contextlib.contextmanager
def quiet_panics() -> Iterator[None]:
    """Hold back what is written to the process's stderr in the block; drop it if the block raised.

    A panic in polars's Rust code prints its message (and with ``RUST_BACKTRACE``, a backtrace) on stderr
    before it reaches Python as an exception, which the caller names in one line: the person sees that
    line only. Output of a block that ends normally is written out after it.
    """
    with contextlib.suppress(AttributeError, ValueError, OSError):  # no sys.stderr, or a closed one
        sys.stderr.flush()
    try:
        held = tempfile.TemporaryFile()
    except OSError:  # nowhere to hold it: the block runs as it is
        yield
        return
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to hold back
        held.close()
        yield
        return
    raised = True
    try:
        os.dup2(held.fileno(), 2)
        yield
        raised = False
    finally:
        with contextlib.suppress(AttributeError, ValueError, OSError):
            sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        if not raised:
            held.seek(0)
            out = held.read()
            with contextlib.suppress(OSError):
                while out:
                    out = out[os.write(2, out):]
        held.close()


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def check(path: str | os.PathLike[str], thorough: bool = True) -> Survey:
    """Check every batch file of the dataset at ``path``.

    Parameters
    ----------
    path : str or path-like
        The dataset folder.
    thorough : bool
        True: read every file's parquet footer and provenance, then its
        rows: a truncated or corrupt file (its rows included), a file of
        another dataset or table, a games file with the wrong number of rows. False: only the
        magic bytes and footer length (12 bytes a file), which finds any
        file cut short, then the footer's columns; what :func:`load` does.
        Either way, a file whose columns (names, order, types) are not its
        table's (:data:`SCHEMAS`) is named with the first column that differs.

    Returns
    -------
    Survey
        The finished batches, and one line per problem: a truncated, corrupt
        or foreign file, or a batch the manifest lists whose file is missing.
        A batch file whose twin was never written (a killed run) is no
        problem: it is left out and played again by the next run.

    Raises
    ------
    DatasetError
        ``path`` is not a dataset, or its manifest is damaged.
    """
    root = Path(path)
    manifest = read_manifest(root)
    return _survey(root, manifest, _players(manifest), thorough)


def load(path: str | os.PathLike[str], table: str = "rounds") -> pl.LazyFrame:
    """One table of a results dataset as a polars ``LazyFrame``, in game order.

    Parameters
    ----------
    path : str or path-like
        The dataset folder (what ``simulate(..., out=PATH)`` or ``rami
        simulate --out PATH`` wrote).
    table : {"rounds", "games", "positions", "traces"}
        ``"rounds"``: one row per game, round and seat (columns
        :data:`sim.api.ROUND_COLUMNS`); ``"games"``: one row per game and seat
        (:data:`sim.api.GAME_COLUMNS`); ``"positions"``: a fork experiment's
        positions (:mod:`experiments.forks`) or the analysed decisions of
        ``bot_losses``; ``"traces"``: the traced games beside those decisions.

    Returns
    -------
    polars.LazyFrame
        Every finished batch of the table; nothing is read until it is
        collected. The same files read with ``pl.scan_parquet(PATH / table)``
        or ``pandas.read_parquet(PATH / table)``.

    Raises
    ------
    DatasetError
        ``path`` is not a dataset, or one of its batch files is truncated,
        corrupt (its parquet magic bytes, footer length or footer are
        wrong), has other columns than its table's (:data:`SCHEMAS`: a
        column renamed or retyped, which no stacking of the files would
        take), is foreign or missing (listed by the manifest): the message
        names each file, the column, and what to do (``rami info PATH``
        lists every problem, one a line).
    """
    if table not in KNOWN_TABLES:
        raise ValueError(f"table must be one of {', '.join(KNOWN_TABLES)}, got {table!r}")
    root = Path(path)
    manifest = read_manifest(root)
    if table not in manifest["identity"]["tables"]:
        raise DatasetError(f"{path} holds only the {', '.join(manifest['identity']['tables'])} table; "
                           f"load(path, table={manifest['identity']['tables'][0]!r})")
    survey = _survey(root, manifest, _players(manifest), thorough=False, columns=(table,))
    if survey.problems:
        more = f" (and {len(survey.problems) - 1} more problems: rami info {root} lists them)" \
            if len(survey.problems) > 1 else ""
        raise DatasetError(f"{root}: damaged dataset: {survey.problems[0]}{more}")
    if not survey.done:
        raise DatasetError(f"{root / table}: no finished batch yet")
    return pl.scan_parquet([root / table / batch_name(*batch) for batch in survey.done])


def file_provenance(file: str | os.PathLike[str]) -> dict[str, Any]:
    """The provenance stored in one batch file's parquet metadata."""
    import pyarrow
    import pyarrow.parquet as pq

    problem = _footer_problem(Path(file))
    if problem is not None:
        raise DatasetError(f"{file}: {problem}")
    try:
        meta = pq.read_metadata(file).metadata or {}
    except (OSError, ValueError, pyarrow.ArrowException) as exc:
        raise DatasetError(f"{file}: corrupt parquet footer ({_one_line(exc)})") from None
    raw = meta.get(METADATA_KEY.encode())
    if raw is None:
        raise DatasetError(f"{file}: a parquet file without rami-lab provenance")
    try:
        prov = json.loads(raw)
    except ValueError:
        prov = None
    if not isinstance(prov, dict):
        raise DatasetError(f"{file}: damaged rami-lab provenance in its metadata")
    return prov


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


def _sync_folder(folder: Path) -> None:
    """Make the renames in ``folder`` durable (a power cut after this keeps them)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # systems that cannot open a folder (Windows) make renames durable themselves
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse to sync a folder; the rename is still atomic
    finally:
        os.close(fd)


def _write_whole(data: bytes, tmp: Path, final: Path) -> None:
    """Write ``data`` to ``final`` so that ``final`` is never seen partly written, even after a power cut."""
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, final)
    _sync_folder(final.parent)


class _Lock:
    """The operating system's exclusive lock on a dataset's ``.lock`` file, held while a run writes.

    ``flock`` locks belong to the open file, so the system releases the lock
    when the process ends, whether it ends normally, by an exception or by
    SIGKILL: a killed run never leaves a dataset locked.
    """

    def __init__(self, root: Path) -> None:
        import fcntl

        self.file = open(root / _LOCK, "a+", encoding="utf-8")
        try:
            fcntl.flock(self.file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            self.file.seek(0)
            holder = self.file.read().strip()
            self.file.close()
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise DatasetError(f"cannot lock {root / _LOCK}: {exc.strerror or exc}") from None
            raise DatasetError(f"{root} is being written by another run now ({holder or 'a run starting'}); "
                               f"wait for it to end, or choose another output folder") from None
        self.file.seek(0)
        self.file.truncate()
        self.file.write(f"process {os.getpid()} on {socket.gethostname()}, since {now()}\n")
        self.file.flush()

    def release(self) -> None:
        if not self.file.closed:
            self.file.close()  # closing the file releases the lock


@dataclass
class Writer:
    """An open dataset: where batches go, and the runs' record.

    Made by :func:`open_dataset`, which has checked the folder and holds its
    lock; the driver calls :meth:`write` for each finished batch and
    :meth:`close` at the end, which releases the lock.
    """

    root: Path
    manifest: dict[str, Any]
    done: list[tuple[int, int]] = field(default_factory=list)
    written: int = 0
    """Games written by this run."""
    lock: _Lock | None = None
    saved: float = field(default_factory=time.monotonic)
    """When the manifest was last written (``time.monotonic``)."""

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
        """Write one finished batch: each table's file under ``.tmp``, synced, then renamed into place.

        The batch is listed in the manifest only once both files are in
        place (at the next update of the manifest, within a few seconds).
        """
        name = batch_name(first, first + count - 1)
        for table in self.tables:
            tmp = self.root / _TMP / f"{table}-{name}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
            _write_whole(files[table], tmp, self.root / table / name)
        self.done.append((first, first + count - 1))
        self.written += count
        if time.monotonic() - self.saved >= _MANIFEST_EVERY:
            self._save(games_played=self.written)

    def _save(self, **run: Any) -> None:
        self.manifest["runs"][-1].update(run)
        self.manifest["batches"] = _spans(self.done)
        _write_manifest(self.root, self.manifest)
        self.saved = time.monotonic()

    @contextlib.contextmanager
    def recording(self) -> Iterator[Writer]:
        """Close the run whatever happens in the block: ``complete`` when it ends, ``interrupted`` on Ctrl-C,
        ``failed`` on any other exception (which goes on); the lock is released in every case."""
        status = "failed"
        try:
            yield self
            status = "complete"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            self.close(status, self.written)

    def close(self, status: str, games_played: int) -> dict[str, Any]:
        """Record the run's end (``status``: complete, interrupted or failed) in the manifest; release the lock."""
        try:
            self._save(ended=now(), status=status, games_played=games_played)
        finally:
            if self.lock is not None:
                self.lock.release()
        return self.manifest


def _write_manifest(root: Path, manifest: dict[str, Any]) -> None:
    tmp = root / _TMP / f"{MANIFEST}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
    _write_whole((json.dumps(manifest, indent=2) + "\n").encode("utf-8"), tmp, root / MANIFEST)


def open_dataset(path: str | os.PathLike[str], identity: dict[str, Any], run: dict[str, Any],
                 players: int) -> Writer:
    """Check ``path``, lock it and open it for writing: a new dataset, or one made with the same identity.

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

    Returns
    -------
    Writer
        Holding the dataset's lock until :meth:`Writer.close` (or the end of
        the process).

    Raises
    ------
    DatasetError
        The folder cannot be written, another run is writing it now, it
        holds something else than this dataset, a dataset made by another
        command, or a damaged batch file (named, with what to do). Nothing
        has been played or changed then (but for the lock file and removing
        this dataset's own leftovers of a killed run).
    """
    if isinstance(path, str) and not path.strip():
        raise DatasetError("the output path is empty; give a folder name, e.g. results")
    root = Path(path)
    _check_target(root)
    identity = _canonical(identity)
    if root.is_dir():
        allowed = {MANIFEST, _TMP, _LOCK, *KNOWN_TABLES}
        for entry in sorted(root.iterdir()):
            if entry.name not in allowed:
                raise DatasetError(f"{entry}: foreign file in the output folder (not part of a results dataset); "
                                   f"choose an empty or new folder")
    try:
        root.mkdir(parents=True, exist_ok=True)
        lock = _Lock(root)
    except OSError as exc:
        raise DatasetError(f"cannot write {root}: {exc.strerror or exc}") from None
    try:
        return _open_locked(root, identity, run, players, lock)
    except BaseException:
        lock.release()
        raise


def _open_locked(root: Path, identity: dict[str, Any], run: dict[str, Any], players: int, lock: _Lock) -> Writer:
    """The rest of :func:`open_dataset`, once the lock is held: nobody else changes the folder now."""
    manifest: dict[str, Any]
    if not (root / MANIFEST).exists():
        if any(f.is_file() for table in KNOWN_TABLES if (root / table).is_dir() for f in (root / table).iterdir()):
            raise DatasetError(f"{root}: batch files but no {MANIFEST}; not a dataset this run can add to")
        # A new dataset, or one killed before its manifest was written: nothing of it to keep.
        manifest = {"format": FORMAT, "identity": identity, "runs": []}
    else:
        manifest = read_manifest(root)
    if manifest["identity"] != identity:
        reasons = _differences(manifest["identity"], identity)
        raise IdentityError(f"{root} holds a dataset made by another command ({'; '.join(reasons[:4])}); "
                           f"choose another output folder, or remove this one to start again")
    for table in KNOWN_TABLES:
        if table not in identity["tables"] and (root / table).exists():
            raise DatasetError(f"{root / table}: a table this dataset does not hold")
    survey = _survey(root, manifest, players, thorough=True)
    # A listed batch deleted on purpose (what a damaged file's message asks) is played again.
    gone = [p for p in survey.problems if ": missing (the manifest lists" in p]
    refused = [p for p in survey.problems if p not in gone]
    if refused:
        more = f" (and {len(refused) - 1} more: rami info {root} lists them)" if len(refused) > 1 else ""
        raise DatasetError(refused[0].replace(_AGAIN, "run this command again") + more)
    for line in gone:
        log.warning("%s", line.split(";")[0] + "; its games are played again")
    try:
        tmp = root / _TMP
        if tmp.exists():
            # Leftovers of a killed run: never renamed, so never part of the dataset.
            shutil.rmtree(tmp)
        tmp.mkdir()
        for table in identity["tables"]:
            (root / table).mkdir(exist_ok=True)
        for orphan in survey.orphans:
            orphan.unlink()
    except OSError as exc:
        raise DatasetError(f"cannot write {root}: {exc.strerror or exc}") from None
    manifest["runs"].append({**_canonical(run), "status": "running"})
    writer = Writer(root, manifest, survey.done, lock=lock)
    try:
        writer._save()
    except OSError as exc:
        raise DatasetError(f"cannot write {root / MANIFEST}: {exc.strerror or exc}") from None
    return writer


def encode(frame: pl.DataFrame, provenance: dict[str, Any], table: str, first: int, last: int) -> bytes:
    """One batch file's bytes: ``frame`` as zstd parquet, with its provenance in the key-value metadata.

    ``provenance`` is the dataset's ``{"format", "identity", "run"}``; the
    table and the batch's inclusive game range are added, so a file copied
    out of its folder still says what it holds.
    """
    meta = {**provenance, "table": table, "first_game": first, "last_game": last}
    buffer = io.BytesIO()
    frame.write_parquet(buffer, compression="zstd", metadata={METADATA_KEY: json.dumps(meta)})
    return buffer.getvalue()


def fill(
    path: str | os.PathLike[str],
    identity: dict[str, Any],
    run: dict[str, Any],
    first_game: int,
    n_games: int,
    batch_size: int,
    play: Callable[[int, int], dict[str, pl.DataFrame]],
    progress: Callable[[int], None] | None = None,
    warm: Sequence[tuple[Any, Callable[[], Any]]] = (),
) -> Dataset:
    """Play the games of ``first_game .. first_game + n_games - 1`` not yet in the dataset at ``path``, batch by batch.

    The store's driver for work that is not a simulation (a fork
    experiment's positions): ``play(first, count)`` returns one frame per
    table of ``identity["tables"]`` for those games, and each batch is
    written whole as it finishes, as :func:`sim.simulate` does with ``out``.
    A run stopped at any moment keeps its finished batches; the same call
    plays only the rest.

    Parameters
    ----------
    path, identity, run
        As :func:`open_dataset` (``players`` is taken from
        ``identity["ruleset"]`` when it has one).
    first_game, n_games, batch_size
        The game range asked for, and games per batch file.
    play : callable
        ``play(first, count) -> {table: DataFrame}``; every batch's frame of
        one table must have the same columns.
    progress : callable, optional
        Called with the games found on disk, then with each batch's games.
    warm : sequence of (key, call)
        Inside a cluster's session (:func:`sim.distributed.session`), the
        batches are played on its workers (``play`` is sent to them, so it
        must pickle), and each worker runs these warm-ups (such as
        :func:`sim.ahead.warm_up`'s, for the entries ``play`` uses) before
        the first batch.

    Returns
    -------
    Dataset
        With ``games_played`` and ``games_found``.
    """
    from sim import distributed

    cluster = distributed.current()
    if cluster is not None:
        run = {**run, "where": f"dask {cluster.address}"}
    players = _players({"identity": identity})
    writer = open_dataset(path, identity, run, players)
    with writer.recording():
        provenance = {"format": FORMAT, "identity": writer.manifest["identity"], "run": run}
        todo = writer.missing(first_game, n_games, batch_size)
        found = n_games - sum(count for _, count in todo)
        if cluster is not None and todo:
            for key, work in warm:
                cluster.warm(key, work)
        if progress:
            progress(found)
        if cluster is not None:
            pieces = [(play, provenance, writer.tables, first, count) for first, count in todo]
            for i, files in cluster.each_done(batch_of, pieces):
                writer.write(*todo[i], files)
                if progress:
                    progress(todo[i][1])
        else:
            for first, count in todo:
                writer.write(first, count, batch_of(play, provenance, writer.tables, first, count))
                if progress:
                    progress(count)
    return Dataset(Path(path), writer.manifest, games_played=writer.written, games_found=found)


def batch_of(play: Callable[[int, int], dict[str, pl.DataFrame]], provenance: dict[str, Any], tables: Sequence[str],
             first: int, count: int) -> dict[str, bytes]:
    """One batch of :func:`fill`: ``play(first, count)`` encoded as each table's file (here or on a worker)."""
    frames = play(first, count)
    return {table: encode(frames[table], provenance, table, first, first + count - 1) for table in tables}


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
