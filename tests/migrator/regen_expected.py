"""Regenerate migrator outputs after reviewing a change by hand (not collected by pytest).

    python tests/migrator/regen_expected.py            # tests/migrator/cases/*.out.py
    python tests/migrator/regen_expected.py fixtures   # fixtures/<case>/expected.py too

Only converted inputs get an output file; unconverted ones must come back unchanged.
"""

from __future__ import annotations

import sys
from pathlib import Path

from torchlift.migrator import migrate_source

ROOT = Path(__file__).resolve().parents[2]


def regen_cases() -> None:
    for source in sorted((ROOT / "tests/migrator/cases").glob("*.in.py")):
        result = migrate_source(source.read_text(), str(source))
        out = source.with_name(source.name.replace(".in.py", ".out.py"))
        if result.changed:
            out.write_text(result.output)
        elif out.exists():
            out.unlink()
        print(f"{source.name}: {'converted' if result.changed else 'unchanged'}")


def regen_fixtures() -> None:
    from torchlift.cli.sources import encode_source, read_source

    for source in sorted((ROOT / "fixtures").glob("*/input.py")):
        text, encoding = read_source(str(source))
        result = migrate_source(text, str(source))
        expected = source.with_name("expected.py")
        if result.changed:
            expected.write_bytes(encode_source(result.output, encoding))
        elif expected.exists():
            expected.unlink()
        codes = ",".join(f.code for f in result.findings)
        print(f"{source.parent.name}: {'converted' if result.changed else 'unchanged'} {codes}")


if __name__ == "__main__":
    regen_cases()
    if "fixtures" in sys.argv[1:]:
        regen_fixtures()
