"""Study files (docs/studies.md): read and refused with the line, run end to end, swept, and held to an experiment.

Every gallery file of docs/studies/ is read and its grid built; a small
study runs from its file to its datasets, summary and page in the report's
index; a two-factor sweep's interaction is the difference of its effects;
the gallery's ``expert_in_its_seat.toml`` reproduces the expert_vs_greedy
experiment's paired comparison to the last digit, interval included.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

import experiments
import sim
from experiments import report
from experiments import study as S
from experiments.runner import RUN
from sim.cli import main
from sim.intervals import contrast_estimate, paired_difference

ROOT = Path(__file__).resolve().parent.parent
GALLERY = sorted((ROOT / "docs" / "studies").glob("*.toml"))


def test_the_gallery_holds_at_least_six_studies_and_each_reads_and_builds_its_grid():
    assert len(GALLERY) >= 6
    for path in GALLERY:
        study = S.read_study(path)
        assert study.name == path.stem
        for cell in study.cells():
            arms = study.arms_of(cell)
            assert len({a.name for a in arms}) == len(arms)
        assert f"docs/studies/{path.name}" in (ROOT / "docs" / "studies.md").read_text(encoding="utf-8"), \
            f"{path.name} is not in the gallery of docs/studies.md"


def write(tmp_path: Path, text: str, name: str = "mine.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


ARMS = '[arms]\ngreedy = ["greedy", "greedy", "greedy"]\nexpert = ["expert", "greedy", "greedy"]\n'
REFUSED = [
    # (file text, words of the message, the line it names)
    ('title = "x"\ngmes = 10\n' + ARMS, ["unknown key 'gmes'", "the keys are"], 2),
    ('measures = ["points", "luck"]\n' + ARMS, ["unknown measure 'luck'", "went_out"], 1),
    ('games = 1\n' + ARMS, ["games = 1", "at least 2"], 1),
    ('design = "lucky"\n' + ARMS, ["design = 'lucky'", "duplicate"], 1),
    ('seeds = [1, 1]\n' + ARMS, ["seeds", "different"], 1),
    ('players = 4\n' + ARMS, ["arm 'greedy' has 3 seats but players = 4"], 3),
    ('[arms]\na = ["greedy", "greedy"]\nb = ["greedy", "greedy", "greedy"]\n', ["different numbers of players"], None),
    ('[arms]\na = ["greedy", "greedy"]\nb = ["greedy", "genius"]\n', ["arm 'b'", "unknown strategy 'genius'"], 3),
    ('[arms]\na = ["greedy", "greedy"]\nb = ["greedy", "greedy:open_extra=999"]\n', ["arm 'b'", "open_extra"], 3),
    ('compare = [["expert", "nobody"]]\n' + ARMS, ["compare names arm 'nobody'"], 1),
    ('compare = [["expert", "expert"]]\n' + ARMS, ["an arm against itself"], 1),
    (ARMS + 'compare = [["expert", "greedy"]]\n', ["'compare' is a top-level key", "before the first [table]"], 4),
    ('[rules]\nopen_threshold = -3\n' + ARMS, ["open_threshold"], 1),
    ('[rules]\nplayers = 3\n' + ARMS, ["players is set by the arms"], 2),
    ('[arms]\na = {focal = "greedy:open_extra={extra}", field = "greedy"}\n', ["set players"], None),
    ('players = 3\n[arms]\na = {focal = "greedy:open_extra={extra}", field = "greedy"}\n',
     ["{extra} is written in the study but is no factor of [sweep]"], None),
    ('players = 3\n[arms]\na = {focal = "greedy", field = "greedy"}\n[sweep]\nextra = [0, 20]\n',
     ["sweep factor 'extra' is used nowhere"], 5),
    ('players = 3\n[arms]\na = {focal = "greedy:open_extra={x}", field = "greedy:jokers={y}:{z}"}\n'
     '[sweep]\nx = [0, 20]\ny = [0, 1]\nz = [1, 2]\n', ["one or two factors"], 4),
    ('players = 3\n[arms]\na = {focal = "greedy", field = "greedy"}\n[sweep]\nfocal_seats = [1, 3]\n',
     ["focal_seats = 3 leaves no seat to the field"], 5),
    ('players = 3\n[arms]\na = {focal = "greedy", field = "greedy", seats = 2}\n', ["unknown key 'seats'"], 3),
    ('[arms]\na = ["greedy", "greedy"]\n[sweep]\nplayers = [2, 3]\n', ["lists its seats", "players"], 2),
    ('players = 8\n[arms]\na = {focal = "greedy", field = "greedy"}\n', ["players = 8", "from 2 to 6"], 1),
    ('[arms]\na = {focal = "greedy", field = "greedy"}\n[sweep]\nplayers = [3, 7]\n',
     ["sweep factor players", "from 2 to 6"], 4),
    ('name = "may_i"\n' + ARMS, ["an experiment's"], 1),
    ('name = "../up"\n' + ARMS, ["name = '../up'"], 1),
    ('title = "no arms"\n', ["no arms"], None),
    ('[arms\n', ["not valid TOML"], None),
]


@pytest.mark.parametrize("text,needles,line", REFUSED, ids=[r[1][0][:40] for r in REFUSED])
def test_a_study_that_cannot_run_is_refused_naming_the_file_the_line_and_the_key(tmp_path, text, needles, line):
    path = write(tmp_path, text)
    with pytest.raises(S.StudyError) as caught:
        S.read_study(path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    if line is not None:
        assert message.startswith(f"{path} line {line}: "), message
    for needle in needles:
        assert needle in message, (needle, message)


def test_the_docs_table_of_keys_is_the_readers_own():
    # docs/studies.md's table is made from experiments.study.KEYS, the data the reader reads by: a key, a
    # range, a choice or a default changed in one and not the other fails here.
    doc = (ROOT / "docs" / "studies.md").read_text(encoding="utf-8")
    assert S.key_table() in doc, "docs/studies.md's table of keys is not experiments.study.key_table()"
    assert list(S.TOP_KEYS) == [k.name for k in S.KEYS]


@pytest.mark.parametrize("key", [k for k in S.KEYS if k.kind != "table"], ids=lambda k: k.name)
def test_each_key_is_read_as_its_schema_says(tmp_path, key):
    # Its default when absent, and a refusal quoting the schema's words, at its line, when of the wrong type.
    study = S.read_study(write(tmp_path, ARMS))
    expected = key.default(tomllib.loads(ARMS), vars(study)) if callable(key.default) else key.default
    value = getattr(study, key.name)
    if expected is not None and key.name != "name":  # players and compare are then the arms'; the name the file's
        assert (list(value) if isinstance(value, tuple) else value) == expected, key.name
    with pytest.raises(S.StudyError) as caught:
        S.read_study(write(tmp_path, f"{key.name} = true\n" + ARMS))
    assert str(caught.value) == f"{tmp_path / 'mine.toml'} line 1: {key.name} = True: {key.values}"


def test_the_command_refuses_a_bad_study_with_exit_2_and_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, 'gmes = 3\n' + ARMS)
    result = CliRunner().invoke(main, ["study", "mine.toml"])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == f"Error: mine.toml line 1: unknown key 'gmes'; the keys are: {', '.join(S.TOP_KEYS)}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.toml"]


SMALL = '''title = "Does the expert beat greedy at three players?"
game = "rami51"
games = 12
quick_games = 8
measures = ["points", "won", "open_turn"]

[arms]
greedy = ["greedy", "greedy", "greedy"]
expert = ["expert", "greedy", "greedy"]
'''


def test_a_small_study_runs_from_its_file_to_datasets_a_summary_and_a_page_in_the_index(tmp_path):
    path = write(tmp_path, SMALL, "three.toml")
    out = tmp_path / "reports"
    result = CliRunner().invoke(main, ["study", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "Does the expert beat greedy at three players?" in result.output
    folder = out / "three"
    for seed in (1, 2):
        summary = json.loads((folder / f"seed-{seed}" / "summary.json").read_text(encoding="utf-8"))
        assert summary["provenance"]["games"] == 12
        metrics = {f["metric"] for f in summary["findings"]}
        assert metrics == {"points per round", "share of games won", "own turn of the opening"}
        for f in summary["findings"]:
            assert f["low"] <= f["estimate"] <= f["high"] and f["unit"] == "game" and f["clusters"] == 12
        paired = [f for f in summary["findings"] if f["arms"] == ["expert", "greedy"]]
        assert len(paired) == 3 and paired[0]["headline"]
        data = folder / f"seed-{seed}" / "data"
        assert json.loads((data / RUN).read_text(encoding="utf-8"))["experiment"] == "three"
        frame = sim.load(data / "expert" / "rotation-2", "rounds").collect()
        assert frame["game"].n_unique() == 12
    page = (folder / "index.html").read_text(encoding="utf-8")
    assert "Does the expert beat greedy at three players?" in page and "data:image/png;base64," in page
    assert "rami study three/study.json" in page
    assert (folder / "figures" / "comparisons.png").exists()
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "## Studies" in index and "(three/index.md)" in index
    assert S.read_study(folder / S.STUDY_FILE) == S.read_study(path).__class__(
        **{**S.read_study(path).__dict__, "source": str(folder / S.STUDY_FILE)})

    # The same command again plays nothing: every batch is on disk.
    stamps = {p: p.stat().st_mtime_ns for p in folder.rglob("*.parquet")}
    again = CliRunner().invoke(main, ["study", str(path), "--out", str(out), "--quiet"])
    assert again.exit_code == 0, again.output
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*.parquet")} == stamps

    # The same name with other arms is refused before anything is played.
    changed = write(tmp_path, SMALL.replace('expert = ["expert"', 'expert = ["cautious"'), "three.toml")
    refused = CliRunner().invoke(main, ["study", str(changed), "--out", str(out), "--quiet"])
    assert refused.exit_code == 1 and "another version of study three" in refused.stderr
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*.parquet")} == stamps


def test_the_gallerys_study_reproduces_the_expert_vs_greedy_experiments_paired_comparison():
    """``expert_in_its_seat.toml`` is the experiment's design: the same rows, the same estimate and interval."""
    ours = report.run_study(GALLERY[[p.stem for p in GALLERY].index("expert_in_its_seat")], games=16, workers=2)
    experiment = experiments.load("expert_vs_greedy")
    theirs = experiment.run(experiment.config(games=16, seed=1, workers=2))
    mine = next(f for f in ours.findings if f.arms == ("expert", "greedy") and f.metric == "points per round")
    reference = next(f for f in theirs.findings if len(f.arms) == 2 and f.metric == "points per round")
    assert mine.estimate == reference.estimate
    won = next(f for f in ours.findings if f.arms == ("expert", "greedy") and f.metric == "share of games won")
    reference_won = next(f for f in theirs.findings if f.metric == "share of games won")
    assert won.estimate.estimate == pytest.approx(reference_won.estimate.estimate)


SWEEP = '''title = "Waiting to open, by table size"
games = 10
seeds = [3]
measures = ["points"]

[arms]
greedy = {focal = "greedy", field = "greedy"}
waits = {focal = "greedy:open_extra={extra}", field = "greedy"}

[sweep]
extra = [0, 20]
players = [2, 3]
'''


def test_a_two_factor_sweep_reports_each_effect_and_the_interaction_with_intervals_and_a_heat_map(tmp_path):
    results = report.run_study(S.read_study(write(tmp_path, SWEEP, "sweep.toml")), out=tmp_path / "reports", workers=2)
    found = results.findings
    cell = {}
    for extra in (0, 20):
        for players in (2, 3):
            label = f"extra={extra}, players={players}"
            cell[extra, players] = next(f for f in found if f.arms == (f"waits ({label})", f"greedy ({label})"))
    effects = {p: next(f for f in found if f.group == f"effect of extra: 20 against 0 at players={p}") for p in (2, 3)}
    for p in (2, 3):
        assert effects[p].estimate.estimate == pytest.approx(
            cell[20, p].estimate.estimate - cell[0, p].estimate.estimate)
    interaction = next(f for f in found if f.group.startswith("interaction"))
    assert interaction.estimate.estimate == pytest.approx(effects[3].estimate.estimate - effects[2].estimate.estimate)
    assert interaction.headline and interaction.estimate.low < interaction.estimate.high
    assert any(line.startswith("Interaction (extra 20 against 0, players 3 against 2)") for line in results.conclusions)
    assert (tmp_path / "reports" / "sweep" / "figures" / "sweep.png").exists()
    # When waiting costs nothing (extra 0 is greedy itself), the arms play the very same games.
    assert cell[0, 2].estimate.estimate == 0 and cell[0, 3].estimate.estimate == 0


def test_a_one_factor_sweep_draws_the_effect_curve_and_python_measures_join_the_named_ones(tmp_path):
    spec = {"name": "jokers", "title": "Joker policy", "players": 3, "games": 8, "seeds": [1],
            "arms": {"expert": {"focal": "expert", "field": "greedy"},
                     "policy": {"focal": "expert:jokers={jokers}", "field": "greedy"}},
            "sweep": {"jokers": [0, 2]}}
    results = report.run_study(spec, out=tmp_path, measures={"cards left per round": pl.col("cards_left")}, workers=2)
    metrics = {f.metric for f in results.findings}
    assert metrics == {"points per round", "cards left per round"}
    assert (tmp_path / "jokers" / "figures" / "sweep.png").exists()
    effect = next(f for f in results.findings if f.group == "effect of jokers: 2 against 0")
    assert effect.headline


def test_the_independent_design_deals_each_arm_its_own_games_and_compares_them_unpaired():
    spec = {"name": "apart", "design": "independent", "games": 10, "seeds": [1],
            "arms": {"a": ["greedy", "greedy"], "b": ["greedy", "greedy"]}}
    results = report.run_study(spec, workers=2)
    diff = next(f for f in results.findings if len(f.arms) == 2 and f.metric == "points per round")
    # The same strategy on other deals: a difference, unpaired (no variance ratio), of chance alone.
    assert diff.estimate.estimate != 0 and diff.estimate.variance_ratio != diff.estimate.variance_ratio
    common = report.run_study({**spec, "design": "common"}, workers=2)
    same = next(f for f in common.findings if len(f.arms) == 2 and f.metric == "points per round")
    assert same.estimate.estimate == 0


def test_a_contrast_of_two_ratios_is_the_paired_difference_interval_included():
    rng = np.random.default_rng(4)
    totals = rng.normal(20, 5, (2, 40))
    counts = rng.integers(1, 6, (2, 40)).astype(float)
    a = paired_difference(totals[0], counts[0], totals[1], counts[1], np.random.default_rng(9), 300)
    b = contrast_estimate(totals, counts, [1, -1], np.random.default_rng(9), 300)
    assert (a.estimate, a.low, a.high, a.normal_low, a.normal_high) == pytest.approx(
        (b.estimate, b.low, b.high, b.normal_low, b.normal_high))
    with pytest.raises(ValueError, match="one weight per ratio"):
        contrast_estimate(totals, counts, [1, -1, 1], 1)


def test_a_precision_target_adds_games_until_the_headline_interval_is_narrow_enough():
    spec = {"name": "precise", "games": 6, "seeds": [1], "precision": 4.0, "max_games": 60,
            "arms": {"greedy": ["greedy", "greedy"], "expert": ["expert", "greedy"]}}
    results = report.run_study(spec, workers=2)
    head = next(f for f in results.findings if f.headline)
    played = results.runs[0].provenance["games"]
    assert played > 6, "six games cannot give a 4-point interval: the study should have grown"
    assert head.estimate.width <= 4.0 or played == 60


def test_a_conditioned_study_plays_accepted_deals_and_reports_the_acceptance_rate_of_a_direct_count():
    from sim import deals

    spec = {"name": "jokers", "players": 3, "games": 12, "seeds": [2], "condition": "jokers(0) >= 1",
            "arms": {"greedy": {"focal": "greedy", "field": "greedy"},
                     "waits": {"focal": "greedy:open_extra=20", "field": "greedy"}}}
    study = S.read_study(spec)
    assert (study.design, study.rounds) == ("common", "first")
    results = report.run_study(study, workers=2)
    rate = next(f for f in results.findings if f.metric == S.ACCEPTED)
    direct = deals.sample("rami51", "jokers(0) >= 1", 12, seed=2, players=3)
    assert rate.estimate.estimate == pytest.approx(direct.accepted / direct.dealt)
    assert rate.estimate.low <= rate.estimate.estimate <= rate.estimate.high
    assert any("accepts" in line for line in results.conclusions)
    # The study's arms played the accepted deals: the all-greedy arm's first rounds are sim.simulate's under the
    # same condition (whose deals are checked against the condition in test_deals.py).
    frame = results.runs[0].frame.filter((pl.col("arm") == "greedy") & (pl.col("round") == 0)).sort("game", "seat")
    direct_rows = sim.simulate("rami51", ["greedy"] * 3, n_games=12, seed=2, condition="jokers(0) >= 1",
                               workers=1).filter(pl.col("round") == 0).sort("game", "seat")
    assert frame["points"].to_list() == direct_rows["points"].to_list()
    assert frame.select("game").unique().height == 12


def test_a_study_with_held_cards_reports_their_exact_chance_times_the_rest_measured():
    import math

    from sim import deals

    text = 'holds(0, "7♥") and jokers(0) >= 1'
    spec = {"name": "sevens", "players": 3, "games": 12, "seeds": [2], "condition": text,
            "arms": {"greedy": {"focal": "greedy", "field": "greedy"},
                     "waits": {"focal": "greedy:open_extra=20", "field": "greedy"}}}
    results = report.run_study(S.read_study(spec), workers=2)
    rate = next(f for f in results.findings if f.metric == S.ACCEPTED)
    rest = next(f for f in results.findings if f.metric == S.REST_ACCEPTED)
    direct = deals.sample("rami51", text, 12, seed=2, players=3)
    r = sim.rules.preset("rami51")
    n, h = r.deck_size, r.hand_size(0)
    chance = 1 - math.comb(n - 2, h) / math.comb(n, h)
    assert rest.estimate.estimate == pytest.approx(direct.accepted / direct.dealt)
    assert rate.estimate.estimate == pytest.approx(chance * direct.accepted / direct.dealt)
    assert rate.estimate.low == pytest.approx(chance * rest.estimate.low)
    assert any("dealt exactly" in line and "accepts" in line for line in results.conclusions)
    firsts = results.runs[0].frame.filter((pl.col("arm") == "greedy") & (pl.col("round") == 0))
    assert firsts.select("game").unique().height == 12


@pytest.mark.parametrize("condition,needles", [
    ("jokers(0) >= ", ["condition", "at its end", "cannot be read"]),
    ("jokers(7) >= 1", ["seat 7"]),
    ("jokers(0) == 4 and opening(1) >= 150", ["too rare to sample"]),
])
def test_a_condition_that_cannot_be_sampled_is_refused_at_its_line(tmp_path, condition, needles):
    path = write(tmp_path, f'players = 3\ncondition = "{condition}"\n' + '[arms]\na = {focal = "greedy", '
                 'field = "greedy"}\n')
    with pytest.raises(S.StudyError) as caught:
        S.read_study(path)
    assert str(caught.value).startswith(f"{path} line 2: "), str(caught.value)
    for needle in needles:
        assert needle in str(caught.value)
