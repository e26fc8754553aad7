"""The report writer every report uses (run, study, tournament, tuning): a report is a list of
blocks (``(level, heading)``, a paragraph string, a :class:`Table`, an :class:`Image`), written
as Markdown (:func:`markdown`) and as one HTML page (:func:`html_page`), with PNG plots drawn
by matplotlib (:func:`pyplot`)."""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Table:
    """A table with a caption (rows of values; floats printed with 4 significant decimals)."""

    columns: list[str]
    rows: list[list[Any]]
    caption: str


@dataclass
class Image:
    """A PNG beside the report (``file`` relative to the report's folder)."""

    file: str
    alt: str


def _fmt(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return "–"
        return f"{v:.4f}" if abs(v) < 10 else f"{v:.2f}"
    if isinstance(v, (np.integer,)):
        return str(int(v))
    return str(v)


def markdown(blocks: list) -> str:
    """The blocks as Markdown."""
    out = []
    for b in blocks:
        if isinstance(b, tuple):
            level, text = b
            out.append("#" * level + " " + text)
        elif isinstance(b, str):
            out.append(b)
        elif isinstance(b, Table):
            out.append(f"*{b.caption}*\n")
            out.append("| " + " | ".join(b.columns) + " |")
            out.append("|" + "|".join("---" for _ in b.columns) + "|")
            out.extend("| " + " | ".join(_fmt(v) for v in r) + " |" for r in b.rows)
        elif isinstance(b, Image):
            out.append(f"![{b.alt}]({b.file})")
        out.append("")
    return "\n".join(out)


def html_page(title: str, blocks: list) -> str:
    """The blocks as one self-contained HTML page (``**bold**``, `` `code` `` and links kept)."""
    out = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:.5em 0}"
        "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}th{background:#f3f3f3}"
        "caption{text-align:left;font-style:italic}"
        "img{max-width:100%}</style></head><body>",
    ]
    for b in blocks:
        if isinstance(b, tuple):
            level, text = b
            out.append(f"<h{level}>{html.escape(text)}</h{level}>")
        elif isinstance(b, str):
            text = html.escape(b)
            for marker, tag in (("**", "b"), ("`", "code")):
                parts = text.split(marker)
                text = "".join(
                    p if i % 2 == 0 else f"<{tag}>{p}</{tag}>" for i, p in enumerate(parts)
                )
            text = re.sub(
                r"\[([^\]]+)\]\(([^)\s]+)\)", r"<a href='\2'>\1</a>", text
            )  # Markdown links
            out.append(f"<p>{text.replace(chr(10), '<br>')}</p>")
        elif isinstance(b, Table):
            out.append(
                f"<table><caption>{html.escape(b.caption)}</caption><tr>"
                + "".join(f"<th>{html.escape(c)}</th>" for c in b.columns)
                + "</tr>"
            )
            out.extend(
                "<tr>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in r) + "</tr>"
                for r in b.rows
            )
            out.append("</table>")
        elif isinstance(b, Image):
            out.append(f"<p><img src='{html.escape(b.file)}' alt='{html.escape(b.alt)}'></p>")
    out.append("</body></html>")
    return "\n".join(out)


def axis_label(label: str, width: int = 30) -> str:
    """An agent label for a plot's axis: broken after its commas into lines of at most about
    ``width`` characters (``mcts:5ms,net=middle_kingdom,leaf=rollout`` in two lines), a part
    longer than that (a file's path) shortened in its middle, so long labels leave the plot its
    width.  The tables keep the whole label."""
    lines, cur = [], ""
    for part in label.split(","):
        if len(part) > width:
            part = part[: width // 2 - 1] + "…" + part[-(width - width // 2) :]
        if cur and len(cur) + 1 + len(part) > width:
            lines.append(cur + ",")
            cur = part
        else:
            cur = f"{cur},{part}" if cur else part
    return "\n".join(lines + [cur])


def pyplot():
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
