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


@pytest.mark.parametrize("old,new,line,column,words", [
    # The seat's own points, as the rules score its last hand (it holds 2♣ when seat 0 goes out).
    ("score: 0 2 16", "score: 0 5 16", 75, 10, "seat 1 scores 2 points by the rules with 2♣ in hand, not 5"),
    # Rami 51 lays a card taken from the pile in the same turn (discard_take = must_use): seat 0 does not.
    ("0 took A♠\n0 add A♠ to 3\n", "0 took A♠\n", 37, 1, "took A♠ from the pile and ends its turn without laying"),
    # Nor is the card taken thrown in that turn, nor its twin (item 11).
    ("0 add A♠ to 3\n0 threw J♠", "0 add A♠ to 3\n0 threw A♠", 38, 9, "neither it nor its twin is thrown"),
    # The round ends the moment a seat holds no card, and only then is it scored.
    ("0 out\n", "1 drew 5♦\n", 74, 1, "the round is over: seat 0 has no card left"),
    ("0 threw 3♣\n0 out\n", "", 73, 1, "the round has not ended"),
    # The stock is rebuilt, and a round blocked, between two turns, as the rules say.
    ("1 drew 2♣\n", "1 drew 2♣\nrestock\n", 13, 1, "rebuilt between two turns"),
    ("1 drew 2♣\n", "1 drew 2♣\nblocked stock\n", 13, 1, "stops between two turns"),
    ("1 threw A♣\n", "1 threw A♣\nblocked stock\n", 14, 9, "the stock holds 66 cards"),
    ("1 threw A♣\n", "1 threw A♣\nblocked turn_cap\n", 14, 9, "after 2 turns; the cap is 1000"),
])
def test_a_record_that_breaks_the_rules_of_the_round_names_its_line_and_column(old, new, line, column, words):
    text = BASE.replace(old, new, 1)
    assert text != BASE
    with pytest.raises(RecordError) as caught:
        parse_record(text)
    assert words in str(caught.value), str(caught.value)
    assert (caught.value.line, caught.value.column) == (line, column), str(caught.value)


def _refused(text: str) -> RecordError:
    with pytest.raises(RecordError) as caught:
        parse_record(text)
    return caught.value


def test_a_laying_that_empties_the_hand_is_refused_where_the_last_card_is_thrown():
    # Seat 0 goes out by laying its last cards (Rami 51 at seed 1): under go_out = discard_only it may not.
    text = write_record(_game("rami51", 3, 1, 1), 0)
    parse_record(text)
    lines = text.splitlines()
    laid = next(n for n, t in enumerate(lines, start=1) if t.startswith("0 recover 9♥"))
    assert lines[laid] == "0 out"
    caught = _refused(text.replace("rules: rami51", "rules: rami51 go_out=discard_only"))
    assert (caught.line, caught.column) == (laid, 1) and "go_out = discard_only" in caught.reason


def test_the_first_seat_turns_and_the_pile_waits_for_the_restock():
    # Round 1 is played first by the seat after round 0's first (docs/rules.md item 23).
    text = write_record(_game("rami51", 3, 3, 2), 1)
    lines = text.splitlines()
    at = [n for n, t in enumerate(lines, start=1) if t.startswith("first:")]
    assert [lines[n - 1] for n in at] == ["first: 0", "first: 1"]
    caught = _refused("\n".join(lines[:at[1] - 1] + ["first: 2"] + lines[at[1]:]) + "\n")
    assert (caught.line, caught.column) == (at[1], 8) and "played first by seat 1" in caught.reason
    # Rami contrat turns its pile over once the stock is empty; nobody takes the pile's top before it.
    text = write_record(_game_of("contrat", ["greedy"] * 3, 12), 0)
    lines = text.splitlines()
    k = lines.index("restock")
    top = lines[k - 1].split()[-1]
    taker = lines[k + 1].split()[0]
    assert lines[k - 1].startswith("1 threw") and lines[k + 1] == f"{taker} drew"
    caught = _refused("\n".join(lines[:k - 1] + [lines[k - 1], f"{taker} took {top}"] + lines[k + 2:]) + "\n")
    assert (caught.line, caught.column) == (k + 1, 1) and "the stock is empty" in caught.reason


def _game_of(preset: str, strategies: list[str], seed: int) -> list[dict]:
    return sim.play_traced(preset, strategies, seed=seed, max_rounds=1)


def test_rami_record_prints_the_record_of_a_traced_game_or_of_a_trace_file(tmp_path):
    runner = CliRunner()
    ran = runner.invoke(main, ["record", "--strategies", "expert,expert,expert", "--seed", "3", "--max-rounds", "1",
                               "--seat", "1"])
    assert ran.exit_code == 0, ran.output
    assert ran.output == BASE
    refused = runner.invoke(main, ["record", "--seat", "7"])
    assert refused.exit_code == 2 and refused.output.strip().splitlines() == [
        "Error: --seat 7: seat 7 is out of range: the game has seats 0 to 3"]
