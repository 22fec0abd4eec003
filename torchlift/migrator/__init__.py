"""Source-to-source migration of plain PyTorch training loops to Lightning structure.

    migrate_source(source, path="<stdin>", target="runtime") -> MigrationResult

Never raises for any input: bad input becomes `result.error`, loops it cannot convert
faithfully stay byte-identical with a warning finding. `RULES` lists every rule code.

The engine (and libcst, black) is imported on first use: `import torchlift.migrator.result`
alone, as the CLI does at startup, stays cheap.
"""

from __future__ import annotations

import importlib

# public name -> submodule defining it, imported when the name is first asked for
_LAZY = {
    "migrate_source": ".engine",
    "TARGET_MODULES": ".engine",
    "MigrationResult": ".result",
    "Finding": ".result",
    "InputError": ".result",
    "RULES": ".rules",
}

__all__ = ["migrate_source", "MigrationResult", "Finding", "InputError", "RULES", "TARGET_MODULES"]


def __getattr__(name: str):
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
