"""The shape of the code, checked: no import circle anywhere in the project, no module over
about 900 lines in the engines, agents and workflows, and no game module looked up by name
(every consumer takes what it needs from the game's spec)."""

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sim", "agents", "experiments", "dynasty_lab")
MAX_LINES = 900


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the project's packages."""
    out = {}
    for pkg in PACKAGES:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            parts = f.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = f
    return out


def _imported(node: ast.AST, module: str, is_package: bool, mods: dict) -> list[str]:
    """The project modules an import statement imports: ``from a import b`` imports the module
    a.b if there is one, else (b is a name defined in a) the module a."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = module.split(".")[: len(module.split(".")) - node.level + is_package]
            base = ".".join(parts + ([node.module] if node.module else []))
        return [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
    return []


def import_graph() -> nx.DiGraph:
    """Module -> the project modules it imports, at the top or inside a function."""
    mods = _modules()
    g = nx.DiGraph()
    for name, f in mods.items():
        g.add_node(name)
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            for target in _imported(node, name, f.name == "__init__.py", mods):
                if target in mods and target != name:
                    g.add_edge(name, target)
    return g


def test_no_import_circle_in_the_project():
    cycles = list(nx.simple_cycles(import_graph()))
    assert cycles == [], "import circles: " + "; ".join(" -> ".join(c) for c in cycles[:5])


def test_the_import_graph_sees_imports_inside_functions():
    """The check would catch a circle made by a function-local import (experiments.cli imports
    its workflows; a workflow importing the CLI back, even inside a function, closes one)."""
    g = import_graph()
    assert g.has_edge("experiments.cli", "experiments.run.runner")
    assert g.has_edge("experiments.tune.report", "experiments.tune.tune")


@pytest.mark.parametrize("pkg", ["sim", "agents", "experiments"])
def test_no_module_over_900_lines(pkg):
    long = {
        str(f.relative_to(ROOT)): n
        for f in (ROOT / pkg).rglob("*.py")
        if (n := len(f.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_no_game_module_is_looked_up_by_name():
    """Only the registry imports a game's package by name; nothing imports one of a game's
    modules from a computed name."""
    found = []
    for name, f in _modules().items():
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if not (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", getattr(node.func, "id", ""))
                in ("import_module", "__import__")
            ):
                continue
            arg = node.args[0] if node.args else None
            text = ast.unparse(arg) if arg is not None else ""
            if name != "sim.registry" and ("sim" in text or "boards" in text):
                found.append(f"{f.relative_to(ROOT)}:{node.lineno}: {text}")
    assert found == []
