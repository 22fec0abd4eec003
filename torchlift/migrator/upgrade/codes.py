"""The TL2xx records as rule.Rule: what the migrator's rules table and `--explain` read.

The records themselves live with their row families (rules.py collects them); this module only
shows each one in the shape every other rule has: what it means, before/after, what to do.
"""

from __future__ import annotations

from ..rule import Rule
from .rules import all_rules

RULES = tuple(
    Rule(
        record.code,
        record.title,
        f"{record.explanation} Before (1.x): `{record.before}`. After (2.x): `{record.after}`.",
        f"When the row is only reported: {record.action}.",
    )
    for record in all_rules()
)
