"""The modules that own rule codes, in the order their codes are listed.

Each module named here defines `RULES`, a tuple of rule.Rule. `rules.py` builds the table from
them, so a new family of rules (a new pattern, or the Lightning 1.x -> 2.x upgrader's TL2xx)
registers by adding its module to RULE_OWNERS: no code string is typed anywhere else.
"""

from __future__ import annotations

import importlib
from types import ModuleType

RULE_OWNERS = (
    "torchlift.migrator.outcomes",
    "torchlift.migrator.loop_rules",
)


def rule_owners() -> list[ModuleType]:
    return [importlib.import_module(name) for name in RULE_OWNERS]
