"""The report writer: one Markdown and one self-contained HTML page per experiment, and an index.

Every experiment is run at two seeds; its page puts the conclusion at the
top (first seed), the second seed's reading beside it with any disagreement
flagged, the findings table with both seeds' 95% intervals, the figures
(PNG and SVG files; the HTML embeds them), how it was measured, the
provenance and the exact command that reproduces it.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import shlex
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

from sim import ahead, markup, store
from sim.api import say_compiling

import experiments
from experiments import configs, wording
from experiments import study as study_lib
from experiments.experiment import Block, Experiment
from experiments.findings import Finding, Results
from experiments.runner import DATA, RUN, data_fits, read_summary, reanalyse

__all__ = ["agreement", "build_report", "claims", "compare_claims", "difference_table", "edition_config", "run_order", "run_study", "write_document",
           "write_figures", "write_index", "write_page"]

log = logging.getLogger(__name__)

SEEDS = (1, 2)

ESTIMAND = ("a figure per round (points, turns, a rate of rounds or seat-rounds) is a ratio of sums over "
            "games: all the games' totals over all their rounds, so a game of more rounds weighs more, and "
            "each deal played counts once; a share of games is a mean over games. Where the number of rounds "
            "is fixed (Rami contrat, basic rummy) it is also the mean of the games' own averages; in Rami 51, "
            "played to 500 points, the two differ (docs/experiments.md, \"The estimand\").")
"""The page header's estimand, unless an experiment names its own (:attr:`Experiment.estimand`)."""

def edition_config(experiment: Experiment, seed: int, quick: bool) -> configs.Config:
    """The config of ``experiment`` for one seed of the quick or full edition."""
    return experiment.config(quick, seed=seed)


def command_for(name: str, config: configs.Config) -> str:
    """The ``rami experiment run`` command that reproduces ``config``."""
    default = type(config)()
    parts = ["rami", "experiment", "run", name, "--seed", str(config.seed)]
    if config.precision is not None:
        parts += ["--precision", f"{config.precision:g}"]
    else:
        parts += ["--games", str(config.games)]
    for key, value in config.to_dict().items():
        if key in ("seed", "games", "precision", "workers") or value == default.to_dict()[key]:
            continue
        text = ",".join(str(v) for v in value) if isinstance(value, list) else str(value).lower() if isinstance(value, bool) else str(value)
        parts += ["--set", f"{key}={text}"]
    return shlex.join(parts)


def _key(f: Finding) -> tuple:
    return (f.metric, f.arms, f.group)


def agreement(first: Finding, second: Finding) -> bool:
    """Whether two seeds tell the same story about one finding.

    Both intervals must put the estimate on the same side of zero, or both
    include zero (for a difference, and for a level measured against zero
    such as a share above the fair one); a level's two intervals must also
    overlap.
    """
    same_side = wording.verdict(first) == wording.verdict(second)
    if len(first.arms) == 2:
        return same_side
    overlap = first.estimate.low <= second.estimate.high and second.estimate.low <= first.estimate.high
    return same_side and overlap


def claims(experiment: Experiment, findings: Sequence[Finding], config: configs.Config) -> dict[str, str]:
    """What a page concludes, as words without numbers: the experiment's ``claims``, else each comparison's verdict.

    Two seeds read an experiment the same way when their claims are equal:
    which arms differ and which way, which variants change a measure. A
    count ("7 of 11 variants") is a claim about which variants, so two seeds
    whose lists differ are flagged even when the sentences look alike.
    """
    if experiment.claims is not None:
        return experiment.claims(list(findings), config)
    out = {}
    for f in findings:
        if len(f.arms) == 2 or f.headline:
            where = f" ({f.group})" if f.group else ""
            out[f"{f.metric}{where}: {' − '.join(f.arms)}"] = {"higher": "higher", "lower": "lower",
                                                                  "none": "no measurable difference"}[wording.verdict(f)]
    return out


def compare_claims(first: dict[str, str], second: dict[str, str]) -> list[tuple[str, str, str, bool]]:
    """Each claim of either seed: ``(claim, first's answer, second's, whether they are the same)``."""
    keys = list(first) + [k for k in second if k not in first]
    return [(k, first.get(k, "n/a"), second.get(k, "n/a"), first.get(k) == second.get(k)) for k in keys]


def difference_table(runs: Sequence[Results], metrics: Sequence[str], label: Callable[[Finding], str]) -> Block:
    """One table of every comparison of ``runs[0]``: a row per comparison, a column per metric.

    A cell is the difference (first arm minus second) with its 95%
    interval, marked "better" or "worse" where the interval excludes zero
    and the metric has a better side; "⚠" where another seed's verdict
    differs. ``label(finding)`` names a row.
    """
    others = [{_key(f): f for f in r.findings} for r in runs[1:]]
    rows: dict[tuple, list[str]] = {}
    for f in runs[0].findings:
        if len(f.arms) != 2 or f.metric not in metrics:
            continue
        row = rows.setdefault((f.arms, f.group), [label(f)] + ["n/a"] * len(metrics))
        mark = ""
        if wording.verdict(f) != "none" and f.better:
            mark = " better" if (f.estimate.estimate < 0) == (f.better == "lower") else " worse"
        if any(_key(f) in o and wording.verdict(o[_key(f)]) != wording.verdict(f) for o in others):
            mark += " ⚠"
        row[1 + list(metrics).index(f.metric)] = _cell(f) + mark
    return ("table", ["", *metrics], list(rows.values()))


def _relative(f: Finding) -> bool:
    """Whether ``f`` is measured against zero (a difference, or a level above a reference)."""
    return len(f.arms) == 2 or " above " in f.metric or " minus " in f.metric


def _cell(f: Finding | None) -> str:
    if f is None:
        return "n/a"
    signed = _relative(f)
    return f"{wording.fmt(f.metric, f.estimate.estimate, signed)} ({wording.interval_text(f, signed)})"


def _page_blocks(name: str, experiment: Experiment, runs: Sequence[Results], quick: bool) -> list[Block]:
    first = runs[0]
    others = {_key(f): f for f in runs[1].findings} if len(runs) > 1 else {}
    blocks: list[Block] = [("h1", experiment.title)]
    edition = "Quick edition" if quick else "Full edition"
    games = first.provenance["games"]
    note = (f"{edition}: {games:,} games per arm and seed (an arm comparing strategies at one table plays each "
            "game once per rotation of the strategies through the seats). "
            "Every figure carries a 95% interval that resamples whole games (a game's rounds are not independent).")
    if quick:
        note += (" At this size the intervals are wide: a 'no measurable difference' often means too few games to "
                 "tell, not no difference. The full edition (`rami report`) plays many more games.")
    if experiment.edition_note is not None:  # an experiment that is not played as arms says what it played
        note = experiment.edition_note(first, quick)
    blocks.append(("p", note))
    blocks.append(("p", "Estimand: " + (experiment.estimand or ESTIMAND)))
    blocks.insert(1, ("h2", "Conclusion"))
    blocks.insert(2, ("p", " ".join(first.conclusions)))
    disagree = [f for f in first.findings if _key(f) in others and not agreement(f, others[_key(f)])]
    if experiment.page_blocks is not None:  # the experiment's tables: one per question
        blocks.extend(experiment.page_blocks(list(runs)))
    if len(runs) > 1:
        second = runs[1]
        rows = compare_claims(claims(experiment, first.findings, first.config),
                              claims(experiment, second.findings, second.config))
        differ = sum(1 for *_, same in rows if not same)
        blocks.append(("h2", "Do the two seeds read it the same way?"))
        blocks.append(("p", f"Each claim of the page, as seed {first.config.seed} and seed {second.config.seed} "
                            "answer it from their own findings (numbers aside: which arms differ, which way). "
                            + (f"⚠ {differ} of {len(rows)} claims differ: read those as not settled at this size."
                               if differ else f"The two seeds make the same {len(rows)} claims.")))
        blocks.append(("table", ["claim", f"seed {first.config.seed}", f"seed {second.config.seed}", "same"],
                       [[k, a, b, "yes" if same else "⚠ no"] for k, a, b, same in rows]))
        head = [f for f in disagree if f.headline or len(f.arms) == 2]
        if disagree:
            blocks.append(("p", f"⚠ The two seeds disagree on {len(disagree)} of {len(first.findings)} findings "
                                f"(marked in the table{f', among them {len(head)} comparison' + ('s' if len(head) > 1 else '') if head else ''}): "
                                "read those as not settled at this size."))
        else:
            blocks.append(("p", f"The two seeds agree on all {len(first.findings)} findings."))
    blocks.append(("h2", "Figures"))
    for fig_name in first.provenance.get("figures", []):
        blocks.append(("fig", fig_name, f"{fig_name} (seed {first.config.seed})"))
    blocks.append(("h2", "Findings"))
    seeds = [r.config.seed for r in runs]
    header = ["metric", "group", "arms", *[f"seed {s}: estimate (95% interval)" for s in seeds],
              "seeds agree", "paired variance / unpaired"]
    rows = []
    for f in first.findings:
        other = others.get(_key(f))
        arms = " − ".join(f.arms)
        ratio = f.estimate.variance_ratio
        rows.append([f.metric, f.group or "", arms, _cell(f), *([_cell(other)] if len(runs) > 1 else []),
                     ("yes" if other is not None and agreement(f, other) else "⚠ no") if len(runs) > 1 else "",
                     "" if ratio != ratio else f"{ratio:.2f}"])
    blocks.append(("table", header, rows))
    blocks.append(("p", "Differences are the first arm minus the second, measured on the very same deals; "
                        "the last column is the variance of that paired estimate over the variance an unpaired "
                        "design with as many games per arm would have had (below 1: the pairing helped), "
                        "both estimated from these games. Intervals are percentile bootstraps over games; "
                        "`summary.json` also holds the normal-approximation intervals."))
    blocks.append(("h2", "How it was measured"))
    doc = experiment.about.strip().split("\n\n", 1)
    blocks.append(("p", " ".join((doc[1] if len(doc) > 1 else doc[0]).split())))
    if experiment.notes:
        blocks.append(("ul", list(experiment.notes)))
    blocks.append(("h2", "Provenance"))
    items = []
    for r in runs:
        p = r.provenance
        items.append(f"seed {r.config.seed}: {p['games']:,} games, {p['rounds']:,} rounds, {p['wall_seconds']:.1f} s "
                     f"wall time, finished {p['finished']}")
    p = first.provenance
    items.append(f"package rami-lab {p['package_version']}, rules version {p['rules_version']}, "
                 f"commit {p['git_commit'] or 'unknown'}, Python {p['python']}, numba {p['numba']}, polars {p['polars']}")
    items.append("config: " + json.dumps({k: v for k, v in first.config.to_dict().items() if k != "seed"}))
    blocks.append(("ul", items))
    blocks.append(("h2", "Reproduce"))
    if experiment.command is not None:  # a study: its file, saved beside this page, runs every seed
        blocks.append(("pre", experiment.command(first.config)))
    else:
        blocks.append(("pre", "\n".join(command_for(name, r.config) for r in runs)))
    blocks.append(("p", "Each run writes its rows (`seed-N/data/`, one results dataset per arm and rotation, which "
                        "`rami info` describes) and `summary.json` beside this page."))
    return blocks


# The pages' templates (experiments/templates/), through the one owner of the pages' markup: the HTML
# autoescaped, the Markdown made safe value by value; a text from a study file is text in both.
_HTML = markup.html_templates("experiments")
_MARKDOWN = markup.markdown_templates("experiments")


def _md(blocks: Sequence[Block], figures: str) -> str:
    """``blocks`` as Markdown, figures linked under ``figures``."""
    return _MARKDOWN.get_template("report.md.j2").render(blocks=blocks, figures=figures)


def _html(blocks: Sequence[Block], title: str, images: dict[str, str], links: bool = False) -> str:
    """``blocks`` as one self-contained HTML page, ``images`` the figures' PNG in base64 by name."""
    return _HTML.get_template("report.html.j2").render(blocks=blocks, title=title, images=images, links=links)


def write_figures(runs: Sequence[Results], folder: Path, experiment: Experiment) -> dict[str, str]:
    """Draw ``experiment``'s figures of the first run and write them (PNG, SVG) under ``folder / "figures"``;
    return each figure's PNG in base64 by name, for the HTML page."""
    first = runs[0]
    figure_dir = folder / "figures"
    figure_dir.mkdir(parents=True, exist_ok=True)
    images = {}
    figs = experiment.draw(first)
    for fig_name, fig in figs.items():
        png = io.BytesIO()
        fig.savefig(png, format="png", dpi=110)
        (figure_dir / f"{fig_name}.png").write_bytes(png.getvalue())
        # Text stays text in the SVG: a tenth of the size of glyphs drawn as paths.
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            fig.savefig(figure_dir / f"{fig_name}.svg", format="svg")
        images[fig_name] = base64.b64encode(png.getvalue()).decode("ascii")
    first.provenance["figures"] = list(figs)
    return images


def write_page(name: str, runs: Sequence[Results], folder: Path, quick: bool,
               experiment: Experiment | None = None, images: dict[str, str] | None = None) -> Path:
    """Write ``name``'s figures (PNG, SVG), ``index.md`` and ``index.html`` under ``folder``; return the HTML.

    ``experiment`` is the experiment of the runs when it is not a registered
    one (a study, :mod:`experiments.study`). ``images``: the figures as
    :func:`write_figures` wrote them already (the report draws a page's
    figures as soon as its runs end, and writes the text once the
    experiments it cites have run).
    """
    experiment = experiment or experiments.load(name)
    if images is None:
        images = write_figures(runs, folder, experiment)
    blocks = _page_blocks(name, experiment, runs, quick)
    (folder / "index.md").write_text(_md(blocks, "figures"), encoding="utf-8")
    page = folder / "index.html"
    # An experiment's page may link to its worked examples' game pages ([text](games/...html#step)).
    page.write_text(_html(blocks, experiment.title, images, links=True), encoding="utf-8")
    return page


def build_report(
    folder: Path,
    quick: bool,
    names: Sequence[str] = experiments.REPORTED,
    seeds: Sequence[int] = SEEDS,
    progress: Callable[[str, int, int, int], None] | None = None,
    configure: Callable[[configs.Config], configs.Config] | None = None,
    reuse: bool = False,
    workers: int | None = None,
    scheduler: Any = None,
) -> Path:
    """Run every experiment at every seed, write the pages and the index; return ``index.html``.

    Parameters
    ----------
    folder : Path
        Where the edition goes: one subfolder per experiment (its page,
        figures, and per seed its ``summary.json`` and data), and the index.
    quick : bool
        The quick edition (each module's ``QUICK`` config) or the full one.
    progress : callable, optional
        ``progress(name, seed, done, total)`` in engine games.
    configure : callable, optional
        A last change to each config (tests use it to shrink the runs).
    reuse : bool
        Where a run of the same config already wrote its rows in ``folder``,
        analyse those again instead of playing the games
        (:func:`experiments.runner.reanalyse`).
    workers : int, optional
        Engine threads (default every core; results do not depend on it).
    scheduler : str or distributed.Client, optional
        Play every run on this Dask cluster (:mod:`sim.distributed`),
        connected once for the whole edition: the same data and pages as a
        local run, the provenance aside.
    """
    from sim import distributed

    with distributed.session(scheduler):
        return _build_report(folder, quick, names, seeds, progress, configure, reuse, workers)


def _build_report(folder: Path, quick: bool, names: Sequence[str], seeds: Sequence[int],
                  progress: Callable[[str, int, int, int], None] | None,
                  configure: Callable[[configs.Config], configs.Config] | None, reuse: bool,
                  workers: int | None) -> Path:
    """:func:`build_report` inside the job's cluster session (if any)."""
    folder.mkdir(parents=True, exist_ok=True)
    order = run_order(names)
    played: set[str] = set()
    # The runs (and their figures) whose page cites an experiment not yet played.
    waiting: list[tuple[str, list[Results], dict[str, str]]] = []
    # A second process compiles what the later experiments need (the
    # positions, then the searching game) while the first ones play.
    with ahead.start(w for n in order for w in experiments.load(n).compiles) as compiling:
        for name in order:
            experiment = experiments.load(name)
            compiling.wait(experiment.compiles, say_compiling)
            runs = []
            for seed in seeds:
                config = edition_config(experiment, seed, quick)
                if configure is not None:
                    config = configure(config)
                out = folder / name / f"seed-{seed}"
                if reuse and _same_run(out, config):
                    runs.append(reanalyse(experiment, out))
                    continue
                if not data_fits(out / DATA, experiment, config):
                    # The edition's own earlier run of another config: its rows are replaced, as its pages are.
                    log.warning("%s: rows of another config; playing this edition's afresh", out / DATA)
                    shutil.rmtree(out / DATA)
                tick = None if progress is None else (lambda d, t, n=name, s=seed: progress(n, s, d, t))
                try:
                    runs.append(experiment.run(config, out, tick, workers=workers))
                except store.IdentityError as exc:
                    # The same config, its rows made by other strategies: a strategy's definition (a default)
                    # changed since the edition's run, which the run's identity (its config) does not name.
                    log.warning("%s: %s; playing this edition's rows afresh", out / DATA, exc)
                    shutil.rmtree(out / DATA)
                    runs.append(experiment.run(config, out, tick, workers=workers))
            played.add(name)
            # The figures at once, so that a page waiting for a cited experiment leaves only its text for later.
            images = write_figures(runs, folder / name, experiment)
            waiting = _write_pages([*waiting, (name, runs, images)], played, set(names), folder, quick)
    _write_pages(waiting, set(names), set(names), folder, quick)
    return write_index(folder, quick, list(seeds))


def _write_pages(waiting: list[tuple[str, list[Results], dict[str, str]]], done: set[str], names: set[str],
                 folder: Path, quick: bool) -> list[tuple[str, list[Results], dict[str, str]]]:
    """Write the page of every run in ``waiting`` (with its figures drawn) whose cited experiments (of ``names``)
    are all ``done``, in order; the runs still waiting."""
    still = []
    for name, runs, images in waiting:
        if set(experiments.load(name).cites) & names <= done:
            write_page(name, runs, folder / name, quick, images=images)
        else:
            still.append((name, runs, images))
    return still


def run_order(names: Sequence[str]) -> list[str]:
    """``names`` in the order the report plays them: first the experiments whose entries are compiled at the
    report's start, then those that use entries compiled meanwhile by a second process
    (:attr:`Experiment.compiles`, :mod:`sim.ahead`), in the order it has them ready, each group in the
    report's order. A page that cites another experiment is written once that one has run (its
    ``summary.json`` is read then)."""
    groups = list(ahead.WARM_UPS)  # the order the second process compiles them in
    ready_at = {n: max((groups.index(g) + 1 for g in experiments.load(n).compiles), default=0) for n in names}
    return sorted(names, key=ready_at.__getitem__)


def _same_run(folder: Path, config: configs.Config) -> bool:
    """Whether ``folder`` holds the rows of a run of ``config``."""
    try:
        stored = read_summary(folder)["config"]
    except (OSError, ValueError, KeyError):
        return False
    return stored == config.to_dict() and (folder / DATA / RUN).exists()


def write_index(folder: Path, quick: bool, seeds: Sequence[int] = SEEDS) -> Path:
    """Write the index of every reported experiment with pages in ``folder``; return ``index.html``."""
    entries, wall = [], 0.0
    studies = sorted(p.parent.name for p in folder.glob(f"*/{study_lib.STUDY_FILE}"))
    for name in [*experiments.REPORTED, *studies]:
        if name in experiments.REPORTED:
            experiment, at = experiments.load(name), seeds
        else:
            try:
                found = study_lib.read_study(folder / name / study_lib.STUDY_FILE)
            except ValueError as exc:
                log.warning("%s: not listed (%s)", folder / name, exc)
                continue
            experiment, at = study_lib.experiment_of(found), found.seeds
        try:
            summaries = [read_summary(folder / name / f"seed-{seed}") for seed in at]
        except OSError:
            continue
        runs = [[Finding.from_dict(f) for f in summary["findings"]] for summary in summaries]
        others = {_key(f): f for f in runs[1]} if len(runs) > 1 else {}
        disagree = sum(1 for f in runs[0] if _key(f) in others and not agreement(f, others[_key(f)]))
        wall += sum(summary["provenance"]["wall_seconds"] for summary in summaries)
        lines = [c["conclusions"] for c in summaries]
        said = [claims(experiment, found, experiment.config_type.from_dict(summary["config"]))
                for found, summary in zip(runs, summaries)]
        compared = compare_claims(*said) if len(said) > 1 else []
        differ = sum(1 for *_, same in compared if not same)
        entries.append((name, summaries[0]["question"], lines[0], len(runs[0]), disagree, (differ, len(compared)),
                        name in studies))
    edition = "quick edition" if quick else "full edition"
    command = "rami report --quick" if quick else "rami report"
    blocks: list[Block] = [
        ("h1", f"Rami lab reports ({edition})"),
        ("p", f"{sum(not e[-1] for e in entries)} strategy questions of French rummy, each answered by simulation at seeds "
              f"{' and '.join(map(str, seeds))}, with 95% intervals that resample whole games. "
              f"Made by `{command}`; the simulations and their analysis took {wall / 60:.1f} minutes."
              + (" Quick edition: small sizes and wide intervals; the full edition is the reference." if quick else "")),
    ]
    def tables(page: str) -> list[Block]:
        """The experiments' table, then the studies' (a heading of their own), linking to ``page``."""
        rows: dict[bool, list[list[str]]] = {False: [], True: []}
        for name, title, conclusions, n, disagree, differ, is_study in entries:
            reading = (f"⚠ {differ[0]} of {differ[1]} claims differ" if differ[0]
                       else f"the same {differ[1]} claims")
            findings_text = f"⚠ {disagree} of {n} findings disagree (marked on the page)" if disagree \
                else "all findings agree"
            rows[is_study].append([f"[{markup.escape_md(title)}]({name}/{page})", conclusions[0] if conclusions else "",
                                   f"{reading}; {findings_text}"])
        out: list[Block] = []
        if rows[False]:
            out.append(("table", ["question", "first conclusion", "two seeds"], rows[False]))
        if rows[True]:
            out += [("h2", "Studies"),
                    ("p", "Questions asked by study files (`rami study FILE`, docs/studies.md), answered on the "
                          "same machinery."),
                    ("table", ["question", "first conclusion", "two seeds"], rows[True])]
        return out

    (folder / "index.md").write_text(_md([*blocks, *tables("index.md")], ""), encoding="utf-8")
    page = folder / "index.html"
    page.write_text(_html([*blocks, *tables("index.html")], f"Rami lab reports ({edition})", {}, links=True),
                    encoding="utf-8")
    return page


GAMES = "games"
"""The folder beside an experiment's page that holds the game pages of its worked examples."""


def game_page(page_folder: Path, stem: str, analysis: Any) -> str:
    """Write the game page of a worked example (:func:`sim.analysis.write_html`) under ``page_folder/games``.

    ``analysis`` is a :class:`sim.analysis.Analysis` whose decisions are the
    example's; returns the link from the experiment's page, opening the game
    at the first decision (``#step``).
    """
    from sim.analysis import write_html
    from sim.analysis.page import decision_step

    folder = page_folder / GAMES
    folder.mkdir(parents=True, exist_ok=True)
    write_html(analysis, folder / f"{stem}.html")
    step = decision_step(list(analysis.events), analysis.decisions[0]) if analysis.decisions else 0
    return f"{GAMES}/{stem}.html#{step}"


def write_document(folder: Path, title: str, blocks: Sequence[Block], figures: dict | None = None) -> Path:
    """Write ``blocks`` as ``index.md`` and a self-contained ``index.html`` in ``folder``; return the HTML.

    For pages that are not an experiment's (a tournament, a tuning run):
    ``figures`` maps a name to a matplotlib Figure, saved as PNG and SVG
    under ``figures/`` and embedded in the HTML; a ``("fig", name, caption)``
    block places it.
    """
    figure_dir = folder / "figures"
    figure_dir.mkdir(parents=True, exist_ok=True)
    images = {}
    for fig_name, fig in (figures or {}).items():
        png = io.BytesIO()
        fig.savefig(png, format="png", dpi=110)
        (figure_dir / f"{fig_name}.png").write_bytes(png.getvalue())
        fig.savefig(figure_dir / f"{fig_name}.svg", format="svg")
        images[fig_name] = base64.b64encode(png.getvalue()).decode("ascii")
    (folder / "index.md").write_text(_md(blocks, "figures"), encoding="utf-8")
    page = folder / "index.html"
    page.write_text(_html(blocks, title, images), encoding="utf-8")
    return page


def run_study(
    source: str | Path | Mapping[str, Any] | study_lib.Study,
    out: Path | str | None = None,
    quick: bool = False,
    games: int | None = None,
    measures: Mapping[str, Any] | None = None,
    workers: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    scheduler: Any = None,
) -> study_lib.StudyResults:
    """Run a study (:mod:`experiments.study`) at its seeds, and with ``out`` (a report edition's folder) write its
    page and the index.

    The report runs it, as it runs the experiments: the study file's reading
    is the study module's, its pages and the index are the report's, so the
    call goes one way, from the report to the study.

    Parameters
    ----------
    source : path, mapping or Study
        A study file (TOML, or a run's ``study.json``) or its content.
    out : path, optional
        The edition folder (``reports`` or ``reports/quick``): the study
        writes ``OUT/NAME/`` (``study.json``, one run per seed, its page)
        and rewrites ``OUT/index.html``. A run stopped at any moment resumes
        where it was. Without it the games are played in a temporary folder.
    quick : bool
        Play ``quick_games`` instead of ``games``.
    games : int, optional
        Games per arm and seed, overriding the file.
    measures : mapping, optional
        More measures from Python: name -> polars expression of a row
        (summed over the focal seat's rows, per round) or a
        :class:`experiments.compare.Metric`.
    workers : int, optional
        Engine threads (results do not depend on it).
    progress : callable, optional
        ``progress(seed, done, total)`` in engine games.
    scheduler : str or distributed.Client, optional
        Play on this Dask cluster (:mod:`sim.distributed`), connected once
        for every seed: the same data, findings and page as a local run.
    """
    from sim import distributed

    study = source if isinstance(source, study_lib.Study) else study_lib.read_study(source)
    with distributed.session(scheduler):
        return _run_study(study, out, quick, games, measures, workers, progress)


def _run_study(study: study_lib.Study, out: Path | str | None, quick: bool, games: int | None,
               measures: Mapping[str, Any] | None, workers: int | None,
               progress: Callable[[int, int, int], None] | None) -> study_lib.StudyResults:
    """:func:`run_study` inside the job's cluster session (if any)."""
    experiment = study_lib.experiment_of(study, measures)
    changes: dict[str, Any] = {"precision": study.precision, "max_games": study.max_games}
    if games is not None:
        changes["games"] = games
    runs = []
    folder = None if out is None else Path(out) / study.name
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / study_lib.STUDY_FILE).write_text(json.dumps(study.to_dict(), indent=2, ensure_ascii=False) + "\n",
                                         encoding="utf-8")
    for seed in study.seeds:
        config = experiment.config(quick, seed=seed, **changes)
        tick = None if progress is None else (lambda d, t, s=seed: progress(s, d, t))
        runs.append(experiment.run(config, None if folder is None else folder / f"seed-{seed}", tick,
                                   workers=workers))
    page = None
    if folder is not None:
        page = write_page(study.name, runs, folder, quick, experiment=experiment)
        write_index(Path(out), quick, list(study.seeds))
    return study_lib.StudyResults(study, runs, page)
