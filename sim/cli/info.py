"""``rami info``: what made a results dataset (or one of its batch files), and whether it is whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from sim.cli.common import PathArg, main


def _identity_lines(identity: dict[str, Any]) -> list[str]:
    if "strategies" not in identity:
        # Not a simulation's dataset (a fork's positions, bot_losses' decisions): what made it, key by key.
        config = identity.get("config", {})
        return [f"made of     {identity.get('positions of', '?')}",
                "config      " + " ".join(f"{k}={json.dumps(v)}" for k, v in config.items()),
                f"tables      {', '.join(identity.get('tables', []))}",
                f"package     rami-lab {identity.get('package_version', '?')} (rules version "
                f"{identity.get('rules_version', '?')})"]
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

    PATH may also be one batch file of a dataset (its parquet metadata); the
    folder of an experiment's run (``rami experiment run``, a report's
    ``seed-N``) or of a tournament, whose datasets are each described and
    checked; or the folder of a tuning run (``rami tune``), whose search is
    summed up from its study file.
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
        if not (path / store.MANIFEST).exists():
            from experiments.tuning import STUDY_FILE

            if _experiment_data(path) is not None:
                _describe_experiment(path, as_json)
                return
            if (path / STUDY_FILE).is_file():
                _describe_study(path / STUDY_FILE, as_json)
                return
            if any(path.rglob(store.MANIFEST)):
                _describe_folder(path, as_json)
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


def _experiment_data(path: Path) -> Path | None:
    """The ``data`` folder of an experiment's run at ``path`` (the run's folder or its ``data``), or None."""
    from experiments.runner import DATA, RUN

    for data in (path / DATA, path):
        if (data / RUN).is_file():
            return data
    return None


def _survey_datasets(root: Path) -> tuple[list[tuple[Path, int, str]], list[str]]:
    """Every results dataset under ``root``: (folder, games on disk, their ranges), and every problem found."""
    from sim import store

    described, problems = [], []
    for folder in sorted(m.parent for m in root.rglob(store.MANIFEST)):
        try:
            survey = store.check(folder)
        except store.DatasetError as exc:
            problems.append(str(exc))
            continue
        problems += survey.problems
        games = sum(b - a + 1 for a, b in survey.done)
        described.append((folder, games, store.describe_ranges(store.games_on_disk(folder))))
    return described, problems


def _end(problems: list[str]) -> None:
    for problem in problems:
        click.echo(f"Error: {problem}", err=True)
    if problems:
        raise click.exceptions.Exit(1)


def _describe_experiment(path: Path, as_json: bool) -> None:
    """Describe an experiment's run: what made it, whether it finished, and each of its datasets, checked."""
    from experiments.runner import RUN, SUMMARY

    data = _experiment_data(path)
    assert data is not None
    try:
        made = json.loads((data / RUN).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"{data / RUN}: damaged ({exc}); remove the run's folder to start again") from exc
    try:
        summary = json.loads((data.parent / SUMMARY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        summary = None
    described, problems = _survey_datasets(data)
    if as_json:
        click.echo(json.dumps({"experiment": made, "finished": summary is not None,
                               "datasets": [{"path": str(f), "games": g} for f, g, _ in described]}, indent=2))
    else:
        config = " ".join(f"{k}={json.dumps(v)}" for k, v in made.get("config", {}).items())
        state = (f"finished: {summary['provenance']['games']:,} games a part analysed, summary.json beside it"
                 if summary else "not finished (no summary.json): the same command plays only the games not on disk")
        datasets = f"{len(described)} results dataset{'' if len(described) == 1 else 's'}"
        click.echo(f"{data.parent}: run of experiment {made.get('experiment')}, {datasets}")
        click.echo(f"config      {config}")
        click.echo(f"package     rami-lab {made.get('package_version')} (rules version {made.get('rules_version')})")
        click.echo(f"state       {state}")
        for folder, games, ranges in described:
            click.echo(f"  {folder.relative_to(data)}: {games:,} games on disk ({ranges})")
    _end(problems)


def _describe_folder(path: Path, as_json: bool) -> None:
    """Describe a folder of results datasets (a tournament's): its settings file if any, and each dataset, checked."""
    from experiments.tournament import SETTINGS_FILE

    described, problems = _survey_datasets(path)
    try:
        settings = json.loads((path / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        settings = None
    if as_json:
        click.echo(json.dumps({"settings": settings,
                               "datasets": [{"path": str(f), "games": g} for f, g, _ in described]}, indent=2))
    else:
        what = "tournament" if settings is not None else "folder"
        click.echo(f"{path}: {what} of {len(described)} results dataset{'' if len(described) == 1 else 's'}")
        if settings is not None:
            click.echo("settings    " + " ".join(f"{k}={json.dumps(v)}" for k, v in settings.items()))
        for folder, games, ranges in described:
            click.echo(f"  {folder.relative_to(path)}: {games:,} games on disk ({ranges})")
    _end(problems)


def _describe_study(file: Path, as_json: bool) -> None:
    """Sum up a tuning run's search from its study file: the trials by state, the best, what it resumes from."""
    import sqlite3

    try:
        with sqlite3.connect(f"file:{file}?mode=ro", uri=True) as db:
            studies = db.execute("SELECT study_id, study_name FROM studies").fetchall()
            rows = []
            for study_id, name in studies:
                states = dict(db.execute("SELECT state, COUNT(*) FROM trials WHERE study_id = ? GROUP BY state",
                                         (study_id,)).fetchall())
                best = db.execute("SELECT MAX(v.value) FROM trial_values v JOIN trials t ON v.trial_id = t.trial_id "
                                  "WHERE t.study_id = ? AND t.state = 'COMPLETE'", (study_id,)).fetchone()[0]
                rows.append({"study": name, "trials": {str(k).lower(): v for k, v in states.items()},
                             "best_gain": best})
    except sqlite3.Error as exc:
        raise click.ClickException(f"{file}: not a readable tuning study ({exc}); run the tune again with another "
                                   "--study") from exc
    if as_json:
        click.echo(json.dumps({"study_file": str(file), "studies": rows}, indent=2))
        return
    click.echo(f"{file.parent}: tuning run (rami tune), study file {file.name}")
    for row in rows:
        counts = ", ".join(f"{v} {k}" for k, v in sorted(row["trials"].items())) or "no trial yet"
        best = "none yet" if row["best_gain"] is None else (
            f"{row['best_gain']:+.3f} (the search's value: biased upward by the selection; the report re-evaluates it)")
        click.echo(f"  study {row['study']}: trials {counts}; best {best}")
    click.echo("  an interrupted tune resumes from this file: the same command (finished trials are not played again)")
