"""Strategy files: a point of the heuristic family saved as TOML, loaded by path or by name.

A strategy file names its base preset and the parameters it changes::

    name = "expert-contrat"
    base = "greedy"
    description = "what it does, in one sentence"

    [params]
    may_i = 3
    near_weight = 4.5

    [tuning]            # optional: how it was found (rami tune writes it)
    objective = "points per round against greedy, greedy, greedy"

Files in ``strategies/tuned/`` are *registered*: their name (the file's
stem) is accepted wherever a strategy name is (``strategies.get``,
``simulate``, tournaments, ``--strategies``); any other file is used by its
path (``"path/to/mine.toml"``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

__all__ = ["TUNED", "is_path", "load", "registered", "save"]

TUNED = Path(__file__).parent / "tuned"
"""The folder of registered strategy files."""


def is_path(name: str) -> bool:
    """Whether ``name`` reads as a file path rather than a strategy name."""
    return name.endswith(".toml") or "/" in name or "\\" in name


def registered() -> dict[str, Path]:
    """Registered strategy names and their files (``strategies/tuned/*.toml``)."""
    return {p.stem: p for p in sorted(TUNED.glob("*.toml"))}


def load(source: str | Path):
    """The :class:`strategies.Strategy` of a file (a path, or a registered name).

    Raises ``ValueError`` naming the file and the problem: missing file,
    bad TOML, unknown base or parameter, value out of range.
    """
    import strategies

    path = Path(source)
    if not is_path(str(source)) and str(source) in registered():
        path = registered()[str(source)]
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read strategy file {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"strategy file {path} is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"name", "base", "description", "params", "tuning"})
    if unknown:
        raise ValueError(f"strategy file {path}: unknown key {unknown[0]!r}; the keys are: name, base, description, "
                         "params, tuning")
    base_name = data.get("base", "greedy")
    heuristic = [n for n, s in strategies.STRATEGIES.items() if s.kind == strategies.KIND_HEURISTIC]
    if base_name not in heuristic:
        raise ValueError(f"strategy file {path}: base {base_name!r} must be one of the heuristic presets: "
                         f"{', '.join(heuristic)}")
    params = data.get("params", {})
    if not isinstance(params, dict):
        raise ValueError(f"strategy file {path}: [params] must be a table of name = value")
    base = strategies.STRATEGIES[base_name]
    try:
        changed = base.with_params(**{k: v for k, v in params.items()})
    except ValueError as exc:
        raise ValueError(f"strategy file {path}: {exc}") from None
    name = str(data.get("name", path.stem))
    # A file's strategy is the same in every game: the base's own per-game table does not apply.
    return strategies.Strategy(name, base.kind, dict(changed.params), str(data.get("description", "")))


def save(strategy, path: str | Path, base: str = "greedy", description: str = "",
         tuning: dict[str, Any] | None = None) -> Path:
    """Write ``strategy``'s parameters (those differing from ``base``) as a strategy file; return the path."""
    import strategies

    reference = strategies.STRATEGIES[base].params
    changed = {k: v for k, v in strategy.params.items() if reference.get(k) != v}
    lines = [f"name = {_toml(strategy.name)}", f"base = {_toml(base)}",
             f"description = {_toml(description or strategy.description)}", "", "[params]"]
    lines += [f"{k} = {_toml(v)}" for k, v in sorted(changed.items())]
    if tuning:
        lines += ["", "[tuning]"] + [f"{k} = {_toml(v)}" for k, v in tuning.items()]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        v = float(value)
        return str(int(v)) if v == int(v) else repr(round(v, 4))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'
