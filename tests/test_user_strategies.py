"""User strategies written in Python (strategies.user), called from the engine."""

from __future__ import annotations

import dataclasses

import pytest

import sim
import strategies
from sim.engine.layout import N_PUB, N_VIEW, V_STOCK
from sim.observation import Observation
from sim.rules.replay import check_trace
from strategies.user import PythonPolicy, View, register


class Hoarder(PythonPolicy):
    """Greedy, but throws its lowest free card (the example of the docs)."""

    base = "greedy"

    def discard(self, view, choices):
        free = [c for c in choices if not c.in_meld and not c.card.is_joker] or choices
        return min(free, key=lambda c: c.penalty).card


class Cheater(PythonPolicy):
    """Returns a card it may not discard."""

    def discard(self, view, choices):
        from sim.cards import Card

        return next(Card(c) for c in range(52) if Card(c) not in view.hand)  # a card it does not hold


class Spy(PythonPolicy):
    """Records what it is shown."""

    seen: list = []

    def take(self, view, card, completes, fits_table):
        Spy.seen.append(view)
        return super().take(view, card, completes, fits_table)


register("hoarder", Hoarder())
register("python-greedy", PythonPolicy())
register("python-expert", type("PyExpert", (PythonPolicy,), {"base": "expert", "__doc__": "expert, in Python"})())
register("cheater", Cheater())
register("spy", Spy())


def test_a_policy_that_changes_nothing_plays_exactly_like_its_base():
    ours = sim.simulate("rami51", ["python-greedy", "greedy", "python-expert"], n_games=15, seed=8)
    base = sim.simulate("rami51", ["greedy", "greedy", "expert"], n_games=15, seed=8)
    assert ours.drop("strategy").equals(base.drop("strategy"))


def test_the_documented_example_plays_legal_games():
    df = sim.simulate("rami51", ["hoarder", "greedy", "greedy", "greedy"], n_games=30, seed=1, rotate=True)
    assert set(df["strategy"].unique()) == {"hoarder", "greedy"}
    for game in range(3):
        check_trace(sim.play_traced("rami51", ["hoarder", "random", "greedy"], seed=2, game=game))
    check_trace(sim.play_traced("contrat", ["hoarder", "greedy", "greedy"], seed=2, max_rounds=2))


def test_an_illegal_answer_is_refused_with_the_policy_named():
    with pytest.raises(Exception, match="Cheater.discard returned"):
        sim.simulate("rami51", ["cheater", "greedy"], n_games=3, seed=1)


def test_a_python_policy_sees_only_its_own_hand_and_public_counts():
    Spy.seen.clear()
    sim.simulate("rami51", ["spy", "greedy", "greedy"], n_games=3, seed=5)
    assert Spy.seen
    for view in Spy.seen:
        assert view.seat == 0 and len(view.hand) >= 1
        # It holds the hand's words and the engine's public arrays, nothing else; the rest is read from them.
        assert [f.name for f in dataclasses.fields(view)] == ["lo", "hi", "view", "pub"]
        assert isinstance(view, View) and View is Observation
        assert view.view.shape == (N_VIEW,) and view.pub.shape == (N_PUB, 53)
        for name in ("next_seat", "opened", "threshold", "stock", "table_takes", "table_takes_joker"):
            getattr(view, name)
        assert view.table.shape == view.pile.shape == (53,) and view.took.shape == (6, 53)
        assert view.opened_seats.shape == (6,) and view.opened_seats[0] == view.opened
        assert view.stock + sum(view.pile) + sum(view.table) + len(view.hand) <= 108


def test_a_view_kept_stays_what_the_seat_saw():
    # The engine writes on into its arrays after the decision: a view a policy keeps is a copy.
    kept = []

    class Keeper(PythonPolicy):
        """Greedy, keeping every view it is shown with what it held then."""

        def discard(self, view, choices):
            kept.append((view, view.pub.copy(), view.view.copy()))
            return super().discard(view, choices)

    register("keeper-of-views", Keeper())
    sim.simulate("rami51", ["keeper-of-views", "greedy"], n_games=2, seed=3)
    assert len({int(view.stock) for view, _, _ in kept}) > 1
    for view, pub, scalars in kept:
        assert (view.pub == pub).all() and (view.view == scalars).all() and view.stock == scalars[V_STOCK]


def test_a_policy_that_changes_its_view_changes_nothing_its_base_reads():
    class Scribbler(PythonPolicy):
        """Greedy, after writing over the counts it was shown."""

        def take(self, view, card, completes, fits_table):
            view.table[:] = 2
            view.pile[:] = 0
            view.took[:] = 1
            return super().take(view, card, completes, fits_table)

    register("scribbler", Scribbler())
    ours = sim.simulate("rami51", ["scribbler", "greedy"], n_games=10, seed=6)
    base = sim.simulate("rami51", ["greedy", "greedy"], n_games=10, seed=6)
    assert ours.drop("strategy").equals(base.drop("strategy"))


def test_registering_checks_names():
    with pytest.raises(ValueError, match="built-in"):
        register("greedy", PythonPolicy())
    with pytest.raises(ValueError, match="without ':'"):
        register("a:b", PythonPolicy())
    with pytest.raises(TypeError, match="PythonPolicy"):
        register("thing", object())
    with pytest.raises(ValueError, match="no parameters"):
        strategies.get("hoarder").with_params(jokers=1)
