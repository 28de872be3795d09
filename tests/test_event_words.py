"""An event in words: a trace's event, a record's line and the play page's log word one move alike."""

from __future__ import annotations

from sim import event_words
from sim.advice import describe
from sim.play.game import say


def test_a_move_is_worded_alike_from_a_trace_and_from_a_record():
    # The same moves, as a trace writes them and as seat 0's record writes them (the play page's log).
    pairs = [
        ({"type": "draw", "seat": 2, "source": "discard", "card": "Q♣"}, "2 took Q♣"),
        ({"type": "draw", "seat": 2, "source": "stock", "card": "9♦"}, "2 drew 9♦"),
        ({"type": "discard", "seat": 2, "card": "5♠"}, "2 threw 5♠"),
        ({"type": "may_i", "seat": 2, "card": "7♣", "penalty": "2♦"}, "2 asks 7♣ penalty 2♦"),
        ({"type": "add", "seat": 2, "card": "7♣", "id": 2, "end": "high"}, "2 add 7♣ to 2 high"),
        ({"type": "blocked", "reason": "turn_cap"}, "blocked turn_cap"),
    ]
    for event, line in pairs:
        assert event_words.sentence(describe(event)) == say(line, 0), (event, line)


def test_a_phrase_speaks_of_a_seat_of_the_person_or_of_the_seat_it_is_about():
    assert event_words.drew("seat 1", "9♦") == "seat 1 draws 9♦ from the stock"
    assert event_words.drew(event_words.YOU, "9♦") == "you draw 9♦ from the stock"
    assert event_words.drew(None) == "draws from the stock"
    assert event_words.asked(event_words.YOU, "7♣") == "you say \"Puis-je ?\" and take 7♣ and a penalty card"
    assert event_words.went_out("seat 0", "discard") == "seat 0 goes out (discarding its last card)"
    event = {"type": "draw", "seat": 3, "source": "stock", "card": "K♠"}
    assert event_words.event_text(event, seat=3) == "draws K♠ from the stock"
    assert event_words.event_text(event, seat=1) == "seat 3 draws K♠ from the stock"


def test_rounds_are_counted_from_one_for_people():
    assert describe({"type": "deal", "round": 0, "first": 0, "pile": "4♥"}) == \
        "round 1 is dealt; seat 0 plays first, the pile shows 4♥"
    assert say("round 0", 1) == "Round 1 is dealt"
    assert event_words.round_ended([0, 25], 2, None, [40, 90]) == \
        "round 3 ends: nobody went out; points [0, 25], totals [40, 90]"
    assert event_words.round_ended([0, 25]) == "the round ends: points [0, 25]"
