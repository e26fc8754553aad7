"""The Ming Dynasty heuristic agent.

Plan (public information only: the board, spaces, display, hands (public by derivation,
D11), tiles and scores; never another seat's pending return commitment):

* **Prince placement**: the free district with the most borders (mobility), ties at random.
* **Neutral placement** (2p): where the opponent's open-area lead over us is largest, so
  the neutral contests the opponent's majorities.
* **Phase 1**: put members on the space of the prince's own province until it holds 3
  (one full deployment), then on the spaces of provinces one step away, then anywhere.
* **Phase 2**: take the display card of a space where we have members whose symbol matches
  most of the borders around the prince (a dragon on the display, possible only under
  ``stay_dragon = discard_pile``, matches every border); a dragon paid with one of our
  own members only when no display card can be taken.  Under ``dragon_payment =
  any_member`` a dragon paid with another seat's member (the leader's, when there is a
  choice) is preferred to a display card that matches no border around the prince: it is
  wild and costs a rival a member instead of us.
* **Phase 3**: score each option: STAY, and each step into a district where the walk can
  end, by ``deploy_value`` of the district reached minus the value of the card spent
  (dragons dear, cards whose symbol borders the prince cheaper to keep); PASS is worth a
  small constant, so the prince acts only when a deployment is worth a card.  A step
  into a district held by another prince is taken only when nothing else is.
  ``deploy_value``: members that can be deployed there (from that province's space, at
  most 3; none if our monk is there), plus a bonus when they give us the district's sole
  majority, plus the monastery when it is empty or another seat's.
* **Deploy**: as many members as allowed, into the monastery too when legal.
* **Return commitment** (``return_plan``; the rules let a player send any number of his
  city members back, 4.2): keep members by default: a kept member is worth 4 points
  after round 2 and 3 after round 4, and in round 6 (0 points) still counts for the city
  bonus, while a returned member has no later scoring to serve.  After round 2 only, one
  member goes back to each district where our open-area count *ties* the best rival's
  (at least 1): back there it makes us the sole leader, who moves 2 members into the city
  at round 4's scoring instead of 1 (one more tile, and a member worth 3 there, against
  the 4 given up now), but never so many that we would lose a city bonus we hold alone
  (rivals assumed to keep all, as their commitments are secret).  Not after round 4: the
  member won back would move into round 6's city, where members score 0, for one tile
  only.  Under ``return_choice = in_commitment`` the same plan is committed with its
  sections.
* **Return choices** (after the reveal): own members go back to the section whose district
  is the closest contest, an open-area tie first; the start player sends neutral members
  back where the opponent leads.
* **Start player choice** (4p): itself.
"""

import numba as nb
import numpy as np

from sim.core import H_CURRENT, argmax_masked, kernel
from sim.ming_dynasty.layout import (
    A_COMMIT,
    A_COMMIT_SEC,
    A_DEPLOY,
    A_DIST,
    A_DRAGON,
    A_DRAGON_OF,
    A_PASS,
    A_SPACE,
    A_START,
    A_STAY,
    A_STEP,
    A_STEPD,
    CARD_D,
    CITY,
    COMMIT_SEC_BASE,
    DISPLAY,
    DPP,
    F_SCORE,
    G_PHASE,
    G_PROV,
    G_ROUND,
    MAXP,
    MONK,
    N_DEPLOY,
    N_DIST,
    N_ENT,
    N_PROV,
    NUM_ACTIONS,
    O_RETURN_CHOICE,
    OPEN,
    PH_CARDS,
    PH_CHOOSE,
    PH_COMMIT,
    PH_DEPLOY,
    PH_NEUTRAL,
    PH_NRETURN,
    PH_PLACE,
    PH_PRINCE,
    PH_RETURN,
    PH_TURN,
    PH_WALK,
    PRINCE,
    S_DEPLOY_MAX,
    SPACE,
)
from sim.ming_dynasty.rules import (
    DEPLOY_MONK,
    DEPLOY_OPEN,
    adj,
    city_count,
    is_entity,
    legal_mask,
    n_entities,
    pb,
    prince_at,
)

PASS_VALUE = 0.3  # value of keeping the cards in hand for a later round
DRAGON_COST = 1.5  # value of a dragon card kept (wild)
CARD_COST = 0.6  # value of a movement card kept
USEFUL_CARD = 0.3  # extra value of a card whose symbol borders the prince
LEAD_BONUS = 2.0  # deployment that gives the sole open-area majority
MONK_BONUS = 2.5  # a monastery member (4 points at each scoring until ousted)
STRANDED = -1.0  # a step into a district held by another prince
RETURN_ROUND = 2  # return_plan: the scoring after which a tied district gets a member back
RIVAL_DRAGON = 1.5  # a dragon paid with another seat's member (dragon_payment = any_member)


@kernel
def best_rival_open(s, p, d):
    best = 0
    for e in range(n_entities(s)):
        if e != p and is_entity(s, e) and s[OPEN + d * N_ENT + e] > best:
            best = s[OPEN + d * N_ENT + e]
    return best


@kernel
def return_plan(s, p, out):
    """Members of ``p`` to send back from each section of the province being scored (module
    docstring: one member where our open-area count ties the best rival's, after round 2,
    without giving up a city bonus held alone)."""
    prov = s[G_PROV]
    for j in range(DPP):
        out[j] = 0
    if s[G_ROUND] != RETURN_ROUND:
        return
    mine = city_count(s, prov, p)
    rival = 0
    for e in range(n_entities(s)):
        if e != p and is_entity(s, e):
            c = city_count(s, prov, e)
            if c > rival:
                rival = c
    keep_at_least = rival + 1 if mine > rival else 0
    left = mine
    for j in range(DPP):
        d = prov * DPP + j
        if s[CITY + d * N_ENT + p] == 0 or left - 1 < keep_at_least:
            continue
        o = s[OPEN + d * N_ENT + p]
        if o >= 1 and o == best_rival_open(s, p, d):
            out[j] = 1
            left -= 1


@kernel
def symbol_use(s, x, sym):
    """Borders of district ``x`` showing ``sym``."""
    c = 0
    for y in range(N_DIST):
        if adj(s, x, y) == sym:
            c += 1
    return c


@kernel
def card_cost(s, p, kind):
    if kind == CARD_D:
        return DRAGON_COST
    return CARD_COST + (USEFUL_CARD if symbol_use(s, s[PRINCE + p], kind) > 0 else 0.0)


@kernel
def deploy_value(s, p, d):
    if s[MONK + d] == p:
        return 0.0
    prov = d // DPP
    k = s[SPACE + prov * MAXP + p]
    if k > s[S_DEPLOY_MAX]:
        k = s[S_DEPLOY_MAX]
    if k == 0:
        return 0.0
    v = float(k)
    mine = s[OPEN + d * N_ENT + p]
    best = 0
    for e in range(n_entities(s)):
        if e != p and is_entity(s, e) and s[OPEN + d * N_ENT + e] > best:
            best = s[OPEN + d * N_ENT + e]
    use_monk = s[MONK + d] != p
    open_k = k - 1 if (use_monk and k > 1) else k
    if mine <= best < mine + open_k:
        v += LEAD_BONUS
    if use_monk:
        v += MONK_BONUS
    return v


@nb.njit(cache=True)
def heuristic(s, rng):
    mask = np.zeros(NUM_ACTIONS, np.bool_)
    legal_mask(s, mask)
    val = np.zeros(NUM_ACTIONS)
    ph = s[G_PHASE]
    p = s[H_CURRENT]
    n = s[2]
    if ph == PH_PRINCE:
        for d in range(N_DIST):
            for y in range(N_DIST):
                if adj(s, d, y) >= 0:
                    val[A_DIST + d] += 1.0
    elif ph == PH_NEUTRAL:
        q = 1 - p
        for d in range(N_DIST):
            val[A_DIST + d] = s[OPEN + d * N_ENT + q] - s[OPEN + d * N_ENT + p]
    elif ph == PH_PLACE:
        x = s[PRINCE + p]
        home = x // DPP
        for sp in range(N_PROV):
            have = s[SPACE + sp * MAXP + p]
            if sp == home:
                val[A_SPACE + sp] = 3.0 if have < 3 else -have
            else:
                near = False
                for y in range(N_DIST):
                    if adj(s, x, y) >= 0 and y // DPP == sp:
                        near = True
                val[A_SPACE + sp] = (1.5 if near else 0.0) - 0.5 * have
    elif ph == PH_CARDS:
        x = s[PRINCE + p]
        for sp in range(N_PROV):
            sym = s[DISPLAY + sp]
            if sym == CARD_D:
                val[A_SPACE + sp] = (
                    1.0 + symbol_use(s, x, 0) + symbol_use(s, x, 1) + symbol_use(s, x, 2)
                )
            elif sym >= 0:
                val[A_SPACE + sp] = 1.0 + symbol_use(s, x, sym)
            val[A_DRAGON + sp] = 0.5 - 0.1 * (3 - s[SPACE + sp * MAXP + p])
            for q in range(n):
                val[A_DRAGON_OF + sp * MAXP + q] = RIVAL_DRAGON + 0.001 * s[pb(q) + F_SCORE]
    elif ph == PH_TURN or ph == PH_WALK:
        x = s[PRINCE + p]
        val[A_PASS] = PASS_VALUE
        for c in range(4):
            val[A_STAY + c] = deploy_value(s, p, x) - card_cost(s, p, c)
        for y in range(N_DIST):
            sym = adj(s, x, y)
            if sym < 0:
                continue
            base = STRANDED if prince_at(s, y, p) else deploy_value(s, p, y)
            val[A_STEP + y] = base - card_cost(s, p, sym)
            val[A_STEPD + y] = base - card_cost(s, p, CARD_D)
        if ph == PH_WALK:
            for i in range(N_DEPLOY):
                val[A_DEPLOY + i] = 10.0 + DEPLOY_OPEN[i] + 1.5 * DEPLOY_MONK[i]
    elif ph == PH_DEPLOY:
        for i in range(N_DEPLOY):
            val[A_DEPLOY + i] = DEPLOY_OPEN[i] + 1.5 * DEPLOY_MONK[i]
    elif ph == PH_COMMIT:
        plan = np.zeros(DPP, np.int64)
        return_plan(s, p, plan)
        if s[O_RETURN_CHOICE] == 1:
            val[
                A_COMMIT_SEC
                + plan[0]
                + COMMIT_SEC_BASE * plan[1]
                + COMMIT_SEC_BASE * COMMIT_SEC_BASE * plan[2]
            ] = 1.0
        else:
            val[A_COMMIT + plan[0] + plan[1] + plan[2]] = 1.0
    elif ph == PH_RETURN or ph == PH_NRETURN:
        for d in range(N_DIST):
            if not mask[A_DIST + d]:
                continue
            if ph == PH_RETURN:
                best = best_rival_open(s, p, d)
                o = s[OPEN + d * N_ENT + p]
                val[A_DIST + d] = -abs(o - best) + (0.5 if o == best and best >= 1 else 0.0)
            else:
                val[A_DIST + d] = s[OPEN + d * N_ENT + (1 - p)] - s[OPEN + d * N_ENT + p]
    elif ph == PH_CHOOSE:
        val[A_START + p] = 1.0
    return argmax_masked(val, mask, rng, 0)
