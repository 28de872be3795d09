"""Event rows of a traced game turned into readable dicts (``docs/trace.md``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.cards import JOKER, Card
from sim.cards import format as format_cards
from sim.engine import play as engine_play
from sim.engine.bits import code_at as _code_at
from sim.engine.hand_melds import KIND_RUN
from sim.engine.layout import OPEN_ALL
from sim.rules.facts import BLOCKED_REASONS

_ENDS = {0: "low", 1: "high", 2: None}
_RESTOCK = {0: "reshuffle", 1: "turn", 2: "flip"}
_BLOCKED = dict(enumerate(BLOCKED_REASONS))  # the engine writes each reason as its index there


def meld_cards(kind: int, key: int, start: int, end: int, jpos: int, joker: int) -> tuple[str, str | None]:
    """A table meld's cards in notation (``★`` at the joker's place) and the joker's card."""
    if kind == KIND_RUN:
        text = [
            "★" if joker and p == jpos else Card(int(_code_at(key, p))).text()
            for p in range(start, end + 1)
        ]
        stands = Card(int(_code_at(key, jpos))).text() if joker else None
        return " ".join(text), stands
    text = []
    for suit in range(4):
        if start & (1 << suit):
            text.append(Card(suit * 13 + key - 1).text())
        elif joker and suit == jpos:
            text.append("★")
    stands = Card(jpos * 13 + key - 1).text() if joker else None
    return " ".join(text), stands


def _card(code: int) -> str:
    return Card(int(code)).text()


def events_to_dicts(rows: np.ndarray, players: int) -> list[dict[str, Any]]:
    """Group the kernel's event rows into the events of ``docs/trace.md``."""
    out: list[dict[str, Any]] = []
    i = 0
    n = len(rows)

    def cards_after(j: int) -> tuple[dict[int, list[int]], int]:
        places: dict[int, list[int]] = {}
        while j < n and rows[j, 0] == engine_play.EV_CARD:
            places.setdefault(int(rows[j, 2]), []).append(int(rows[j, 3]))
            j += 1
        return places, j

    def seat_cards(places: dict[int, list[int]]) -> list[str]:
        return [format_cards(places.get(s, [])) for s in range(players)]

    while i < n:
        r = rows[i]
        t = int(r[0])
        rnd = int(r[1])
        if t == engine_play.EV_DEAL:
            places, i = cards_after(i + 1)
            out.append({
                "type": "deal", "round": rnd, "first": int(r[2]), "hands": seat_cards(places),
                "stock": format_cards(places.get(engine_play.WHERE_STOCK, [])),
                "pile": format_cards(places.get(engine_play.WHERE_PILE, [])),
            })
            continue
        if t == engine_play.EV_RESTOCK:
            places, i = cards_after(i + 1)
            out.append({
                "type": "restock", "round": rnd, "mode": _RESTOCK[int(r[2])],
                "stock": format_cards(places.get(engine_play.WHERE_STOCK, [])),
                "pile": format_cards(places.get(engine_play.WHERE_PILE, [])),
            })
            continue
        if t == engine_play.EV_DRAW:
            out.append({"type": "draw", "round": rnd, "seat": int(r[2]),
                        "source": "discard" if r[3] else "stock", "card": _card(r[4])})
        elif t == engine_play.EV_OPEN:
            melds = []
            for j in range(int(r[5])):
                m = rows[i + 1 + j]
                text, stands = meld_cards(*(int(v) for v in m[4:10]))
                melds.append({"id": int(m[3]), "cards": text, "stands_for": stands})
            out.append({"type": "open", "round": rnd, "seat": int(r[2]), "melds": melds,
                        "points": int(r[3]), "lay_all": int(r[4]) == OPEN_ALL})
            i += 1 + int(r[5])
            continue
        elif t == engine_play.EV_MELD:
            text, stands = meld_cards(*(int(v) for v in r[4:10]))
            out.append({"type": "meld", "round": rnd, "seat": int(r[2]), "id": int(r[3]),
                        "cards": text, "stands_for": stands})
        elif t == engine_play.EV_ADD:
            code = int(r[4])
            out.append({"type": "add", "round": rnd, "seat": int(r[2]), "id": int(r[3]),
                        "card": _card(code), "end": _ENDS[int(r[5])],
                        "stands_for": _card(r[6]) if code == int(JOKER) else None})
        elif t == engine_play.EV_RECOVER:
            out.append({"type": "recover", "round": rnd, "seat": int(r[2]), "id": int(r[3]),
                        "card": _card(r[4])})
        elif t == engine_play.EV_MAY_I:
            out.append({"type": "may_i", "round": rnd, "seat": int(r[2]), "card": _card(r[3]),
                        "penalty": _card(r[4])})
        elif t == engine_play.EV_DISCARD:
            out.append({"type": "discard", "round": rnd, "seat": int(r[2]), "card": _card(r[3])})
        elif t == engine_play.EV_OUT:
            out.append({"type": "out", "round": rnd, "seat": int(r[2]), "how": "discard" if r[3] else "lay"})
        elif t == engine_play.EV_BLOCKED:
            out.append({"type": "blocked", "round": rnd, "reason": _BLOCKED[int(r[2])]})
        elif t == engine_play.EV_ROUND_END:
            j = i + 1
            points, totals, opened = [], [], []
            hands: dict[int, list[int]] = {}
            while j < n and rows[j, 0] in (engine_play.EV_SEAT, engine_play.EV_CARD):
                if rows[j, 0] == engine_play.EV_SEAT:
                    points.append(int(rows[j, 3]))
                    totals.append(int(rows[j, 4]))
                    opened.append(bool(rows[j, 5]))
                else:
                    hands.setdefault(int(rows[j, 2]), []).append(int(rows[j, 3]))
                j += 1
            winner = int(r[2])
            out.append({"type": "round_end", "round": rnd, "winner": None if winner < 0 else winner,
                        "rami_sec": bool(r[3]), "hands": seat_cards(hands), "opened": opened,
                        "points": points, "totals": totals})
            i = j
            continue
        elif t == engine_play.EV_GAME_END:
            j = i + 1
            totals = []
            while j < n and rows[j, 0] == engine_play.EV_SEAT:
                totals.append(int(rows[j, 4]))
                j += 1
            winner = int(r[2])
            out.append({"type": "game_end", "rounds": int(r[1]), "winner": None if winner < 0 else winner,
                        "truncated": bool(r[3]), "totals": totals})
            i = j
            continue
        else:
            raise ValueError(f"unknown event row type {t} at row {i}")
        i += 1
    return out
