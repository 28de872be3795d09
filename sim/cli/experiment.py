"""``rami experiment list|run`` and ``rami report``: the strategy questions and their reports."""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli.cluster import on_cluster, workers_option
from sim.cli.common import (
    BadValue,
    Number,
    PathArg,
    as_options,
    bad_value,
    check_out_path,
    check_output_folder,
    in_option_words,
    made_folder,
    main,
    refuse_clairvoyant,
    seed_option_for,
)

PRECISION_MIN = 0.001
"""The narrowest ``--precision``: a share known to a tenth of a percentage point
already takes millions of games per arm, past the run's ``max_games``."""

OPTIONS = {"games": "--games", "seed": "--seed", "precision": "--precision"}
"""The config keys that ``rami experiment run`` sets from an option of the same meaning."""


def _experiment_folder(name: str):
    """Whether a folder holds what ``rami experiment run NAME`` writes (``summary.json`` and ``data/``)."""
    import json

    from experiments import runner

    def ours(folder: Path) -> bool:
        entries = {e.name for e in folder.iterdir()}
        if not entries <= {runner.SUMMARY, runner.DATA}:
            return False
        data = folder / runner.DATA
        if data.exists():
            if not data.is_dir():
                return False
            if any(data.iterdir()):
                try:
                    made = json.loads((data / runner.RUN).read_text(encoding="utf-8"))["experiment"]
                except (OSError, ValueError, KeyError, TypeError):
                    return False
                if made != name:
                    return False
        if runner.SUMMARY not in entries:
            return True
        try:
            return runner.read_summary(folder)["experiment"] == name
        except (OSError, ValueError, KeyError, TypeError):
            return False

    return ours


def _edition(folder: Path) -> bool:
    """Whether a folder holds an edition of ``rami report``: its index, or only experiment folders so far."""
    import experiments

    try:
        if (folder / "index.md").read_text(encoding="utf-8").startswith("# Rami lab reports"):
            return True
    except (OSError, UnicodeDecodeError):
        pass
    from experiments import study

    return all(e.is_dir() and (e.name in experiments.EXPERIMENTS or (e / study.STUDY_FILE).exists())
               for e in folder.iterdir())


@main.group("experiment")
def experiment_group() -> None:
    """Strategy questions answered by simulation (see `rami experiment list`)."""


@experiment_group.command("list")
def list_command() -> None:
    """List the experiments: name and question."""
    import experiments

    for name in experiments.EXPERIMENTS:
        click.echo(f"{name:<18} {experiments.load(name).title}")


def _bar(quiet: bool):
    """A tqdm bar driven by ``(done, total)`` callbacks, and the callback."""
    from tqdm import tqdm

    bar = tqdm(total=1, unit="game", disable=quiet, leave=False, dynamic_ncols=True)

    def update(done: int, total: int, label: str = "") -> None:
        if done < bar.n or bar.total != total:
            bar.reset(total=total)
        if label:
            bar.set_description(label, refresh=False)
        bar.update(done - bar.n)

    return bar, update


def _refuse_clairvoyant_settings(settings: tuple[str, ...]) -> None:
    """Refuse a ``--set`` value naming a strategy that sees the hidden cards (a config key of strategies)."""
    import strategies

    for item in settings:
        key, _, text = item.partition("=")
        for word in (w.strip() for w in text.split(",")):
            try:
                sees = strategies.clairvoyant(word)
            except (ValueError, TypeError, OSError):
                continue  # not a strategy: a value of another kind
            if sees:
                refuse_clairvoyant([word], f"--set {key.strip()}")


def check_run(name: str, games: int | None, precision: float | None, seed: int, settings: tuple[str, ...],
              out: str | None):
    """Every check of ``rami experiment run`` made before anything is written or played.

    Returns the experiment, its config and the output folder; a bad value is
    a :class:`BadValue` naming its option (exit 2), an output folder that
    cannot be used (another experiment's, or the data of another config) a
    ``click.ClickException`` (exit 1).
    """
    import experiments
    from experiments import runner

    if games is not None and precision is not None:
        raise click.UsageError("give --games or --precision, not both")
    try:
        experiment = experiments.load(name)
    except ValueError as exc:
        raise BadValue(f"NAME {name!r}: {exc}") from None
    with as_options(prefix="--set"):
        config = experiment.config().with_settings(settings)
    with as_options(OPTIONS):
        config = config.replace(seed=seed)
        if games is not None:
            config = config.replace(games=games)
        if precision is not None:
            # The first step is the quick edition's size (or --set games=N); the mode adds games from there.
            first = config.games if any(item.strip().startswith("games=") for item in settings) else \
                experiment.quick.get("games", config.games)
            config = config.replace(precision=precision, games=first)
    if getattr(config, "precision", None) is not None and config.precision < PRECISION_MIN:
        raise bad_value("--set precision=", config.precision, f"at least {PRECISION_MIN}")
    _refuse_clairvoyant_settings(settings)
    # Keys each fine alone may still make a table the experiment's game refuses (--set players=6 in Rami 51).
    with as_options(OPTIONS, prefix="--set"):
        experiment.check_config(config)
    out = check_out_path(out) if out is not None else Path("results") / "experiments" / name / f"seed-{seed}"
    check_output_folder(out, _experiment_folder(name), f"a run of experiment {name}")
    if not runner.data_fits(out / runner.DATA, experiment, config):
        raise click.ClickException(
            f"{out} holds the data of a run of {name} with another config (its {out / runner.DATA / runner.RUN} "
            "says which); choose another --out, or remove that folder to start again")
    return experiment, config, out


@experiment_group.command("run")
@click.argument("name")
@click.option("--games", type=click.IntRange(min=2), default=None,
              help="Games per arm, at least 2 (default: the experiment's own).")
@click.option("--precision", type=Number(min=PRECISION_MIN), default=None,
              help=f"Add games until every headline 95% interval is narrower than this, in its own unit "
                   f"(shares as fractions: 0.02 is two percentage points), at least {PRECISION_MIN}, "
                   "starting from the quick edition's size and stopping at the config's max_games "
                   "(--set max_games=N).")
@seed_option_for("Simulation seed shared by every arm, 0 to 2**64 - 1.")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="Change one config key, e.g. --set players=3 (repeatable; lists as 2,3,4).")
@click.option("--out", default=None, metavar="FOLDER",
              help="Folder for summary.json and the data: new, empty, or an earlier (or unfinished) run of the same "
                   "experiment and config, which is resumed  "
                   "[default: results/experiments/NAME/seed-S]")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@workers_option
@on_cluster
def run_command(name, games, precision, seed, settings, out, quiet, workers) -> None:
    """Run experiment NAME; print its conclusions and findings, write summary.json and the data.

    Every value is checked before anything is written or played. The games
    are written batch by batch under OUT/data: stopped by Ctrl-C or killed,
    the same command plays only the games not yet on disk.
    """
    from experiments import wording

    experiment, config, out = check_run(name, games, precision, seed, settings, out)
    kept = lambda: f"the finished batches are kept in {out}; the same command plays only the rest"  # noqa: E731
    with made_folder(out, kept):
        bar, update = _bar(quiet)
        try:
            with bar:
                results = experiment.run(config, out, update, workers=workers)
        except (ValueError, NotImplementedError) as exc:
            raise click.ClickException(in_option_words(str(exc), OPTIONS)) from exc
    click.echo(experiment.title)
    for line in results.conclusions:
        click.echo(f"  - {line}")
    click.echo("findings (estimate, 95% interval over games):")
    for f in results.findings:
        signed = len(f.arms) == 2
        where = f" [{f.group}]" if f.group else ""
        click.echo(f"  {f.metric}{where}: {' - '.join(f.arms)}  "
                   f"{wording.fmt(f.metric, f.estimate.estimate, signed)} ({wording.interval_text(f, signed)})")
    p = results.provenance
    click.echo(f"{p['games']:,} games, {p['rounds']:,} rounds, {p['wall_seconds']:.1f} s; "
               f"summary: {out / 'summary.json'}")


def check_report(quick: bool, out: str | None, only: tuple[str, ...]) -> tuple[list[str], Path]:
    """Every check of ``rami report`` made before anything is written or played: the experiments and the folder."""
    import experiments

    unknown = [n for n in only if n not in experiments.EXPERIMENTS]
    if unknown:
        raise BadValue(f"--only {unknown[0]!r}: unknown experiment; the experiments are: "
                       f"{', '.join(experiments.EXPERIMENTS)}")
    names = list(dict.fromkeys(only)) or list(experiments.REPORTED)
    from experiments import report

    for name in names:
        with as_options(prefix=f"--only {name}"):
            for seed in report.SEEDS:
                experiment = experiments.load(name)
                experiment.check_config(report.edition_config(experiment, seed, quick))
    out = check_out_path(out) if out is not None else (Path("reports") / "quick" if quick else Path("reports"))
    check_output_folder(out, _edition, "an edition of `rami report`")
    return names, out


@main.command("report")
@click.option("--quick", is_flag=True,
              help="Every experiment at a reduced size: under a minute once the engine is compiled "
                   "(about a minute and a half on a fresh numba cache, two cores), instead of about 45 minutes.")
@click.option("--out", default=None, metavar="FOLDER",
              help="Folder of the edition: new, empty, or an earlier edition  "
                   "[default: reports/quick with --quick, else reports]")
@click.option("--only", multiple=True, metavar="NAME",
              help="Run only this experiment (repeatable; `rami experiment list` names them).")
@click.option("--reuse", is_flag=True,
              help="Where a run of the same config finished (its summary.json is there), analyse its rows again "
                   "without checking its datasets (after a change of analysis or wording). Without it too, a run "
                   "plays only the games not yet on disk.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@workers_option
@on_cluster
def report_command(quick, out, only, reuse, quiet, workers) -> None:
    """Run every experiment at two seeds and write readable reports (Markdown and HTML) with an index.

    Every value is checked before anything is written or played. Each run's
    games are written batch by batch: stopped by Ctrl-C or killed, the same
    command plays only the games not yet on disk.
    """
    from experiments import report

    names, out = check_report(quick, out, only)
    kept = lambda: (f"the finished batches are kept in {out}; the same command plays only the rest"  # noqa: E731
                    )
    with made_folder(out, kept):
        bar, update = _bar(quiet)
        with bar:
            index = report.build_report(out, quick, names,
                                        progress=lambda n, s, d, t: update(d, t, f"{n} seed {s}"), reuse=reuse,
                                        workers=workers)
    click.echo(f"reports written; open {index.resolve()}")
    click.echo(f"(Markdown: {index.with_suffix('.md').resolve()})")


def check_study(file: str, quick: bool, games: int | None, out: str | None):
    """Every check of ``rami study`` made before anything is written or played: the file, the folder, the data.

    A study file that cannot be run is a :class:`BadValue` naming its line
    and key (exit 2); an output folder that is not an edition, or that holds
    this study's data of another config, a ``click.ClickException`` (exit 1).
    """
    from experiments import runner
    from experiments import study as study_lib

    try:
        study = study_lib.read_study(file)
    except ValueError as exc:
        raise BadValue(str(exc)) from None
    refuse_clairvoyant(sorted({s for cell in study.cells() for arm in study.arms_of(cell) for s in arm.strategies}),
                       f"FILE {file}: arm strategy")
    experiment = study_lib.experiment_of(study)
    out = check_out_path(out) if out is not None else (Path("reports") / "quick" if quick else Path("reports"))
    check_output_folder(out, _edition, "an edition of `rami report`")
    with as_options({"games": "--games"}):
        configs = [experiment.config(quick, seed=seed, precision=study.precision, max_games=study.max_games,
                                     **({} if games is None else {"games": games})) for seed in study.seeds]
    with as_options(prefix=f"FILE {file}"):
        for config in configs:
            experiment.check_config(config)
    for config in configs:
        data = out / study.name / f"seed-{config.seed}" / runner.DATA
        if not runner.data_fits(data, experiment, config):
            raise click.ClickException(
                f"{data} holds the data of another version of study {study.name} (its {runner.RUN} says which); "
                "give the study another name, choose another --out, or remove that folder to start again")
    return study, out


@main.command("study")
@click.argument("file", type=PathArg(dir_okay=False))
@click.option("--quick", is_flag=True, help="Play the study's quick_games instead of its games.")
@click.option("--games", type=click.IntRange(min=2), default=None,
              help="Games per arm and seed, at least 2 (default: the file's).")
@click.option("--out", default=None, metavar="FOLDER",
              help="The report edition the study's page joins: new, empty, or an earlier edition  "
                   "[default: reports/quick with --quick, else reports]")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@workers_option
@on_cluster
def study_command(file, quick, games, out, quiet, workers) -> None:
    """Run the study FILE (TOML, docs/studies.md) at its seeds; write its page into the report's index.

    Every key of the file is checked before anything is written or played;
    an error names the file's line. The games are written batch by batch:
    stopped by Ctrl-C or killed, the same command plays only the rest.
    """
    from experiments import report

    study, out = check_study(file, quick, games, out)
    kept = lambda: f"the finished batches are kept in {out / study.name}; the same command plays only the rest"  # noqa: E731
    with made_folder(out, kept):
        bar, update = _bar(quiet)
        try:
            with bar:
                results = report.run_study(study, out, quick, games, workers=workers,
                                           progress=lambda s, d, t: update(d, t, f"{study.name} seed {s}"))
        except (ValueError, NotImplementedError) as exc:
            raise click.ClickException(in_option_words(str(exc), {"games": "--games"})) from exc
    click.echo(study.title)
    for line in results.conclusions:
        click.echo(f"  - {line}")
    click.echo(f"page written; open {results.page.resolve()}")
    click.echo(f"(index: {(out / 'index.html').resolve()})")
