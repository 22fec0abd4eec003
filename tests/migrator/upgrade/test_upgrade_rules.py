"""The TL2xx records: one per code, complete, and every code in the README's tables."""

import re
from pathlib import Path

from torchlift.migrator.upgrade.rules import all_rules, rule

README = Path(__file__).resolve().parents[3] / "README.md"


def test_every_rule_is_complete_and_unique():
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules)
    for record in rules:
        assert re.fullmatch(r"TL2\d\d", record.code)
        assert record.title and record.explanation and record.before and record.after
        assert record.action
    assert rule("TL201").title.startswith("Trainer device flags")


def test_readme_lists_every_code_and_names_no_other():
    text = README.read_text()
    table = set(re.findall(r"^\| (TL2\d\d) \|", text, re.MULTILINE))
    assert table == {r.code for r in all_rules()}
    mentioned = set(re.findall(r"\bTL2\d\d\b", text))
    assert mentioned <= table, f"README names unknown codes: {mentioned - table}"
