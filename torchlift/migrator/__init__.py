"""Source-to-source migration of plain PyTorch training loops to Lightning structure.

    migrate_source(source, path="<stdin>", target="runtime") -> MigrationResult

Never raises for any input: bad input becomes `result.error`, loops it cannot convert
faithfully stay byte-identical with a warning finding. `RULES` lists every rule code.
"""

from .engine import TARGET_MODULES, migrate_source
from .result import Finding, InputError, MigrationResult
from .rules import RULES

__all__ = ["migrate_source", "MigrationResult", "Finding", "InputError", "RULES", "TARGET_MODULES"]
