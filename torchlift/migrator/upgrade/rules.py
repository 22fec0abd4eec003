"""The TL2xx codes as data: one record per row of Lightning's 1.x -> 2.0 upgrade guide.

Each row family module owns its records (`RULES = [...]`); the list of codes is built here
from those modules, never typed twice (TorchFix's registry habit). A record says what the
row is, shows it, and says what the user must do when the row is only reported.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UpgradeRule:
    code: str  # "TL2xx", stable
    title: str  # one line, for the rules table
    explanation: str  # what changed in Lightning 2.x, and how the row is applied
    before: str  # a 1.x snippet
    after: str  # its 2.x form
    action: str  # what the user must do when the row is reported instead of applied

    def __str__(self) -> str:
        return f"{self.code} {self.title}"


def all_rules() -> list[UpgradeRule]:
    """Every TL2xx record of every row family, in code order."""
    from . import callbacks, calls_and_imports, epoch_end_hooks, retarget, trainer_flags

    families = (trainer_flags, epoch_end_hooks, calls_and_imports, callbacks, retarget)
    rules = [rule for family in families for rule in family.RULES]
    return sorted(rules, key=lambda rule: rule.code)


def rule(code: str) -> UpgradeRule:
    for candidate in all_rules():
        if candidate.code == code:
            return candidate
    raise KeyError(code)
