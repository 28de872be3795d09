"""What every ``rami`` command shares: the command group, the ruleset, seed
and strategy options, how their values are read, and how a command ends.

Exit codes (``docs/cli.md``): 0 done; 2 bad usage or a bad value (an unknown
option, preset, knob, card or strategy, a value out of range), found before
anything is played; 1 a failure while running; 130 interrupted (Ctrl-C).
Every error is one line on stderr naming the input and what is allowed.

How a command keeps that contract: declare each option's type and range
(``click.IntRange``, :class:`Number`, :func:`seed_option_for`); make every
other check before anything is created or played, refusing with
:func:`bad_value` or :class:`BadValue`, or with :func:`as_options` around a
library call whose ``ValueError`` names a Python argument; check an output
folder with :func:`check_out_path` and :func:`check_output_folder`, then
write inside :func:`made_folder`, which undoes the empty folders it made and
turns Ctrl-C into :class:`Interrupted` saying what was kept.
"""

from __future__ import annotations

import codecs
import importlib
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from sim import cards as cardlib
from sim import rules
from sim.checks import SEED_MAX

EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
GAME_MAX = 2**31 - 2
"""The last game index :func:`sim.simulate` plays (``sim.api.LAST_GAME``, which a test holds this
equal to: importing the API here would load the engine, and with it libraries that make a blocked
read ignore Ctrl-C, in commands that play nothing), so the last one a traced command can name."""
DEFAULT_SEED = 1
"""The seed every command uses when none is given, as :func:`sim.simulate` does."""


class BadValue(click.ClickException):
    """A value a command cannot use: one line naming it and what is allowed, exit code 2."""

    exit_code = EXIT_USAGE


class Interrupted(click.ClickException):
    """Ctrl-C, with what was kept and how to go on: one line, exit code 130."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self, kept: str = "") -> None:
        super().__init__(f"interrupted{': ' + kept if kept else ''}")


# ------------------------------------------------------------ bad values
# One way to refuse a value: the option as the user typed it, the value, and
# what is allowed. Click's types and ranges refuse most values before a
# command runs; `bad_value` is for the checks a type cannot make, and
# `as_options` turns a library's ValueError (which names its Python argument)
# into the same line naming the option.
def bad_value(option: str, value: Any, allowed: str) -> BadValue:
    """The error for ``option`` given ``value``: ``--games 1: allowed: at least 2``
    (``option`` may end in ``=``, as ``--set precision=``, to join the value)."""
    shown = value if isinstance(value, (int, float)) and not isinstance(value, bool) else repr(value)
    return BadValue(f"{option}{'' if option.endswith('=') else ' '}{shown}: allowed: {allowed}")


def in_option_words(message: str, options: Mapping[str, str]) -> str:
    """``message`` with the library's argument names replaced by the options the user typed."""
    for argument, option in options.items():
        # The argument quoted ('max_games'), as a keyword (max_games=) or, when it
        # cannot be an ordinary word (it holds an underscore), bare.
        pattern = rf"(?:config key |argument )?'{re.escape(argument)}'|\b{re.escape(argument)}(?==)"
        if "_" in argument:
            pattern += rf"|\b{re.escape(argument)}\b"
        message = re.sub(pattern, option, message)
    return message.replace("dataclasses.replace(strategy, name=...)", "a strategy file under another name")


@contextmanager
def as_options(options: Mapping[str, str] | None = None, prefix: str = "") -> Iterator[None]:
    """Turn a ``ValueError`` or ``TypeError`` raised in the block into a :class:`BadValue`.

    ``options`` maps the library's argument names to the options the user
    typed (``{"max_games": "--max-games"}``), so the line names ``--max-games``;
    ``prefix`` goes before the message (``"--set"`` for a config key).
    Use it around the checks made before anything is created or played.
    """
    try:
        yield
    except (ValueError, TypeError) as exc:
        message = in_option_words(str(exc), options or {})
        raise BadValue(f"{prefix}: {message}" if prefix else message) from None


class Number(click.FloatRange):
    """A finite number in a range (``nan`` and ``inf`` are refused, which ``click.FloatRange`` lets through)."""

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        rv = super().convert(value, param, ctx)
        if rv is not None and not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return rv


class PathArg(click.Path):
    """``click.Path`` refusing a NUL character as a bad value (the system would raise ``ValueError``)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and "\0" in value:
            self.fail(f"{value!r} holds a NUL character, which no file name can", param, ctx)
        return super().convert(value, param, ctx)


# ---------------------------------------------------------- output folders
def check_out_path(path: str | Path, option: str = "--out") -> Path:
    """``path`` as a folder to write; an empty path (which would mean the current folder) is a :class:`BadValue`."""
    if not str(path).strip():
        raise BadValue(f"{option} is empty: give a folder name, e.g. {option} results/mine")
    if "\0" in str(path):
        raise BadValue(f"{option} {str(path)!r}: a folder name cannot hold a NUL character")
    return Path(path)


def check_output_folder(folder: Path, ours: Callable[[Path], bool], what: str, option: str = "--out") -> None:
    """Refuse ``folder`` before anything is made when it cannot be this command's output.

    A missing or empty folder is fine, and so is one ``ours(folder)`` recognises
    as this command's earlier output; a file in the way or another folder with
    anything in it is refused (exit 1, as ``simulate`` refuses a foreign
    dataset), naming the folder and what to do.
    """
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    if not existing.is_dir():
        raise click.ClickException(f"{option} {folder}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise click.ClickException(f"{option} {folder}: cannot write in {existing} (no permission)")
    if folder.is_dir() and any(folder.iterdir()) and not ours(folder):
        raise click.ClickException(f"{option} {folder}: this folder holds files that are not {what}; "
                                   "choose an empty or new folder")


@contextmanager
def made_folder(folder: Path, kept: Callable[[], str] | None = None) -> Iterator[Path]:
    """Make ``folder`` (and its missing parents) for the block; undo what stays empty if it fails.

    When the block raises (Ctrl-C included), the folders made here that hold
    nothing are removed, so a refused or interrupted command leaves no empty
    folder behind; what was written is kept. Ctrl-C ends as :class:`Interrupted`
    with ``kept()``: what was kept and how to go on.
    """
    made = [p for p in (folder, *folder.parents) if not p.exists()]
    check_folder(folder)
    try:
        yield folder
    except BaseException as exc:
        for path in made:  # deepest first
            try:
                path.rmdir()  # only when empty
            except OSError:
                break
        if isinstance(exc, KeyboardInterrupt):
            raise Interrupted(kept() if kept is not None and folder.exists() else "nothing was kept") from None
        raise


def _ascii_fallback(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: cards in ASCII notation, anything else unprintable as ``?``."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = cardlib.ascii_text(error.object[error.start:error.end])
    return "".join(c if c.isascii() else "?" for c in text), error.end


codecs.register_error("rami_ascii", _ascii_fallback)


def _can_print_suits(stream: Any) -> bool:
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "♣♦♥♠★—".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _ascii_when_needed() -> None:
    """On a console that cannot print suits, write cards as ``7C`` ... ``JK`` instead of failing."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and hasattr(stream, "reconfigure") and not _can_print_suits(stream):
            stream.reconfigure(errors="rami_ascii")


def _printable(text: str, stream: Any) -> str:
    """``text`` as ``stream`` can print it: cards in ASCII notation, anything else unprintable as ``?``.

    The codec handler above does this for Python's own writes, but click
    writes UTF-8 to a console that says it is ASCII (it takes that for a
    misconfiguration), so the command's text is converted before it is written.
    """
    if _can_print_suits(stream):
        return text
    return "".join(c if c.isascii() else "?" for c in cardlib.ascii_text(text))


def _one_line(message: str) -> str:
    return " ".join(message.split())


def _fail(message: str, code: int) -> None:
    click.echo(_printable(f"Error: {_one_line(message)}", sys.stderr), err=True)
    sys.exit(code)


class RamiGroup(click.Group):
    """The ``rami`` group: every error ends as one line on stderr and a documented exit code."""

    def invoke(self, ctx: click.Context) -> Any:  # noqa: D102
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            # Before click's own handling, which writes an empty line first.
            raise Interrupted() from None

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):  # noqa: D102
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        _ascii_when_needed()
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except (click.exceptions.Abort, KeyboardInterrupt):
            _fail("interrupted", EXIT_INTERRUPTED)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} -h')" if exc.ctx is not None else ""
            _fail(exc.format_message() + hint, EXIT_USAGE)
        except click.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code)
        except OSError as exc:
            where = f" {exc.filename}" if exc.filename else ""
            _fail(f"cannot use{where}: {exc.strerror or exc}", EXIT_FAILURE)
        except Exception as exc:  # noqa: BLE001 - the last guard between a user and a traceback
            if os.environ.get("RAMI_TRACEBACK"):
                raise
            from sim.store import DatasetError

            if isinstance(exc, DatasetError):  # a folder the run cannot use: the message names it and says why
                _fail(str(exc), EXIT_FAILURE)
            _fail(f"unexpected {type(exc).__name__}: {exc} (run with RAMI_TRACEBACK=1 to see where)", EXIT_FAILURE)
        sys.exit(code if isinstance(code, int) else 0)


def _version() -> str:
    import sim

    return sim.__version__


@click.group(cls=RamiGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=_version(), prog_name="rami", message="%(prog)s %(version)s")
def main() -> None:
    """Monte-Carlo lab for French rummy: Rami 51, Rami contrat and basic rummy.

    Exit codes: 0 done, 2 bad usage or value (nothing was played), 1 failure
    while running, 130 interrupted. RAMI_TRACEBACK=1 shows the traceback of an
    unexpected error.
    """


# ------------------------------------------------------------------ rulesets
def _knob_value(text: str) -> Any:
    """A ``--set`` value read as TOML (``30``, ``true``, ``"auto"``), or a bare word such as ``free``."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_overrides(overrides: tuple[str, ...]) -> dict[str, Any]:
    """``--set knob=value`` items as a mapping; a malformed item is a :class:`BadValue`."""
    parsed: dict[str, Any] = {}
    for item in overrides:
        knob, eq, value = item.partition("=")
        if not eq or not knob.strip():
            raise BadValue(f"--set {item!r}: expected knob=value, e.g. --set open_threshold=30")
        parsed[knob.strip()] = _knob_value(value.strip())
    return parsed


def ruleset_from(name: str, overrides: tuple[str, ...] | Mapping[str, Any]) -> rules.Ruleset:
    """A preset or TOML file with ``knob=value`` overrides (values read as TOML)."""
    parsed = dict(overrides) if isinstance(overrides, Mapping) else parse_overrides(overrides)
    try:
        base = rules.as_ruleset(name)
    except rules.RulesetError as exc:
        raise BadValue(f"--rules: {exc}") from None
    if "game" in parsed and parsed["game"] != base.game:
        raise BadValue(
            f"--set game={parsed['game']} would change the game of {name!r} ({base.game}); "
            f"start from its preset instead: --rules {parsed['game']}"
        )
    try:
        return base.replace(**parsed)
    except rules.RulesetError as exc:
        raise BadValue(f"--set: {exc}") from None


ruleset_option = click.option(
    "--rules", "ruleset", default="rami51", show_default=True,
    help=f"Preset ({', '.join(rules.PRESETS)}) or a ruleset TOML file (docs/rulesets.md).",
)
set_option = click.option(
    "--set", "overrides", multiple=True, metavar="KNOB=VALUE",
    help="Override one knob, e.g. --set open_threshold=30 (repeatable).",
)
def seed_option_for(help_text: str = "Simulation seed, 0 to 2**64 - 1."):
    """``--seed``: 0 to 2**64 - 1, default :data:`DEFAULT_SEED`."""
    return click.option("--seed", type=click.IntRange(0, SEED_MAX), default=DEFAULT_SEED, show_default=True,
                        help=help_text)


seed_option = seed_option_for()
ascii_option = click.option(
    "--ascii", "use_ascii", is_flag=True,
    help="Write cards with ASCII suits (C D H S, JK for the joker); automatic on a console "
         "that cannot print the suit symbols.",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON, for tools.")


def strategies_option(help_text: str):
    """``--strategies``: one strategy per seat; default greedy at every seat of the ruleset."""
    return click.option("--strategies", "seat_names", default=None, metavar="SPEC,SPEC,...",
                        show_default="greedy at every seat", help=help_text)


def traced_game_options(command):
    """The options that name one game of a simulation to trace: rules, overrides, strategies, seed, game index."""
    options = [
        ruleset_option,
        set_option,
        strategies_option("One strategy per seat, comma separated, as in `rami simulate`."),
        seed_option,
        click.option("--game", type=click.IntRange(0, GAME_MAX), default=0, show_default=True,
                     help="Game index within the simulation, 0 to 2**31 - 2 (as `rami simulate` numbers them)."),
    ]
    for option in reversed(options):  # listed in help in this order
        command = option(command)
    return command


# ---------------------------------------------------------------- strategies
def _load_user_strategy(spec: str) -> str:
    """Import ``module.path:Name`` (a :class:`strategies.user.PythonPolicy` subclass or
    instance), register it and return the name it plays under."""
    import strategies
    from strategies.user import PythonPolicy, register

    module_name, _, attr = spec.partition(":")
    name = f"{module_name}.{attr}"
    if name in strategies.STRATEGIES:
        return name
    # Like `python -m`, look in the current folder first, so a file beside the user imports.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BadValue(f"--strategies {spec!r}: cannot import module {module_name!r} ({exc})") from None
    except Exception as exc:  # noqa: BLE001 - the user's module failed while importing
        raise BadValue(f"--strategies {spec!r}: importing {module_name!r} raised "
                       f"{type(exc).__name__}: {exc}") from None
    if not hasattr(module, attr):
        raise BadValue(f"--strategies {spec!r}: module {module_name!r} has no {attr!r}")
    policy = getattr(module, attr)
    if isinstance(policy, type) and issubclass(policy, PythonPolicy):
        try:
            policy = policy()
        except Exception as exc:  # noqa: BLE001 - the user's constructor failed
            raise BadValue(f"--strategies {spec!r}: {attr}() raised {type(exc).__name__}: {exc}") from None
    if not isinstance(policy, PythonPolicy):
        raise BadValue(f"--strategies {spec!r}: {attr} is a {type(policy).__name__}, not a "
                       "strategies.user.PythonPolicy subclass or instance")
    register(name, policy)
    return name


def _is_module_path(item: str) -> bool:
    import strategies

    head, colon, tail = item.partition(":")
    return bool(colon) and head not in strategies.STRATEGIES and "=" not in tail


SEES_HIDDEN_CARDS = "sees the hidden cards (the other hands and the stock), so only `rami ladder` seats it, as its ceiling"
"""Why a clairvoyant strategy (``ceiling``) is refused by every command but ``rami ladder``."""


def refuse_clairvoyant(specs: list[str], what: str = "--strategies") -> None:
    """A :class:`BadValue` naming ``what`` when one of ``specs`` sees the hidden cards (the ladder's ceiling)."""
    import strategies

    for spec in specs:
        if strategies.clairvoyant(spec):
            raise BadValue(f"{what} {spec!r}: {strategies.get(spec).name} {SEES_HIDDEN_CARDS}")


def seat_strategies(text: str, allow_clairvoyant: bool = False) -> list[str]:
    """One strategy per seat from ``--strategies``, each checked.

    Items are comma separated; an item ``name=value`` (no strategy name has
    ``=``) continues the parameters of the strategy before it, so
    ``"greedy:jokers=2,open_extra=10,random"`` is two seats. An item
    ``module.path:Name`` imports a user strategy (a
    :class:`strategies.user.PythonPolicy`). An empty item is refused, and so
    is a strategy that sees the hidden cards unless ``allow_clairvoyant``
    (``rami ladder`` alone seats its ceiling).
    """
    import strategies

    if not text.strip():
        raise BadValue("--strategies is empty: give one strategy per seat, e.g. --strategies greedy,greedy,expert")
    seats: list[str] = []
    for position, item in enumerate((part.strip() for part in text.split(",")), start=1):
        if not item:
            raise BadValue(f"--strategies {text!r}: item {position} is empty; give one strategy per seat, "
                           "comma separated, e.g. greedy,greedy,expert")
        if "=" in item and ":" not in item:
            if not seats or ":" not in seats[-1]:
                raise BadValue(f"--strategies: {item!r} follows no strategy with parameters; write e.g. greedy:{item}")
            seats[-1] += "," + item
        elif _is_module_path(item):
            seats.append(_load_user_strategy(item))
        else:
            seats.append(item)
    for spec in seats:
        try:
            strategies.get(spec)
        except ValueError as exc:
            raise BadValue(f"--strategies: {exc}") from None
    if not allow_clairvoyant:
        refuse_clairvoyant(seats)
    return seats


def table_from(name: str, overrides: tuple[str, ...], seat_names: str | None) -> tuple[rules.Ruleset, list[str]]:
    """The ruleset and one strategy per seat, checked against each other.

    Without ``--strategies`` every seat of the ruleset plays greedy. With
    it, the strategies set the number of players, and an explicit
    ``--set players=N`` that disagrees is refused.
    """
    parsed = parse_overrides(overrides)
    r = ruleset_from(name, parsed)
    if seat_names is None:
        return r, ["greedy"] * r.players
    names = seat_strategies(seat_names)
    if "players" in parsed and parsed["players"] != len(names):
        raise BadValue(f"--set players={parsed['players']} but --strategies names {len(names)} seats; "
                       "give one strategy per seat (or drop --set players)")
    try:
        return r.replace(players=len(names)), names
    except rules.RulesetError as exc:
        raise BadValue(f"--strategies names {len(names)} seats: {exc}") from None


# -------------------------------------------------------------------- output
def position_text(value: str, option: str = "--position") -> str:
    """``--position TEXT-or-FILE``: the text of a seat's view (docs/positions.md), typed or read from the file
    the value names (one line naming a file is the file; a view is several lines)."""
    if "\n" not in value and "\0" not in value and Path(value).is_file():
        try:
            return Path(value).read_text(encoding="utf-8")
        except (OSError, UnicodeError) as exc:
            raise BadValue(f"{option} {value!r}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    return value


def emit(text: str, use_ascii: bool = False) -> None:
    """Print ``text``, cards in ASCII notation when asked (the console's own limits are handled by the group)."""
    click.echo(cardlib.ascii_text(text) if use_ascii else _printable(text, sys.stdout))


def emit_json(data: Any, use_ascii: bool = False) -> None:
    """Print ``data`` as indented JSON (cards as written in notation)."""
    emit(json.dumps(data, indent=2, ensure_ascii=False, default=str), use_ascii)


def check_folder(folder: Path) -> None:
    """Make ``folder`` or fail now, before any game is played (an output folder a command will write to)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-check"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise click.ClickException(f"cannot write to {folder}: {exc.strerror or exc}") from exc
