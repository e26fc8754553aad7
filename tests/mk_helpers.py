"""Helpers for Middle Kingdom rule tests: act by readable names, read the state by names."""

from sim.middle_kingdom import layout as L
from sim.middle_kingdom.rules import pb
from sim.middle_kingdom.scenario import position  # noqa: F401  (re-exported for tests)
from sim.middle_kingdom.view import GOAL_LABEL


def act(g, seat, name):
    """Seat ``seat`` takes the legal action whose name is, or starts with, ``name``."""
    assert g.current_player == seat, (
        f"seat {g.current_player} is to move, not {seat}:\n{g.render()}"
    )
    legal = g.legal_action_names()
    hits = [a for a, n in legal.items() if n == name] or [
        a for a, n in legal.items() if n.startswith(name)
    ]
    assert hits, f"{name!r} not legal for seat {seat}; legal: {list(legal.values())}"
    g.apply(hits[0])


def bids(g, *pairs):
    for seat, v in pairs:
        act(g, seat, f"bid {v}")


def legal_names(g):
    return sorted(g.legal_action_names().values())


def goal_owner(g, name):
    return int(g.state[L.GOAL_OWNER + GOAL_LABEL.index(name)])


def field(g, seat, f, i=0):
    return int(g.state[pb(seat) + f + i])


def eff(g, seat, t):
    return field(g, seat, L.F_EFF, t)


def hand(g, seat):
    x = field(g, seat, L.F_HAND)
    return {v for v in range(8) if (x >> v) & 1}


def discard(g, seat):
    x = field(g, seat, L.F_DISC)
    return {v for v in range(8) if (x >> v) & 1}


def carried(g, seat):
    return [field(g, seat, L.F_CARRY, i) for i in range(2) if field(g, seat, L.F_CARRY, i) >= 0]


def row_names(g):
    from sim.middle_kingdom.view import card_name

    return [
        card_name(g.state, int(g.state[L.ROW + i]))
        for i in range(L.KMAX)
        if g.state[L.ROW + i] >= 0
    ]


def decision(g):
    return int(g.state[L.G_DECISION])


def phase(g):
    return int(g.state[L.G_PHASE])
