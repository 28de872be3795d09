"""The search_player experiment: its quick edition end to end, its figures against the rows, its reading rules."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import experiments
from experiments import report
from experiments import search_player as S
from experiments.findings import Finding, Results
from experiments.runner import SUMMARY, read_summary, reanalyse
from experiments.stats import Estimate


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edition")
    report.build_report(folder, quick=True, names=["search_player"])
    return folder


def test_the_quick_edition_writes_summaries_and_a_page_the_index_lists(edition):
    assert "search_player" in experiments.REPORTED and experiments.load("search_player") is S.EXPERIMENT
    for seed in report.SEEDS:
        summary = read_summary(edition / "search_player" / f"seed-{seed}")
        config = S.Config.from_dict(summary["config"])
        assert config == S.EXPERIMENT.config(True, seed=seed)
        assert summary["findings"] and summary["conclusions"]
        assert all(f["unit"] == "game" for f in summary["findings"])
        # The time is kept apart from the findings: one row per budget, counted work and CPU time.
        timing = summary["provenance"]["measured"]["timing"]
        assert [t["trials"] for t in timing] == list(config.budgets)
        assert all(t["decisions"] > 0 and t["playouts"] >= t["decisions"] and t["cpu_seconds"] > 0 for t in timing)
        assert not any("CPU" in f["metric"] or "ms" in f["metric"].split() for f in summary["findings"])
    page = (edition / "search_player" / "index.md").read_text(encoding="utf-8")
    assert page.startswith(f"# {S.TITLE}") and "Smoke edition" in page and "machine" in page
    assert "## Beside the other reports" in page and "Puis-je" in page
    index = (edition / "index.html").read_text(encoding="utf-8")
    assert "href='search_player/index.html'" in index


def test_the_figures_draw_the_numbers_of_the_rows(edition):
    folder = edition / "search_player" / "seed-1"
    results = reanalyse(S.EXPERIMENT, folder)
    config = results.config
    figures = S.EXPERIMENT.draw(results)
    rows = pl.concat([
        pl.read_parquet(path).with_columns(pl.lit(path.parts[-4]).alias("slug"))
        for path in (folder / "data").glob("*/rotation-0/rounds/*.parquet")])
    seat = rows.filter(pl.col("seat") == S.FOCAL)

    def per_round(slug: str, column: str) -> float:
        """The measure of the seat under study over the arm's rows: the sum over rounds, over the rounds."""
        mine = seat.filter(pl.col("slug") == slug)
        return float(mine[column].cast(pl.Float64).sum() / mine.height)

    strength = figures["strength"].axes[0]
    drawn = strength.lines[0].get_ydata()
    direct = [per_round(f"search-trials-{t}", "points") - per_round("expert", "points") for t in config.budgets]
    np.testing.assert_allclose(drawn, direct, rtol=1e-9, atol=1e-9)
    # The second axis: the timing pass's milliseconds per searched decision, as measured.
    timing = results.provenance["measured"]["timing"]
    np.testing.assert_allclose(strength.right.lines[0].get_ydata(), [t["ms_per_decision"] for t in timing],
                               rtol=1e-9)
    # ... which is the CPU time over the decisions (the seconds are kept to 4 decimals, the milliseconds too).
    for t in timing:
        assert abs(1000 * t["cpu_seconds"] / t["decisions"] - t["ms_per_decision"]) <= (
            1000 * 0.00005 / t["decisions"] + 0.00005)
    panel = next(ax for ax in figures["behaviour"].axes if ax.get_title() == S.TAKES)
    names = [t.get_text() for t in panel.get_yticklabels()]
    drawn = dict(zip(names, panel.lines[0].get_xdata()))
    slugs = {"search": f"search-trials-{config.trials}", "expert": "expert", "cautious": "cautious", "greedy": "greedy"}
    for name, slug in slugs.items():
        assert drawn[name] == pytest.approx(per_round(slug, "discard_takes"))


def _est(estimate: float, low: float, high: float) -> Estimate:
    return Estimate(estimate, low, high, low, high, 40)


def _summary_findings(keeps_jokers: bool, asks: bool) -> list[Finding]:
    s, c = S.search_arm(32), S.search_arm(32, S.CONTRAT)
    held = _est(0.12, 0.05, 0.19) if keeps_jokers else _est(0.01, -0.03, 0.05)
    may_i = _est(0.8, 0.5, 1.1) if asks else _est(0.0, 0.0, 0.0)
    return [
        Finding(S.POINTS, (s, "greedy"), _est(-4.0, -5.5, -2.5), 40, 400, S.R51_GROUP, better="lower"),
        Finding(S.HELD, (s, "greedy"), held, 40, 400, S.R51_GROUP),
        Finding(S.OPEN_EARLY, (s, "greedy"), _est(0.01, -0.02, 0.04), 40, 400, S.R51_GROUP),
        Finding(S.ABOVE, (s, "greedy"), _est(0.5, -1.0, 2.0), 40, 400, S.R51_GROUP),
        Finding(S.TAKES, (s, "greedy"), _est(-0.2, -0.3, -0.1), 40, 400, S.R51_GROUP),
        Finding(S.MAY_I, (c,), may_i, 10, 70, S.CONTRAT_GROUP),
    ]


def test_the_reading_rules_follow_the_numbers_both_ways():
    keeps = {r.report: r for r in S.readings(_summary_findings(keeps_jokers=True, asks=True))}
    lays = {r.report: r for r in S.readings(_summary_findings(keeps_jokers=False, asks=False))}
    assert keeps["holding_jokers"].contradicts and not lays["holding_jokers"].contradicts
    assert "+0.12" in keeps["holding_jokers"].text and "+0.01" in lays["holding_jokers"].text
    assert keeps["may_i"].contradicts and not lays["may_i"].contradicts
    # Fewer discard takes in a stronger player go against the discard pile's advice, in both summaries.
    assert keeps["discard_pile"].contradicts and lays["discard_pile"].contradicts
    assert not keeps["waiting_to_open"].contradicts and not keeps["time_to_open"].contradicts
    # Opening later goes against opening at the first chance, and the time to open differs; more points at an
    # opening made as early do not.
    later = [f if f.metric != S.OPEN_EARLY else Finding(f.metric, f.arms, _est(-0.05, -0.08, -0.02), 40, 400, f.group)
             for f in _summary_findings(keeps_jokers=False, asks=False)]
    bigger = [f if f.metric != S.ABOVE else Finding(f.metric, f.arms, _est(1.5, 0.5, 2.5), 40, 400, f.group)
              for f in _summary_findings(keeps_jokers=False, asks=False)]
    assert {r.report for r in S.readings(later) if r.contradicts} >= {"waiting_to_open", "time_to_open"}
    assert not any(r.contradicts for r in S.readings(bigger) if r.report in ("waiting_to_open", "time_to_open"))
    # A search that scores no fewer points than greedy contradicts nothing by keeping jokers.
    weaker = [f if f.metric != S.POINTS else Finding(f.metric, f.arms, _est(1.0, -0.5, 2.5), 40, 400, f.group)
              for f in _summary_findings(keeps_jokers=True, asks=False)]
    assert not {r.report: r for r in S.readings(weaker)}["holding_jokers"].contradicts


@pytest.mark.parametrize("keeps_jokers", [True, False])
def test_an_affected_page_links_to_the_search_player_page(tmp_path, keeps_jokers):
    found = _summary_findings(keeps_jokers, asks=False)
    mine = tmp_path / S.PAGE / "seed-1"
    mine.mkdir(parents=True)
    (mine / SUMMARY).write_text(
        __import__("json").dumps({"findings": [f.to_dict() for f in found]}), encoding="utf-8")
    holding = experiments.load("holding_jokers")
    results = Results("holding_jokers", holding.title, holding.config(True, seed=1), [], [], pl.DataFrame(),
                      out=tmp_path / "holding_jokers" / "seed-1")
    blocks = S.beside("holding_jokers", [results])
    text = " ".join(str(b[-1]) for b in blocks)
    assert f"../{S.PAGE}/index.html" in text
    assert ("⚠" in text) == keeps_jokers
    # The report plays the searching experiment last (a second process compiles its game meanwhile) and
    # writes the pages citing it after it; without it the page says nothing of it.
    assert report.run_order(["search_player", "holding_jokers"]) == ["holding_jokers", "search_player"]
    assert S.beside("holding_jokers", [Results("x", "", results.config, [], [], pl.DataFrame(),
                                               out=tmp_path / "elsewhere" / "x" / "seed-1")]) == []


def test_the_config_refuses_a_behaviour_budget_it_does_not_measure():
    with pytest.raises(ValueError, match="one of the budgets"):
        S.Config(budgets=(8, 16), trials=32)
    with pytest.raises(ValueError, match="smallest"):
        S.Config(budgets=(16, 8), trials=8)
    assert not math.isnan(S.Config().games)
