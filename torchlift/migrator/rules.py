"""Every rule code the migrator reports, built from the registry. Stable: users grep for
the codes, the CLI's `--explain` and the README's table list them.

    RULES         code -> one-line title
    RULE_DETAILS  code -> rule.Rule (explanation, example, what to change)
"""

from __future__ import annotations

from .registry import rule_owners
from .rule import Rule


def _collect() -> dict[str, Rule]:
    table: dict[str, Rule] = {}
    for module in rule_owners():
        for rule in module.RULES:
            if rule.code in table:
                raise RuntimeError(f"rule {rule.code} is defined twice ({module.__name__})")
            table[rule.code] = rule
    return dict(sorted(table.items()))


RULE_DETAILS: dict[str, Rule] = _collect()
RULES: dict[str, str] = {code: rule.title for code, rule in RULE_DETAILS.items()}
