"""Game records (:mod:`sim.game_record`): one seat's game written down, read back and checked, and the seat's
view at each of its decisions equal to the lab's own."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import sim
from sim.analysis.analyse import walk
from sim.cli import main
from sim.game_record import RecordError, parse_record, seat_decisions, with_decision, write_record


def _game(preset: str, players: int, seed: int, rounds: int) -> list[dict]:
    return sim.play_traced(preset, ["expert"] * players, seed=seed, max_rounds=rounds)


@pytest.mark.parametrize("preset,players,seed,seat,rounds", [("rami51", 4, 3, 1, 2), ("contrat", 4, 3, 2, 2),
                                                             ("basic", 3, 3, 0, 3), ("rami51", 2, 7, 1, 3)])
def test_the_seat_sees_from_its_record_what_the_lab_shows_it_at_every_decision(preset, players, seed, seat, rounds):
    # A record holds only what its seat saw; the view built from it at each of the seat's decisions is the view
    # the lab's position gives that seat there, field by field (the belief rollouts read nothing else).
    events = _game(preset, players, seed, rounds)
    record = parse_record(write_record(events, seat))
    steps = iter([s for s in walk(events) if s.position.seat == seat])
    compared = 0
    for point in seat_decisions(record):
        for step in steps:
            decision = step.position.decision
            assert with_decision(point.view, decision) == step.position.view(seat), (point.entry.line, decision)
            compared += 1
            if point.played is None and decision == "lay":  # the laying ends by stop, then the throw
                assert step.played == "stop"
                continue
            assert step.played == (point.played if point.played is not None else point.card)
            break
    assert next(steps, None) is None and compared > 30


def test_a_record_reads_back_in_ascii_and_as_written():
    events = _game("contrat", 4, 3, 1)
    text = write_record(events, 2)
    def seen(record_text: str) -> list:
        return [(p.view, p.played, p.card) for p in seat_decisions(parse_record(record_text))]

    assert seen(write_record(events, 2, ascii=True)) == seen(text)
    assert "★" in text and "JK" in write_record(events, 2, ascii=True)


BASE = write_record(_game("rami51", 3, 3, 1), 1)


@pytest.mark.parametrize("old,new,line,column,words", [
    ("hand: A♣ 6♣ 6♦", "hand: 6♣ 6♦", 8, 7, "12 cards, but seat 1 is dealt 13"),
    ("hand: A♣ 6♣ 6♦", "hand: A♣ 6♠ 6♠", 8, 7, "3 copies of 6♠"),
    ("1 threw A♣", "1 threw 7♣", 13, 9, "holds no 7♣ to throw"),
    ("1 took Q♣", "1 took Q♠", 18, 8, "the pile's top is Q♣, not Q♠"),
    ("1 open Q♣ Q♦ Q♥ + 6♣ 6♦ 6♠", "1 open Q♣ Q♦ Q♥ + 6♣ 6♦ 5♠", 19, 19, "6♣ 6♦ 5♠ is not a meld"),
    ("1 drew 2♣", "1 drew 2X", 12, 8, "unknown suit"),
    ("0 drew\n0 threw 9♥", "1 drew 2♣\n0 threw 9♥", 10, 1, "it is seat 0's turn"),
    ("score: 0 2 16\n", "", 75, 1, "no 'score:' line"),
    ("seat: 1\n", "", 2, 1, "missing head line 'seat:'"),
    ("pile: 4♦\n", "", 9, 1, "missing 'pile:'"),
    ("1 open Q♣ Q♦ Q♥ + 6♣ 6♦ 6♠ + ★ K♥ K♠", "1 open Q♣ Q♦ Q♥ + 6♣ 6♦ 6♠", 19, 1, "worth 48 points; it needs 51"),
    ("1 meld 2♣ 2♦ 2♠", "1 meld 2♣ 2♦ 2♠ 2♥", 46, 1, "holds no 2♥ to lay"),
    ("1 drew 2♣", "1 drew", 12, 7, "names its card"),
    ("0 drew\n0 threw 9♥", "0 drew 3♥\n0 threw 9♥", 10, 8, "unseen"),
    ("0 add K♣ to 2", "0 add K♣ to 12", 72, 1, "no meld 12"),
    ("1 threw 9♣", "1 frobbed 9♣", 27, 1, "no line of a record"),
])
def test_a_record_that_cannot_happen_names_its_line_and_column(old, new, line, column, words):
    text = BASE.replace(old, new, 1)
    assert text != BASE
    with pytest.raises(RecordError) as caught:
        parse_record(text)
    assert words in str(caught.value), str(caught.value)
    assert (caught.value.line, caught.value.column) == (line, column), str(caught.value)


def test_rami_record_prints_the_record_of_a_traced_game_or_of_a_trace_file(tmp_path):
    runner = CliRunner()
    ran = runner.invoke(main, ["record", "--strategies", "expert,expert,expert", "--seed", "3", "--max-rounds", "1",
                               "--seat", "1"])
    assert ran.exit_code == 0, ran.output
    assert ran.output == BASE
    refused = runner.invoke(main, ["record", "--seat", "7"])
    assert refused.exit_code == 2 and refused.output.strip().splitlines() == [
        "Error: --seat 7: seat 7 is out of range: the game has seats 0 to 3"]
