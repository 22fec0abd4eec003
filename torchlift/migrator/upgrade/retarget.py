"""Lightning import lines: 1.x module paths renamed, and the root made the `--target` engine.

    import pytorch_lightning as pl                   -> import torchlift.runtime as pl
    from pytorch_lightning.core.lightning import X  -> from torchlift.runtime.core.module import X
    from pytorch_lightning.metrics import Accuracy  -> from torchmetrics import Accuracy

Only `pytorch_lightning` and `lightning.pytorch` imports are rewritten; the root `lightning`
package (`import lightning as L`, Fabric) is already 2.x and stays. For `--target runtime`,
a file using a name the runtime lacks (profilers, tuner, ...) keeps its Lightning imports and
says which name stopped it (TL251): its upgraded code runs on Lightning 2.x as it is.
"""

from __future__ import annotations

import libcst as cst

from ..source.code_text import code_of
from .context import FileUpgrade
from .rules import UpgradeRule
from .runtime_api import available_on_runtime

RULES = [
    UpgradeRule(
        "TL250",
        "Lightning imports name the --target engine",
        "An upgraded file imports the engine chosen with --target, as converted loops do: "
        "torchlift.runtime (default), lightning.pytorch or pytorch_lightning.",
        "import pytorch_lightning as pl",
        "import torchlift.runtime as pl",
        "(applied whenever the file is upgraded)",
    ),
    UpgradeRule(
        "TL251",
        "--target runtime: the file uses a Lightning name the runtime lacks; imports kept",
        "torchlift.runtime mirrors the part of lightning.pytorch that converted scripts use. "
        "A file needing more keeps importing Lightning (upgraded to 2.x), so it still runs.",
        "from pytorch_lightning.profiler import SimpleProfiler",
        "from pytorch_lightning.profilers import SimpleProfiler",
        "run it on Lightning (--target lightning), or replace the name that is not available",
    ),
]

# 1.x module paths (canonical) -> (2.x path, rule code); "torchmetrics" leaves Lightning
MODULE_RENAMES = {
    "core.lightning": ("core.module", "TL234"),
    "callbacks.base": ("callbacks", "TL234"),
    "utilities.cli": ("cli", "TL234"),
    "profiler": ("profilers", "TL235"),
    "metrics": ("torchmetrics", "TL233"),
}
_ROOTS = ("pytorch_lightning", "lightning.pytorch")


def renamed_path(path: str) -> tuple[str, str | None]:
    """(2.x canonical path, rule code or None) for a canonical module path."""
    for old, (new, code) in MODULE_RENAMES.items():
        if path == old or path.startswith(old + "."):
            return new + path[len(old) :], code
    return path, None


class _LightningImports(cst.CSTVisitor):
    """Every `import`/`from ... import` of pytorch_lightning or lightning.pytorch."""

    def __init__(self, module: cst.Module):
        super().__init__()
        self.module = module
        self.found: list[tuple[cst.CSTNode, str, str]] = []  # (node, root, canonical path)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self._record(node, self.module.code_for_node(alias.name))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None and not node.relative:
            self._record(node, self.module.code_for_node(node.module))

    def _record(self, node, dotted: str) -> None:
        for root in _ROOTS:
            if dotted == root or dotted.startswith(root + "."):
                self.found.append((node, root, dotted[len(root) + 1 :]))
                return


def lightning_imports(upgrade: FileUpgrade) -> list[tuple[cst.CSTNode, str, str]]:
    visitor = _LightningImports(upgrade.module)
    upgrade.wrapper.visit(visitor)
    return visitor.found


def record_path_renames(upgrade: FileUpgrade, imports) -> None:
    """Findings for the 1.x module paths; the rewrite itself is `record_imports`'s."""
    for node, root, path in imports:
        new, code = renamed_path(path)
        if code is not None:
            upgrade.applied(node, code, f"{root}.{path} -> {_joined(root, new)}")


def choose_root(upgrade: FileUpgrade, imports, target_module: str) -> str:
    """The module Lightning imports will name. For the runtime, every Lightning name the file
    uses must exist there; otherwise the file's own root is kept (TL251)."""
    own = imports[0][1] if imports else "pytorch_lightning"
    for node, root, path in imports:
        bare = isinstance(node, cst.Import) and any(
            alias.asname is None and "." in upgrade.module.code_for_node(alias.name)
            for alias in node.names
        )
        if bare and (path or "." in root):  # `import pytorch_lightning.callbacks` binds the root
            upgrade.reported(
                node,
                "TL251",
                f"`import {root}.{path}` binds {root.split('.')[0]}: imports kept as {root}; "
                f"write `import {root} as pl` to let them follow --target",
            )
            return own
    if target_module != "torchlift.runtime":
        return target_module
    missing = _first_missing_on_runtime(upgrade, imports)
    if missing is None:
        return target_module
    node, name = missing
    upgrade.reported(
        node,
        "TL251",
        f"torchlift.runtime has no {name}: imports kept as {own} (2.x); "
        "use --target lightning or replace it",
    )
    return own


def record_imports(upgrade: FileUpgrade, imports, root: str) -> None:
    """Edits giving each Lightning import its 2.x path under `root`."""
    for node, old_root, path in imports:
        new, _ = renamed_path(path)
        dotted, before = _joined(root, new), _joined(old_root, path)
        if dotted == before:
            continue
        if isinstance(node, cst.ImportFrom):
            expression = cst.parse_expression(dotted)
            upgrade.edit(node, lambda n, e=expression: n.with_changes(module=e))
        else:
            upgrade.edit(node, lambda n, o=before, d=dotted: _retarget(n, o, d))
    if root != (imports[0][1] if imports else root):
        node = imports[0][0]
        upgrade.applied(node, "TL250", f"Lightning imports now name {root}")


def _retarget(node: cst.Import, old: str, new: str) -> cst.Import:
    names = []
    for alias in node.names:
        dotted = code_of(alias.name)
        if dotted == old:
            bound = alias.asname or cst.AsName(name=cst.Name(old.split(".")[0]))
            if alias.asname is None and "." in old:
                names.append(alias)  # `import a.b` binds `a`: cannot be re-pointed alone
                continue
            alias = alias.with_changes(name=cst.parse_expression(new), asname=bound)
        names.append(alias)
    return node.with_changes(names=names)


def _joined(root: str, path: str) -> str:
    if path.startswith("torchmetrics"):
        return path
    return f"{root}.{path}" if path else root


def _first_missing_on_runtime(upgrade: FileUpgrade, imports):
    for node, _, path in imports:
        new, _ = renamed_path(path)
        if new.startswith("torchmetrics"):
            continue
        if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                name = f"{new}.{alias.name.value}" if new else alias.name.value
                if not available_on_runtime(name):
                    return node, name
        elif isinstance(node, cst.ImportFrom):
            return node, f"every name of {new or 'the package'} (import *)"
        elif new and not available_on_runtime(new):
            return node, new
    finder = _UsedNames(upgrade)
    upgrade.wrapper.visit(finder)
    return finder.missing


class _UsedNames(cst.CSTVisitor):
    """The first use of a Lightning name (pl.profilers.SimpleProfiler) the runtime lacks."""

    def __init__(self, upgrade: FileUpgrade):
        super().__init__()
        self.upgrade = upgrade
        self.missing = None

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if self.missing is not None:
            return False
        for name in self.upgrade.lightning_names(node):
            name, _ = renamed_path(name)
            if name and not name.startswith("torchmetrics") and not available_on_runtime(name):
                self.missing = (node, name)
                return False
        return True

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False
