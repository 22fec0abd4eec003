"""FileUpgrade: what the row families share for one file while they gather their edits.

Names are resolved by libcst's QualifiedNameProvider from the file's own imports, then made
canonical (`pytorch_lightning.callbacks.ModelCheckpoint`, `lightning.pytorch.callbacks.
ModelCheckpoint` and `from pytorch_lightning.callbacks import ModelCheckpoint` all become
`callbacks.ModelCheckpoint`), so a rule never matches text. Families only record: an edit
(node -> function of the updated node) or a finding; `apply.py` applies every edit at once.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    ScopeProvider,
)

from ..result import Finding

# longest first: `lightning.pytorch.X` must not be read as the root package's `pytorch.X`
LIGHTNING_ROOTS = ("lightning.pytorch", "pytorch_lightning", "lightning")

# where 1.x code reached a class through its defining module: the public 2.x name
_SAME_AS = {
    "trainer.trainer.Trainer": "Trainer",
    "trainer.Trainer": "Trainer",
    "core.lightning.LightningModule": "LightningModule",
    "core.module.LightningModule": "LightningModule",
    "core.LightningModule": "LightningModule",
    "core.datamodule.LightningDataModule": "LightningDataModule",
    "core.LightningDataModule": "LightningDataModule",
    "callbacks.base.Callback": "Callback",
    "callbacks.callback.Callback": "Callback",
    "callbacks.Callback": "Callback",
    "callbacks.model_checkpoint.ModelCheckpoint": "callbacks.ModelCheckpoint",
    "callbacks.early_stopping.EarlyStopping": "callbacks.EarlyStopping",
    "callbacks.progress.ProgressBar": "callbacks.ProgressBar",
    "callbacks.progress.ProgressBarBase": "callbacks.ProgressBarBase",
}

Edit = Callable[[cst.CSTNode], cst.CSTNode]


def canonical(qualified: str) -> str | None:
    """`pytorch_lightning.callbacks.ModelCheckpoint` -> `callbacks.ModelCheckpoint`; None
    for a name that is not Lightning's."""
    for root in LIGHTNING_ROOTS:
        if qualified == root:
            return ""
        if qualified.startswith(root + "."):
            rest = qualified[len(root) + 1 :]
            return _SAME_AS.get(rest, rest)
    return None


class FileUpgrade:
    """One file's upgrade in progress: metadata, the edits and the findings gathered."""

    def __init__(self, module: cst.Module, path: str, target: str):
        # no copy: the nodes the families see are the nodes the applier meets
        self.wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self.module = module
        self.path = path
        self.target = target
        self.edits: dict[int, list[Edit]] = {}
        self.findings: list[Finding] = []
        self._positions = self.wrapper.resolve(PositionProvider)
        self._names = self.wrapper.resolve(QualifiedNameProvider)
        self._scopes = self.wrapper.resolve(ScopeProvider)
        self._parents = self.wrapper.resolve(ParentNodeProvider)
        # (canonical module, name) of from-imports the generated code needs
        self.needed_imports: set[tuple[str, str]] = set()

    # --- names -----------------------------------------------------------------------------

    def lightning_names(self, node: cst.CSTNode) -> set[str]:
        """Canonical Lightning names `node` (a Name, Attribute or call's func) refers to."""
        found = set()
        value = self._names.get(node, ())
        if callable(value):  # the provider computes qualified names lazily
            value = value()
        for qualified in value:
            name = canonical(qualified.name)
            if name is not None:
                found.add(name)
        return found

    def refers_to(self, node: cst.CSTNode, *names: str) -> bool:
        return bool(self.lightning_names(node) & set(names))

    def scope(self, node: cst.CSTNode):
        return self._scopes.get(node)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(node)

    def reads(self, function: cst.FunctionDef, name: str) -> bool:
        """Whether the body of `function` reads its local `name` (scope-aware: a nested
        function or comprehension reading it counts, a rebinding elsewhere does not)."""
        first = function.body.body[0] if function.body.body else None
        scope = self._scopes.get(first) if first is not None else None
        if scope is None:
            return False
        return any(assignment.references for assignment in scope.assignments[name])

    # --- findings and edits ----------------------------------------------------------------

    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        where = self._positions.get(node)
        return (where.start.line, where.start.column) if where else (1, 0)

    def applied(self, node: cst.CSTNode, code: str, message: str) -> None:
        line, column = self.position(node)
        self.findings.append(Finding(self.path, line, column, code, message, "info"))

    def reported(self, node: cst.CSTNode, code: str, message: str) -> None:
        line, column = self.position(node)
        self.findings.append(Finding(self.path, line, column, code, message, "warning"))

    def edit(self, node: cst.CSTNode, change: Edit) -> None:
        self.edits.setdefault(id(node), []).append(change)

    # --- references to Lightning names in generated code ----------------------------------

    def reference(self, name: str) -> cst.BaseExpression:
        """An expression naming Lightning's `name` (canonical, e.g. `callbacks.ModelSummary`):
        through the file's module alias (`pl.callbacks.ModelSummary`) when it has one, else
        a from-import of the target module is scheduled and the bare name used."""
        alias = self.module_alias()
        if alias is not None:
            return cst.parse_expression(f"{alias}.{name}")
        where, _, short = name.rpartition(".")
        self.needed_imports.add((where, short))
        return cst.Name(short)

    def module_alias(self) -> str | None:
        """The name `import pytorch_lightning as pl` (or lightning.pytorch) binds, if any."""
        for stmt in self.module.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if not isinstance(small, cst.Import):
                    continue
                for alias in small.names:
                    dotted = self.module.code_for_node(alias.name)
                    if dotted in ("pytorch_lightning", "lightning.pytorch"):
                        if alias.asname is not None:
                            return alias.asname.name.value
                        if dotted == "pytorch_lightning":
                            return dotted
        return None
