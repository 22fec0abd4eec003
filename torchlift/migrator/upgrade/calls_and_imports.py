"""Calls and attributes renamed or removed between 1.x and 2.0.

Applied: `fit(train_dataloader=)` -> `train_dataloaders=`, `validate(val_dataloaders=)` and
`test(test_dataloaders=)` -> `dataloaders=`; `trainer.running_sanity_check` ->
`sanity_checking`; `pl.metrics.X` -> `torchmetrics.X`; `self.log(..., sync_dist_op=)` ->
`reduce_fx=`. The import lines of `pl.metrics`, `pl.core.lightning` and `pl.profiler` are
rewritten by retarget.py (their codes live here).
Reported: torchmetrics classification metrics built without `task=` (required since
torchmetrics 0.11), `trainer.tune()`, `Trainer.from_argparse_args`, `@auto_move_data`,
`summarize()`, `LoggerCollection`, `TestTubeLogger`, `trainer.lr_schedulers`.
"""

from __future__ import annotations

import libcst as cst

from .context import FileUpgrade
from .edits import keyword, keyword_index, rewrite_arguments
from .retarget import renamed_path
from .rules import UpgradeRule
from .triggers import AstIndex
from .values import source

RULES = [
    UpgradeRule(
        "TL231",
        "fit(train_dataloader=) / validate(val_dataloaders=) / test(test_dataloaders=) "
        "keywords renamed",
        "fit takes train_dataloaders=, validate / test / predict take dataloaders= (1.4-1.5).",
        "trainer.test(model, test_dataloaders=loader)",
        "trainer.test(model, dataloaders=loader)",
        "rename the keyword",
    ),
    UpgradeRule(
        "TL232",
        "trainer.running_sanity_check becomes trainer.sanity_checking",
        "Renamed in 1.3.",
        "if self.trainer.running_sanity_check:",
        "if self.trainer.sanity_checking:",
        "use trainer.sanity_checking",
    ),
    UpgradeRule(
        "TL233",
        "pl.metrics becomes the torchmetrics package",
        "Metrics left Lightning in 1.5 for torchmetrics; since torchmetrics 0.11 the "
        "classification metrics also need task='binary' / 'multiclass' / 'multilabel'.",
        "from pytorch_lightning.metrics import Accuracy",
        "from torchmetrics import Accuracy",
        "install torchmetrics and pass task=... (and num_classes=...) to classification metrics",
    ),
    UpgradeRule(
        "TL234",
        "pytorch_lightning.core.lightning becomes core.module (callbacks.base: callbacks)",
        "Module renamed in 1.7.",
        "from pytorch_lightning.core.lightning import LightningModule",
        "from pytorch_lightning.core.module import LightningModule",
        "import from the new module",
    ),
    UpgradeRule(
        "TL235",
        "pytorch_lightning.profiler becomes profilers",
        "Package renamed in 1.9.",
        "from pytorch_lightning.profiler import SimpleProfiler",
        "from pytorch_lightning.profilers import SimpleProfiler",
        "import from pytorch_lightning.profilers",
    ),
    UpgradeRule(
        "TL236",
        "self.log(..., sync_dist_op=) becomes reduce_fx=",
        "Removed in 1.6: one reduction for steps and processes.",
        'self.log("loss", loss, sync_dist=True, sync_dist_op="sum")',
        'self.log("loss", loss, sync_dist=True, reduce_fx="sum")',
        "pass reduce_fx=... only",
    ),
    UpgradeRule(
        "TL237",
        "Lightning APIs removed in 2.0 without a mechanical replacement",
        "Trainer.from_argparse_args / add_argparse_args (use LightningCLI or argparse), "
        "@auto_move_data (use Trainer.predict), LightningModule.summarize() (use "
        "utilities.model_summary.summarize), LoggerCollection (pass a list of loggers), "
        "TestTubeLogger (use another logger), trainer.lr_schedulers (lr_scheduler_configs).",
        "trainer = Trainer.from_argparse_args(args)",
        "trainer = Trainer(max_epochs=args.max_epochs, ...)",
        "follow the message at the line",
    ),
]

_KEYWORDS = {  # Trainer method -> {1.x keyword: 2.x keyword}
    "fit": {"train_dataloader": "train_dataloaders"},
    "validate": {"val_dataloaders": "dataloaders"},
    "test": {"test_dataloaders": "dataloaders"},
    "predict": {"predict_dataloaders": "dataloaders"},
}
_NEED_TASK = {
    "Accuracy",
    "Precision",
    "Recall",
    "F1",
    "F1Score",
    "FBeta",
    "FBetaScore",
    "AUROC",
    "AveragePrecision",
    "ConfusionMatrix",
    "StatScores",
    "Specificity",
    "ROC",
    "PrecisionRecallCurve",
    "CohenKappa",
    "MatthewsCorrCoef",
    "HammingDistance",
    "JaccardIndex",
}
_REMOVED = {
    "Trainer.from_argparse_args": "Trainer.from_argparse_args was removed: pass the arguments "
    "to Trainer(...) yourself, or use LightningCLI",
    "Trainer.add_argparse_args": "Trainer.add_argparse_args was removed: declare the argparse "
    "options yourself, or use LightningCLI",
    "core.decorators.auto_move_data": "@auto_move_data was removed: use Trainer.predict",
    "loggers.LoggerCollection": "LoggerCollection was removed: pass a list of loggers",
    "loggers.base.LoggerCollection": "LoggerCollection was removed: pass a list of loggers",
    "loggers.TestTubeLogger": "TestTubeLogger was removed: use TensorBoardLogger",
    "loggers.test_tube.TestTubeLogger": "TestTubeLogger was removed: use TensorBoardLogger",
}


def may_apply(found: AstIndex) -> bool:
    """Whether the file uses a name some row here starts from (see triggers.py)."""
    renamed_keywords = any(
        found.call_keywords(method) & set(renames) for method, renames in _KEYWORDS.items()
    )
    return bool(
        renamed_keywords
        or "sync_dist_op" in found.call_keywords("log") | found.call_keywords("log_dict")
        or found.attributes & {"running_sanity_check", "from_argparse_args", "add_argparse_args"}
        or (found.called("Trainer") and "lr_schedulers" in found.attributes)
        or found.lightning_attributes & {"metrics", "profiler"}
        or found.called("tune")
        or (found.subclasses("LightningModule") and found.called("summarize"))
        or found.names & {"auto_move_data", "LoggerCollection", "TestTubeLogger"}
        or any(_renamed_module(module) for module in found.modules)
    )


def _renamed_module(module: str) -> bool:
    for root in ("pytorch_lightning.", "lightning.pytorch."):
        if module.startswith(root):
            return renamed_path(module[len(root) :])[1] is not None
    return False


class CallsAndImports(cst.CSTVisitor):
    def __init__(self, upgrade: FileUpgrade):
        super().__init__()
        self.upgrade = upgrade
        self.trainers: set[str] = set()  # names bound to Trainer(...) anywhere in the file
        self.classes: list[bool] = []  # for each enclosing class: is it a LightningModule

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        bases = [base.value for base in node.bases]
        self.classes.append(any(self.upgrade.refers_to(b, "LightningModule") for b in bases))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and self.upgrade.refers_to(node.value.func, "Trainer"):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.trainers.add(target.target.value)

    def _is_trainer(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.trainers or node.value == "trainer"
        return isinstance(node, cst.Attribute) and node.attr.value == "trainer"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        names = self.upgrade.lightning_names(func)
        for name in names:
            if name in _REMOVED:
                self.upgrade.reported(node, "TL237", _REMOVED[name])
            short = name.rpartition(".")[2]
            needs_task = name.startswith("metrics.") and short in _NEED_TASK
            if needs_task and keyword_index(node, "task") is None:
                self.upgrade.reported(node, "TL233", f"torchmetrics' {short} needs task=...")
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method in _KEYWORDS and self._is_trainer(func.value):
            self._keywords(node, _KEYWORDS[method])
        elif method == "tune" and self._is_trainer(func.value):
            self.upgrade.reported(
                node,
                "TL210",
                "trainer.tune() was removed: call "
                "Tuner(trainer).lr_find(model) / .scale_batch_size(model)",
            )
        elif (
            method == "summarize"
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and self.classes[-1:] == [True]
        ):
            self.upgrade.reported(
                node,
                "TL237",
                "LightningModule.summarize() was removed: use "
                "utilities.model_summary.summarize(self)",
            )
        elif method in ("log", "log_dict") and _is_self(func.value):
            self._sync_dist_op(node)

    def _keywords(self, call: cst.Call, renames: dict[str, str]) -> None:
        replace = {}
        for old, new in renames.items():
            index = keyword_index(call, old)
            if index is None:
                continue
            if keyword_index(call, new) is not None:
                self.upgrade.reported(call.args[index], "TL231", f"both {old}= and {new}= given")
                continue
            replace[old] = [keyword(new, call.args[index].value)]
            self.upgrade.applied(call.args[index], "TL231", f"{old}= -> {new}=")
        if replace:
            self.upgrade.edit(call, lambda node: rewrite_arguments(node, replace))

    def _sync_dist_op(self, call: cst.Call) -> None:
        index = keyword_index(call, "sync_dist_op")
        if index is None:
            return
        arg = call.args[index]
        if keyword_index(call, "reduce_fx") is not None:
            self.upgrade.reported(
                arg,
                "TL236",
                "both sync_dist_op= and reduce_fx= given: keep reduce_fx only",
            )
            return
        replace = {"sync_dist_op": [keyword("reduce_fx", arg.value)]}
        self.upgrade.edit(call, lambda node: rewrite_arguments(node, replace))
        self.upgrade.applied(
            arg,
            "TL236",
            f"sync_dist_op= -> reduce_fx={source(self.upgrade.module, arg.value)}",
        )

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "running_sanity_check" and self._is_trainer(node.value):
            self.upgrade.edit(node, lambda n: n.with_changes(attr=cst.Name("sanity_checking")))
            self.upgrade.applied(node, "TL232", "running_sanity_check -> sanity_checking")
        elif node.attr.value == "lr_schedulers" and self._is_trainer(node.value):
            self.upgrade.reported(
                node,
                "TL237",
                "trainer.lr_schedulers was removed: use "
                "trainer.lr_scheduler_configs (dataclasses, not dicts)",
            )
        elif "metrics" in self.upgrade.lightning_names(node):  # pl.metrics -> torchmetrics
            self.upgrade.needed_imports.add(("torchmetrics", ""))
            self.upgrade.edit(node, lambda n: cst.Name("torchmetrics"))
            self.upgrade.applied(node, "TL233", "pl.metrics -> torchmetrics")

    def visit_Decorator(self, node: cst.Decorator) -> None:
        target = node.decorator.func if isinstance(node.decorator, cst.Call) else node.decorator
        for name in self.upgrade.lightning_names(target):
            if name in _REMOVED:
                self.upgrade.reported(node, "TL237", _REMOVED[name])

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"
