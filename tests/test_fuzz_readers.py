"""Every reader of a file from a stranger, fuzzed: ruleset, strategy and study TOML, traces, dataset folders,
condition expressions, seat views (text and JSON), game records and the play server's JSON bodies.

Each format's inputs come from its grammar and from valid files mutated byte by byte
(``tests/fuzz_readers.py``); the reader must accept the input or refuse it with the lab's own clear error,
never another exception, never a write outside its input, never a hang. This is the short pass (a few
seconds); ``python benchmarks/fuzz.py --seconds N`` runs the long one. The cases the long runs found are
kept below, each with the reader's fix.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
import fuzz_readers  # noqa: E402

SHORT = settings(max_examples=30, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                        HealthCheck.data_too_large])


@pytest.mark.parametrize("name", list(fuzz_readers.FORMATS))
def test_a_reader_accepts_or_refuses_clearly(name):
    fmt = fuzz_readers.FORMATS[name]

    @SHORT
    @given(st.data())
    def check(data):
        made = fmt.make(fuzz_readers.DataChooser(data))
        assert fuzz_readers.try_input(fmt, made) is None, made[:400]

    check()


def test_the_grammars_reach_past_the_first_refusal():
    """Each format's inputs are not all refused at once: some are read whole (a fuzzer that only ever met the
    first check would test nothing else)."""
    import random

    rng = fuzz_readers.RandomChooser(random.Random(0))
    for name, fmt in fuzz_readers.FORMATS.items():
        outcomes = [fuzz_readers.read_input(fmt, fmt.make(rng))[0] for _ in range(60)]
        assert "failure" not in outcomes, name
        assert "accepted" in outcomes, name


def test_a_clear_refusal_is_no_failure_and_a_traceback_is():
    fmt = fuzz_readers.Format("x", lambda ch: b"", lambda path: int("x"))
    assert fuzz_readers.try_input(fmt, b"") is None
    fmt = fuzz_readers.Format("x", lambda ch: b"", lambda path: {}["key"])
    assert fuzz_readers.try_input(fmt, b"").startswith("KeyError")
    fmt = fuzz_readers.Format("x", lambda ch: b"", lambda path: Path("written").write_text("x"))
    assert fuzz_readers.try_input(fmt, b"").startswith("wrote outside its input")

    def forever(path):
        while True:
            pass

    fmt = fuzz_readers.Format("x", lambda ch: b"", forever, seconds=0.2)
    assert fuzz_readers.try_input(fmt, b"").startswith("hang")


# ---------------------------------------------------------------- found by the long runs, and fixed
def _trace_with(change) -> bytes:
    events = json.loads(json.dumps(fuzz_readers.traces()[1]))
    change(events)
    return json.dumps(events, ensure_ascii=False).encode()


def _first(events: list[dict], kind: str) -> dict:
    return next(e for e in events if e["type"] == kind)


@pytest.mark.parametrize("change", [
    lambda events: _first(events, "discard").pop("card"),            # KeyError in the played choice
    lambda events: _first(events, "deal").pop("round"),              # KeyError in the replay's deal
    lambda events: _first(events, "deal").update(round=2**70),       # OverflowError into the engine's integers
    lambda events: _first(events, "deal").update(hands=[1, 2, 3]),   # cards given as numbers, not notation
], ids=["discard without its card", "deal without its round", "a round past any integer", "hands as numbers"])
def test_a_trace_with_a_malformed_event_is_refused_as_a_trace_that_does_not_replay(change):
    outcome, detail = fuzz_readers.read_input(fuzz_readers.FORMATS["trace"], _trace_with(change))
    assert outcome == "refused", detail
    assert "trace" in detail or "event" in detail


def test_a_dataset_whose_rows_are_damaged_is_named_by_the_check():
    """A byte changed inside a batch file's rows leaves its footer whole: the thorough check reads the rows
    too, so `rami info` names the file instead of polars failing when the rows are loaded."""
    files = json.loads(fuzz_readers.dataset())
    name = next(n for n in sorted(files) if n.startswith("rounds/"))
    raw = bytearray(files[name].encode("latin-1"))
    for at in range(8, len(raw) // 2, 7):  # the pages sit between the magic bytes and the footer
        raw[at] ^= 0x5A
    files[name] = bytes(raw).decode("latin-1")
    outcome, detail = fuzz_readers.read_input(fuzz_readers.FORMATS["dataset"], json.dumps(files).encode())
    assert outcome == "refused" and "corrupt" in detail, detail


def test_a_json_view_with_an_empty_card_place_is_refused_naming_it():
    from sim.seat_view import ViewError, from_json, to_json

    data = to_json(fuzz_readers.views()[0])
    data["hand"] = data["hand"] + " "
    from_json(json.dumps(data))  # spaces around cards are no card
    data["table"] = [{"owner": 0, "cards": "★ 8♦ 8♥", "stands_for": ""}]
    with pytest.raises(ViewError):
        from_json(json.dumps(data))


def test_a_condition_python_would_warn_about_is_refused_in_one_line(capfd):
    from sim import conditions

    with pytest.raises(conditions.ConditionError):
        conditions.parse_condition("jokers(0) >= 1x")
    assert capfd.readouterr().err == ""


def test_a_footer_arrow_cannot_read_is_named_by_the_check(monkeypatch, tmp_path):
    """A byte changed in a footer can give a field arrow has no type for (an integer wider than 64 bits): the
    check names the file, as for any corrupt footer, instead of raising arrow's error."""
    import pyarrow
    import pyarrow.parquet as pq

    from sim import store

    fuzz_readers.unpack(fuzz_readers.dataset(), tmp_path / "d")

    def unreadable(file, *args, **kwargs):
        raise pyarrow.ArrowNotImplementedError("Integers with more than 64 bits not implemented")

    monkeypatch.setattr(pq, "read_metadata", unreadable)
    survey = store.check(tmp_path / "d")
    assert survey.problems and "corrupt parquet footer" in survey.problems[0]


@pytest.mark.parametrize("key", ["seat", "players", "round"])
def test_a_json_view_with_a_number_past_any_integer_is_refused(key):
    """JSON's 1e999 (or Infinity) reads as an infinite float, which no whole number is."""
    from sim.seat_view import ViewError, from_json, to_json

    data = to_json(fuzz_readers.views()[0])
    data[key] = float("inf")
    with pytest.raises(ViewError, match=f"{key}: a whole number"):
        from_json(json.dumps(data))


@pytest.mark.parametrize("key, value, named", [
    ("seat", 1.5, "seat: a whole number, got a number 1.5"),
    ("players", "3", "players: a whole number, got a string \"3\""),
    ("round", True, "round: a whole number, got a boolean"),
    ("hand_sizes", [13, "7", 13], "hand_sizes[1]: a whole number, got a string \"7\""),
    ("totals", [0, 2.0, 0], "totals[1]: a whole number, got a number 2.0"),
    ("hand", 7, "hand: a string, got a number 7"),
    ("table", [{"owner": "0", "cards": "7♥ 8♥ 9♥"}], "table[0].owner: a whole number"),
], ids=["a seat of 1.5", "players as a string", "a round of true", "a hand size as a string", "a total of 2.0",
        "a hand as a number", "a meld's owner as a string"])
def test_a_json_view_refuses_a_value_of_the_wrong_kind_naming_its_field(key, value, named):
    """``int()`` made 1.5 a 1 and "7" a 7: a view read from a stranger's JSON must hold whole numbers where it
    counts, and strings where it names cards."""
    from sim.seat_view import ViewError, from_json, to_json

    data = to_json(fuzz_readers.views()[0])
    data[key] = value
    with pytest.raises(ViewError) as refused:
        from_json(json.dumps(data))
    assert named in str(refused.value)
    assert from_json(json.dumps(to_json(fuzz_readers.views()[0]))) == fuzz_readers.views()[0]


def _dataset_with(tmp_path: Path, change) -> Path:
    """The fuzzing's dataset, with one rounds batch file rewritten by ``change(frame)``: its provenance kept,
    so that each file alone reads and checks as before."""
    import polars as pl

    from sim import store

    folder = tmp_path / "d"
    fuzz_readers.unpack(fuzz_readers.dataset(), folder)
    file = sorted((folder / "rounds").iterdir())[1]
    prov = store.file_provenance(file)
    table, first, last = prov.pop("table"), prov.pop("first_game"), prov.pop("last_game")
    file.write_bytes(store.encode(change(pl.read_parquet(file)), prov, table, first, last))
    return file


@pytest.mark.parametrize("change, named", [
    (lambda f: f.rename({"points": "pointz"}), "column 11 is 'pointz' where the rounds table's is 'points'"),
    (lambda f: f.with_columns(f["points"].cast(int)), "column 'points' is Int64 where the rounds table's is Int32"),
    (lambda f: f.drop("rules_version"), "no column 'rules_version'"),
    (lambda f: f.with_columns(x=1), "an extra column 'x'"),
], ids=["a column renamed", "a column retyped", "a column gone", "a column added"])
def test_a_batch_file_whose_columns_differ_from_its_tables_is_named(tmp_path, change, named):
    """A byte changed in a column's name leaves the file readable alone, but polars refused the whole table
    with its SchemaError, naming no file, only when the rows were collected: the check, and load before any
    row is read, name the file and the column."""
    import sim
    from sim import store

    file = _dataset_with(tmp_path, change)
    problems = store.check(tmp_path / "d").problems
    assert len(problems) == 1 and problems[0].startswith(f"{file}: {named}"), problems
    with pytest.raises(store.DatasetError, match=named.replace("(", r"\(").replace(")", r"\)")) as refused:
        sim.load(tmp_path / "d")
    assert str(file) in str(refused.value)
    outcome, detail = fuzz_readers.read_input(fuzz_readers.FORMATS["dataset"], fuzz_readers.pack(tmp_path / "d"))
    assert outcome == "refused" and named in detail, detail


def test_rami_info_and_a_resumed_run_name_a_file_whose_columns_differ_in_one_line(tmp_path):
    import subprocess

    file = _dataset_with(tmp_path, lambda f: f.rename({"points": "pointz"}))
    done = subprocess.run([sys.executable, "-m", "sim", "info", str(tmp_path / "d")], capture_output=True,
                          text=True, env={**os.environ, "RUST_BACKTRACE": "1"})
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"Error: {file}: column 11 is 'pointz' where the rounds table's is 'points', "
                                        f"so it does not stack with the others; delete it, then run the command "
                                        f"that wrote the dataset again (rami info shows it): it plays the missing "
                                        f"games again"], done.stderr
    # The command that wrote the dataset refuses to add to it, before any game, in one line.
    done = subprocess.run([sys.executable, "-m", "sim", "simulate", "--rules", "basic", "--strategies", "greedy,random",
                           "--games", "12", "--seed", "1", "--out", str(tmp_path / "d")], capture_output=True,
                          text=True)
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1 and f"{file}: column 11 is 'pointz'" in done.stderr, done.stderr


def _panicking_batch(folder: Path) -> Path:
    """The fuzzing's dataset under ``folder``, with two bytes of one games file's pages changed as a long run
    changed them: polars's reader panics on the file (a failed ``unwrap``) where pyarrow refuses it."""
    fuzz_readers.unpack(fuzz_readers.dataset(), folder)
    file = folder / "games" / "games-000000000004-000000000007.parquet"
    raw = bytearray(file.read_bytes())
    raw[935], raw[1448] = 89, 201
    file.write_bytes(bytes(raw))
    return file


def test_rami_info_on_a_dataset_with_a_damaged_page_prints_one_line_and_no_panic(tmp_path):
    """polars's reader panics on some damaged pages (or asks for memory no machine has, which ends the
    process), and a panic writes its Rust backtrace on stderr before Python sees it: pyarrow reads the
    pages first and refuses cleanly, and what polars still reads has its stderr held back."""
    import subprocess

    file = _panicking_batch(tmp_path / "d")
    done = subprocess.run([sys.executable, "-m", "sim", "info", str(tmp_path / "d")], capture_output=True,
                          text=True, env={**os.environ, "RUST_BACKTRACE": "1"})
    assert done.returncode == 1
    assert "panicked" not in done.stderr and "backtrace" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {file}: corrupt rows"), done.stderr


def test_a_polars_panic_inside_the_check_leaves_nothing_on_stderr(tmp_path, capfd):
    import polars as pl

    from sim import store

    file = _panicking_batch(tmp_path / "d")
    with pytest.raises((pl.exceptions.PanicException, pl.exceptions.PolarsError)), store.quiet_panics():
        pl.read_parquet(file)
    assert capfd.readouterr().err == ""


def test_held_back_stderr_is_written_out_when_nothing_panicked(capfd):
    from sim import store

    with store.quiet_panics():
        os.write(2, b"kept\n")
    with pytest.raises(RuntimeError), store.quiet_panics():
        os.write(2, b"dropped\n")
        raise RuntimeError("a panic")
    assert capfd.readouterr().err == "kept\n"


@pytest.mark.parametrize("written", ["=4♣", "★="], ids=["nothing before '='", "nothing after '='"])
def test_a_record_with_no_card_beside_an_equals_sign_is_refused(written):
    """A meld's word is cut at "=" (``★=8♣``): with nothing on one side, the card read was the first of none,
    an IndexError."""
    record = next(r for r in fuzz_readers.records() if " open " in r)
    lines = record.splitlines()
    at = next(i for i, line in enumerate(lines) if " open " in line)
    words = lines[at].split(" ")
    words[2] = written
    lines[at] = " ".join(words)
    outcome, detail = fuzz_readers.read_input(fuzz_readers.FORMATS["record"], "\n".join(lines).encode())
    assert outcome == "refused", detail
