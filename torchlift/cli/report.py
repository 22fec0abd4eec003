"""What `migrate` tells the user: unified diffs, report lines, the summary, the JSON report."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field

from torchlift.migrator.result import MigrationResult

REPORT_VERSION = 2


def unified_diff(before: str, after: str, path: str) -> str:
    """A `diff -u`-style patch from `before` to `after`, marking a missing final newline."""
    a_lines = before.splitlines(keepends=True)
    b_lines = after.splitlines(keepends=True)
    lines = []
    for line in difflib.unified_diff(a_lines, b_lines, fromfile=f"a/{path}", tofile=f"b/{path}"):
        if line.endswith(("\n", "\r")):
            lines.append(line)
        else:  # the file's last line: patch(1) needs this marker to reproduce it exactly
            lines.append(line + "\n\\ No newline at end of file\n")
    return "".join(lines)


@dataclass
class Tally:
    """Counts for the summary line, in black's voice."""

    changed: int = 0
    unchanged: int = 0
    failed: int = 0
    results: list[MigrationResult] = field(default_factory=list)

    def add(self, result: MigrationResult) -> None:
        self.results.append(result)
        if result.error is not None:
            self.failed += 1
        elif result.changed:
            self.changed += 1
        else:
            self.unchanged += 1

    def summary(self, *, would: bool) -> str:
        def files(n: int) -> str:
            return f"{n} file{'s' if n != 1 else ''}"

        if not (self.changed or self.unchanged or self.failed):
            return "No Python files to migrate."
        parts = []
        if would:
            if self.changed:
                parts.append(f"{files(self.changed)} would be changed")
            if self.unchanged:
                parts.append(f"{files(self.unchanged)} would be left unchanged")
            if self.failed:
                parts.append(f"{files(self.failed)} would fail to migrate")
        else:
            if self.changed:
                parts.append(f"{files(self.changed)} changed")
            if self.unchanged:
                parts.append(f"{files(self.unchanged)} left unchanged")
            if self.failed:
                parts.append(f"{files(self.failed)} failed to migrate")
        return ", ".join(parts) + "."


    def table(self) -> str:
        """The end of a directory run: files converted / unchanged / failed, and the loops left
        alone, counted by rule code."""
        refused: dict[str, int] = {}
        for result in self.results:
            for finding in result.findings:
                if finding.severity == "warning":
                    refused[finding.code] = refused.get(finding.code, 0) + 1
        by_code = ", ".join(f"{code} x{n}" for code, n in sorted(refused.items()))
        rows = [
            ("files converted", self.changed, ""),
            ("files unchanged", self.unchanged, ""),
            ("files failed", self.failed, ""),
            ("loops refused", sum(refused.values()), f"  ({by_code})" if by_code else ""),
        ]
        return "\n".join(f"{label:<16}{count:>6}{detail}" for label, count, detail in rows)


def colour_diff(diff: str) -> str:
    """The unified diff with ANSI colours as git and black show it (headers bold, hunks cyan)."""
    import click

    out = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            out.append(click.style(line, bold=True))
        elif line.startswith("@@"):
            out.append(click.style(line, fg="cyan"))
        elif line.startswith("+"):
            out.append(click.style(line, fg="green"))
        elif line.startswith("-"):
            out.append(click.style(line, fg="red"))
        else:
            out.append(line)
    return "".join(out)


def status_of(result: MigrationResult) -> str:
    if result.error is not None:
        return "failed"
    return "changed" if result.changed else "unchanged"


def json_report(tally: Tally, *, target: str) -> str:
    """The `--report FILE` document. Schema version 2 (docs/report-schema-v2.json):

    {"version": 2, "target": "runtime",
     "summary": {"changed": int, "unchanged": int, "failed": int},
     "files": [{"path": str, "status": "changed" | "unchanged" | "failed",
                "error": null | {"line": int, "message": str},
                "findings": [{"line": int, "column": int, "code": str,
                              "message": str, "severity": "info" | "warning"}],
                "changes": [{"code": str, "source_lines": null | [first, last],
                             "output_lines": null | [first, last], "message": str}]}]}

    Version 2 adds "changes", the migrator's change log (1-based inclusive line ranges).
    """
    files = []
    for result in tally.results:
        error = None
        if result.error is not None:
            error = {"line": result.error.line, "message": result.error.cause}
        findings = [
            {
                "line": f.line,
                "column": f.column,
                "code": f.code,
                "message": f.message,
                "severity": f.severity,
            }
            for f in result.findings
        ]
        changes = [
            {
                "code": c.code,
                "source_lines": list(c.source_lines) if c.source_lines else None,
                "output_lines": list(c.output_lines) if c.output_lines else None,
                "message": c.message,
            }
            for c in result.changes
        ]
        files.append(
            {
                "path": result.path,
                "status": status_of(result),
                "error": error,
                "findings": findings,
                "changes": changes,
            }
        )
    document = {
        "version": REPORT_VERSION,
        "target": target,
        "summary": {"changed": tally.changed, "unchanged": tally.unchanged, "failed": tally.failed},
        "files": files,
    }
    return json.dumps(document, indent=2) + "\n"


def change_log_lines(result: MigrationResult) -> list[str]:
    """`-v`: one grep-able line per change, `path:line: CODE message (lines a-b -> c-d)`."""

    def span(lines) -> str:
        if lines is None:
            return "none"
        return str(lines[0]) if lines[0] == lines[1] else f"{lines[0]}-{lines[1]}"

    return [
        f"{result.path}:{(c.source_lines or c.output_lines or (1, 1))[0]}: {c.code} {c.message} "
        f"(lines {span(c.source_lines)} -> {span(c.output_lines)})"
        for c in result.changes
    ]
