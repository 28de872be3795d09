"""``rami experiment list|run`` and ``rami report``: the strategy questions and their reports."""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli.common import check_folder, main


@main.group("experiment")
def experiment_group() -> None:
    """Strategy questions answered by simulation (see `rami experiment list`)."""


@experiment_group.command("list")
def list_command() -> None:
    """List the experiments: name and question."""
    import experiments

    for name in experiments.EXPERIMENTS:
        click.echo(f"{name:<18} {experiments.load(name).TITLE}")


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


@experiment_group.command("run")
@click.argument("name")
@click.option("--games", type=int, default=None, help="Games per arm (default: the experiment's own).")
@click.option("--precision", type=float, default=None,
              help="Add games until every headline 95% interval is narrower than this, in its own unit "
                   "(shares as fractions: 0.02 is two percentage points), "
                   "starting from the quick edition's size.")
@click.option("--seed", type=int, default=1, show_default=True, help="Simulation seed shared by every arm.")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="Change one config key, e.g. --set players=3 (repeatable; lists as 2,3,4).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for summary.json and the data  [default: results/experiments/NAME/seed-S]")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def run_command(name, games, precision, seed, settings, out, quiet) -> None:
    """Run experiment NAME; print its conclusions and findings, write summary.json and the data."""
    import experiments
    from experiments import wording

    if games is not None and precision is not None:
        raise click.UsageError("give --games or --precision, not both")
    try:
        module = experiments.load(name)
        config = module.Config().with_settings(settings).replace(seed=seed)
        if games is not None:
            config = config.replace(games=games)
        if precision is not None:
            # The first step is the quick edition's size (or --set games=N); the mode adds games from there.
            first = config.games if any(item.strip().startswith("games=") for item in settings) else \
                module.QUICK.get("games", config.games)
            config = config.replace(precision=precision, games=first)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    out = out or Path("results") / "experiments" / name / f"seed-{seed}"
    check_folder(out)
    bar, update = _bar(quiet)
    try:
        with bar:
            results = module.run(config, out, update)
    except (ValueError, NotImplementedError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(module.TITLE)
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


@main.command("report")
@click.option("--quick", is_flag=True, help="Every experiment at a reduced size: under two and a half minutes instead of about thirteen.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of the edition  [default: reports/quick with --quick, else reports]")
@click.option("--only", multiple=True, help="Run only this experiment (repeatable).")
@click.option("--reuse", is_flag=True,
              help="Where the edition already holds the rows of a run with the same config, analyse them again "
                   "instead of playing the games (after a change of analysis or wording).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def report_command(quick, out, only, reuse, quiet) -> None:
    """Run every experiment at two seeds and write readable reports (Markdown and HTML) with an index."""
    import experiments
    from experiments import report

    names = list(only) or list(experiments.REPORTED)
    unknown = [n for n in names if n not in experiments.EXPERIMENTS]
    if unknown:
        raise click.ClickException(f"unknown experiment {unknown[0]!r}; the experiments are: "
                                   f"{', '.join(experiments.EXPERIMENTS)}")
    out = out or (Path("reports") / "quick" if quick else Path("reports"))
    check_folder(out)
    bar, update = _bar(quiet)
    with bar:
        index = report.build_report(out, quick, names, progress=lambda n, s, d, t: update(d, t, f"{n} seed {s}"),
                                    reuse=reuse)
    click.echo(f"reports written; open {index.resolve()}")
    click.echo(f"(Markdown: {index.with_suffix('.md').resolve()})")
