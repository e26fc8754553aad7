"""Your own agents in any run or tournament: a numba kernel (fast) or a Python class (slow).

An agent that is not built in is named by its module path, ``"mypkg.agents:greedy"`` (in a
config's ``agents`` or a tournament's ``pool``; the module must be importable where the run
plays: on the driver and in every Ray worker).  What the name points at decides the path:

- **A numba kernel** (``@numba.njit(cache=True)``) with the arena's agent signature
  ``act(state: int32[::1], legal: bool[::1], rng: int32[:]) -> int64`` (``USER_SIG``).  It
  runs inside the compiled game loop like the built-in agents and is cached on disk like
  them.  ``legal`` holds the legal actions (filled by the arena); ``rng``
  is the seat's own two-word RNG (use ``sim.core.rng_below(rng, 0, n)``); the state is the
  true state, so a kernel must read only what its seat may know (the game's doc says which
  fields are hidden) or call the game's ``determinize`` on a copy.
- **A Python class** with a method ``act(view, legal_actions) -> action``.  The games of a run
  with such an agent are played decision by decision in Python inside the Ray workers (every
  agent of the run is then called from Python; the built-in ones through the same compiled
  code), so the agent can call any Python library.  One object is made per game and seat,
  ``cls(**params)``; ``view`` is a :class:`SeatView`: what the seat may know, read-only, with
  the seat's observation tensor as the RL adapters give it (dynasty_lab.envs).

**Parameters** (``{kind = "mypkg.agents:Greedy", params = {temperature = 0.5}}``, or in text
``mypkg.agents:Greedy,temperature=0.5``, values as TOML values): a class receives them as
keyword arguments of its constructor, whose signature validates their names; a kernel declares
them with :func:`kernel_params` and takes a fourth argument, ``params: float64[::1]``, the
values in the order declared (``USER_PARAMS_SIG``).  They are part of the agent's label
(:func:`user_label`, names sorted), so of a run's identity: the workers read them back from it
(:func:`user_spec`).

A bad agent gives one clear error: at config time (the module does not import, the name is
missing, a kernel with the wrong signature, a class without ``act``, a parameter the agent does
not take or of the wrong type; ``dynasty`` exits with code 2), or during a run (it raises,
returns an illegal action, or takes longer than its ``timeout_s`` of wall time: it is stopped
there, by SIGALRM, in a process's main thread) an
:class:`agents.table.AgentError` naming the game index, the decision, the seat and the agent;
the games already written stay in the results.
docs/agents.md has examples.
"""

from __future__ import annotations

import importlib
import inspect
import json
import signal
import threading
import time
import tomllib
from dataclasses import dataclass, field
from typing import Any

import numba as nb
import numpy as np

from agents.decision import choose_action
from agents.table import N_AGENT_PARAMS, PYTHON, USER_KERNEL, USER_SIG, AgentError
from agents.trace import TRACE_WORDS, sole_best, trace_finish, trace_point, trace_start
from sim.core import H_CURRENT, H_NPLAYERS, H_PLY, NO_PLAYER, hash64, rng_seed

SIGNATURE_TEXT = "act(state: int32[::1], legal: bool[::1], rng: int32[:]) -> int64"
# A kernel with parameters (kernel_params) also takes their values, in the order declared.
USER_PARAMS_SIG = nb.types.int64(
    nb.types.int32[::1], nb.types.boolean[::1], nb.types.int32[:], nb.types.float64[::1]
)
PARAMS_SIGNATURE_TEXT = (
    "act(state: int32[::1], legal: bool[::1], rng: int32[:], params: float64[::1]) -> int64"
)
DEFAULT_TIMEOUT_S = 60.0
# params slot of a Python agent: seconds one decision may take (0 = DEFAULT_TIMEOUT_S)
P_TIMEOUT = 1


class UserAgentError(ValueError):
    """A user agent that cannot be used (one line: the module path and the problem)."""


def kernel_params(**defaults):
    """Declare a user kernel's parameters and their defaults (numbers); the kernel then takes
    ``params: float64[::1]``, their values in this order::

        @kernel_params(epsilon=0.1, depth=2)  # params[0] = epsilon, params[1] = depth
        @nb.njit(cache=True)
        def greedy(state, legal, rng, params): ...
    """
    for name, value in defaults.items():
        if not _is_number(value):
            raise TypeError(f"kernel_params: {name} = {value!r} is not a number")

    def declare(kernel):
        kernel.kernel_params = dict(defaults)
        return kernel

    return declare


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _toml_value(value) -> str:
    """A parameter's value as a TOML value (so :func:`user_spec` reads it back exactly)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string
    return repr(value)


def user_label(path: str, params: dict[str, Any], timeout_s: float = 0.0) -> str:
    """The label of a user agent: ``path``, then ``,name=value`` for each parameter (names
    sorted, values as TOML values), then ``,timeout_s=<s>`` if set."""
    parts = [path] + [f"{k}={_toml_value(params[k])}" for k in sorted(params)]
    return ",".join(parts + ([f"timeout_s={timeout_s:g}"] if timeout_s else []))


def user_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``(path, parameters)`` of a user agent's text form ``path,name=value,...`` (the label
    :func:`user_label` writes; ``timeout_s`` among the parameters if given);
    :class:`UserAgentError` if the parameters are not ``name=value`` with TOML values."""
    path, _, rest = text.strip().partition(",")
    if not rest.strip():
        return path.strip(), {}
    try:
        params = tomllib.loads(f"p = {{{rest}}}")["p"]
    except tomllib.TOMLDecodeError:
        raise UserAgentError(
            f"user agent {path.strip()!r}: parameters {rest.strip()!r}: expected name=value, "
            'comma-separated, each value a TOML value (0.5, true, "text")'
        ) from None
    return path.strip(), params


def is_user_path(name: str) -> bool:
    """True for ``module.path:attribute`` (each part a dotted identifier), alone or followed by
    ``,parameters``."""
    mod, sep, attr = name.partition(",")[0].strip().partition(":")
    return bool(sep) and all(p.isidentifier() for p in mod.split(".")) and attr.isidentifier()


def load_object(path: str):
    """The object a ``module:attribute`` path names; :class:`UserAgentError` if it cannot be
    loaded."""
    mod, _, attr = path.partition(":")
    try:
        module = importlib.import_module(mod)
    except Exception as e:  # any failure while importing the user's module
        raise UserAgentError(
            f"user agent {path!r}: module {mod!r} does not import "
            f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"
        ) from None
    if not hasattr(module, attr):
        raise UserAgentError(f"user agent {path!r}: module {mod!r} has no attribute {attr!r}")
    return getattr(module, attr)


def _is_dispatcher(obj) -> bool:
    from numba.core.dispatcher import Dispatcher

    return isinstance(obj, Dispatcher)


def check_kernel(path: str, kernel) -> None:
    """Compile ``kernel`` for ``USER_SIG`` (``USER_PARAMS_SIG`` if it declares parameters), or
    load it from the cache; a clear error if it does not fit."""
    declared = getattr(kernel, "kernel_params", None) is not None
    sig, text = (USER_PARAMS_SIG, PARAMS_SIGNATURE_TEXT) if declared else (USER_SIG, SIGNATURE_TEXT)
    try:
        kernel.compile(sig.args)
        cres = kernel.overloads.get(sig.args)
        if cres is None or cres.signature.return_type != sig.return_type:
            got = cres.signature.return_type if cres is not None else "?"
            raise TypeError(f"it returns {got}, not int64")
    except Exception as e:
        first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
        raise UserAgentError(
            f"user agent {path!r}: the kernel does not have the arena's agent signature "
            f"{text} ({first})"
        ) from None


def _kernel_values(path: str, kernel, params: dict[str, Any]) -> np.ndarray | None:
    """The parameter array of a kernel (declared defaults, then ``params``); None for a kernel
    without parameters."""
    declared = getattr(kernel, "kernel_params", None)
    if declared is None:
        if params:
            raise UserAgentError(
                f"user agent {path!r}: the kernel takes no parameters (got "
                f"{', '.join(params)}; declare them with agents.user.kernel_params)"
            )
        return None
    values = dict(declared)
    for name, value in params.items():
        if name not in declared:
            raise UserAgentError(
                f"user agent {path!r}: no parameter {name!r} (parameters: "
                f"{', '.join(declared) or 'none'})"
            )
        if not _is_number(value):
            raise UserAgentError(
                f"user agent {path!r}: parameter {name} must be a number, got {value!r}"
            )
        values[name] = value
    return np.array([float(v) for v in values.values()], np.float64)


def _check_class_params(path: str, cls, params: dict[str, Any]) -> None:
    """The constructor takes ``params`` (names and how many; the values are the class's to
    check when it is made)."""
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):  # no signature to read: the constructor will tell
        return
    try:
        sig.bind(**params)
    except TypeError as e:
        names = [
            n
            for n, p in sig.parameters.items()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
        raise UserAgentError(
            f"user agent {path!r}: {e} (parameters: {', '.join(names) or 'none'})"
        ) from None


def bind_kernel(kernel, values: np.ndarray):
    """A kernel with the arena's signature ``USER_SIG`` that calls ``kernel`` with its
    parameter array ``values`` (compiled in this process, about 0.1 s; the arena holds kernels
    of one signature)."""
    frozen = np.array(values, np.float64)  # a constant of the compiled closure

    @nb.njit(USER_SIG)
    def with_params(state, legal, rng):
        return kernel(state, legal, rng, frozen)

    return with_params


def resolve(
    path: str, timeout_s: float | None = None, user_params: dict[str, Any] | None = None
) -> tuple[int, np.ndarray]:
    """(kind, params) of the user agent ``path`` with parameters ``user_params``: USER_KERNEL
    for a numba kernel, PYTHON for a class."""
    obj = load_object(path)
    user_params = dict(user_params or {})
    for name, value in user_params.items():
        if name == "timeout_s":
            raise UserAgentError(
                f"user agent {path!r}: timeout_s is set beside kind, not among the params"
            )
        if not isinstance(value, (int, float, str)):  # bool is an int
            raise UserAgentError(
                f"user agent {path!r}: parameter {name} must be a number, a string or true/"
                f"false, got {value!r}"
            )
    params = np.zeros(N_AGENT_PARAMS, np.float64)
    if _is_dispatcher(obj):
        if timeout_s is not None:
            raise UserAgentError(
                f"user agent {path!r}: timeout_s applies to Python agents only (a kernel "
                "cannot be interrupted)"
            )
        check_kernel(path, obj)
        _kernel_values(path, obj, user_params)
        return USER_KERNEL, params
    if isinstance(obj, type) and callable(getattr(obj, "act", None)):
        _check_class_params(path, obj, user_params)
        if timeout_s is not None:
            if not (
                isinstance(timeout_s, (int, float))
                and not isinstance(timeout_s, bool)
                and timeout_s > 0
            ):
                raise UserAgentError(
                    f"user agent {path!r}: timeout_s must be a number of seconds > 0, "
                    f"got {timeout_s!r}"
                )
            params[P_TIMEOUT] = float(timeout_s)
        return PYTHON, params
    raise UserAgentError(
        f"user agent {path!r}: expected a numba kernel ({SIGNATURE_TEXT}) or a class with a "
        f"method act(view, legal_actions), got {type(obj).__name__}"
    )


def user_agents_of(labels, kinds) -> list[Any] | None:
    """The kernels and classes of a run's user agents (None for built-in agents), loaded in this
    process, with the parameters of their labels: a kernel with parameters bound to their values
    (:func:`bind_kernel`), a class as ``functools.partial(cls, **params)``."""
    from functools import partial

    kinds = list(kinds)
    if not any(k in (USER_KERNEL, PYTHON) for k in kinds):
        return None
    out: list[Any] = []
    for label, kind in zip(labels, kinds):
        if kind in (USER_KERNEL, PYTHON):
            path, params = user_spec(label)
            params.pop("timeout_s", None)  # in the agent's parameter row
            obj = load_object(path)
            if kind == USER_KERNEL:
                check_kernel(path, obj)
                values = _kernel_values(path, obj, params)
                if values is not None:
                    obj = bind_kernel(obj, values)
            elif params:
                obj = partial(obj, **params)
            out.append(obj)
        else:
            out.append(None)
    return out


# --------------------------------------------------------------------------- the slow path


@dataclass(frozen=True)
class SeatView:
    """What seat ``seat`` may know when it is to move, read-only.

    ``state`` is a copy of the game state in which everything the seat cannot see (other
    hands, deck order, other seats' pending secret choices) has been resampled by the game's
    ``determinize`` (so reading it reveals nothing hidden); it is not writeable.
    ``sample()`` gives a fresh, writeable resampled copy for look-ahead with ``kernels``
    (the game's kernels: ``legal_mask``, ``apply``, ``returns``, ``evaluate`` ..., see
    sim/core.py).  ``rng`` is the seat's own NumPy generator for this game (seeded from the
    game's agent seed, so runs are reproducible); ``spec`` is the game's GameSpec.

    ``observation`` and ``action_mask`` are what the PettingZoo and Gymnasium adapters
    (dynasty_lab.envs) give the seat at this decision: its information-state tensor (float32,
    sim.observe; ``observation_fields`` names its slices, the layout tables of
    docs/games/<game>.md) and the legal actions as int8 (1 = legal); so a policy trained
    through an adapter plays here unchanged.  Both are computed on first use.
    """

    game: str
    players: int
    seat: int
    ply: int
    legal_actions: tuple[int, ...]
    state: np.ndarray
    rng: np.random.Generator
    spec: Any = field(repr=False)
    _true: np.ndarray = field(repr=False)
    _search_rng: np.ndarray = field(repr=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def kernels(self):
        return self.spec.kernels

    @property
    def observation(self) -> np.ndarray:
        """The seat's information-state tensor (float32[size], read-only)."""
        if "observation" not in self._cache:
            if self.spec.observation is None:
                raise ValueError(f"{self.game}: this game has no observation tensor (sim.observe)")
            t = self.spec.observation.tensor(self._true, self.seat)
            t.flags.writeable = False
            self._cache["observation"] = t
        return self._cache["observation"]

    @property
    def observation_fields(self) -> tuple:
        """The named slices of ``observation`` (sim.observe.Field: name, offset, length, doc)."""
        return self.spec.observation.fields if self.spec.observation is not None else ()

    @property
    def action_mask(self) -> np.ndarray:
        """The legal actions as int8[num_actions], 1 = legal (read-only)."""
        if "action_mask" not in self._cache:
            m = np.zeros(self.spec.num_actions, np.int8)
            m[list(self.legal_actions)] = 1
            m.flags.writeable = False
            self._cache["action_mask"] = m
        return self._cache["action_mask"]

    def action_name(self, action: int) -> str:
        return self.spec.action_name(self.state, int(action))

    def render(self) -> str:
        """The (resampled) state as text."""
        return self.spec.render(self.state)

    def sample(self) -> np.ndarray:
        """A writeable copy of the state with everything hidden from the seat resampled."""
        s = self._true.copy()
        self.spec.kernels.determinize(s, np.int64(self.seat), self._search_rng)
        return s


class _Overrun(BaseException):
    """Raised in a Python agent's ``act`` at its timeout (a BaseException, so that the agent's
    own ``except Exception`` does not catch it)."""


def _overrun(signum, frame):
    raise _Overrun


def _act_by(agent, view, legal: tuple, seconds: float, interrupt: bool):
    """``agent.act(view, legal)``, stopped with :class:`_Overrun` after ``seconds`` of wall time
    if ``interrupt`` (a SIGALRM timer: only in a process's main thread, where a Ray worker runs
    its tasks and the driver its first game; a long call into compiled code ends first).  The
    timer costs about 4 us a decision."""
    if not interrupt:
        return agent.act(view, legal)
    before = signal.signal(signal.SIGALRM, _overrun)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return agent.act(view, legal)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        if before is not None:
            signal.signal(signal.SIGALRM, before)


def _one_line(e: Exception) -> str:
    """``Type: first line of the message`` (an error's message may span lines)."""
    first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), "")
    return f"{type(e).__name__}: {first}" if first else type(e).__name__


def _view(spec, state, seat, legal, rng, search_rng) -> SeatView:
    seen = state.copy()
    spec.kernels.determinize(seen, np.int64(seat), search_rng)
    seen.flags.writeable = False
    return SeatView(
        spec.name,
        int(state[H_NPLAYERS]),
        seat,
        int(state[H_PLY]),
        tuple(legal),
        seen,
        rng,
        spec,
        state,
        search_rng,
    )


def play_python(
    spec,
    seeds,
    agent_seeds,
    n_players,
    options,
    seat_agent,
    agent_kind,
    agent_params,
    user_agents,
    scores,
    wins,
    feats,
    lengths,
    decisions,
    agent_ns,
    labels=None,
    first_index=0,
    traces=None,
    nets=None,
    record=None,
) -> None:
    """Play games decision by decision in Python (a run with a Python agent); fill the arrays as
    the arena does (with ``traces[g]``, the score trace, by the same update rule:
    agents.trace).  Built-in agents and user kernels take the same decisions as in the arena
    (same RNG words); an agent that fails raises :class:`AgentError` (games before it are
    filled).  ``record``, a dict ``{g: []}``: game ``g``'s actions are appended to its list as
    they are played (a run's replays: a Python agent's decisions are recorded, not taken
    again)."""
    K = spec.kernels
    Kt = tuple(K)
    # a Python agent is stopped at its timeout where a signal can reach it (_act_by)
    interrupt = threading.current_thread() is threading.main_thread()
    options = np.asarray(options, np.int32)
    agent_kind = np.asarray(agent_kind, np.int64)
    params = np.asarray(agent_params, np.float64)
    mask = np.zeros(spec.num_actions, np.bool_)
    rw = spec.round_word if traces is not None else -1  # no trace unless asked (as in the arena)
    tr = np.zeros(TRACE_WORDS, np.int64)
    values = np.zeros(n_players)
    spent = np.zeros(1, np.int64)  # a built-in agent's decision time (agents.decision)
    for g in range(len(seeds)):
        state = K.new_state(np.int64(seeds[g]), np.int64(n_players), options)
        trace_start(tr)
        rnd = state[rw] if rw >= 0 else 0
        rngs = np.zeros((n_players, 2), np.int32)
        for p in range(n_players):
            rng_seed(rngs[p], 0, hash64(np.int64(agent_seeds[g]), np.int64(p)))
        objects: dict[int, Any] = {}
        gens: dict[int, np.random.Generator] = {}
        steps = 0
        actions = record.get(g) if record else None
        while state[H_CURRENT] != NO_PLAYER:
            if rw >= 0 and state[rw] != rnd:
                rnd = state[rw]
                K.evaluate(state, values)
                trace_point(tr, sole_best(values, np.int64(n_players)))
            p = int(state[H_CURRENT])
            a = int(seat_agent[g, p])
            kind = int(agent_kind[a])
            where = (
                f"{spec.name} game {first_index + g}, decision {steps} (seat {p}, agent "
                f"{labels[a] if labels is not None else a!r})"
            )
            t0 = time.thread_time_ns()  # agent time: CPU time of this thread, as in the arena
            # the timeout: wall time (an agent that waits is late too)
            wall0 = time.perf_counter_ns()
            if kind == PYTHON:
                if p not in objects:
                    try:
                        objects[p] = user_agents[a]()
                    except Exception as e:
                        raise AgentError(
                            f"{where}: making the agent raised {_one_line(e)}", g
                        ) from None
                    gens[p] = np.random.default_rng(
                        int(hash64(np.int64(agent_seeds[g]), np.int64(p))) & (2**63 - 1)
                    )
                limit = params[a, P_TIMEOUT] or DEFAULT_TIMEOUT_S
                try:
                    K.legal_mask(state, mask)
                    legal = np.flatnonzero(mask).tolist()
                    act = _act_by(
                        objects[p],
                        _view(spec, state, p, legal, gens[p], rngs[p]),
                        tuple(legal),
                        limit,
                        interrupt,
                    )
                except _Overrun:
                    act = None  # stopped at its timeout: reported below
                except Exception as e:
                    raise AgentError(f"{where}: the agent raised {_one_line(e)}", g) from None
                took = (time.perf_counter_ns() - wall0) / 1e9
                if took > limit:
                    raise AgentError(
                        f"{where}: the agent took {took:.3g} s, "
                        f"more than its timeout_s = {limit:g}",
                        g,
                    )
                if (
                    isinstance(act, (bool, np.bool_))
                    or not isinstance(act, (int, np.integer))
                    or act not in legal
                ):
                    raise AgentError(
                        f"{where}: the agent returned {act!r}, which is not a legal action "
                        f"(legal: {legal})",
                        g,
                    )
            elif kind == USER_KERNEL:
                K.legal_mask(state, mask)
                try:
                    act = int(user_agents[a](state, mask, rngs[p]))
                except Exception as e:
                    raise AgentError(f"{where}: the agent raised {_one_line(e)}", g) from None
                K.legal_mask(state, mask)
                if not (0 <= act < spec.num_actions and mask[act]):
                    raise AgentError(
                        f"{where}: the agent chose action {act}, which is not legal", g
                    )
            else:
                act = int(
                    choose_action(Kt, state, np.int64(kind), params[a], rngs[p], mask, nets, spent)
                )
            # a built-in agent is charged its decision as timed inside the compiled call, not the
            # crossing from Python (agents.decision), which costs more than many of its decisions
            agent_ns[g, p] += (
                time.thread_time_ns() - t0 if kind in (PYTHON, USER_KERNEL) else spent[0]
            )
            decisions[g, p] += 1
            K.apply(state, np.int64(act))
            if actions is not None:
                actions.append(int(act))
            steps += 1
        K.returns(state, scores[g], wins[g])
        K.features(state, feats[g])
        if rw >= 0:
            trace_finish(tr, wins[g], np.int64(n_players), traces[g])
        lengths[g] = steps
