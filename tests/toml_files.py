"""Writing the configs the tests play: a run, tournament or depth table as a TOML file."""

from __future__ import annotations

import json
from pathlib import Path


def write_toml(path: Path, d: dict) -> Path:
    """``d`` as TOML at ``path``: scalars, lists and inline tables at the top, then its
    ``options`` as an ``[options]`` table."""

    def val(v):
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {val(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        return json.dumps(v)

    lines = [f"{k} = {val(v)}" for k, v in d.items() if k != "options"]
    lines += ["[options]"] + [f"{k} = {val(v)}" for k, v in d.get("options", {}).items()]
    path.write_text("\n".join(lines) + "\n")
    return path
