"""Builds the review page from MigrationResults: original left, conversion right, linked lines.

Every line covered by a change carries `data-changes="<indices>"`; the inline script highlights
all lines sharing an index, on both sides. Runs of lines no change touches are folded behind a
button, so a long file shows only what moved.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from importlib import resources
from typing import Iterable, Mapping, Sequence

from torchlift.migrator.result import Change, MigrationResult

FOLD_AT = 12  # untouched runs longer than this are folded (context lines stay visible)
CONTEXT = 3


@dataclass(frozen=True)
class LossTrace:
    """What `--verify` recorded for one script: the loss at every backward(), and its verdict."""

    original: Sequence[float]
    converted: Sequence[float]
    verdict: str


def render_review(
    results: Iterable[MigrationResult],
    *,
    target: str = "runtime",
    traces: Mapping[str, LossTrace] | None = None,
) -> str:
    """The whole page as one string (write it with the CLI's file helpers)."""
    from torchlift.migrator.rules import RULES  # the legend names what each code means

    results = list(results)
    traces = traces or {}
    codes = sorted(
        {c.code for r in results for c in r.changes} | {f.code for r in results for f in r.findings}
    )
    sections = [_file_section(i, r, traces.get(r.path)) for i, r in enumerate(results)]
    changed = sum(r.changed for r in results)
    failed = sum(r.error is not None for r in results)
    summary = (
        f"{len(results)} file{'s' if len(results) != 1 else ''}: {changed} converted, "
        f"{len(results) - changed - failed} unchanged, {failed} failed · target {target}"
    )
    legend = "".join(f"<dt>{_e(code)}</dt><dd>{_e(RULES.get(code, ''))}</dd>" for code in codes)
    return _PAGE.format(
        css=_asset("page.css"),
        js=_asset("page.js"),
        summary=_e(summary),
        legend=legend or "<dt></dt><dd>no rule applied</dd>",
        sections="\n".join(sections),
    )


def _file_section(index: int, result: MigrationResult, trace: LossTrace | None) -> str:
    status = "failed" if result.error else "changed" if result.changed else "unchanged"
    parts = [
        f'<section class="file" data-file="{index}">',
        f'<h2>{_e(result.path)}<span class="status {status}">{status}</span></h2>',
    ]
    if result.error is not None:
        parts.append(
            f'<table class="findings"><tr><td class="warning">{_e(str(result.error))}'
            "</td></tr></table>"
        )
    if result.findings:
        parts.append(_findings_table(result))
    if result.changes:
        parts.append(_changes_table(result.changes))
    if result.changed:
        parts.append('<div class="panes">')
        parts.append(_pane("original", "Original", result.source, result.changes, "source_lines"))
        parts.append(
            _pane("converted", "Conversion", result.output, result.changes, "output_lines")
        )
        parts.append("</div>")
    if trace is not None:
        parts.append(_verify_block(trace))
    parts.append("</section>")
    return "\n".join(parts)


def _findings_table(result: MigrationResult) -> str:
    rows = "".join(
        f'<tr><td class="{_e(f.severity)}"><span class="code">{_e(f.code)}</span></td>'
        f"<td>line {f.line}</td><td>{_e(f.message)}</td></tr>"
        for f in result.findings
    )
    return f'<table class="findings">{rows}</table>'


def _changes_table(changes: Sequence[Change]) -> str:
    rows = []
    for index, change in enumerate(changes):
        rows.append(
            f'<tr data-changes="{index}"><td class="code">{_e(change.code)}</td>'
            f'<td class="ranges">{_range(change.source_lines)} → {_range(change.output_lines)}</td>'
            f"<td>{_e(change.message)}</td></tr>"
        )
    return f'<table class="changes">{"".join(rows)}</table>'


def _range(lines: tuple[int, int] | None) -> str:
    if lines is None:
        return "—"
    first, last = lines
    return f"{first}" if first == last else f"{first}–{last}"


def _pane(kind: str, title: str, text: str, changes: Sequence[Change], side: str) -> str:
    lines = text.splitlines()
    covering: dict[int, list[int]] = {}
    # narrowest change first: a click on a line pins the most specific change covering it
    by_width = sorted(
        (i for i, c in enumerate(changes) if getattr(c, side) is not None),
        key=lambda i: getattr(changes[i], side)[1] - getattr(changes[i], side)[0],
    )
    for index in by_width:
        first, last = getattr(changes[index], side)
        for number in range(first, last + 1):
            covering.setdefault(number, []).append(index)
    rendered = []
    for number, line in enumerate(lines, start=1):
        owners = covering.get(number)
        attrs = (
            f' class="ln touched" data-changes="{" ".join(map(str, owners))}"'
            if owners
            else ' class="ln"'
        )
        rendered.append(
            f'<div{attrs} id="{kind}-{number}"><span class="no">{number}</span>'
            f'<span class="tx">{_e(line)}</span></div>'
        )
    body = "\n".join(_fold(rendered, set(covering)))
    return f'<div class="pane {kind}"><h3>{title}</h3><div class="src">{body}</div></div>'


def _fold(rendered: list[str], touched: set[int]) -> list[str]:
    """Replace long runs of untouched lines by a button that shows them."""
    keep = set()
    for number in touched:
        keep.update(range(number - CONTEXT, number + CONTEXT + 1))
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) > FOLD_AT:
            out.append(f'<button class="fold" type="button">⋯ {len(run)} unchanged lines</button>')
            out.append(f'<div class="folded">{"".join(run)}</div>')
        else:
            out.extend(run)
        run.clear()

    for number, line in enumerate(rendered, start=1):
        if number in keep:
            flush()
            out.append(line)
        else:
            run.append(line)
    flush()
    return out


def _verify_block(trace: LossTrace) -> str:
    rows = "".join(
        f"<tr><td>{step}</td><td>{_number(a)}</td><td>{_number(b)}</td>"
        f"<td>{'=' if a == b else _number(abs(a - b))}</td></tr>"
        for step, (a, b) in enumerate(_pairs(trace), start=1)
    )
    return (
        f'<div class="verify"><p class="verdict">--verify: {_e(trace.verdict)}</p>'
        f"{_plot(trace)}"
        '<table class="losses"><tr><th>step</th><th>original</th><th>converted</th>'
        f"<th>|difference|</th></tr>{rows}</table></div>"
    )


def _pairs(trace: LossTrace):
    longest = max(len(trace.original), len(trace.converted))
    for i in range(longest):
        a = trace.original[i] if i < len(trace.original) else math.nan
        b = trace.converted[i] if i < len(trace.converted) else math.nan
        yield a, b


def _plot(trace: LossTrace, width: int = 480, height: int = 160) -> str:
    values = [v for v in (*trace.original, *trace.converted) if math.isfinite(v)]
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    steps = max(len(trace.original), len(trace.converted), 2) - 1

    def points(series: Sequence[float]) -> str:
        x_scale, y_scale = (width - 16) / steps, (height - 16) / span
        return " ".join(
            f"{8 + x_scale * i:.1f},{height - 8 - y_scale * (v - low):.1f}"
            for i, v in enumerate(series)
            if math.isfinite(v)
        )

    return (
        f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        'aria-label="loss per step: original and converted">'
        f'<polyline class="orig" fill="none" stroke-width="2" points="{points(trace.original)}"/>'
        f'<polyline class="conv" fill="none" stroke-width="2" points="{points(trace.converted)}"/>'
        "</svg>"
    )


def _number(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.9g}"


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>torchlift review</title>
<style>
{css}</style>
</head>
<body>
<header><h1>torchlift review</h1><p>{summary}</p></header>
<main>
<section id="legend"><h2>Rules</h2><dl>{legend}</dl></section>
{sections}
</main>
<script>
{js}</script>
</body>
</html>
"""
