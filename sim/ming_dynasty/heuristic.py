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
  only; measured, that cost the returning seat 0.4 to 1.3 points a game.  Under
  ``return_choice = in_commitment`` the same plan is committed with its sections.
* **Return choices** (after the reveal): own members go back to the section whose district
  is the closest contest, an open-area tie first; the start player sends neutral members
  back where the opponent leads.
* **Start player choice** (4p): itself.
"""

import numba as nb
import numpy as np

from sim.core import kernel, H_CURRENT, rng_below
from sim.ming_dynasty.layout import (
    A_COMMIT, A_DEPLOY, A_DIST, A_DRAGON, A_PASS, A_SPACE, A_START, A_STAY, A_STEP, A_STEPD, CARD_D,
    A_COMMIT_SEC, A_DRAGON_OF, CITY, COMMIT_SEC_BASE, DISPLAY, DPP, F_HAND, F_SCORE, G_PHASE, G_PROV,
    G_ROUND, MAXP, MONK, N_DEPLOY, N_DIST, N_ENT, N_PROV, NEUTRAL, NUM_ACTIONS, O_RETURN_CHOICE, OPEN,
    PH_CARDS, PH_CHOOSE, PH_COMMIT, PH_DEPLOY, PH_NEUTRAL, PH_NRETURN, PH_PLACE, PH_PRINCE, PH_RETURN,
    PH_TURN, PH_WALK, PRINCE, S_DEPLOY_MAX, SPACE, G_DRAGON_SUPPLY, N_COMMIT_SEC, O_DRAGON_PAY,
)
from sim.ming_dynasty.rules import (
    DEPLOY_MONK, DEPLOY_OPEN, adj, city_count, commit_sec_legal, deploy_legal, is_entity, n_entities,
    neutral_place_legal, neutral_return_open, pb, prince_at, step_legal,
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
def return_plan(s, p):
    """Members of ``p`` to send back from the sections of the province being scored (module
    docstring: one member where our open-area count ties the best rival's, after round 2,
    without giving up a city bonus held alone): ``(code, total)``, the sections as the
    commitment code r_0 + 3 r_1 + 9 r_2 (layout.A_COMMIT_SEC) and their sum."""
    prov = s[G_PROV]
    code = 0
    total = 0
    if s[G_ROUND] != RETURN_ROUND:
        return code, total
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
            code += COMMIT_SEC_BASE ** j
            total += 1
            left -= 1
    return code, total


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


@kernel(inline=True)
def _pick(i, v, best, count, choice, rng):
    """One legal action ``i`` of value ``v`` into the running arg-max (best value, actions
    tied on it, choice): sim.core.argmax_masked one step at a time, legal actions visited
    in increasing order, ties broken uniformly with the same draws."""
    if v > best:
        return v, np.int64(1), np.int64(i)
    if v == best:
        count += 1
        if rng_below(rng, 0, count) == 0:
            choice = np.int64(i)
    return best, count, choice


@kernel
def heuristic(s, rng):
    """The heuristic's action (module docstring): the best-valued legal action, ties at random.

    No arrays: each phase visits its legal actions (the conditions of rules.legal_mask) in
    increasing order and values them on the way."""
    ph = s[G_PHASE]
    p = s[H_CURRENT]
    n = s[2]
    best = -np.inf
    count = np.int64(0)
    choice = np.int64(-1)
    if ph == PH_PRINCE:
        for d in range(N_DIST):
            if not prince_at(s, d, -1):
                v = 0.0
                for y in range(N_DIST):
                    if adj(s, d, y) >= 0:
                        v += 1.0
                best, count, choice = _pick(A_DIST + d, v, best, count, choice, rng)
    elif ph == PH_NEUTRAL:
        q = 1 - p
        for d in range(N_DIST):
            if neutral_place_legal(s, d):
                v = float(s[OPEN + d * N_ENT + q] - s[OPEN + d * N_ENT + p])
                best, count, choice = _pick(A_DIST + d, v, best, count, choice, rng)
    elif ph == PH_PLACE:
        x = s[PRINCE + p]
        home = x // DPP
        for sp in range(N_PROV):
            have = s[SPACE + sp * MAXP + p]
            if sp == home:
                v = 3.0 if have < 3 else float(-have)
            else:
                near = False
                for y in range(N_DIST):
                    if adj(s, x, y) >= 0 and y // DPP == sp:
                        near = True
                v = (1.5 if near else 0.0) - 0.5 * have
            best, count, choice = _pick(A_SPACE + sp, v, best, count, choice, rng)
    elif ph == PH_CARDS:
        x = s[PRINCE + p]
        for sp in range(N_PROV):
            sym = s[DISPLAY + sp]
            if s[SPACE + sp * MAXP + p] >= 1 and sym >= 0:
                if sym == CARD_D:
                    v = 1.0 + symbol_use(s, x, 0) + symbol_use(s, x, 1) + symbol_use(s, x, 2)
                else:
                    v = 1.0 + symbol_use(s, x, sym)
                best, count, choice = _pick(A_SPACE + sp, v, best, count, choice, rng)
        if s[G_DRAGON_SUPPLY] > 0:
            for sp in range(N_PROV):
                if s[SPACE + sp * MAXP + p] >= 1:
                    v = 0.5 - 0.1 * (3 - s[SPACE + sp * MAXP + p])
                    best, count, choice = _pick(A_DRAGON + sp, v, best, count, choice, rng)
            if s[O_DRAGON_PAY] == 1:  # D33 alternative: any member
                for sp in range(N_PROV):
                    for q in range(n):
                        if q != p and s[SPACE + sp * MAXP + q] >= 1:
                            v = RIVAL_DRAGON + 0.001 * s[pb(q) + F_SCORE]
                            best, count, choice = _pick(A_DRAGON_OF + sp * MAXP + q, v, best, count, choice, rng)
    elif ph == PH_TURN or ph == PH_WALK:
        x = s[PRINCE + p]
        for w in range(2):  # the A_STEP block, then the A_STEPD block
            for y in range(N_DIST):
                sym = adj(s, x, y)
                if sym < 0:
                    continue
                pay = np.int64(sym) if w == 0 else np.int64(CARD_D)
                if step_legal(s, p, y, pay):
                    base = STRANDED if prince_at(s, y, p) else deploy_value(s, p, y)
                    v = base - card_cost(s, p, pay)
                    best, count, choice = _pick((A_STEP if w == 0 else A_STEPD) + y, v, best, count, choice, rng)
        if ph == PH_TURN:
            b = pb(p)
            for c in range(4):
                if s[b + F_HAND + c] > 0:
                    v = deploy_value(s, p, x) - card_cost(s, p, c)
                    best, count, choice = _pick(A_STAY + c, v, best, count, choice, rng)
            best, count, choice = _pick(A_PASS, PASS_VALUE, best, count, choice, rng)
        elif not prince_at(s, x, p):
            for i in range(N_DEPLOY):
                if deploy_legal(s, p, i):
                    v = 10.0 + DEPLOY_OPEN[i] + 1.5 * DEPLOY_MONK[i]
                    best, count, choice = _pick(A_DEPLOY + i, v, best, count, choice, rng)
    elif ph == PH_DEPLOY:
        for i in range(N_DEPLOY):
            if deploy_legal(s, p, i):
                v = DEPLOY_OPEN[i] + 1.5 * DEPLOY_MONK[i]
                best, count, choice = _pick(A_DEPLOY + i, v, best, count, choice, rng)
    elif ph == PH_COMMIT:
        code, total = return_plan(s, p)
        prov = s[G_PROV]
        if s[O_RETURN_CHOICE] == 1:
            for c in range(N_COMMIT_SEC):
                if commit_sec_legal(s, prov, p, c):
                    best, count, choice = _pick(A_COMMIT_SEC + c, 1.0 if c == code else 0.0, best, count, choice, rng)
        else:
            for k in range(city_count(s, prov, p) + 1):
                best, count, choice = _pick(A_COMMIT + k, 1.0 if k == total else 0.0, best, count, choice, rng)
    elif ph == PH_RETURN:
        prov = s[G_PROV]
        for j in range(DPP):
            d = prov * DPP + j
            if s[CITY + d * N_ENT + p] > 0:
                bo = best_rival_open(s, p, d)
                o = s[OPEN + d * N_ENT + p]
                v = -abs(o - bo) + (0.5 if o == bo and bo >= 1 else 0.0)
                best, count, choice = _pick(A_DIST + d, v, best, count, choice, rng)
    elif ph == PH_NRETURN:
        prov = s[G_PROV]
        for j in range(DPP):
            if neutral_return_open(s, prov, j):
                d = prov * DPP + j
                v = float(s[OPEN + d * N_ENT + (1 - p)] - s[OPEN + d * N_ENT + p])
                best, count, choice = _pick(A_DIST + d, v, best, count, choice, rng)
    elif ph == PH_CHOOSE:
        for q in range(n):
            best, count, choice = _pick(A_START + q, 1.0 if q == p else 0.0, best, count, choice, rng)
    return choice
