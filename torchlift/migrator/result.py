"""Values the migrator returns. Outcomes are values, not exceptions (LibCST's runner style).

This is the contract between the migrator, the CLI and `--verify`; change it only together.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Finding:
    """Something the report tells the user: a loop left alone and why, or what was converted."""

    path: str
    line: int
    column: int
    code: str  # rule code, e.g. "TL101"; stable, documented in the rules table
    message: str
    severity: str = "info"  # "info" (converted / nothing to do) | "warning" (left unconverted)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.code} {self.message}"


@dataclass(frozen=True)
class InputError:
    """The input could not be processed at all (syntax error, undecodable, empty, Python 2...)."""

    path: str
    line: int
    cause: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.cause}; nothing written"


@dataclass(frozen=True)
class Change:
    """One transformation, as the migrator made it: the change log read by `-v`, the JSON report
    and the review page. Line ranges are 1-based and inclusive; `None` when there is no such side
    (an import the conversion adds reads no source line; a statement it deletes writes none)."""

    code: str
    source_lines: tuple[int, int] | None
    output_lines: tuple[int, int] | None
    message: str


@dataclass
class MigrationResult:
    path: str
    source: str
    output: str  # equals `source` when nothing was converted (or on error)
    findings: list[Finding] = field(default_factory=list)
    error: InputError | None = None
    changes: list[Change] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.error is None and self.output != self.source
