"""Every bad input of issue 15, one case each: a clear error or a right result.

The table of command-line cases runs each through the real ``rami`` group
(click's runner), and checks the exit code, that the error is one line on
stderr naming the problem, and that no traceback escapes. A few cases need a
real process: a console that cannot print suits, ``python -m sim``, Ctrl-C.
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import sim
from sim import rules
from sim.cli import main
from sim.cli.common import DEFAULT_SEED

ROOT = Path(__file__).resolve().parent.parent
TWENTY_SEVEN = "A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ 10♣ J♣ Q♣ K♣ A♦ 2♦ 3♦ 4♦ 5♦ 6♦ 7♦ 8♦ 9♦ 10♦ J♦ Q♦ K♦ A♥"


def run(args, **kwargs):
    return CliRunner().invoke(main, args, **kwargs)


def assert_one_line_error(result, code, *needles):
    assert result.exit_code == code, (result.exit_code, result.output)
    assert isinstance(result.exception, SystemExit), result.exception  # nothing escaped as a traceback
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# ------------------------------------------------------- impossible hands
REFERENCE = {
    "classify_meld": lambda hand, r: rules.classify_meld(hand, r),
    "meld_points": lambda hand, r: rules.meld_points(hand, r),
    "best_opening": lambda hand, r: rules.best_opening(hand, r),
    "max_melded_cards": lambda hand, r: rules.max_melded_cards(hand, r),
    "hand_penalty": lambda hand, r: rules.hand_penalty(hand, r),
    "meets_contract": lambda hand, r: rules.meets_contract(hand, 1, r),
}

IMPOSSIBLE = [
    # (hand, ruleset, what the message names)
    ("7♥ 7♥ 7♥ 8♥", "rami51", "3 copies of 7♥"),  # three copies in a two-pack game
    ("A♠ 2♠ 3♠ JK", "basic", "without jokers"),  # a joker in a game without jokers
    ("7♣ 8♣ JK", "basic", "without jokers"),
    ("★ ★ ★ ★ ★ 7♣ 8♣", "rami51", "5 jokers"),  # the deck holds four
    ("★ ★ ★ ★ 7♣ 8♣", "contrat", "4 jokers"),  # contrat for four: three jokers
    ("A♠ A♠ 2♠", "basic", "2 copies of A♠"),  # one pack
    ("7♥ 7♥ 7♥", "contrat", "3 copies of 7♥"),
]


@pytest.mark.parametrize("function", list(REFERENCE))
@pytest.mark.parametrize("hand,ruleset,needle", IMPOSSIBLE)
def test_every_reference_function_refuses_an_impossible_hand(function, hand, ruleset, needle):
    with pytest.raises(ValueError, match=needle.replace("★", "\\★")):
        REFERENCE[function](hand, ruleset)


@pytest.mark.parametrize("function", ["best_opening", "max_melded_cards", "hand_penalty"])
def test_a_hand_bigger_than_a_hand_can_hold_is_refused(function):
    with pytest.raises(ValueError, match="27 cards: a rami51 hand holds at most 14"):
        REFERENCE[function](TWENTY_SEVEN, "rami51")
    # the same 14 first cards are a hand
    REFERENCE[function](TWENTY_SEVEN.split()[:14], "rami51")


def test_the_hand_limit_follows_the_ruleset():
    assert rules.max_hand_cards(rules.preset("rami51")) == 14
    assert rules.max_hand_cards(rules.preset("rami51-classic")) == 15
    assert rules.max_hand_cards(rules.preset("basic")) == 8  # 7 dealt to each of four
    assert rules.max_hand_cards(rules.preset("basic", players=2)) == 11
    assert rules.max_hand_cards(rules.preset("contrat")) == 104  # 104 naturals + 3 jokers, less 3 other hands


def test_a_sequence_of_card_strings_reads_like_notation():
    assert rules.best_opening(["7H", "8H", "9H"], "rami51") == rules.best_opening("7H 8H 9H", "rami51") == 24
    assert rules.classify_meld(["7♣", "JK", "9♣"], "rami51").stands_for == tuple(sim.cards.parse("8♣"))
    with pytest.raises(ValueError, match="bad card token '7X'"):
        rules.best_opening(["7H", "7X"], "rami51")
    with pytest.raises(ValueError, match="bad card token '7H 8H'"):  # one card per item
        rules.best_opening(["7H 8H"], "rami51")


# ------------------------------------------------------------- rulesets
def test_a_partial_file_takes_its_game_families_defaults(tmp_path):
    path = tmp_path / "three.toml"
    path.write_text('game = "basic"\nplayers = 3\n')
    assert rules.load(path) == rules.preset("basic", players=3)
    path.write_text('game = "contrat"\nmay_i_limit = 2\n')
    assert rules.as_ruleset(str(path)) == rules.preset("contrat", may_i_limit=2)
    path.write_text('preset = "rami51-ducale"\ngame = "basic"\n')
    with pytest.raises(rules.RulesetError, match="contradicts preset"):
        rules.load(path)


def test_the_docs_complete_example_is_the_rami51_preset():
    import re
    import tomllib

    blocks = re.findall(r"```toml\n(.*?)```", (ROOT / "docs" / "rulesets.md").read_text(), re.S)
    assert rules.Ruleset(**tomllib.loads(blocks[-1])) == rules.preset("rami51")
    assert set(tomllib.loads(blocks[-1])) == set(rules.KNOBS)  # complete


# --------------------------------------------------------- the CLI table
def _files(tmp_path):
    (tmp_path / "folder.toml").mkdir()
    (tmp_path / "notes.md").write_text("# Notes\n\nnot a ruleset\n")
    (tmp_path / "latin.toml").write_bytes(b"game = \"rami51\" # caf\xe9\n")
    (tmp_path / "typo.toml").write_text("open_treshold = 40\n")
    (tmp_path / "clash.toml").write_text('preset = "rami51-ducale"\ngame = "basic"\n')
    return tmp_path


CLI_ERRORS = [
    # (arguments, exit code, words the one-line error must hold)
    (["hand", "7♥ 7♥ 7♥ 8♥"], 2, ["3 copies of 7♥", "2 copies of each card"]),
    (["hand", "A♠ 2♠ 3♠ JK", "--rules", "basic"], 2, ["without jokers"]),
    (["hand", "★ ★ ★ ★ ★ 2♣"], 2, ["5 jokers", "holds 4"]),
    (["hand", "A♠ A♠", "--rules", "basic"], 2, ["2 copies of A♠"]),
    (["hand", TWENTY_SEVEN], 2, ["27 cards", "at most 14"]),
    (["hand", ""], 2, ["no cards given"]),
    (["hand"], 2, ["no cards given"]),
    (["hand", "7H 8X"], 2, ["'8X'"]),
    (["rules", "--rules", "missing.toml"], 2, ["missing.toml", "does not exist"]),
    (["rules", "--rules", "{tmp}/folder.toml"], 2, ["is a folder"]),
    (["rules", "--rules", "{tmp}/notes.md"], 2, ["notes.md", "not valid TOML"]),
    (["rules", "--rules", "{tmp}/latin.toml"], 2, ["not UTF-8"]),
    (["rules", "--rules", "{tmp}/typo.toml"], 2, ["typo.toml", "did you mean 'open_threshold'"]),
    (["rules", "--rules", "{tmp}/clash.toml"], 2, ["contradicts preset"]),
    (["rules", "--rules", "rami52"], 2, ["unknown preset 'rami52'", "did you mean 'rami51'"]),
    (["rules", "--set", "players=9"], 2, ["players", "2 to 5 players"]),
    (["rules", "--set", "open_threshold"], 2, ["expected knob=value"]),
    (["rules", "--set", "game=basic"], 2, ["--rules basic"]),
    (["advise", "--seed", "-1"], 2, ["--seed", "0<=x<=18446744073709551615"]),
    (["advise", "--seed", str(2**64)], 2, ["--seed"]),
    (["advise", "--event", "100000", "--max-rounds", "1"], 2, ["--event 100000", "events 0 to"]),
    (["advise", "--strategy", "genius", "--max-rounds", "1"], 2, ["--strategy", "unknown strategy 'genius'"]),
    (["simulate", "--set", "players=3", "--strategies", "greedy,greedy,greedy,greedy"], 2,
     ["--set players=3", "4 seats"]),
    (["simulate", "--strategies", "greedy,,greedy"], 2, ["item 2 is empty"]),
    (["simulate", "--strategies", "greedy,greedy,"], 2, ["item 3 is empty"]),
    (["simulate", "--strategies", ""], 2, ["--strategies is empty"]),
    (["simulate", "--strategies", "greedy"], 2, ["1 seats", "2 to 5 players"]),
    (["simulate", "--strategies", "greedy:jokers=7,greedy"], 2, ["jokers = 7.0", "from 0 to 2"]),
    (["simulate", "--strategies", "nobody_has_this_module:Bot,greedy"], 2, ["cannot import module"]),
    (["simulate", "--strategies", "json:dumps,greedy"], 2, ["not a strategies.user.PythonPolicy"]),
    (["simulate", "--strategies", "json:NoSuchThing,greedy"], 2, ["has no 'NoSuchThing'"]),
    (["simulate", "--games", "0"], 2, ["--games"]),
    (["simulate", "--workers", "0"], 2, ["--workers"]),
    (["simulate", "--max-rounds", "0"], 2, ["--max-rounds"]),
    (["simulate", "--seed", "-1"], 2, ["--seed"]),
    (["no-such-command"], 2, ["No such command"]),
    (["hand", "7H", "--no-such-option"], 2, ["No such option"]),
]


@pytest.mark.parametrize("args,code,needles", CLI_ERRORS, ids=[" ".join(c[0])[:60] for c in CLI_ERRORS])
def test_each_bad_input_is_one_line_and_its_exit_code(tmp_path, args, code, needles):
    _files(tmp_path)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert_one_line_error(run(args), code, *needles)


def test_a_readme_given_as_rules_is_read_as_a_file_not_a_preset(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert_one_line_error(run(["rules", "--rules", "README.md"]), 2, "README.md: not valid TOML")


def test_strategies_set_the_players_and_the_default_fills_every_seat():
    listed = run(["advise", "--set", "players=3", "--max-rounds", "1", "--json"])
    assert listed.exit_code == 0, listed.output
    head = json.loads(listed.stdout)[0]
    assert head["strategies"] == ["greedy"] * 3 and head["players"] == 3


def test_the_hand_command_reads_cards_as_several_arguments_and_as_json():
    split = run(["hand", "K♣", "K♦", "K♥", "9♠", "10♠", "J♠", "2♦", "--json"])
    joined = run(["hand", "K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦", "--json"])
    assert split.exit_code == joined.exit_code == 0
    report = json.loads(split.stdout)
    assert report == json.loads(joined.stdout)
    assert report["best_opening"]["points"] == 59 and report["opens"] is True
    assert report["most_cards_melded"] == 6 and report["penalty"] == 61


def test_rules_json_holds_every_knob_and_the_overrides():
    result = run(["rules", "--rules", "rami51-ducale", "--set", "open_threshold=30", "--json"])
    data = json.loads(result.stdout)
    assert data["knobs"] == rules.preset("rami51-ducale", open_threshold=30).to_dict()
    assert data["overrides"] == {"open_threshold": 30} and data["rules"] == "rami51-ducale"


def test_advise_json_and_ascii():
    args = ["advise", "--strategies", "greedy,expert,random", "--seed", "3", "--max-rounds", "1"]
    advised = run([*args, "--event", "9", "--json"])
    assert advised.exit_code == 0, advised.output
    data = json.loads(advised.stdout)
    assert data["seat"] == 0 and data["strategy"] == "expert" and data["discards"]
    text = run([*args, "--event", "9", "--ascii"])
    assert text.exit_code == 0 and not any(s in text.stdout for s in "♣♦♥♠★")
    assert "Seat 0, round 0, turn 3 (expert): hand " in text.stdout


def test_the_event_help_says_it_indexes_the_whole_trace():
    help_text = " ".join(run(["advise", "-h"]).stdout.split())
    assert "whole trace" in help_text and "inside a round" not in help_text


def test_version_help_and_python_dash_m():
    assert run(["--version"]).stdout.strip() == f"rami {sim.__version__}"
    assert sim.__version__ and sim.__version__[0].isdigit()
    assert run(["-h"]).stdout.startswith("Usage:")
    assert "Exit codes" in run(["-h"]).stdout
    assert run(["hand", "-h"]).exit_code == 0
    module = subprocess.run([sys.executable, "-m", "sim", "hand", "7H 8H 9H", "--json"],
                            capture_output=True, text=True, timeout=120)
    assert module.returncode == 0, module.stderr
    assert json.loads(module.stdout)["best_opening"]["points"] == 24
    bad = subprocess.run([sys.executable, "-m", "sim", "hand", "7H 7H 7H"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_a_console_that_cannot_print_suits_gets_ascii(tmp_path):
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    for args in (["hand", "K♣ K♦ K♥ 9♠ 10♠ J♠ ★"],
                 ["advise", "--strategies", "greedy,expert", "--seed", "3", "--max-rounds", "1", "--event", "9"]):
        done = subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr.decode("latin-1")
        out = done.stdout.decode("latin-1")
        assert "Traceback" not in done.stderr.decode("latin-1")
        assert not any(s in out for s in "♣♦♥♠★") and ("KC KD KH" in out or "hand " in out)


def test_seeds_default_to_one_in_python_and_on_the_command_line():
    assert DEFAULT_SEED == 1
    assert inspect.signature(sim.simulate).parameters["seed"].default == DEFAULT_SEED
    assert inspect.signature(sim.play_traced).parameters["seed"].default == DEFAULT_SEED
    for command in ("simulate", "advise"):
        option = next(p for p in main.commands[command].params if p.name == "seed")
        assert option.default == DEFAULT_SEED, command


def test_play_traced_refuses_a_negative_seed():
    with pytest.raises(ValueError, match="seed must be a whole number from 0 to 2\\*\\*64 - 1, got -1"):
        sim.play_traced("rami51", ["greedy"] * 2, seed=-1)


def test_a_user_strategy_by_module_path_plays(tmp_path, monkeypatch):
    (tmp_path / "mybot.py").write_text(
        "from strategies.user import PythonPolicy\n"
        "class Hoarder(PythonPolicy):\n"
        "    '''Greedy, but throws its lowest card.'''\n"
        "    def discard(self, view, choices):\n"
        "        return min(choices, key=lambda c: c.penalty).card\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    result = run(["simulate", "--strategies", "mybot:Hoarder,greedy", "--games", "3", "--workers", "1",
                  "--quiet", "--out", str(tmp_path / "run"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["strategies"] == ["mybot.Hoarder", "greedy"]


def test_rotate_and_max_rounds_reach_the_simulation(tmp_path):
    import polars as pl

    out = tmp_path / "run"
    result = run(["simulate", "--strategies", "greedy,random,expert", "--games", "4", "--workers", "1", "--rotate",
                  "--max-rounds", "2", "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    df = pl.read_parquet(out / "rounds")
    assert df["round"].max() == 1 and sim.load(out, "games").collect()["truncated"].any()
    assert (df["strategy_index"] != df["seat"]).any()  # strategies moved seat
    assert "(seats rotate)" in result.stdout


def test_progress_off_a_terminal_is_a_few_plain_lines(tmp_path):
    result = run(["simulate", "--games", "40", "--workers", "1", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert "\r" not in result.stderr and 1 <= len(lines) <= 3
    assert lines[-1] == "played 40 of 40 games (100%)"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe")
def test_ctrl_c_exits_130_with_one_line(tmp_path):
    # A ruleset file that is a named pipe with a writer that never writes:
    # the command blocks reading it, and is interrupted there.
    path = tmp_path / "slow.toml"
    os.mkfifo(path)
    proc = subprocess.Popen([sys.executable, "-m", "sim", "rules", "--rules", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    writer = None
    deadline = time.monotonic() + 120
    while writer is None and time.monotonic() < deadline:
        try:  # succeeds once the command has the pipe open for reading
            writer = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.1)
    assert writer is not None, "the command never opened the ruleset file"
    try:
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        os.close(writer)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "Error: interrupted"
