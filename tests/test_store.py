"""The results store: datasets written batch by batch, provenance, resume, refusals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import sim
from sim import api, batches, rules, store
from sim.cli import main

SEATS = ["greedy", "random", "expert", "greedy"]


def _tables(path: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    return sim.load(path, "rounds").collect(), sim.load(path, "games").collect()


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return sim.simulate("rami51", SEATS, n_games=40, seed=5, workers=1)


def test_a_dataset_holds_the_frame_split_in_two_tables(tmp_path, frame):
    ds = sim.simulate("rami51", SEATS, n_games=40, seed=5, workers=2, batch_size=7, out=tmp_path / "d")
    rounds, games = _tables(tmp_path / "d")
    assert ds.games_played == 40 and ds.games_found == 0
    assert rounds.equals(frame.drop(api.GAME_LEVEL))
    assert rounds.columns == list(api.ROUND_COLUMNS)
    assert games.equals(sim.game_summary(frame)) and games.columns == list(api.GAME_COLUMNS)
    assert games.height == 40 * 4
    # Plain readers see the same rows, folder by folder.
    assert pl.scan_parquet(tmp_path / "d" / "games").collect().equals(games)
    assert len(pd.read_parquet(tmp_path / "d" / "rounds")) == rounds.height
    files = sorted((tmp_path / "d" / "rounds").iterdir())
    assert [f.name for f in files][:2] == [store.batch_name(0, 6), store.batch_name(7, 13)] and len(files) == 6


def test_every_file_and_the_manifest_carry_the_provenance(tmp_path):
    r = rules.preset("rami51-ducale", open_threshold=30)
    sim.simulate(r, ["greedy:jokers=2", "random"], n_games=6, seed=9, batch_size=3, out=tmp_path / "d",
                 command="study step 1")
    manifest = json.loads((tmp_path / "d" / store.MANIFEST).read_text())
    meta = json.loads(pq.read_metadata(tmp_path / "d" / "games" / store.batch_name(3, 5)).metadata[b"rami_lab"])
    for where in (manifest["identity"], meta["identity"]):
        assert where["ruleset"] == r.replace(players=2).to_dict()  # every knob, after overrides
        assert where["strategies"][0] == {"name": "greedy:jokers=2", "kind": "heuristic",
                                          "params": sim.api.strategy_lib.get("greedy:jokers=2").params}
        assert (where["seed"], where["rules_version"], where["tables"]) == (9, rules.RULES_VERSION, ["rounds", "games"])
    assert (meta["table"], meta["first_game"], meta["last_game"]) == ("games", 3, 5)
    [run] = manifest["runs"]
    assert run["command"] == meta["run"]["command"] == "study step 1"
    assert run["status"] == "complete" and run["games_played"] == 6 and run["batch_size"] == 3
    for key in ("package_version", "python", "numba", "git_commit", "started", "ended", "n_games", "first_game"):
        assert key in run
    label = sim.load(tmp_path / "d", "games").select("ruleset").unique().collect().item()
    assert label == api.ruleset_label(r) and label.startswith("rami51+") and len(label) == len("rami51+") + 8
    assert api.ruleset_label(rules.preset("contrat").replace(players=3)) == "contrat"
    result = CliRunner().invoke(main, ["info", str(tmp_path / "d")])
    assert result.exit_code == 0, result.output
    assert "6 games on disk" in result.output and "greedy:jokers=2, random" in result.output
    assert "open_threshold=30" in result.output and "study step 1" in result.output
    one = CliRunner().invoke(main, ["info", str(tmp_path / "d" / "rounds" / store.batch_name(0, 2))])
    assert one.exit_code == 0 and "table rounds, games 0..2" in one.output and "seed        9" in one.output


def test_resume_and_growth_play_only_missing_games(tmp_path, frame):
    out = tmp_path / "d"
    sim.simulate("rami51", SEATS, n_games=15, seed=5, batch_size=4, out=out)
    seen = []
    ds = sim.simulate("rami51", SEATS, n_games=40, seed=5, batch_size=6, out=out, progress=seen.append)
    assert (ds.games_found, ds.games_played) == (15, 25) and seen[0] == 15 and sum(seen) == 40
    rounds, games = _tables(out)
    assert rounds.equals(frame.drop(api.GAME_LEVEL)) and games.equals(sim.game_summary(frame))
    again = sim.simulate("rami51", SEATS, n_games=40, seed=5, out=out)
    assert again.games_played == 0 and [r["status"] for r in again.manifest["runs"]] == ["complete"] * 3
    # A later range of the same study: first_game continues it.
    more = sim.simulate("rami51", SEATS, n_games=10, seed=5, first_game=40, out=out)
    assert more.games_played == 10 and store.games_on_disk(out) == [(0, 49)]


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"seed": 6}, "seed 5 there, 6 here"),
        ({"ruleset": rules.preset("rami51", open_threshold=40)}, "open_threshold 51 there, 40 here"),
        ({"strategies": ["greedy"] * 4}, "strategies"),
        ({"per_game_only": True}, "tables"),
        ({"rotate": True}, "rotate"),
    ],
)
def test_a_dataset_of_another_command_is_refused_before_any_game(tmp_path, monkeypatch, change, reason):
    out = tmp_path / "d"
    sim.simulate("rami51", SEATS, n_games=4, seed=5, out=out)
    before = sorted(p.name for p in (out / "rounds").iterdir())
    calls = _count_batches(monkeypatch)
    args = {"ruleset": "rami51", "strategies": SEATS, "n_games": 8, "seed": 5, "out": out, **change}
    with pytest.raises(store.DatasetError, match=reason) as error:
        sim.simulate(**args)
    assert str(out) in str(error.value) and calls == []
    assert sorted(p.name for p in (out / "rounds").iterdir()) == before


def _count_batches(monkeypatch) -> list:
    """Record every batch the engine is asked to play (the real function still plays it)."""
    calls: list = []
    real = batches.run_batch

    def counting(*args, **kwargs):
        calls.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(batches, "run_batch", counting)
    return calls


def test_damaged_and_foreign_files_are_named_and_never_mixed_in(tmp_path, monkeypatch):
    out = tmp_path / "d"
    sim.simulate("rami51", SEATS, n_games=6, seed=5, batch_size=3, out=out)
    sim.simulate("rami51", SEATS, n_games=3, seed=6, batch_size=3, out=tmp_path / "other")
    calls = _count_batches(monkeypatch)
    victim = out / "rounds" / store.batch_name(3, 5)
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // 2])
    with pytest.raises(store.DatasetError, match=rf"{store.batch_name(3, 5)}: truncated"):
        sim.simulate("rami51", SEATS, n_games=6, seed=5, out=out)
    victim.write_bytes(data)
    # A batch file of another dataset, renamed to fit in.
    (tmp_path / "other" / "games" / store.batch_name(0, 2)).rename(out / "games" / store.batch_name(6, 8))
    with pytest.raises(store.DatasetError, match=rf"{store.batch_name(6, 8)}: made by another command \(seed 6"):
        sim.simulate("rami51", SEATS, n_games=9, seed=5, out=out)
    (out / "games" / store.batch_name(6, 8)).unlink()
    for stray in (out / "rounds" / "notes.txt", out / "summary.csv"):
        stray.write_text("mine")
        with pytest.raises(store.DatasetError, match=rf"{stray.name}: foreign file"):
            sim.simulate("rami51", SEATS, n_games=6, seed=5, out=out)
        stray.unlink()
    assert calls == []
    assert sim.simulate("rami51", SEATS, n_games=6, seed=5, out=out).games_played == 0


def test_out_path_errors_come_before_any_game(tmp_path, monkeypatch):
    calls = _count_batches(monkeypatch)
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    made = tmp_path / "made"
    sim.simulate("rami51", SEATS, n_games=2, seed=5, out=made)
    cases = [
        ("", "empty"),
        (str(a_file / "x"), "is a file, not a folder"),
        (str(a_file), "is a file; a dataset is a folder"),
        ("/proc/rami-dataset", "cannot write"),
        (str(made), "made by another command"),
    ]
    runner = CliRunner()
    for out, message in cases:
        calls.clear()
        with pytest.raises(store.DatasetError, match=message):
            sim.simulate("rami51", SEATS, n_games=2, seed=7, out=out)
        result = runner.invoke(main, ["simulate", "--games", "2", "--seed", "7", "--quiet", "--out", out])
        # An empty --out is a bad value (exit 2); the others are folders that cannot be used (exit 1).
        code, shown = (2, "--out is empty") if out == "" else (1, message)
        assert result.exit_code == code and shown in result.output, result.output
        assert result.output.count("\n") == 1 and "Traceback" not in result.output
        assert calls == []


def test_missing_values_are_null_and_categories_stack(tmp_path, frame):
    assert (frame["open_turn"].is_null() == ~frame["opened"]).all()
    games = sim.game_summary(frame)
    shared = games.group_by("game").agg(pl.col("won").sum().alias("n"), pl.col("winner").first(),
                                       pl.col("truncated").first())
    assert (shared["winner"].is_null() == ((shared["n"] != 1) | shared["truncated"])).all()
    assert frame.schema["blocked"] == pl.Enum(api.BLOCKED)
    assert frame["contract"].null_count() == frame.height
    sim.simulate("rami51", ["greedy"] * 2, n_games=3, out=tmp_path / "a")
    sim.simulate(rules.preset("basic", open_threshold=0), ["random", "greedy:jokers=1"], n_games=3,
                 out=tmp_path / "b")
    both = pl.concat([sim.load(tmp_path / "a"), sim.load(tmp_path / "b")]).collect()
    assert both.schema["blocked"] == pl.Enum(api.BLOCKED)
    assert both.schema["strategy"] == both.schema["ruleset"] == pl.Categorical
    assert set(both["strategy"]) == {"greedy", "random", "greedy:jokers=1"}


def _rami(*args: str) -> list[str]:
    return [sys.executable, "-c", "from sim.cli import main; main()", "simulate", *args]


def _batches(out: Path) -> int:
    return len(list((out / "games").glob("*.parquet"))) if (out / "games").exists() else 0


def test_a_killed_run_resumes_to_the_uninterrupted_dataset(tmp_path):
    """SIGKILL midway, then Ctrl-C midway, then the same command to the end."""
    args = ["--games", "2000", "--batch-size", "40", "--workers", "1", "--seed", "3", "--quiet"]
    out = tmp_path / "killed"
    command = _rami(*args, "--out", str(out))
    for sig in (signal.SIGKILL, signal.SIGINT):
        start = _batches(out)
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while _batches(out) < start + 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(proc.pid, sig)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=30)
        assert _batches(out) < 50, "the run ended before it was stopped"
        if sig == signal.SIGINT:
            assert proc.returncode == 130 and time.monotonic() - sent < 2
            assert "run the same command again" in err and "Traceback" not in err
        else:
            assert proc.returncode == -signal.SIGKILL
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "were already in" in done.stdout
    reference = sim.simulate("rami51", ["greedy"] * 4, n_games=2000, seed=3, out=tmp_path / "whole")
    assert reference.games_played == 2000
    for table in ("rounds", "games"):
        assert sim.load(out, table).collect().equals(sim.load(tmp_path / "whole", table).collect())
    statuses = [r["status"] for r in json.loads((out / store.MANIFEST).read_text())["runs"]]
    assert statuses == ["running", "interrupted", "complete"]


def test_per_game_only_keeps_the_games_table_alone(tmp_path, frame):
    games = sim.simulate("rami51", SEATS, n_games=40, seed=5, per_game_only=True, batch_size=9)
    assert games.equals(sim.game_summary(frame))
    ds = sim.simulate("rami51", SEATS, n_games=40, seed=5, per_game_only=True, out=tmp_path / "d")
    assert ds.tables == ["games"] and not (tmp_path / "d" / "rounds").exists()
    assert sim.load(tmp_path / "d", "games").collect().equals(games)
    with pytest.raises(store.DatasetError, match="holds only the games table"):
        sim.load(tmp_path / "d")


def test_docs_list_every_column():
    text = (Path(__file__).parent.parent / "docs" / "results.md").read_text()
    for name in [*sim.RESULT_COLUMNS, *sim.GAME_COLUMNS]:
        assert f"`{name}`" in text, name


def test_the_store_knows_the_columns_the_writer_writes(tmp_path):
    """``store.SCHEMAS`` keeps its own copy of each table's columns (``rami info`` checks them without loading
    the engine): the two must not drift apart, for any game (contrat's contract column) or run kind."""
    from sim.rules import BLOCKED_REASONS

    for game, out in (("contrat", tmp_path / "c"), ("basic", tmp_path / "b")):
        sim.simulate(game, ["greedy", "random", "greedy"], n_games=3, seed=2, batch_size=2, out=out)
        for table in store.TABLES:
            for file in sorted((out / table).iterdir()):
                assert dict(pl.read_parquet_schema(file)) == store.SCHEMAS[table], (game, table)
    assert list(store.SCHEMAS["rounds"]) == list(api.ROUND_COLUMNS)
    assert list(store.SCHEMAS["games"]) == list(api.GAME_COLUMNS)
    assert store.SCHEMAS["rounds"]["blocked"] == pl.Enum(BLOCKED_REASONS)


def test_a_table_of_its_makers_columns_holds_its_first_files(tmp_path):
    """A fork experiment's positions have the columns its maker gives them, not the store's: each file of
    the table must have the first file's, or the table would not stack."""
    def play(first: int, count: int) -> dict[str, pl.DataFrame]:
        name = "value" if first == 0 else "valu"
        return {"positions": pl.DataFrame({"game": range(first, first + count), name: [1.5] * count})}

    identity = {"positions of": "a test", "config": {}, "tables": ["positions"]}
    store.fill(tmp_path / "d", identity, {"command": "test"}, 0, 4, 2, play)
    problems = store.check(tmp_path / "d").problems
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{tmp_path / 'd' / 'positions' / store.batch_name(2, 3)}: column 2 is 'valu' "
                                  f"where the positions table's is 'value'")
    with pytest.raises(store.DatasetError, match="column 2 is 'valu'"):
        store.load(tmp_path / "d", "positions")


def test_an_output_folder_is_claimed_by_one_rule(tmp_path):
    # An experiment's run, a tournament and a ladder take their folders through store.claim_folder alone: a new
    # or empty folder is taken, the same settings resume, anything else is refused before a game, saying why.
    from experiments import ladder, runner, tournament

    settings = {"seed": 1, "ruleset": {"open_threshold": 51, "jokers": 4}, "players": ["expert", "greedy"]}
    folder = tmp_path / "run"
    assert store.folder_fits(folder, "settings.json", settings)
    store.claim_folder(folder, "settings.json", settings, "a tournament")
    assert json.loads((folder / "settings.json").read_text()) == settings
    assert [p.name for p in folder.iterdir()] == ["settings.json"]  # written whole: no temporary file left
    store.claim_folder(folder, "settings.json", json.loads(json.dumps(settings)), "a tournament")  # resumes
    assert store.folder_fits(folder, "settings.json", settings)

    other = {**settings, "seed": 2, "ruleset": {"open_threshold": 40, "jokers": 4}}
    assert not store.folder_fits(folder, "settings.json", other)
    with pytest.raises(ValueError, match=r"holds a tournament with other settings \(open_threshold 51 there, 40 "
                                         r"here; seed 1 there, 2 here\)"):
        store.claim_folder(folder, "settings.json", other, "a tournament")

    (folder / "settings.json").write_text("{not json")
    assert not store.folder_fits(folder, "settings.json", settings)
    with pytest.raises(ValueError, match=r"settings.json is damaged \("):
        store.claim_folder(folder, "settings.json", settings, "a tournament")

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine\n")
    assert not store.folder_fits(foreign, "settings.json", settings)
    with pytest.raises(ValueError, match="is not empty and holds no settings.json: a ladder is written to a new"):
        store.claim_folder(foreign, "settings.json", settings, "a ladder")
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]  # nothing written
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    with pytest.raises(ValueError, match="is a file; a ladder is written to a folder"):
        store.claim_folder(a_file, "settings.json", settings, "a ladder")

    # The three callers ask the rule and keep no check of their own (which would look into the folder).
    for module in (runner, tournament, ladder):
        source = Path(module.__file__).read_text()
        assert "store.claim_folder(" in source and ".iterdir()" not in source, module.__name__
