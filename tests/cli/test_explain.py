"""`migrate --explain CODE`: every rule code explains itself, with an example and a way out."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from torchlift.cli import migrate_command
from torchlift.migrator.rules import RULE_DETAILS


def explain(*args):
    return CliRunner().invoke(migrate_command, ["--explain", *args])


@pytest.mark.parametrize("code", sorted(RULE_DETAILS))
def test_every_code_is_explained(code):
    result = explain(code)
    rule = RULE_DETAILS[code]
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{code}: {rule.title}\n")
    assert "What you can do:" in result.output
    if rule.example is not None:
        assert "Example (" in result.output
        # the example is printed as written, indented
        first_line = next(line for line in rule.example.splitlines() if line.strip())
        assert first_line.strip() in result.output


def test_codes_are_case_insensitive_and_need_no_path():
    assert explain("tl107").output == explain("TL107").output


def test_unknown_code_is_a_usage_error_listing_the_known_ones():
    result = explain("TL999")
    assert result.exit_code == 2
    assert "unknown rule code 'TL999'" in result.output
    assert "TL107" in result.output
