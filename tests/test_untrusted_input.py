"""Untrusted replays and configs: every field validated, one-line errors of the documented
types (sim.replay.ReplayError, experiments.run.config.ConfigError), nothing executed, no other
exception and no hang under property-based fuzzing (hypothesis) of the input.

A watchdog (faulthandler, re-armed for every example) ends the test process with a
traceback if one example runs for more than HANG_S seconds.
"""

import copy
import faulthandler
import json
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from experiments.run.config import ConfigError, from_dict, load_config
from sim import Game
from sim.registry import game_names
from sim.replay import MAX_REPLAY_BYTES, ReplayError, read_replay

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
HANG_S = 60  # per example; one takes well under a second on an idle core


def arm():
    faulthandler.dump_traceback_later(HANG_S, exit=True, file=sys.__stderr__)


@pytest.fixture(autouse=True)
def watchdog():
    arm()
    yield
    faulthandler.cancel_dump_traceback_later()


def base_replay(name, n, decisions):
    g = Game(name, n, seed=5)
    rng = np.random.default_rng(3)
    while not g.is_over and len(g.history) < decisions:
        acts = g.legal_actions()
        g.apply(acts[int(rng.integers(len(acts)))])
    return g.to_replay()


BASES = {
    "goofspiel": base_replay("goofspiel", 3, 10_000),  # a whole game, with scores
    "middle_kingdom": base_replay("middle_kingdom", 3, 40),
    "ming_dynasty": base_replay("ming_dynasty", 2, 40),
    "emperors_choice": base_replay("emperors_choice", 3, 40),
    "eternal_dynasty": base_replay("eternal_dynasty", 2, 40),
}

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)


def expect_replay_error_or_game(rep):
    arm()
    try:
        g = Game.from_replay(rep)
    except ReplayError as e:
        msg = str(e)
        assert msg and "\n" not in msg
        return None
    assert isinstance(g, Game)
    return g


def test_the_base_replays_re_play():
    for name, rep in BASES.items():
        assert Game.from_replay(copy.deepcopy(rep)).history == rep["decisions"], name


@FUZZ
@given(value=json_values)
def test_any_json_value_is_refused_with_a_replay_error(value):
    arm()
    with pytest.raises(ReplayError):
        Game.from_replay(json.dumps(value) if not isinstance(value, dict) else value)


@FUZZ
@given(
    text=st.binary(max_size=200)
    | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass"))
)
def test_any_bytes_are_refused_with_a_replay_error(text, tmp_path_factory):
    arm()
    path = tmp_path_factory.mktemp("rep") / "r.json"
    path.write_bytes(text)
    with pytest.raises(ReplayError, match=str(path)):
        Game.from_replay(path)


@FUZZ
@given(
    name=st.sampled_from(sorted(BASES)),
    key=st.sampled_from(
        [
            "format",
            "version",
            "game",
            "players",
            "options",
            "seed",
            "chance",
            "decisions",
            "scores",
            "win_shares",
            "experiment",
            "fuzz",
            "extra",
        ]
    ),
    value=json_values,
)
def test_a_replay_with_one_field_replaced_is_refused_or_re_played(name, key, value):
    rep = copy.deepcopy(BASES[name])
    rep[key] = value
    expect_replay_error_or_game(rep)


@FUZZ
@given(name=st.sampled_from(sorted(BASES)), data=st.data())
def test_a_replay_with_one_value_changed_is_refused_or_re_played(name, data):
    """The dangerous edits: values of the right type that the engine's trusting kernels
    would index with (chance outcomes, action ids, seats, option values)."""
    rep = copy.deepcopy(BASES[name])
    where = data.draw(st.sampled_from(["chance", "decision", "option", "players", "truncate"]))
    small = st.integers(-3, 300)
    if where == "chance" and rep["chance"]:
        i = data.draw(st.integers(0, len(rep["chance"]) - 1))
        o = rep["chance"][i]
        if isinstance(o, dict):
            field = data.draw(st.sampled_from(sorted(o)))
            o[field] = data.draw(small | st.text(max_size=8))
        else:
            rep["chance"][i] = data.draw(small)
    elif where == "decision" and rep["decisions"]:
        d = rep["decisions"][data.draw(st.integers(0, len(rep["decisions"]) - 1))]
        d[data.draw(st.sampled_from(["player", "action"]))] = data.draw(small)
    elif where == "option":
        opt = data.draw(st.sampled_from(sorted(rep["options"])))
        rep["options"][opt] = data.draw(small | st.text(max_size=12))
    elif where == "players":
        rep["players"] = data.draw(small)
    else:
        rep["chance"] = rep["chance"][: data.draw(st.integers(0, len(rep["chance"])))]
    expect_replay_error_or_game(rep)


@pytest.mark.parametrize(
    "edit,message",
    [
        (lambda r: r.update(version=2), "version 2 is not supported"),
        (lambda r: r.update(format="something"), "not a dynasty-lab-replay file"),
        (lambda r: r.update(game="chess"), "'chess' is not a registered game"),
        (lambda r: r.update(players=7), "players: expected one of 2, 3, 4"),
        (lambda r: r.update(seed=2**64), "seed: expected a 64-bit integer"),
        (lambda r: r.update(extra=1), "unknown key 'extra'"),
        (lambda r: r.pop("chance"), "missing key 'chance'"),
        (lambda r: r["options"].update(num_cards=99), "options: .*outside 1..20"),
        (lambda r: r["options"].update(colour="red"), "options: .*unknown option 'colour'"),
        (
            lambda r: r["chance"].__setitem__(0, 99),
            r"chance: expected 1 to 13 distinct point cards",
        ),
        (
            lambda r: r["decisions"][0].update(action=50),
            r"decisions\[0\].action: expected an action id 0..19",
        ),
        (
            lambda r: r["decisions"][0].update(player="0"),
            r"decisions\[0\].player: expected a seat 0..2",
        ),
        (lambda r: r["decisions"][0].update(extra=1), r"decisions\[0\]: expected"),
        (
            lambda r: r["decisions"][1].update(player=0),
            "decision 1: seat 1 is to move, the replay says 0",
        ),
        (lambda r: r["decisions"][0].update(name="bid 99"), "decision 0: action .* in the replay"),
        (lambda r: r.update(scores=[1, 2]), "scores: expected 3 finite numbers"),
        (lambda r: r.update(scores=[0.0, 0.0, 9.0]), "final scores differ"),
        (
            lambda r: r.update(decisions=r["decisions"] * 20),
            "decisions: expected a list of at most 80 decisions",
        ),
    ],
)
def test_each_bad_field_gives_its_one_line_error(edit, message):
    rep = copy.deepcopy(BASES["goofspiel"])
    edit(rep)
    with pytest.raises(ReplayError, match=message) as e:
        Game.from_replay(rep)
    assert "\n" not in str(e.value) and str(e.value).startswith("replay: ")


def test_a_replay_of_another_game_or_version_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "mk.json"
    path.write_text(json.dumps(BASES["middle_kingdom"]))
    with pytest.raises(
        ReplayError, match=f"{path}: game: this is a replay of middle_kingdom, not of goofspiel"
    ):
        Game.from_replay(path, game="goofspiel")
    assert Game.from_replay(path, game="middle_kingdom").players == 3
    rep = dict(BASES["middle_kingdom"], version=0)
    with pytest.raises(
        ReplayError, match="replay format version 0 is not supported: this is version 1"
    ):
        Game.from_replay(rep)


def test_chance_outcomes_that_break_the_game_are_refused_at_the_decision():
    """A chance outcome inside its range but impossible in the game (Emperor's Choice: a
    card drawn twice) is caught by the game's invariants or the re-play's chance check."""
    rep = copy.deepcopy(BASES["emperors_choice"])
    cards = [i for i, o in enumerate(rep["chance"]) if o["event"] == "card"]
    assert len(cards) >= 2
    rep["chance"][cards[1]] = dict(rep["chance"][cards[0]])
    with pytest.raises(ReplayError, match="invariant|chance outcomes of the re-play differ"):
        Game.from_replay(rep)


def test_a_file_too_large_or_not_json_is_refused(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(MAX_REPLAY_BYTES + 1)
    with pytest.raises(ReplayError, match="larger than 64 MiB"):
        read_replay(big)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ReplayError, match=f"{deep}: "):
        Game.from_replay(deep)
    nan = tmp_path / "nan.json"
    nan.write_text(json.dumps(dict(BASES["goofspiel"], scores=[float("nan")] * 3)))
    with pytest.raises(
        ReplayError, match=f"{nan}: not valid JSON for a replay: NaN is not a number"
    ):
        Game.from_replay(nan)
    with pytest.raises(ReplayError, match="cannot read the replay"):
        Game.from_replay(tmp_path / "missing.json")


# ----------------------------------------------------------------------------- configs

GOOD = {
    "game": "goofspiel",
    "players": 2,
    "agents": ["random"],
    "games": 4,
    "seed": 1,
    "output": "out",
}
CONFIG_KEYS = sorted(GOOD) + [
    "name",
    "description",
    "options",
    "seats",
    "chunk_size",
    "replays",
    "components",
    "extra",
]
toml_scalars = (
    st.booleans()
    | st.integers(-(2**64), 2**64)
    | st.floats(allow_nan=False)
    | st.text(alphabet=st.characters(blacklist_characters=":"), max_size=15)
)
toml_values = st.recursive(
    toml_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def expect_config_error_or_config(data):
    arm()
    try:
        cfg = from_dict(data, "c.toml", user_agents=False)
    except ConfigError as e:
        assert str(e).startswith("c.toml: ") and "\n" not in str(e)
        return None
    return cfg


@FUZZ
@given(key=st.sampled_from(CONFIG_KEYS), value=toml_values)
def test_a_config_with_one_field_replaced_is_refused_or_valid(key, value):
    expect_config_error_or_config(dict(GOOD, **{key: value}))


@FUZZ
@given(data=st.dictionaries(st.sampled_from(CONFIG_KEYS), toml_values, max_size=9))
def test_any_table_is_refused_or_valid(data):
    expect_config_error_or_config(data)


@FUZZ
@given(
    game=st.sampled_from(game_names()),
    options=st.dictionaries(st.text(max_size=25), toml_scalars, max_size=4),
    components=st.dictionaries(st.text(max_size=30), toml_scalars, max_size=3),
    players=st.integers(-1, 7),
    agents=st.lists(
        st.sampled_from(
            [
                "random",
                "heuristic",
                "mcts:3",
                "mcts:x",
                "mcts:5ms",
                "mcts:3,uct_c=-1",
                "mcts:2,rollout=nope",
                "nobody",
            ]
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_mixed_fields_are_refused_or_valid(game, options, components, players, agents):
    expect_config_error_or_config(
        dict(
            GOOD, game=game, options=options, components=components, players=players, agents=agents
        )
    )


@FUZZ
@given(text=st.binary(max_size=300))
def test_any_config_file_bytes_give_a_config_error(text, tmp_path_factory):
    arm()
    path = tmp_path_factory.mktemp("cfg") / "c.toml"
    path.write_bytes(text)
    try:
        load_config(path, user_agents=False)
    except ConfigError as e:
        assert str(e).startswith(f"{path}: ") and "\n" not in str(e)


def test_config_errors_name_the_file_and_field(tmp_path):
    path = tmp_path / "c.toml"
    cases = [
        (b"\xff\xfe", "not UTF-8 text"),
        (b"game = ", "not valid TOML"),
        (
            b'game = "goofspiel"\nplayers = 2\nagents = ["random"]\n'
            b'games = 4\nseed = 1\noutput = "o"\nbogus = 1',
            "unknown key 'bogus'",
        ),
        (
            b'game = "goofspiel"\nplayers = 2\nagents = ["mypkg.agents:greedy"]\n'
            b'games = 4\nseed = 1\noutput = "o"',
            r"agents\[0\]: 'mypkg.agents:greedy' is a user agent",
        ),
    ]
    for text, message in cases:
        path.write_bytes(text)
        with pytest.raises(ConfigError, match=message) as e:
            load_config(path, user_agents=False)
        assert str(e.value).startswith(f"{path}: ") and "\n" not in str(e.value)
