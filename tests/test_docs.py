"""The docs say what the code does: every flag docs/cli.md lists is the parser's and every
parser flag is listed; every ``dynasty`` command in the docs parses, and the configs it names
exist and load; every Python block in README.md and docs/ runs (small sizes: a 200-game demo
folder stands in for ``results/demo``); every TOML block parses, and the complete configs load.

A block the tests must not run is preceded by ``<!-- doc-test: skip REASON -->``.
"""

import argparse
import importlib
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from experiments.cli import bench_names, build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "notebooks" / "README.md"] + sorted(
    (ROOT / "docs").rglob("*.md")
)
FENCE = re.compile(r"^```(\w*)\s*$")
SKIP = re.compile(r"<!--\s*doc-test:\s*skip\b")


def blocks(path: Path) -> list[tuple[str, int, str, bool]]:
    """(language, line, text, skipped) of every fenced block of a Markdown file."""
    out, lines, i = [], path.read_text().splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m and m.group(1):
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            skipped = i > 0 and bool(SKIP.search(lines[i - 1]))
            out.append((m.group(1), i + 1, "\n".join(lines[i + 1 : j]), skipped))
            i = j
        i += 1
    return out


def _sub_parsers() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    out = dict(sub.choices)
    for b in bench_names():
        out[f"bench {b}"] = importlib.import_module(f"experiments.bench.{b}").build_parser()
    return out


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {
        s
        for a in parser._actions
        if not isinstance(a, argparse._HelpAction)
        for s in a.option_strings
        if s.startswith("--")
    }


# --------------------------------------------------------------------------- the reference


def documented_flags() -> dict[str, set[str]]:
    """Command (``run``, ``bench engines`` ...) -> the flags docs/cli.md lists for it."""
    out, cmd = {}, None
    for line in (ROOT / "docs" / "cli.md").read_text().splitlines():
        m = re.match(r"^#{2,3} dynasty (.+)$", line)
        if m:
            cmd = m.group(1).strip()
            out[cmd] = set()
        elif cmd and line.startswith("| `--"):
            out[cmd].add(line[3:].split("`")[0].split()[0])
    return out


def test_the_command_reference_lists_every_flag_of_every_command():
    parsers, documented = _sub_parsers(), documented_flags()
    assert set(documented) == set(parsers)
    for cmd, parser in parsers.items():
        assert documented[cmd] == _flags(parser), cmd


# --------------------------------------------------------------------------- commands in the docs


def _commands() -> list[tuple[str, str]]:
    """(where, the words after ``dynasty``) of every command line in the docs' shell blocks and
    of every inline ``dynasty ...`` code span; ``[a|b]`` alternatives expanded."""
    found = []
    for path in DOCS:
        rel = path.relative_to(ROOT)
        for lang, line, text, _ in blocks(path):
            if lang in ("sh", "bash", "console"):
                for k, cmd in enumerate(text.splitlines()):
                    m = re.match(r"^(?:\S*/)?dynasty\s+(.*?)\s*(?:#.*)?$", cmd.strip())
                    if m:
                        found.append((f"{rel}:{line + 1 + k}", m.group(1)))
        for m in re.finditer(r"`dynasty ([a-z][^`]*)`", path.read_text()):
            found.append((f"{rel} `dynasty {m.group(1)}`", m.group(1)))
    out = []
    for where, words in found:
        alt = re.search(r"\[([\w|]+)\]", words)
        if alt and "|" in alt.group(1):
            out += [(where, words.replace(alt.group(0), a)) for a in alt.group(1).split("|")]
        else:
            out.append((where, words))
    return out


CONFIG_LOADERS = {
    "run": "experiments.run.config:load_config",
    "study": "experiments.study.study:load_study",
    "interventions": "experiments.study.interventions:load_interventions",
    "tournament": "experiments.tournament.tournament:load_tournament",
    "depth": "experiments.depth.depth:load_depth",
    "tune": "experiments.tune.tune:load_tune",
    "train": "experiments.train.config:load_train",
}


def test_every_documented_command_parses_and_names_real_configs():
    parsers = _sub_parsers()
    checked = 0
    for where, words in _commands():
        tokens = shlex.split(words)
        cmd = tokens[0].rstrip(":")
        if cmd not in parsers and cmd != "bench":
            raise AssertionError(f"{where}: unknown command {cmd!r}")
        if cmd == "bench" and len(tokens) > 1 and not tokens[1].startswith("-"):
            cmd, tokens = f"bench {tokens[1]}", tokens[1:]
            assert cmd in parsers, f"{where}: unknown benchmark {tokens[0]!r}"
        flags = {t.split("=")[0] for t in tokens[1:] if t.startswith("--")}
        unknown = flags - _flags(parsers[cmd])
        assert not unknown, f"{where}: {cmd} has no flag {sorted(unknown)[0]}"
        for t in tokens[1:]:
            if (
                t.endswith(".toml")
                and t.startswith("experiments/configs/")
                and "<" not in t
                and t.upper() != t
                and "NAME" not in t
            ):
                path = ROOT / t
                assert path.is_file(), f"{where}: no config {t}"
                module, fn = CONFIG_LOADERS[cmd].split(":")
                getattr(importlib.import_module(module), fn)(path)
        checked += 1
    assert checked > 40


# --------------------------------------------------------------------------- code blocks


def _python_docs() -> list[Path]:
    return [p for p in DOCS if any(b[0] == "python" and not b[3] for b in blocks(p))]


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory):
    """``results/demo`` at a small size: the demo config with 200 games."""
    import ray

    from experiments.run.config import from_dict
    from experiments.run.runner import local_ray_options, run

    work = tmp_path_factory.mktemp("docs")
    data = tomllib.loads((ROOT / "experiments" / "configs" / "demo.toml").read_text())
    data.update(games=200, output=str(work / "results" / "demo"))
    ray.init(**local_ray_options(workers=2))
    try:
        run(from_dict(data), workers=2, progress=False)
        yield work
    finally:
        ray.shutdown()


@pytest.mark.parametrize("path", _python_docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_block_runs(path, demo_folder, monkeypatch):
    """Each file's Python blocks, in order, in one namespace, in a folder holding
    ``results/demo`` and the repository's ``experiments/configs``."""
    monkeypatch.chdir(demo_folder)
    configs = demo_folder / "experiments" / "configs"
    if not configs.exists():
        configs.parent.mkdir(parents=True, exist_ok=True)
        configs.symlink_to(ROOT / "experiments" / "configs")
    namespace: dict = {"__name__": "__doc_block__"}
    for lang, line, text, skipped in blocks(path):
        if lang == "python" and not skipped:
            # a file of its own, so that a kernel in it can be cached like any other
            src = demo_folder / f"{path.stem}_{line}.py"
            src.write_text(text)
            exec(compile(text, str(src), "exec"), namespace)


def test_every_toml_block_parses_and_complete_configs_load(tmp_path):
    from experiments.depth.depth import depth_from_dict
    from experiments.run.config import from_dict
    from experiments.study.study import study_from_dict
    from experiments.tournament.tournament import tournament_from_dict
    from experiments.train.config import train_from_dict
    from experiments.tune.tune import tune_from_dict

    loaded = 0
    for path in DOCS:
        for lang, line, text, skipped in blocks(path):
            if lang != "toml" or skipped:
                continue
            where = f"{path.relative_to(ROOT)}:{line}"
            data = tomllib.loads(text)
            if "output" in data:
                data["output"] = str(tmp_path / where.replace("/", "_"))
            if "generations" in data:
                train_from_dict(data, where)
            elif "pool" in data:
                tournament_from_dict(data, where)
            elif "budgets" in data or "ladder" in data:
                depth_from_dict(data, where)
            elif "search" in data and "trials" in data:
                tune_from_dict(data, where)
            elif "axes" in data:
                study_from_dict(data, where)
            elif "game" in data and "agents" in data:
                from_dict(data, where)
            else:
                continue  # a fragment of a config, parsed above
            loaded += 1
    assert loaded >= 3
