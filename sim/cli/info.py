"""``rami info``: what made a results dataset (or one of its batch files), and whether it is whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from sim.cli.common import PathArg, main


def _identity_lines(identity: dict[str, Any]) -> list[str]:
    strategies = ", ".join(s["name"] for s in identity["strategies"])
    knobs = " ".join(f"{k}={json.dumps(v)}" for k, v in identity["ruleset"].items())
    return [
        f"rules       {identity['ruleset_label']} (rules version {identity['rules_version']})",
        f"knobs       {knobs}",
        f"strategies  {strategies} (by seat{', rotating' if identity['rotate'] else ''})",
        f"seed        {identity['seed']}   round cap {identity['max_rounds']}   tables {', '.join(identity['tables'])}",
        f"package     rami-lab {identity['package_version']}",
    ]


def _run_lines(run: dict[str, Any]) -> list[str]:
    commit = run.get("git_commit")
    if commit and run.get("git_dirty"):
        commit += " (with uncommitted changes)"
    last = run["first_game"] + run["n_games"] - 1
    lines = [
        f"  {run.get('status', '?'):<11} {run['started']} .. {run.get('ended') or '(no end recorded: killed?)'}",
        f"    command   {run['command']}",
        f"    games     {run['first_game']:,}..{last:,} asked, {run.get('games_played', 0):,} played, "
        f"batches of {run['batch_size']:,}, on {run['where']}",
        f"    versions  rami-lab {run['package_version']}, python {run['python']}, numba {run['numba']}, "
        f"polars {run['polars']}, pyarrow {run['pyarrow']}, git {commit or 'none'}",
    ]
    return lines


@main.command("info")
@click.argument("path", type=PathArg(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="The manifest (or the file's provenance) as JSON.")
def info_command(path: Path, as_json: bool) -> None:
    """Say what made the results dataset PATH: rules, strategies, seed, runs, versions.

    PATH may also be one batch file of a dataset (its parquet metadata).
    Every batch file is checked (its parquet footer and provenance, and
    every batch the manifest lists is there): each problem is one line on
    stderr, naming the file and what to do, and the exit code is then 1.
    """
    from sim import store

    try:
        if path.is_file():
            try:
                meta = store.file_provenance(path)
            except store.DatasetError as exc:
                raise click.ClickException(f"{exc}; if it belongs to a dataset, delete it, then run the command "
                                           f"that wrote the dataset again (rami info on its folder shows it)") from exc
            if as_json:
                click.echo(json.dumps(meta, indent=2))
                return
            click.echo(f"{path}: table {meta['table']}, games {meta['first_game']:,}..{meta['last_game']:,}")
            for line in _identity_lines(meta["identity"]) + _run_lines({**meta["run"], "status": "written by"}):
                click.echo(line)
            return
        manifest = store.read_manifest(path)
        survey = store.check(path)
        if as_json:
            click.echo(json.dumps(manifest, indent=2))
        else:
            _describe(path, manifest, survey)
    except store.DatasetError as exc:
        raise click.ClickException(str(exc)) from exc
    for problem in survey.problems:
        click.echo(f"Error: {problem}", err=True)
    if survey.problems:
        raise click.exceptions.Exit(1)


def _describe(path: Path, manifest: dict[str, Any], survey: Any) -> None:
    from sim import store

    ranges: list[tuple[int, int]] = []
    for a, b in survey.done:
        if ranges and a == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], b)
        else:
            ranges.append((a, b))
    games = sum(b - a + 1 for a, b in ranges)
    files = [f for t in manifest["identity"]["tables"] for f in (path / t).glob("games-*.parquet")]
    size = sum(f.stat().st_size for f in files)
    whole = "" if not survey.problems else f"; {len(survey.problems)} problems, below"
    click.echo(f"{path}: results dataset, {games:,} games on disk ({store.describe_ranges(ranges)}){whole}")
    click.echo(f"files       {len(files):,} ({size / 1e6:,.1f} MB, {size / max(games, 1):,.0f} bytes a game)")
    for line in _identity_lines(manifest["identity"]):
        click.echo(line)
    click.echo(f"runs        {len(manifest['runs'])}")
    for run in manifest["runs"]:
        for line in _run_lines(run):
            click.echo(line)
