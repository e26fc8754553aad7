"""The score trace of a game: who leads after each round, how often the lead changes, and from
when the eventual winner led for good.  One update rule, used by the arena's compiled game loop
and by the Python loop of runs with Python agents (agents.user), so both give the same rows.

Where the game names a round word (``GameSpec.round_word``: the state word whose change marks
the end of a round), every change of it while the game goes on is a point of the game's score
trace: its *leader* is the seat with the highest ``evaluate`` value (every game's ``evaluate``
is increasing in the seat's provisional score against its best rival, so this is the
provisional score leader), or none when seats share the top.  The final result is the last
point, led by the sole winner (none when the win is shared or no seat won).

``trace[g]`` holds the game's ``lead_changes`` (points whose sole leader differs from the last
sole leader before them), ``decided_at`` (the first point from which the eventual sole winner
leads alone at every later point; ``trace_points`` when only the final scoring decided it, -1
without a sole winner) and ``trace_points``.  :func:`trace_point` is the one update rule.  A run
keeps the trace only when asked (round word -1 otherwise, and the row stays zeros:
``trace_points`` 0 means "not traced").
"""

import numba as nb

# The score trace of one game while it is played, int64[TRACE_WORDS] ...
TR_LEADER, TR_CHANGES, TR_SINCE, TR_POINTS = 0, 1, 2, 3
TRACE_WORDS = 4
# ... and what each game's row keeps of it (trace[g, :]):
TRACE_COLUMNS = ("lead_changes", "decided_at", "trace_points")


@nb.njit(cache=True)
def trace_start(tr):
    tr[TR_LEADER] = -1
    tr[TR_CHANGES] = 0
    tr[TR_SINCE] = -1
    tr[TR_POINTS] = 0


@nb.njit(cache=True)
def sole_best(values, n):
    """The seat with the highest of ``values[:n]``, or -1 when seats share it."""
    best = -1
    k = 0
    for p in range(n):
        if best < 0 or values[p] > values[best]:
            best = p
            k = 1
        elif values[p] == values[best]:
            k += 1
    return best if k == 1 else -1


@nb.njit(cache=True)
def trace_point(tr, leader):
    """Add a point of the score trace led by ``leader`` alone (-1: seats share the lead)."""
    tr[TR_POINTS] += 1
    if leader < 0:
        tr[TR_SINCE] = -1  # a shared lead ends every seat's run of sole leads
        return
    if tr[TR_LEADER] >= 0 and leader != tr[TR_LEADER]:
        tr[TR_CHANGES] += 1
    if leader != tr[TR_LEADER] or tr[TR_SINCE] < 0:
        tr[TR_SINCE] = tr[TR_POINTS]
    tr[TR_LEADER] = leader


@nb.njit(cache=True)
def trace_finish(tr, wins, n, out):
    """The last point (the sole winner, if any) and the game's row ``out[TRACE_COLUMNS]``."""
    winner = -1
    for p in range(n):
        if wins[p] == 1.0:
            winner = p
    trace_point(tr, winner)
    out[0] = tr[TR_CHANGES]
    out[1] = tr[TR_SINCE] if winner >= 0 else -1
    out[2] = tr[TR_POINTS]
