"""Tournaments, the sequential comparison, the guarded tuner and strategy files."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

import sim
import strategies
from experiments import sequential, tournament, tuning
from sim.cli import main
from strategies import files

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ tournaments


def test_tables_meet_every_pair_equally():
    tables = tournament.tables_for(5, 3)
    assert len(tables) == 10
    pairs = {}
    for t in tables:
        for a in t:
            for b in t:
                if a < b:
                    pairs[(a, b)] = pairs.get((a, b), 0) + 1
    assert len(pairs) == 10 and set(pairs.values()) == {3}
    with pytest.raises(ValueError, match="at least 4 strategies"):
        tournament.tables_for(3, 4)


def test_a_strategy_against_its_renamed_copy_shows_no_difference():
    copy = tournament.renamed("greedy", "greedy-copy")
    # Three strategies at tables of two: the copy and the original each meet
    # cautious on different deals, so their ratings carry real noise.
    res = tournament.tournament(["greedy", copy, "cautious"], "basic", players=2, games=240, seed=4, resamples=200)
    assert len(res.tables) == 3 and res.games_per_table == 80
    same = res.pairwise[("greedy", "greedy-copy")]
    assert not same.excludes_zero
    a, b = res.standing("greedy"), res.standing("greedy-copy")
    assert a.points.low <= b.points.high and b.points.low <= a.points.high
    gap, low, high = res.rating_gap("greedy", "greedy-copy")
    assert low < 0 < high and low < gap < high
    assert high - low > 0.01  # an interval with real width, not a degenerate zero
    # Every game played once per rotation: 80 games x 2 rotations x 3 tables.
    assert res.frame.select("arm", "game", "rotation").unique().height == 480


def test_tournament_separates_strategies_that_differ():
    res = tournament.tournament(["random", "greedy"], "basic", games=150, seed=2, resamples=100)
    assert [s.name for s in res.standings] == ["greedy", "random"]
    gap, low, high = res.rating_gap("greedy", "random")
    assert low > 0
    diff = res.pairwise[("greedy", "random")]
    assert diff.excludes_zero and diff.estimate > 0  # basic rummy: more points is better
    assert res.standing("greedy").wins.low > 0.5


def test_tournament_rejects_twice_the_same_name():
    with pytest.raises(ValueError, match="listed twice"):
        tournament.tournament(["greedy", "greedy"], "basic")
    with pytest.raises(TypeError, match=r"a list, e.g. \['greedy', 'random'\]"):
        tournament.tournament("greedy,random", "basic")


def test_a_tournament_on_disk_ranks_again_from_its_datasets_and_resumes(tmp_path):
    first = tournament.tournament(["random", "greedy", "expert"], "basic", games=40, resamples=50, out=tmp_path / "t")
    assert (tmp_path / "t" / "table-1" / "rotation-2" / "manifest.json").is_file()
    again = tournament.ranking_from(tmp_path / "t")
    memory = tournament.tournament(["random", "greedy", "expert"], "basic", games=40, resamples=50)
    assert first.table().equals(again.table()) and first.table().equals(memory.table())
    # The same tournament again finds every game on disk; other settings are refused.
    files = {p: p.stat().st_mtime_ns for p in (tmp_path / "t").rglob("*.parquet")}
    resumed = tournament.tournament(["random", "greedy", "expert"], "basic", games=40, resamples=50, out=tmp_path / "t")
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "t").rglob("*.parquet")} == files  # nothing played again
    assert resumed.table().equals(first.table())
    with pytest.raises(ValueError, match="other settings"):
        tournament.tournament(["random", "greedy"], "basic", games=40, resamples=50, out=tmp_path / "t")
    # rami info describes the tournament and checks each of its datasets.
    info = CliRunner().invoke(main, ["info", str(tmp_path / "t")])
    assert info.exit_code == 0, info.output
    assert "tournament of 3 results datasets" in info.output and "table-1/rotation-2: 40 games on disk" in info.output
    victim = next((tmp_path / "t" / "table-1" / "rotation-0" / "games").glob("*.parquet"))
    victim.write_bytes(b"PAR1")
    damaged = CliRunner().invoke(main, ["info", str(tmp_path / "t")])
    assert damaged.exit_code == 1 and victim.name in damaged.output


def test_a_comparison_saves_its_looks_and_words_its_verdicts(tmp_path):
    res = sequential.compare("random", "greedy", "basic", field=["greedy"], batch=100, max_games=300, seed=2)
    assert res.decision == "worse" and res.high < 0 and "is worse than" in str(res)
    res.write(tmp_path / "c")
    looks = pl.read_csv(tmp_path / "c" / "looks.csv")
    assert looks["games"].to_list() == [n for n, *_ in res.looks] and looks.height == len(res.looks)
    gains = pl.read_csv(tmp_path / "c" / "gains.csv")
    assert gains.height == res.games and abs(gains["gain"].mean() - res.naive) < 1e-9


def test_tournament_command_writes_its_report(tmp_path):
    result = CliRunner().invoke(main, ["tournament", "random,greedy,expert", "--rules", "basic", "--games", "60",
                                       "--resamples", "60", "--quiet", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "rating (95% interval)" in result.output
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "Ranking" in page and "data:image/png;base64" in page
    assert (tmp_path / "ranking.csv").read_text().startswith("rank,strategy")


# ------------------------------------------------------------------ sequential test


@pytest.mark.parametrize("alpha,beta", [(0.05, 0.05), (0.1, 0.2)])
def test_sprt_error_rates_stay_within_alpha_and_beta(alpha, beta):
    rng = np.random.default_rng(11)
    sd, reps, n = 6.0, 3000, 4000
    under_h0 = rng.normal(0.0, sd, size=(reps, n))
    decision, _ = sequential.sprt_decide(under_h0, 25, 0.0, 1.0, alpha, beta)
    # Margin: three binomial standard errors of the simulation itself.
    assert (decision == 1).mean() <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / reps)
    under_h1 = rng.normal(1.0, sd, size=(reps, n))
    decision, used = sequential.sprt_decide(under_h1, 25, 0.0, 1.0, alpha, beta)
    assert (decision == -1).mean() <= beta + 3 * np.sqrt(beta * (1 - beta) / reps)
    assert (decision == 1).mean() > 0.5 and np.median(used) < n  # it decides, and stops early


def test_median_unbiased_estimate_corrects_the_early_stop():
    rng = np.random.default_rng(5)
    checks = np.arange(25, 2025, 25)
    naive, corrected, covered = [], [], 0
    for i in range(24):
        d = rng.normal(1.0, 6.0, size=(1, 2000))
        decision, used = sequential.sprt_decide(d, 25, 0.0, 1.0, 0.05, 0.05)
        k = int(used[0])
        est, low, high = sequential.median_unbiased(int(decision[0]), int(np.searchsorted(checks, k)),
                                                    float(d[0, :k].mean()), checks, float(d[0, :k].std(ddof=1)),
                                                    0.0, 1.0, 0.05, 0.05, seed=i, paths=500)
        naive.append(d[0, :k].mean())
        corrected.append(est)
        covered += low <= 1.0 <= high
    assert abs(np.median(corrected) - 1.0) < abs(np.median(naive) - 1.0)
    assert covered >= 20  # a 95% interval, 24 tries


def test_compare_decides_expert_beats_random():
    res = sequential.compare("greedy", "random", "basic", field=["greedy"], improvement=1.0, batch=40, max_games=400, seed=3)
    assert res.decision == "better" and res.games <= 400
    assert res.low < res.estimate < res.high and res.low > 0
    assert "games used" in str(res)


# ------------------------------------------------------------------ tuner


def _toy(params):
    # Known optimum: near_weight = 3, discard = 1; noise of sd 0.3.
    noise = np.random.default_rng(int(params["near_weight"] * 1e6) % 2**32).normal(0, 0.3)
    return -(params["near_weight"] - 3.0) ** 2 - 4 * (params["discard"] - 1) ** 2 + noise


def test_tuner_finds_the_optimum_of_a_noisy_toy(tmp_path):
    space = tuning.parse_space(["near_weight=0:10", "discard=0:2"])
    study = tuning.search(_toy, space, 40, tmp_path / "toy.db", seed=3)
    best = study.best_params
    assert abs(best["near_weight"] - 3.0) < 1.0 and best["discard"] == 1


def test_an_interrupted_tune_resumes_without_losing_a_finished_trial(tmp_path):
    db, log = tmp_path / "study.db", tmp_path / "calls.txt"
    script = textwrap.dedent(f"""
        import time
        from experiments import tuning
        def objective(params):
            with open({str(log)!r}, "a") as f:
                f.write(repr(params["near_weight"]) + "\\n")
            time.sleep(0.3)
            return -(params["near_weight"] - 3.0) ** 2
        tuning.search(objective, {{"near_weight": (0.0, 10.0)}}, 1000, {str(db)!r}, seed=1)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env)
    deadline = time.time() + 120
    while time.time() < deadline and (not log.exists() or len(log.read_text().split()) < 4):
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    first_calls = log.read_text().split()
    assert len(first_calls) >= 4
    import optuna
    from optuna.trial import TrialState

    before = optuna.load_study(study_name="tune", storage=f"sqlite:///{db}")
    finished = {t.number: t.value for t in before.trials if t.state == TrialState.COMPLETE}
    assert len(finished) >= 3
    # Killed while its fourth evaluation slept: that trial is left running.
    interrupted = [t.params["near_weight"] for t in before.trials if t.state == TrialState.RUNNING]
    assert len(interrupted) == 1
    calls = []

    def objective(params):
        calls.append(params["near_weight"])
        return -(params["near_weight"] - 3.0) ** 2

    study = tuning.search(objective, {"near_weight": (0.0, 10.0)}, len(finished) + 3, db, seed=1)
    done = [t for t in study.trials if t.state == TrialState.COMPLETE]
    assert len(done) == len(finished) + 3
    # The finished evaluations are kept as they were; only the missing ones ran.
    assert {t.number: t.value for t in done if t.number in finished} == finished
    assert len(calls) == 3
    # The trial killed mid-evaluation is marked failed and its point evaluated again first.
    assert [t.params["near_weight"] for t in study.trials if t.state == TrialState.FAIL] == interrupted
    assert calls[0] == interrupted[0]
    # rami info sums the search up from its study file.
    info = CliRunner().invoke(main, ["info", str(tmp_path)])
    assert info.exit_code == 0, info.output
    assert f"trials {len(finished) + 3} complete, 1 fail" in info.output and "best -" in info.output


def test_resuming_with_another_config_is_refused(tmp_path):
    tuning.search(lambda p: 0.0, {"near_weight": (0.0, 1.0)}, 1, tmp_path / "s.db", key="a")
    with pytest.raises(ValueError, match="other settings"):
        tuning.search(lambda p: 0.0, {"near_weight": (0.0, 1.0)}, 2, tmp_path / "s.db", key="b")


def test_parse_space_names_the_problem():
    with pytest.raises(ValueError, match="unknown strategy parameter 'nope'"):
        tuning.parse_space(["nope=0:1"])
    with pytest.raises(ValueError, match="name=low:high"):
        tuning.parse_space(["near_weight=3"])
    with pytest.raises(ValueError, match="must satisfy"):
        tuning.parse_space(["may_i=0:9"])


# ------------------------------------------------------------------ strategy files


def test_strategy_file_loads_by_path_and_plays_like_its_parameters(tmp_path):
    s = strategies.get("greedy").with_params(near_weight=4.5, discard=1)
    path = files.save(type(s)("mine", s.kind, s.params), tmp_path / "mine.toml", description="test")
    loaded = strategies.get(str(path))
    assert loaded.name == "mine" and loaded.params == s.params
    a = sim.simulate("basic", [str(path), "greedy"], n_games=20, seed=1)
    b = sim.simulate("basic", ["greedy:near_weight=4.5,discard=1", "greedy"], n_games=20, seed=1)
    assert a["points"].to_list() == b["points"].to_list()
    assert set(a["strategy"].unique().to_list()) == {"mine", "greedy"}
    with pytest.raises(ValueError, match="cannot read strategy file"):
        strategies.get(str(tmp_path / "missing.toml"))
    (tmp_path / "bad.toml").write_text('name = "x"\n[params]\nmay_i = 7\n')
    with pytest.raises(ValueError, match="bad.toml.*may_i"):
        strategies.get(str(tmp_path / "bad.toml"))


def test_registered_tuned_strategies_load_by_name_and_are_listed():
    assert {"expert-contrat", "expert-basic"} <= set(files.registered())
    for name in files.registered():
        s = strategies.get(name)
        assert s.name == name and s.kind == strategies.KIND_HEURISTIC
    import json

    listing = json.loads(CliRunner().invoke(main, ["strategies", "--json"]).output)
    assert [t["name"] for t in listing["tuned"]] == list(files.registered())
    expert = next(e for e in listing["strategies"] if e["name"] == "expert")
    assert expert["per_game"]["contrat"]["may_i"] == 0


def test_expert_plays_its_games_parameters():
    expert = strategies.get("expert")
    for game, params in expert.per_game.items():
        played = expert.for_game(game)
        assert played.name == "expert"
        assert all(played.params[k] == v for k, v in params.items())
    # An explicit change holds in every game.
    changed = strategies.get("expert:near_weight=7")
    assert all(changed.for_game(g).params["near_weight"] == 7 for g in ("rami51", "contrat", "basic"))


def test_the_experts_game_table_is_its_tuned_files():
    expert = strategies.get("expert")
    for game in ("contrat", "basic"):
        assert expert.for_game(game).params == strategies.get(f"expert-{game}").params
    assert expert.for_game("rami51").params == expert.params
    sims = [sim.simulate("contrat", [s, "greedy", "greedy"], n_games=5, seed=2)["points"].to_list()
            for s in ("expert", "expert-contrat")]
    assert sims[0] == sims[1]


def test_may_i_3_asks_only_before_the_players_contract():
    asked_before = 0
    for game in range(3):
        events = sim.play_traced("contrat", ["greedy:may_i=3", "greedy", "greedy"], seed=4, game=game)
        opened: set[int] = set()
        for e in events[1:]:
            if e["type"] == "deal":
                opened = set()
            elif e["type"] == "open":
                opened.add(e["seat"])
            elif e["type"] == "may_i" and e["seat"] == 0:
                assert 0 not in opened, e
                asked_before += 1
    assert asked_before > 0  # it still asks while its contract is not laid


# ------------------------------------------------------------------ identity, not name


def test_a_strategy_is_told_apart_by_its_parameters_not_its_name():
    # The expert's parameters under the name "greedy", against a greedy field: every rotation is
    # its own game, exactly as when the expert sits under its own name.
    r = sim.rules.as_ruleset("basic").replace(players=3)
    disguised = tournament.renamed(strategies.get("expert").for_game("basic"), "greedy")
    a = tournament.play_table(r, [disguised, "greedy", "greedy"], 5, 0, 30)
    b = tournament.play_table(r, [strategies.get("expert").for_game("basic"), strategies.get("greedy"),
                                  strategies.get("greedy")], 5, 0, 30)
    key = ["rotation", "game", "round", "seat"]
    assert a.sort(key)["points"].to_list() == b.sort(key)["points"].to_list()
    assert a.sort(key)["strategy_index"].to_list() == b.sort(key)["strategy_index"].to_list()
    assert tournament.identity(disguised, "basic") != tournament.identity(strategies.get("greedy"), "basic")
    assert tournament.identity(tournament.renamed("greedy", "copy"), "basic") == \
        tournament.identity(strategies.get("greedy"), "basic")


def test_compare_refuses_two_strategies_that_play_alike():
    for a, b in [("expert", "expert"), ("greedy", tournament.renamed("greedy", "other"))]:
        with pytest.raises(ValueError, match="play exactly alike"):
            sequential.compare(a, b, "basic", field=["greedy"], max_games=100)


# ------------------------------------------------------------------ tuner guards


def test_a_resumed_search_proposes_new_points(tmp_path):
    space = {"near_weight": (0.0, 10.0)}
    first = tuning.search(lambda p: -p["near_weight"], space, 4, tmp_path / "a.db", seed=2)
    seen = [t.params["near_weight"] for t in first.trials]
    resumed = tuning.search(lambda p: -p["near_weight"], space, 8, tmp_path / "a.db", seed=2)
    new = [t.params["near_weight"] for t in resumed.trials][4:]
    assert len(new) == 4 and not set(new) & set(seen)


def test_trials_that_play_alike_are_not_played_again(tmp_path):
    calls = []

    def objective(params):
        calls.append(params)
        return params["discard"]

    # near_weight is read only from discard 1 on: with discard 0 every near_weight plays alike.
    study = tuning.search(objective, {"discard": (0, 1), "near_weight": (0.0, 10.0)}, 12, tmp_path / "s.db",
                          seed=1, plays_like=lambda p: tuning.effective_params(p))
    finished = [t for t in study.trials if t.value is not None]
    assert len(finished) == 12
    played = {tuning.effective_params(p) for p in calls}
    assert len(calls) == len(played)  # each way of playing once
    for t in finished:
        if "plays_like" in t.user_attrs:
            earlier = study.trials[t.user_attrs["plays_like"]]
            assert tuning.effective_params(earlier.params) == tuning.effective_params(t.params)
            assert earlier.value == t.value


def test_unopened_keep_is_dropped_where_no_judgement_reads_it():
    # penalty_share counts an unopened hand's penalties by unopened_keep only under a judgement (discard 1 or
    # 2): with discard 0 every unopened_keep plays alike, so the tuner counts them as one candidate.
    assert tuning.effective_params({"discard": 0, "unopened_keep": 0.5}) == \
        tuning.effective_params({"discard": 0, "unopened_keep": 2.5}) == (("discard", 0),)
    assert tuning.effective_params({"discard": 1, "unopened_keep": 0.5}) != \
        tuning.effective_params({"discard": 1, "unopened_keep": 2.5})
    kept = sim.simulate("rami51", ["greedy:discard=0,unopened_keep=2.5", "greedy"], n_games=30, seed=4)
    plain = sim.simulate("rami51", ["greedy:discard=0", "greedy"], n_games=30, seed=4)
    assert kept.drop("strategy").equals(plain.drop("strategy"))
    judged = sim.simulate("rami51", ["greedy:discard=1,unopened_keep=2.5", "greedy"], n_games=30, seed=4)
    assert not judged.drop("strategy").equals(
        sim.simulate("rami51", ["greedy:discard=1", "greedy"], n_games=30, seed=4).drop("strategy"))


def test_a_start_outside_the_ranges_is_refused_before_any_game(tmp_path, monkeypatch):
    monkeypatch.setattr(tuning, "evaluate", lambda *a, **k: pytest.fail("a game was played"))
    config = tuning.TuneConfig(start="greedy", space={"near_weight": (1.0, 5.0)}, ruleset="basic")
    with pytest.raises(ValueError, match="near_weight=0 in basic, outside the range"):
        tuning.tune(config, tmp_path / "study.db")
    assert not (tmp_path / "study.db").exists()


def test_resume_ignores_the_confirmation_settings_and_refuses_others_before_any_game(tmp_path, monkeypatch):
    base = tuning.TuneConfig(start="greedy", space={"near_weight": (0.0, 5.0)}, ruleset="basic")
    same = dataclasses.replace(base, confirm_games=100, top=1, improvement=2.0, max_games=500, trials=50)
    assert same.key() == base.key()
    tuning.search(lambda p: 0.0, base.space, 1, tmp_path / "s.db", study_name=base.name, key=base.key())
    other = dataclasses.replace(base, games=100)
    monkeypatch.setattr(tuning, "evaluate", lambda *a, **k: pytest.fail("a game was played"))
    with pytest.raises(ValueError, match="other settings"):
        tuning.tune(other, tmp_path / "s.db")
    (tmp_path / "junk.db").write_text("not a database")
    with pytest.raises(ValueError, match="not a study file"):
        tuning.tune(base, tmp_path / "junk.db")


def test_parse_space_refuses_a_parameter_twice_and_fractional_choice_bounds():
    with pytest.raises(ValueError, match="given twice"):
        tuning.parse_space(["near_weight=0:1", "near_weight=0:2"])
    with pytest.raises(ValueError, match="whole numbers"):
        tuning.parse_space(["discard=0.5:2"])
    with pytest.raises(ValueError, match="must satisfy"):
        tuning.parse_space(["near_weight=0:inf"])


def test_a_wins_tune_confirms_in_wins_and_writes_every_trial(tmp_path):
    # The expert in basic rummy discards by mode 2, which reads feed_weight: every trial plays its own way.
    config = tuning.TuneConfig(start="expert", space={"feed_weight": (0.0, 20.0)},
                               ruleset="basic", field=("greedy",), objective="wins", trials=4, games=40, top=1,
                               confirm_games=40, max_games=120, name="wins")
    res = tuning.tune(config, tmp_path / "study.db", tmp_path)
    assert res.confirmation.objective == "wins"
    assert res.confirmation.improvement == 0.02
    assert -1 <= res.confirmation.estimate <= 1
    table = pl.read_csv(tmp_path / "trials.csv")
    assert table.height == 4 and set(table.columns) >= {"trial", "feed_weight", "gain", "games"}
    assert table["games"].sum() == 40 * (table["plays_like"].is_null().sum())
