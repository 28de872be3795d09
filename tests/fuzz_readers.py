"""Every reader of a file a stranger may hand the lab, fed inputs made from its grammar and from valid files
mutated byte by byte; used by ``tests/test_fuzz_readers.py`` (a short pass) and ``benchmarks/fuzz.py`` (a
long one).

A format is a :class:`Format`: ``make(chooser)`` builds one input (bytes) from a :class:`Chooser`, which is
either hypothesis's data (the tests: failures shrink) or a seeded ``random.Random`` (the benchmark: fast);
``read(path)`` calls the lab's reader on the input written to ``path``, in-process, as the command line
would. :func:`try_input` runs one input and says what went wrong, if anything:

- the reader accepts, or raises one of the format's own clear errors (``ValueError`` and its subclasses
  ``RulesetError``, ``ViewError``, ``RecordError``, ``ConditionError``, ``DatasetError``, ``PlayError``,
  or a ``click.ClickException``: each one line on the command line, exit 2 or 1);
- never another exception (a traceback for the person), never a write outside the input's folder (the
  working folder is an empty one, checked after), never longer than the format's time limit (a hang).
"""

from __future__ import annotations

import functools
import json
import os
import random
import shutil
import signal
import string
import tempfile
import traceback
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import click

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ choosers
class Chooser:
    """Where a format's generator takes its choices from."""

    def integer(self, low: int, high: int) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def choice(self, items: Sequence[Any]) -> Any:
        return items[self.integer(0, len(items) - 1)]

    def boolean(self) -> bool:
        return self.integer(0, 1) == 1

    def text(self, alphabet: str, most: int) -> str:
        return "".join(self.choice(alphabet) for _ in range(self.integer(0, most)))


class RandomChooser(Chooser):
    """Choices from a seeded ``random.Random``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


class DataChooser(Chooser):
    """Choices drawn from hypothesis's ``st.data()``, so that a failing input shrinks."""

    def __init__(self, data: Any) -> None:
        from hypothesis import strategies as st

        self.data, self.st = data, st

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(self.st.integers(low, high))


# ---------------------------------------------------------------- mutation
WEIRD = ["", "0", "-1", "1e309", "nan", "inf", "-0", "2147483648", "18446744073709551616", "null", "true", "[]",
         "{}", "\"\"", "\\", "\x00", "\u202e", "é", "★", "\ud7ff", "<script>", "'", "\"", "=", "[[", "]]", "#",
         "\n", "\r\n", "\t", " " * 3, "9" * 40, "7♥", "JK", "10D", "{x}", "$", ",,", ";", ":", "|", "(", ")"]


def mutate(ch: Chooser, data: bytes) -> bytes:
    """``data`` changed by a few byte-level edits: flips, inserts, deletions, duplications, truncation, and
    splices of tokens that readers find hard (numbers out of range, NaN, NUL, quotes, brackets)."""
    out = bytearray(data)
    for _ in range(ch.integer(1, 4)):
        kind = ch.integer(0, 6)
        at = ch.integer(0, len(out)) if out else 0
        if kind == 0 and out:
            out[min(at, len(out) - 1)] ^= 1 << ch.integer(0, 7)
        elif kind == 1:
            out[at:at] = ch.choice(WEIRD).encode("utf-8", "surrogatepass")
        elif kind == 2 and out:
            del out[at:at + ch.integer(1, 16)]
        elif kind == 3 and out:
            span = bytes(out[at:at + ch.integer(1, 32)])
            out[at:at] = span
        elif kind == 4:
            del out[at:]
        elif kind == 5 and out:
            out[min(at, len(out) - 1)] = ch.integer(0, 255)
        else:
            # A line swapped with another: an order the grammar does not allow.
            lines = bytes(out).split(b"\n")
            if len(lines) > 1:
                i, j = ch.integer(0, len(lines) - 1), ch.integer(0, len(lines) - 1)
                lines[i], lines[j] = lines[j], lines[i]
                out = bytearray(b"\n".join(lines))
    return bytes(out)


# ------------------------------------------------------------------ formats
@dataclass(frozen=True)
class Format:
    """One file format the lab reads: how to make an input, how to read it, and how long a read may take."""

    name: str
    make: Callable[[Chooser], bytes]
    read: Callable[[Path], Any]
    suffix: str = ""
    seconds: float = 2.0
    folder: bool = False  # the input is a folder (a dataset): ``make`` returns an archive of its files


class Hang(BaseException):
    """Raised by the alarm inside a read that took too long (a ``BaseException``: no reader catches it)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in the block after ``seconds`` (main thread only; without ``SIGALRM`` no limit)."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def ring(signum: int, frame: Any) -> None:
        raise Hang(f"no answer after {seconds} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


CLEAR_ERRORS: tuple[type[BaseException], ...] = (ValueError, click.ClickException)
"""The lab's own errors: ``ValueError`` (every reader's error class derives from it) and the command line's
one-line errors. ``TypeError``, ``KeyError``, ``AssertionError``, ``UnicodeError`` from deep inside, a polars
or numba error, ``RecursionError``: each is a failure."""


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


def try_input(fmt: Format, data: bytes) -> str | None:
    """Read ``data`` as ``fmt``; ``None`` when the reader accepted it or refused it clearly, else what went
    wrong (an unexpected exception with where it came from, a write outside the input, a hang)."""
    outcome, detail = read_input(fmt, data)
    return detail if outcome == "failure" else None


def read_input(fmt: Format, data: bytes) -> tuple[str, str]:
    """``("accepted", "")``, ``("refused", the error's line)`` or ``("failure", what went wrong)`` for ``data``
    read as ``fmt`` (see :func:`try_input`)."""
    refused = ""
    with tempfile.TemporaryDirectory(prefix=f"rami-fuzz-{fmt.name}-") as tmp:
        base = Path(tmp)
        work, inputs = base / "work", base / "input"
        work.mkdir()
        inputs.mkdir()
        if fmt.folder:
            path = inputs / "dataset"
            unpack(data, path)
        else:
            path = inputs / f"input{fmt.suffix}"
            path.write_bytes(data)
        before = _snapshot(inputs)
        here = os.getcwd()
        os.chdir(work)
        try:
            with time_limit(fmt.seconds):
                fmt.read(path)
        except Hang as exc:
            return "failure", f"hang: {exc}"
        except CLEAR_ERRORS as exc:
            refused = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
            if not refused.strip():
                return "failure", f"{type(exc).__name__} with no message"
        except RecursionError:
            return "failure", "RecursionError"
        except (Exception, BaseException) as exc:  # noqa: BLE001 - what the fuzzing looks for (a Rust panic too)
            if isinstance(exc, KeyboardInterrupt):
                raise
            where = traceback.extract_tb(exc.__traceback__)[-1]
            return "failure", (f"{type(exc).__name__}: {str(exc)[:200]} "
                               f"(at {Path(where.filename).name}:{where.lineno})")
        finally:
            os.chdir(here)
        made = sorted(str(p.relative_to(work)) for p in work.rglob("*"))
        if made:
            return "failure", f"wrote outside its input: {made[:3]}"
        after = _snapshot(inputs)
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        # A dataset's reader may leave its lock file; nothing else of the input may change.
        changed = [k for k in changed if not k.endswith(".lock")]
        if changed:
            return "failure", f"changed its input: {changed[:3]}"
    return ("refused", refused) if refused else ("accepted", "")


# A folder travels as JSON: {relative path: latin-1 text of its bytes}, so that byte mutation reaches every file.
def pack(folder: Path) -> bytes:
    """A dataset folder as one input: JSON of each file's bytes by its path."""
    files = {str(p.relative_to(folder)): p.read_bytes().decode("latin-1") for p in sorted(folder.rglob("*"))
             if p.is_file()}
    return json.dumps(files).encode()


def unpack(data: bytes, folder: Path) -> None:
    """Write the files of a :func:`pack`'d input under ``folder`` (a path leading outside it is skipped)."""
    folder.mkdir(parents=True)
    files = json.loads(data)
    for name, text in files.items():
        target = (folder / name).resolve()
        if folder.resolve() not in target.parents:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("latin-1"))


# ----------------------------------------------------------- seed material
@functools.cache
def traces() -> list[list[dict]]:
    """A few whole traces of the three games (first rounds only: short inputs)."""
    import sim

    return [sim.play_traced("basic", ["greedy", "random"], seed=3, max_rounds=1),
            sim.play_traced("rami51", ["greedy", "expert", "random"], seed=4, max_rounds=1),
            sim.play_traced("contrat", ["greedy", "greedy", "expert"], seed=5, max_rounds=1)]


@functools.cache
def views() -> list[Any]:
    """Seat views of a few decisions of those traces."""
    import sim

    out = []
    for events in traces():
        for index in [i for i, e in enumerate(events) if e["type"] in ("draw", "discard")][:6:2]:
            out.append(sim.Position.from_trace(events, index).view())
    return out


@functools.cache
def records() -> list[str]:
    from sim.game_record import write_record

    return [write_record(events, seat) for events in traces() for seat in (0, 1)]


@functools.cache
def dataset() -> bytes:
    """A small results dataset (two batch files), packed."""
    import sim

    folder = Path(tempfile.mkdtemp(prefix="rami-fuzz-dataset-"))
    try:
        sim.simulate("basic", ["greedy", "random"], n_games=8, seed=1, workers=1, batch_size=4, out=folder / "d")
        return pack(folder / "d")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _files(pattern: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted(ROOT.glob(pattern))]


# ------------------------------------------------------------------ grammars
def _toml_value(ch: Chooser, words: Sequence[str]) -> str:
    kind = ch.integer(0, 6)
    if kind == 0:
        return str(ch.choice([0, 1, 2, 3, 5, 7, 13, 51, 100, -1, 10**6, 2**63]))
    if kind == 1:
        return json.dumps(ch.choice(words), ensure_ascii=False)
    if kind == 2:
        return ch.choice(["true", "false", "nan", "inf", "-inf", "1.5", "0.0"])
    if kind == 3:
        return "[" + ", ".join(_toml_value(ch, words) for _ in range(ch.integer(0, 4))) + "]"
    if kind == 4:
        return json.dumps(ch.text(string.printable + "★♥é{}", 12), ensure_ascii=False)
    if kind == 5:
        return "{ " + ", ".join(f"{ch.choice(words)} = {_toml_value(ch, words)}" for _ in range(ch.integer(0, 2))) + " }"
    return json.dumps("{" + ch.choice(words) + "}")


def _toml_doc(ch: Chooser, keys: Sequence[str], tables: dict[str, Sequence[str]], words: Sequence[str]) -> bytes:
    lines = [f"{ch.choice(keys)} = {_toml_value(ch, words)}" for _ in range(ch.integer(0, 8))]
    for _ in range(ch.integer(0, 3)):
        table = ch.choice(list(tables))
        lines.append(f"[{table}]")
        lines += [f"{json.dumps(ch.choice(tables[table]), ensure_ascii=False)} = {_toml_value(ch, words)}"
                  for _ in range(ch.integer(0, 5))]
    return "\n".join(lines).encode()


def _grammar_or_mutant(grammar: Callable[[Chooser], bytes], seeds: Callable[[], list[bytes]]) -> Callable[[Chooser], bytes]:
    """A generator that, half the time, builds from the grammar, and otherwise mutates a valid file (or a
    grammar-built one)."""
    def make(ch: Chooser) -> bytes:
        kind = ch.integer(0, 3)
        if kind == 0:
            return grammar(ch)
        if kind == 1:
            return mutate(ch, grammar(ch))
        return mutate(ch, ch.choice(seeds()))
    return make


def _knobs() -> list[str]:
    from sim import rules

    return [*rules.preset("rami51").to_dict(), "preset", "game", "jokerz"]


def _knob_words() -> list[str]:
    return ["rami51", "contrat", "basic", "rami51-ducale", "must_use", "free", "only_after_opening", "reshuffle",
            "flip_no_shuffle", "turn_once_then_block", "auto", "both", "high", "low", "none", "x"]


def _ruleset(ch: Chooser) -> bytes:
    return _toml_doc(ch, _knobs(), {"rules": _knobs()}, _knob_words())


def _read_ruleset(path: Path) -> None:
    from sim import rules

    rules.as_ruleset(str(path))


def _params() -> list[str]:
    from strategies import parameters

    return [*parameters.PARAMETERS, "bogus"]


def _strategy(ch: Chooser) -> bytes:
    return _toml_doc(ch, ["name", "base", "description", "tuning", "extra"], {"params": _params(), "tuning": ["x"]},
                     ["greedy", "expert", "cautious", "random", "search", "ceiling", "my bot"])


def _read_strategy(path: Path) -> None:
    from strategies import files

    files.load(path)


STUDY_KEYS = ["name", "title", "about", "game", "players", "games", "quick_games", "seeds", "design", "precision",
              "max_games", "measures", "compare", "condition", "rounds", "typo"]
STUDY_WORDS = ["rami51", "basic", "contrat", "greedy", "expert", "cautious", "random", "ceiling", "duplicate",
               "common", "independent", "points", "won", "opened", "first", "all", "a", "b", "x", "players",
               "focal_seats", "jokers(0) >= 1", "opening(0) >= 51", "greedy:open_extra={x}", "{x}", "focal",
               "field", "search:trials=2"]


def _study(ch: Chooser) -> bytes:
    return _toml_doc(ch, STUDY_KEYS, {"arms": ["a", "b", "c", "<x>"], "rules": _knobs(), "sweep": ["x", "players",
                                                                                                  "focal_seats", "y"]},
                     STUDY_WORDS)


def _read_study(path: Path) -> None:
    from experiments import study

    study.read_study(path)


def _trace(ch: Chooser) -> bytes:
    events = [dict(e) for e in ch.choice(traces())]
    for _ in range(ch.integer(0, 3)):
        i = ch.integer(0, len(events) - 1)
        kind = ch.integer(0, 4)
        if kind == 0:
            del events[i]
        elif kind == 1:
            events.insert(i, dict(ch.choice(events)))
        elif kind == 2 and events[i]:
            key = ch.choice(sorted(events[i]))
            events[i][key] = ch.choice([None, -1, 0, 99, "7♥", "★", [], {}, "x", True, 1.5, 2**70])
        elif kind == 3:
            events[i]["index"] = ch.integer(-1, len(events))
        else:
            events[i], events[-1] = events[-1], events[i]
    return json.dumps(events, ensure_ascii=False).encode()


def _read_trace(path: Path) -> None:
    from sim.analysis.analyse import walk
    from sim.cli.analyse import read_trace

    for _ in walk(read_trace(path)):
        pass


CONDITION_FEATURES = ["jokers({s})", "opening({s})", "melds({s})", "holds({s}, \"{c}\")", "contract({s})",
                      "holds({s}, {c})", "aces({s})", "jokers()", "opening({s}, {s})"]
CARDS = ["7♥", "7♥ 7♦", "A♠ K♠", "★", "JK", "10D VH", "7♥ 7♥ 7♥", "ZZ", ""]


def _condition_text(ch: Chooser, depth: int = 0) -> str:
    kind = ch.integer(0, 5 if depth < 3 else 1)
    if kind <= 1:
        feature = ch.choice(CONDITION_FEATURES).format(s=ch.choice(["0", "1", "3", "9", "seat", "-1", "x"]),
                                                        c=ch.choice(CARDS))
        if kind == 1:
            return feature
        return f"{feature} {ch.choice(['>=', '<=', '==', '!=', '<', '>', '=', '=>'])} " \
               f"{ch.choice(['0', '1', '2', '51', '-3', '1e9', 'x', '99999999999999999999'])}"
    if kind == 2:
        return f"{_condition_text(ch, depth + 1)} {ch.choice(['and', 'or', 'AND', '&&'])} {_condition_text(ch, depth + 1)}"
    if kind == 3:
        return f"not {_condition_text(ch, depth + 1)}"
    if kind == 4:
        return f"({_condition_text(ch, depth + 1)})"
    return f"{ch.choice(['every_seat', 'any_seat', 'no_seat', 'any_seat'])}({_condition_text(ch, depth + 1)})"


def _condition(ch: Chooser) -> bytes:
    text = _condition_text(ch).encode()
    return mutate(ch, text) if ch.boolean() else text


def _read_condition(path: Path) -> None:
    from sim import conditions, rules

    text = path.read_bytes().decode("utf-8", "replace")
    condition = conditions.parse_condition(text)
    condition.check(rules.preset("rami51"))


def _view_seeds() -> list[bytes]:
    from sim.seat_view import format_view

    return [format_view(v).encode() for v in views()]


def _view_text(ch: Chooser) -> bytes:
    lines = ch.choice(_view_seeds()).decode().splitlines()
    for _ in range(ch.integer(0, 3)):
        i = ch.integer(0, len(lines) - 1)
        head, _, value = lines[i].partition(":")
        kind = ch.integer(0, 3)
        if kind == 0:
            lines[i] = f"{head}: {ch.choice(WEIRD + CARDS)}"
        elif kind == 1:
            del lines[i]
        elif kind == 2:
            lines.insert(i, lines[ch.integer(0, len(lines) - 1)])
        else:
            lines[i] = f"{head}:{value} {ch.choice(CARDS)}"
    return "\n".join(lines).encode()


def _read_view_text(path: Path) -> None:
    from sim.seat_view import parse_view

    parse_view(path.read_bytes().decode("utf-8", "replace"))


def _view_json_seeds() -> list[bytes]:
    from sim.seat_view import to_json

    return [json.dumps(to_json(v), ensure_ascii=False).encode() for v in views()]


def _view_json(ch: Chooser) -> bytes:
    data = json.loads(ch.choice(_view_json_seeds()))
    for _ in range(ch.integer(0, 3)):
        key = ch.choice(sorted(data) + ["extra"])
        data[key] = ch.choice([None, -1, 0, 9, "7♥", "★ 7♥", [], {}, [[]], "x", True, 1.5, 2**70, [0, 1, 2]])
    return json.dumps(data, ensure_ascii=False).encode()


def _read_view_json(path: Path) -> None:
    from sim.seat_view import from_json

    from_json(path.read_bytes().decode("utf-8", "replace"))


def _record(ch: Chooser) -> bytes:
    lines = ch.choice(records()).splitlines()
    for _ in range(ch.integer(0, 3)):
        i = ch.integer(0, len(lines) - 1)
        kind = ch.integer(0, 3)
        words = lines[i].split(" ")
        if kind == 0 and words:
            words[ch.integer(0, len(words) - 1)] = ch.choice(WEIRD + CARDS + ["open", "throw", "take", "draw"])
            lines[i] = " ".join(words)
        elif kind == 1:
            del lines[i]
        elif kind == 2:
            lines.insert(i, lines[ch.integer(0, len(lines) - 1)])
        else:
            lines[i], lines[-1] = lines[-1], lines[i]
    return "\n".join(lines).encode()


def _read_record(path: Path) -> None:
    from sim.game_record import parse_record, seen_steps

    record = parse_record(path.read_bytes().decode("utf-8", "replace"))
    seen_steps(record)


def _dataset(ch: Chooser) -> bytes:
    files = json.loads(dataset())
    for _ in range(ch.integer(1, 3)):
        name = ch.choice(sorted(files))
        kind = ch.integer(0, 2)
        if kind == 0:
            files[name] = mutate(ch, files[name].encode("latin-1")).decode("latin-1")
        elif kind == 1:
            del files[name]
            if not files:
                break
        else:
            files[name] = files[name][: ch.integer(0, len(files[name]))]
    return json.dumps(files).encode()


def _read_dataset(path: Path) -> None:
    import sim
    from sim import store

    # As `rami info` reads a folder: every file checked (footers and provenance), each problem named; a dataset
    # without problems is then loaded whole. (sim.load alone checks a file's ends and its columns, as it documents.)
    survey = store.check(path)
    if survey.problems:
        raise store.DatasetError(survey.problems[0])
    sim.load(path, "games").collect()
    sim.load(path).collect()


# The play server's JSON API: its body reader and the game's answers to a decision and a hint's query.
@functools.cache
def _play_game() -> Any:
    from sim import rules
    from sim.play.game import TableGame

    return TableGame(rules.preset("basic").replace(players=2), ["greedy"], seat=0, seed=7)


class _Request:
    def __init__(self, body: bytes, kind: str) -> None:
        self.body, self.headers = body, {"Content-Type": kind}


def _play_body(ch: Chooser) -> bytes:
    # The choices never depend on the game's state, so that hypothesis can replay and shrink an input.
    body: dict[str, Any] = {}
    for key in ch.choice([("decision", "choice"), ("decision", "choice"), ("decision",), ("choice",),
                          ("decision", "choice", "x"), ()]):
        body[key] = ch.choice([ch.integer(0, 3), ch.integer(0, 60), -1, None, "1", 1.0, True, [], {}, 2**70, 1e999,
                               "7♥", "stock", "take 7♥", "stop", "next", ""])
    raw = json.dumps(body, ensure_ascii=False).encode()
    kind = ch.integer(0, 3)
    if kind == 0:
        return mutate(ch, raw)
    if kind == 1:
        return json.dumps(ch.choice([[], 1, "x", None, [body]])).encode()
    return raw


def _read_play_body(path: Path) -> None:
    from sim.play.game import PlayError
    from sim.play.server import ChoiceHandler

    game = _play_game()
    handler = ChoiceHandler.__new__(ChoiceHandler)
    handler.request = _Request(path.read_bytes(), "application/json")
    data = handler.body()
    unknown = sorted(set(data) - {"decision", "choice"})
    if unknown or "decision" not in data or "choice" not in data:
        return
    try:
        game.choose(data["decision"], data["choice"])
    except PlayError:
        raise
    if game.phase == "over":
        _play_game.cache_clear()
    game.state(None)


FORMATS: dict[str, Format] = {f.name: f for f in [
    Format("ruleset", _grammar_or_mutant(_ruleset, lambda: _files("sim/rules/presets/*.toml")), _read_ruleset,
           ".toml"),
    Format("strategy", _grammar_or_mutant(_strategy, lambda: _files("strategies/tuned/*.toml")), _read_strategy,
           ".toml"),
    Format("study", _grammar_or_mutant(_study, lambda: _files("docs/studies/*.toml")), _read_study, ".toml",
           seconds=5.0),
    Format("trace", _grammar_or_mutant(_trace, lambda: [json.dumps(t, ensure_ascii=False).encode()
                                                        for t in traces()]), _read_trace, ".json", seconds=20.0),
    Format("dataset", _dataset, _read_dataset, seconds=10.0, folder=True),
    Format("condition", _condition, _read_condition),
    Format("view-text", _grammar_or_mutant(_view_text, _view_seeds), _read_view_text, ".txt"),
    Format("view-json", _grammar_or_mutant(_view_json, _view_json_seeds), _read_view_json, ".json"),
    Format("record", _grammar_or_mutant(_record, lambda: [r.encode() for r in records()]), _read_record, ".txt",
           seconds=10.0),
    Format("play-api", _play_body, _read_play_body, ".json", seconds=10.0),
]}
"""Every format the lab reads from a stranger, by name."""
