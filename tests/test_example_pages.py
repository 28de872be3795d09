"""Game pages of worked examples: `rami analyse --html`, and the pages the fork and bot_losses reports link to.

Each page is written from an analysis whose decision is valued again as the
run valued it (the same trace, rollout seed and budget), so the figures on
the page are the figures of the report's row.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments import bot_losses, forks, joker_fork, report
from experiments.runner import read_summary
from sim.cli import main


def test_rami_analyse_html_writes_the_game_page_of_the_analysis(tmp_path):
    page = tmp_path / "game.html"
    result = CliRunner().invoke(main, ["analyse", "--strategies", "greedy,random", "--seed", "4", "--seats", "1",
                                       "--max-rounds", "1", "--trials", "40", "--html", str(page), "--json"])
    assert result.exit_code == 0, result.output
    analysed = json.loads(result.stdout)
    text = page.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text
    for d in analysed["decisions"]:
        if d["mark"]:
            assert d["played"] in text


@pytest.fixture(scope="module")
def fork_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fork")
    config = joker_fork.EXPERIMENT.config(quick=True, games=4, seed=1, workers=2)
    results = joker_fork.EXPERIMENT.run(config, folder / "seed-1")
    return folder, results


def test_a_fork_pages_worked_examples_link_to_game_pages_with_the_rows_figures(fork_run):
    folder, results = fork_run
    blocks = joker_fork.EXPERIMENT.page_blocks([results])
    links = re.findall(r"\[The game, at this decision\]\((games/[^)#]+)#(\d+)\)", json.dumps(blocks))
    assert links, "the example positions link to their game pages"
    for row in results.frame.iter_rows(named=True):
        analysis = forks.example_analysis(joker_fork.FORK, results.config, row)
        d = analysis.decisions[0]
        assert d.event == row["event"] and d.played == row["now"]
        # The fork's difference is other minus now; the loss of playing "now" is its opposite when "other" is best.
        assert d.loss == pytest.approx(max(0.0, -row["diff"]), abs=1e-9)
    for href, step in links:
        assert (folder / href).exists()
        assert int(step) >= 0


def test_bot_losses_worked_examples_are_analysed_again_to_the_same_figures(tmp_path):
    config = bot_losses.EXPERIMENT.config(quick=True, games=2, seed=1, workers=2)
    results = bot_losses.EXPERIMENT.run(config, tmp_path / "bot_losses" / "seed-1")
    examples = results.provenance["examples"]
    assert examples
    for ex in examples[:3]:
        d = bot_losses.example_analysis(config, results.out, ex).decisions[0]
        assert (d.event, d.played, d.best) == (ex["event"], ex["played"], ex["best"])
        assert d.loss == ex["loss"] and d.loss_ci == (ex["loss_low"], ex["loss_high"])
    page = report.write_page("bot_losses", [results], tmp_path / "bot_losses", quick=True)
    hrefs = re.findall(r"href='(games/[^'#]+)#\d+'", page.read_text(encoding="utf-8"))
    assert hrefs and all((tmp_path / "bot_losses" / h).exists() for h in hrefs)
    assert read_summary(tmp_path / "bot_losses" / "seed-1")["experiment"] == "bot_losses"
