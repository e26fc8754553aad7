"""The supply and the cards: drawing (replayed from a script while it lasts), refilling
the display, spending and discarding cards, and the sections a return commitment may name.
"""

from sim.core import H_RNG_LO, kernel, shuffle_range
from sim.ming_dynasty.layout import (
    CARD_D,
    CITY,
    COMMIT_SEC_BASE,
    DECK,
    DISPLAY,
    DPP,
    F_HAND,
    G_DECK_N,
    G_DECK_PTR,
    G_DISCARD,
    G_DISCARD_D,
    G_DRAGON_SUPPLY,
    G_LOG_N,
    G_RESHUFFLES,
    G_SCRIPT_N,
    LOG,
    MAX_DRAWS,
    N_ENT,
    N_SYM,
    O_STAY_DRAGON,
)
from sim.ming_dynasty.rules.helpers import pb


@kernel
def draw_card(s):
    """Top card of the supply (reshuffling the discards when it is empty, D10); -1 if none.

    A replay built from chance outcomes scripts the symbols drawn (LOG[:G_SCRIPT_N]): the
    scripted symbol is taken out of the supply wherever it lies.
    """
    if s[G_DECK_PTR] >= s[G_DECK_N]:
        k = 0
        for sym in range(N_SYM):
            for _ in range(s[G_DISCARD + sym]):
                s[DECK + k] = sym
                k += 1
            s[G_DISCARD + sym] = 0
        for _ in range(s[G_DISCARD_D]):  # stay_dragon = discard_pile (D15): dragons join the deck
            s[DECK + k] = CARD_D
            k += 1
        s[G_DISCARD_D] = 0
        if k == 0:
            return -1
        shuffle_range(s, DECK, DECK + k, s, H_RNG_LO)
        s[G_DECK_PTR] = 0
        s[G_DECK_N] = k
        s[G_RESHUFFLES] += 1
    i = s[G_DECK_PTR]
    if s[G_LOG_N] < s[G_SCRIPT_N]:
        want = s[LOG + s[G_LOG_N]]
        for j in range(i, s[G_DECK_N]):
            if s[DECK + j] == want:
                s[DECK + j] = s[DECK + i]
                s[DECK + i] = want
                break
    c = s[DECK + i]
    s[G_DECK_PTR] = i + 1
    if s[G_LOG_N] < MAX_DRAWS:
        s[LOG + s[G_LOG_N]] = c
        s[G_LOG_N] += 1
    return c


@kernel
def refill(s, slot):
    s[DISPLAY + slot] = draw_card(s)


@kernel
def spend_card(s, p, kind):
    """A card leaves the hand: movement cards to the discard pile, dragons to their supply (D15)."""
    s[pb(p) + F_HAND + kind] -= 1
    if kind == CARD_D:
        s[G_DRAGON_SUPPLY] += 1
    else:
        s[G_DISCARD + kind] += 1


@kernel
def stay_discard(s, p, kind):
    """STAY's card: as ``spend_card``, except that under ``stay_dragon = discard_pile`` a dragon
    goes onto the discard pile as the STAY paragraph says (D15 alternative), and is reshuffled
    into the movement deck with the other discards."""
    if kind == CARD_D and s[O_STAY_DRAGON] == 1:
        s[pb(p) + F_HAND + kind] -= 1
        s[G_DISCARD_D] += 1
    else:
        spend_card(s, p, kind)


@kernel
def commit_sec_legal(s, prov, p, code):
    """Under ``return_choice = in_commitment`` (D3 alternative): does ``code`` (r_0 + 3 r_1 +
    9 r_2) return at most the members ``p`` has in each section of province ``prov``?"""
    for j in range(DPP):
        r = code % COMMIT_SEC_BASE
        code //= COMMIT_SEC_BASE
        if r > s[CITY + (prov * DPP + j) * N_ENT + p]:
            return False
    return True


@kernel
def commit_sec_total(code):
    k = 0
    for _ in range(DPP):
        k += code % COMMIT_SEC_BASE
        code //= COMMIT_SEC_BASE
    return k
