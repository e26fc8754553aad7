"""Build Middle Kingdom positions the way the rulebook describes them.

    >>> g = position(5, row=["Official", "Merchant", "Noble(3)", "Peasant"],
    ...              goals={"Emperor": 1, "Harvest": 2, "Palace": 4},
    ...              tableaux={1: ["General", "General"], 2: ["Peasant"] * 2, 4: ["Official"] * 2},
    ...              hands={2: [0, 2, 4]}, discards={2: [1, 3, 5, 6, 7]})

Cards are named as the text view names them ("Official", "Philosopher", "Peasant",
"Merchant", "Noble(2)" .. "Noble(4)", "General"), or given by id.  A tableau entry
``("Merchant", "General")`` is a Market Merchant lying on the Generals stack.  The
position starts at the beginning of a round (phase 1), with the given row; ``deck_top``
lists the next cards of the deck in order.
"""

from __future__ import annotations

import numpy as np

from sim.core import H_CURRENT
from sim.game import Game
from sim.middle_kingdom import layout as L
from sim.middle_kingdom.rules import advance, begin_round, pb, place_card, state_from_deck
from sim.middle_kingdom.view import GOAL_LABEL, STACK_LABEL, TYPE_LABEL, card_name
from sim.registry import get_game

HOST_NAMES = {n: i for i, n in enumerate(TYPE_LABEL)} | {n: i for i, n in enumerate(STACK_LABEL)}


def _bits(values) -> int:
    m = 0
    for v in values:
        m |= 1 << int(v)
    return m


class _Cards:
    """Hands out unused card ids by name."""

    def __init__(self, s: np.ndarray):
        self.s = s
        self.used: set[int] = set()

    def take(self, spec) -> int:
        if isinstance(spec, (int, np.integer)):
            c = int(spec)
            if c in self.used:
                raise ValueError(f"card {c} used twice")
            self.used.add(c)
            return c
        for c in range(L.N_DYN):
            if c not in self.used and card_name(self.s, c) == spec:
                self.used.add(c)
                return c
        raise ValueError(f"no unused card named {spec!r}")


def position(
    players: int,
    *,
    row=(),
    deck_top=(),
    goals=None,
    tableaux=None,
    hands=None,
    discards=None,
    stacks=None,
    tokens=None,
    lead: int = 0,
    round: int = 1,
    dragon: str | int | None = None,
    last_dragon=None,
    options=None,
    deck_size=None,
) -> Game:
    """A :class:`Game` at the start of a round in the described position.

    goals: {"Palace": seat, ...}; dragon: a seat (held), "display" or "set_aside";
    hands / discards: {seat: [values]} (other seats keep full hands); stacks: {seat: [v]}
    carried tie stacks; last_dragon: {seat: round}; deck_size: cards left in the deck
    after the row (default: all the rest).
    """
    spec = get_game("middle_kingdom")
    opt = spec.encode_options(options)
    probe = state_from_deck(np.int64(players), opt, np.arange(L.N_DYN, dtype=np.int32), np.int64(0))
    cards = _Cards(probe)
    owned = []  # (seat, card, host)
    for p, items in (tableaux or {}).items():
        for it in items:
            if isinstance(it, tuple):
                c = cards.take(it[0])
                owned.append((p, c, HOST_NAMES[it[1]]))
            else:
                c = cards.take(it)
                owned.append((p, c, int(probe[L.CARD_TYPE + c])))
    row_ids = [cards.take(r) for r in row]
    top_ids = [cards.take(r) for r in deck_top]
    rest = [c for c in range(L.N_DYN) if c not in cards.used]
    if deck_size is not None:
        spare = rest[: len(rest) - max(0, deck_size - len(top_ids))]
        rest = rest[len(spare) :]
    else:
        spare = []
    k = int(probe[L.G_K])
    if len(row_ids) > k:
        raise ValueError(f"a row holds {k} cards at {players} players, not {len(row_ids)}")
    # Drawn already: the owned cards and spare discards, then the row; then the deck.
    drawn = [c for _, c, _ in owned] + spare
    deck = np.array(drawn + row_ids + top_ids + rest, np.int32)
    s = state_from_deck(np.int64(players), opt, deck, np.int64(lead))
    for i in range(L.KMAX):
        s[L.ROW + i] = -1
    for c in range(L.N_DYN):
        s[L.LOC + c] = L.LOC_DECK
    for c in spare:
        s[L.LOC + c] = L.LOC_DISCARD
    for i, c in enumerate(row_ids):
        s[L.ROW + i] = c
        s[L.LOC + c] = L.LOC_ROW
    s[L.G_DECK_PTR] = len(drawn) + len(row_ids)
    for p, c, host in owned:
        place_card(s, p, c, host)
    for name, p in (goals or {}).items():
        s[L.GOAL_OWNER + GOAL_LABEL.index(name)] = p
    if dragon is not None:
        if dragon == "display":
            s[L.G_DRAGON] = L.DR_DISPLAY
        elif dragon == "set_aside":
            s[L.G_DRAGON] = L.DR_SET_ASIDE
        else:
            s[L.G_DRAGON] = L.DR_HELD
            s[L.GOAL_OWNER + L.DRAGON] = int(dragon)
    for p, v in (hands or {}).items():
        s[pb(p) + L.F_HAND] = _bits(v)
    for p, v in (discards or {}).items():
        s[pb(p) + L.F_DISC] = _bits(v)
    for p, v in (stacks or {}).items():
        for i, card in enumerate(v):
            s[pb(p) + L.F_CARRY + i] = card
    for p, v in (tokens or {}).items():
        s[pb(p) + L.F_TOKENS] = v
    for p, v in (last_dragon or {}).items():  # received by summoning
        s[pb(p) + L.F_LAST_DRAGON] = v
        s[pb(p) + L.F_LAST_DRAGON_SUMMONED] = 1
    s[L.G_LEAD] = lead
    s[L.G_ROUND] = round
    s[H_CURRENT] = -1
    begin_round(s)
    advance(s)
    return Game("middle_kingdom", players, 0, options, _state=s)
