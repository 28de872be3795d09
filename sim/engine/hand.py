"""A hand's cards in the kernels: taking and dropping one, walking them, their penalty, and the near-card test.

A hand is the bitsets ``(lo, hi)`` of its naturals (a second bit for a
second copy), its jokers ``jk`` and its count ``n``; the seats' hands are
the arrays ``h_lo, h_hi, h_jk, h_n`` of the round state.

This module owns the hand's bitsets: :func:`hand_words` and
:func:`hand_codes` are the one conversion between card codes and those
words outside the kernels (the API, the strategies written in Python, the
tests and benchmarks call them), and the kernels change a hand one card at
a time through :func:`take_card` and :func:`drop_card` (``bits.add_card``
and ``bits.remove_card`` beneath). The pure-Python rules reference keeps
no bitsets (it reads hands as lists of cards), so it has no copy of these.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from sim.cards import N_NATURAL
from sim.engine.jit import kernel
from sim.engine.bits import JOKER, RANK_CARDS, SUIT_BITS, ZERO, add_card, bit, lowest, rank_of, remove_card, suit_of
from sim.engine.hand_melds import card_in_meld, joker_in_meld


def hand_words(codes: Iterable[int]) -> tuple[np.uint64, np.uint64, int]:
    """The words ``(lo, hi, jk)`` of a hand given as card codes (52, :data:`JOKER`, a joker).

    Raises ``ValueError`` for a third copy of a natural, which no word holds.
    """
    lo = hi = 0
    jk = 0
    for c in codes:
        c = int(c)
        if c == JOKER:
            jk += 1
        elif lo >> c & 1:
            if hi >> c & 1:
                raise ValueError(f"more than two copies of card code {c}")
            hi |= 1 << c
        else:
            lo |= 1 << c
    return np.uint64(lo), np.uint64(hi), jk


def hand_codes(lo: int | np.uint64, hi: int | np.uint64 = 0, jk: int = 0) -> list[int]:
    """The card codes of the hand ``(lo, hi, jk)``: ascending, a second copy beside the first, the jokers last.

    The reverse of :func:`hand_words`; ``hand_codes(mask)`` lists the naturals of a one-word mask.
    """
    lo, hi = int(lo), int(hi)
    codes = []
    for c in range(JOKER):
        codes += [c] * ((lo >> c & 1) + (hi >> c & 1))
    return codes + [JOKER] * int(jk)


@kernel
def next_card(x, joker_next):
    """One step through a hand's cards: the lowest natural of mask ``x``, then
    the joker when ``joker_next``; ``(-1, ...)`` when done. Returns
    ``(code, x, joker_next)`` to carry on with."""
    if x:
        return lowest(x), x & (x - np.uint64(1)), joker_next
    if joker_next:
        return JOKER, x, False
    return -1, x, False


@kernel
def take_card(h_lo, h_hi, h_jk, h_n, seat, code):
    if code == JOKER:
        h_jk[seat] += 1
    else:
        h_lo[seat], h_hi[seat] = add_card(h_lo[seat], h_hi[seat], code)
    h_n[seat] += 1


@kernel
def drop_card(h_lo, h_hi, h_jk, h_n, seat, code):
    if code == JOKER:
        h_jk[seat] -= 1
    else:
        h_lo[seat], h_hi[seat] = remove_card(h_lo[seat], h_hi[seat], code)
    h_n[seat] -= 1


@kernel
def card_penalty(code, rules):
    if code == JOKER:
        return rules.joker_penalty
    rank = rank_of(code)
    if rank == 1:
        return rules.ace_penalty
    return min(rank, 10)


@kernel
def hand_value(lo, hi, jk, rules):
    total = jk * rules.joker_penalty
    x = lo
    while x:
        c = lowest(x)
        v = card_penalty(c, rules)
        total += v
        if hi & bit(c):
            total += v
        x &= x - np.uint64(1)
    return total


def _near_cards_table() -> np.ndarray:
    """``NEAR_CARDS[ace_high, code]``: the naturals that can share a meld with natural ``code`` as its nearest partners.

    The other suits of its rank, and the cards of its suit up to two ranks
    away (the ace next to the two and, when it ranks high, to the king).
    A meld holding ``code`` holds one of them: a set another suit of the
    rank, a run (of three cards or more, one gap at most filled by a joker)
    a card at most two places away. So a hand without any of them cannot
    use ``code`` at all, which one bit test tells. Shape ``(2, 52)``, uint64
    masks of codes; a constant of the compiled code.
    """
    table = np.zeros((2, N_NATURAL), dtype=np.uint64)
    for ace_high in (0, 1):
        top = 14 if ace_high else 13
        for code in range(N_NATURAL):
            rank, suit = code % 13 + 1, code // 13
            mask = 0
            for s in range(4):
                if s != suit:
                    mask |= 1 << (s * 13 + rank - 1)
            for p in (rank, 14):
                if p == 14 and not (rank == 1 and ace_high):
                    continue
                for q in range(p - 2, p + 3):
                    if q != p and 1 <= q <= top and (q - 1) % 13 != rank - 1:
                        mask |= 1 << (suit * 13 + (q - 1) % 13)
            table[ace_high, code] = mask
    return table


NEAR_CARDS = _near_cards_table()


@kernel(forceinline=True)
def card_completes(lo, jk, top, rules):
    """Whether the pile's ``top`` sits in a meld of the hand ``(lo, jk)`` with it.

    :func:`card_in_meld`, answered first from the card's near partners
    (:data:`NEAR_CARDS`): most hands asked about most discards hold none.
    Inlined: a call would copy the rules, some thirty words, for a bit test.
    """
    if top == JOKER:
        return joker_in_meld(lo, rules.min_run, rules.ace_high)
    # Unsigned indices: a card code is never an index from the end, and numba tests a signed one for it.
    if (lo & NEAR_CARDS[np.uint64(1 if rules.ace_high else 0), np.uint64(top)]) == ZERO:
        return False
    if jk > 0:
        return card_in_meld(lo, jk, top, rules.min_run, rules.ace_high)
    # Without a joker, card_in_meld's answer from bit tests: two other suits
    # of the rank, or min_run positions in a row of the suit around the card.
    rank = rank_of(top) - 1
    suit = suit_of(top)
    others = lo & (RANK_CARDS << np.uint64(rank)) & ~bit(top)
    if (others & (others - np.uint64(1))) != ZERO:
        return True
    ranks = np.int64((lo >> np.uint64(13 * suit)) & SUIT_BITS) | (1 << rank)
    if rules.ace_high and (ranks & 1):
        ranks |= 1 << 13
    in_a_row = ranks  # bit s: positions s + 1 .. s + min_run all held
    for i in range(1, rules.min_run):
        in_a_row &= ranks >> i
    # The windows holding the card start at most min_run - 1 places below it
    # (the ace also at position 14 when it ranks high).
    below = (1 << rules.min_run) - 1
    windows = (below << rank) >> (rules.min_run - 1)
    if rank == 0 and rules.ace_high:
        windows |= (below << 13) >> (rules.min_run - 1)
    return (in_a_row & windows) != 0
