"""Fuzzing the inputs: card strings, hands, knob overrides, ruleset files, strategy
specs, argument lists of the ``rami`` commands, and the public API.

The property everywhere: a call succeeds, or it raises a ``ValueError`` (a
``TypeError`` for a value of the wrong type) / exits with a one-line error
and a non-zero code; never a traceback, never exit 0 on an input known to be
invalid. Example counts are small: the whole file takes about half a minute.
"""

from __future__ import annotations

import atexit
import itertools
import json
import shutil
import string
import tempfile
from pathlib import Path

import click
import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import sim
import strategies as strategy_lib
from sim import cards, rules
from sim.cli import main
from sim.cli.common import seat_strategies

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "V", "D", "R"]
SUITS = ["♣", "♦", "♥", "♠", "C", "D", "H", "S"]
GOOD_TOKENS = [r + s for r in RANKS for s in SUITS] + ["★", "JK"]
BAD_TOKENS = ["1H", "11C", "7X", "jk", "7h", "TH", "♥7", "*", "10", "H", "", "JOKER", "7♥♥"]

card_tokens = st.lists(st.sampled_from(GOOD_TOKENS), max_size=16)
maybe_bad_tokens = st.lists(st.one_of(st.sampled_from(GOOD_TOKENS), st.sampled_from(BAD_TOKENS)), max_size=12)


def one_line_error(result) -> bool:
    """The command ended by its own one-line error, no traceback."""
    lines = result.stderr.strip().splitlines()
    return (isinstance(result.exception, SystemExit) and len(lines) == 1 and lines[0].startswith("Error: ")
            and "Traceback" not in result.output)


def check_command(args: list[str], invalid: bool) -> click.testing.Result:
    result = CliRunner().invoke(main, args)
    event(f"{args[0]} exit {result.exit_code}")
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output)
    if result.exit_code == 0:
        assert result.exception is None, (args, result.exception)
        assert not invalid, f"exit 0 on an invalid input: {args}"
    else:
        assert one_line_error(result), (args, result.output, result.exception)
    return result


# ------------------------------------------------------------------- cards
@FUZZ
@given(st.text(alphabet="A2345678910JQKVDRCSH♣♦♥♠★ \t\nxz*", max_size=40))
def test_parsing_any_text_gives_cards_or_a_value_error(text):
    try:
        parsed = cards.parse(text)
    except ValueError as exc:
        assert str(exc).startswith("bad card token")
        return
    assert cards.parse(cards.format(parsed)) == parsed
    assert cards.parse(cards.format(parsed, ascii=True)) == parsed


@FUZZ
@given(st.lists(st.one_of(st.integers(-3, 60), st.sampled_from(GOOD_TOKENS + BAD_TOKENS), st.none(),
                          st.booleans(), st.floats(allow_nan=True)), max_size=8))
def test_a_sequence_of_anything_gives_cards_or_a_clear_error(items):
    try:
        got = cards.to_cards(items)
    except (ValueError, TypeError) as exc:
        assert "\n" not in str(exc)
        return
    assert len(got) == len(items)


# --------------------------------------------------------- rules reference
@FUZZ
@given(maybe_bad_tokens, st.sampled_from(rules.PRESETS), st.integers(1, 7))
def test_reference_functions_score_a_possible_hand_or_refuse(tokens, preset, deal):
    r = rules.preset(preset)
    try:
        rules.check_cards(tokens, r)
        possible = True
    except ValueError:
        possible = False
    calls = [
        lambda: rules.best_opening(tokens, r),
        lambda: rules.max_melded_cards(tokens, r),
        lambda: rules.hand_penalty(tokens, r),
        lambda: rules.meets_contract(tokens, deal, r),
    ]
    for call in calls:
        try:
            call()
            assert possible, tokens
        except ValueError:
            assert not possible, tokens
    # A meld is checked for the deck's copies and jokers, not a hand's size.
    try:
        rules.classify_meld(tokens[:5], r)
        rules.meld_points(tokens[:5], r)
    except ValueError:
        with pytest.raises(ValueError):
            rules.check_cards(tokens[:5], r, hand=False)


# ----------------------------------------------------------------- rulesets
knob_names = st.one_of(st.sampled_from(rules.KNOBS), st.text(alphabet=string.ascii_lowercase + "_", max_size=10))
toml_values = st.one_of(st.integers(-5, 1200), st.booleans(), st.floats(allow_nan=False, width=16),
                        st.sampled_from(["auto", "players-1", "free", "must_use", "reshuffle", "count_cards",
                                         "basic", "contrat", "rami51", "nothing", "x"]))
knob_values = st.one_of(toml_values, st.none())


@FUZZ
@given(st.sampled_from(rules.PRESETS), st.dictionaries(knob_names, knob_values, max_size=4))
def test_knob_overrides_give_a_ruleset_or_a_ruleset_error(preset, overrides):
    try:
        r = rules.preset(preset, **overrides)
    except rules.RulesetError as exc:
        assert "\n" not in str(exc)
        return
    assert all(getattr(r, k) == v for k, v in overrides.items())


_TMP = Path(tempfile.mkdtemp(prefix="rami-fuzz-"))
_RUNS = itertools.count()
atexit.register(shutil.rmtree, _TMP, ignore_errors=True)


def _toml(value) -> str:
    """A value in TOML: true/false, a quoted word, a number."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


@FEW
@given(st.dictionaries(knob_names, toml_values, max_size=3),
       st.sampled_from(["rami51", "contrat", "basic", None]), st.text(max_size=30), st.integers(0, 3))
def test_ruleset_files_and_paths_on_the_command_line(knobs, game, junk, kind):
    path = _TMP / f"rules{kind}.toml"
    invalid = False
    if kind == 0:  # a TOML file of fuzzed knobs
        lines = [f'game = "{game}"'] if game else []
        lines += [f"{k or 'x'} = {_toml(v)}" for k, v in knobs.items()]
        path.write_text("\n".join(lines) + "\n")
    elif kind == 1:  # any text
        path.write_text(junk)
    elif kind == 2:  # missing
        path = _TMP / "no-such-dir" / "missing.toml"
        invalid = True
    else:  # a folder
        path = _TMP
        invalid = True
    result = check_command(["rules", "--rules", str(path), "--json"], invalid)
    if result.exit_code == 0:
        assert rules.load(path)  # the library agrees


# --------------------------------------------------------------- strategies
spec_parts = st.sampled_from(["greedy", "random", "expert", "cautious", "bogus", ":", "=", ",", ",", " ", "jokers",
                              "open_extra", "near_weight", "1", "2", "2.5", "-1", "99", "x", "json:dumps"])


@FUZZ
@given(st.lists(spec_parts, max_size=10).map("".join))
def test_strategy_specs_give_seats_or_a_one_line_error(spec):
    try:
        seats = seat_strategies(spec)
    except click.ClickException as exc:
        assert exc.exit_code == 2 and "\n" not in exc.format_message()
        return
    assert seats and all(strategy_lib.get(s) for s in seats)
    try:
        strategy_lib.get(spec)
    except (ValueError, TypeError):
        pass


# ---------------------------------------------------------- the commands
@st.composite
def command_lines(draw):
    """An argument list for a rami command, whether it holds a known-invalid value, and its hand.

    Half the lines are drawn from valid values only, so success is explored as much as refusal.
    """
    clean = draw(st.booleans())
    invalid = False
    command = draw(st.sampled_from(["rules", "hand", "strategies", "simulate", "advise", "agree"]))
    args = [command]
    if command == "agree":
        # The strategy measured, against itself as the yardstick (no search: one round of one game stays quick).
        spec = draw(st.sampled_from(["greedy", "expert", "expert:jokers=2"]) if clean else
                    st.lists(spec_parts, max_size=6).map("".join))
        args += [spec, "--yardstick", "expert", "--max-rounds", "1", "--workers", "1"]
        games = draw(st.integers(1, 2) if clean else st.integers(-1, 2))
        invalid |= games < 1
        args += ["--games", str(games)]
    preset, overridden, tokens = "rami51", False, []
    if command != "strategies" and draw(st.booleans()):
        preset = draw(st.sampled_from(rules.PRESETS if clean else [*rules.PRESETS, "rami52", ""]))
        invalid |= preset not in rules.PRESETS
        args += ["--rules", preset]
    if command != "strategies" and not clean and draw(st.booleans()):
        knob = draw(st.sampled_from(["open_threshold", "players", "discard_take", "jokres", "turn_cap", ""]))
        value = draw(st.sampled_from(["30", "3", "free", "-1", "0", "abc", "true", ""]))
        invalid |= knob in ("jokres", "")
        overridden = True
        args += ["--set", f"{knob}={value}"]
    if command == "hand":
        tokens = draw(card_tokens.filter(bool) if clean else maybe_bad_tokens)
        invalid |= any(t in BAD_TOKENS for t in tokens) or not "".join(tokens).strip()
        args += tokens
    if command in ("simulate", "advise"):
        if draw(st.booleans()):
            valid_specs = st.lists(st.sampled_from(["greedy", "random", "expert:jokers=2"]), min_size=3,
                                   max_size=4).map(",".join)
            spec = draw(valid_specs if clean else st.lists(spec_parts, max_size=6).map("".join))
            args += ["--strategies", spec]
        seed = draw(st.integers(0, 2**64 - 1) if clean else
                    st.one_of(st.integers(0, 9), st.integers(-(2**70), -1), st.just(2**64)))
        invalid |= not 0 <= seed < 2**64
        args += ["--seed", str(seed)]
    if command == "simulate":
        games = draw(st.integers(1, 2) if clean else st.integers(-1, 2))
        invalid |= games < 1
        args += ["--games", str(games), "--workers", "1", "--quiet", "--max-rounds", "2",
                 "--out", str(_TMP / f"run-{next(_RUNS)}")]  # a fresh dataset folder each time
    if command == "advise":
        args += ["--max-rounds", "1"]
        if draw(st.booleans()):
            event = draw(st.integers(0, 40) if clean else st.integers(-2, 40))
            invalid |= event < 0
            args += ["--event", str(event)]
    for flag in ("--json", "--ascii"):
        if (clean and flag == "--ascii" and command not in ("hand", "advise", "agree")) or not draw(st.booleans()):
            continue
        invalid |= flag == "--ascii" and command not in ("hand", "advise", "agree")
        args.append(flag)
    hand = (preset, tokens) if command == "hand" and not overridden and not invalid else None
    return args, invalid, hand


@MANY
@given(command_lines())
def test_every_command_line_succeeds_or_is_one_line_error(case):
    args, invalid, hand = case
    result = check_command(args, invalid)
    if hand is not None:
        # rami hand accepts exactly the hands the rules reference accepts
        preset, tokens = hand
        try:
            rules.check_cards(" ".join(tokens), rules.preset(preset))
            assert result.exit_code == 0, result.output
        except ValueError:
            assert result.exit_code == 2, result.output


# -------------------------------------------------------------- public API
@st.composite
def api_calls(draw):
    """Arguments of simulate / play_traced: all valid, or with one field spoiled."""
    call = {
        "ruleset": draw(st.sampled_from(rules.PRESETS)),
        "strategies": draw(st.lists(st.sampled_from(["greedy", "random", "expert", "greedy:jokers=1"]),
                                    min_size=3, max_size=4)),
        "n_games": draw(st.integers(1, 3)),
        "seed": draw(st.integers(0, 2**64 - 1)),
        "max_rounds": draw(st.integers(1, 3)),
    }
    spoiled = draw(st.sampled_from([None, None, None, *call]))
    bad = {
        "ruleset": st.sampled_from(["rami52", "", 7, None, "missing.toml"]),
        "strategies": st.one_of(st.just("greedy"), st.lists(st.sampled_from(["nobody", "", "greedy:jokers=5",
                                                                            "greedy"]), max_size=7)),
        "n_games": st.one_of(st.integers(-3, 0), st.floats(), st.none()),
        "seed": st.one_of(st.integers(-(2**70), -1), st.integers(2**64, 2**70), st.floats(), st.booleans()),
        "max_rounds": st.one_of(st.integers(-3, 0), st.just(1.5)),
    }
    if spoiled is not None:
        call[spoiled] = draw(bad[spoiled])
    return call


@FEW
@given(api_calls())
def test_simulate_and_play_traced_succeed_or_raise_a_clear_error(call):
    try:
        rows = sim.simulate(**call, workers=1)
    except (ValueError, TypeError) as exc:
        event("simulate refused")
        assert "\n" not in str(exc)
    else:
        event("simulate played")
        assert isinstance(rows, pl.DataFrame) and rows["game"].n_unique() == call["n_games"]
    call.pop("n_games")
    try:
        events = sim.play_traced(**call)
    except (ValueError, TypeError) as exc:
        assert "\n" not in str(exc)
    else:
        assert events[0]["type"] == "game_start"
