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
from .values import literal, source

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
        "1.x module paths: core.lightning -> core.module, callbacks.base -> callbacks, "
        "utilities.cli -> cli",
        "Module renamed in 1.7.",
        "from pytorch_lightning.core.lightning import LightningModule",
        "from pytorch_lightning.core.module import LightningModule",
        "import from the new module",
    ),
    UpgradeRule(
        "TL235",
        "pytorch_lightning.profiler becomes profilers (and profiler arguments renamed)",
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
        "TestTubeLogger (use another logger), trainer.lr_schedulers (lr_scheduler_configs), "
        "write_predictions (predict_step + Trainer.predict), self.datamodule "
        "(self.trainer.datamodule), self.model_size (utilities.memory.get_model_size_mb), "
        "reset_train_val_dataloaders (fit_loop.setup_data), pick_single_gpu / "
        "pick_multiple_gpus (devices='auto').",
        "trainer = Trainer.from_argparse_args(args)",
        "trainer = Trainer(max_epochs=args.max_epochs, ...)",
        "follow the message at the line",
    ),
    UpgradeRule(
        "TL238",
        "LightningCLI(seed_everything_default=None) becomes False",
        "1.8 made None an error; False turns seeding off (pytorch_lightning.utilities.cli "
        "moved to pytorch_lightning.cli, TL234).",
        "LightningCLI(Model, seed_everything_default=None)",
        "LightningCLI(Model, seed_everything_default=False)",
        "pass seed_everything_default=False",
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
_REMOVED = {  # removed API (canonical name) -> what to do instead; reported as TL237
    "tuner.auto_gpu_select.pick_single_gpu": "pick_single_gpu was removed: pass devices='auto'",
    "tuner.auto_gpu_select.pick_multiple_gpus": "pick_multiple_gpus was removed: pass "
    "devices='auto' (or a count)",
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
        or (found.called("Trainer") and found.attributes & set(_TRAINER_ATTRIBUTES))
        or found.lightning_attributes & {"metrics", "profiler"}
        or (
            found.subclasses("LightningModule")
            and (found.attributes & set(_SELF_ATTRIBUTES) or any(map(found.called, _SELF_CALLS)))
        )
        or ("seed_everything_default", None) in found.literal_keywords
        or found.keywords & {"output_filename", *_PROFILER_KEYWORDS}
        or (found.names | found.attributes) & {"pick_single_gpu", "pick_multiple_gpus"}
        or found.names & {"auto_move_data", "LoggerCollection", "TestTubeLogger"}
        or any(_renamed_module(module) for module in found.modules)
    )


def _renamed_module(module: str) -> bool:
    for root in ("pytorch_lightning.", "lightning.pytorch."):
        if module.startswith(root):
            return renamed_path(module[len(root) :])[1] is not None
    return False


# `self.<method>()` of a LightningModule that 2.0 removed
_SELF_CALLS = {
    "summarize": "LightningModule.summarize() was removed: use "
    "utilities.model_summary.summarize(self)",
    "write_predictions": "write_predictions was removed: return predictions from predict_step "
    "and run Trainer.predict (a BasePredictionWriter callback writes them)",
    "write_predictions_dict": "write_predictions_dict was removed: return predictions from "
    "predict_step and run Trainer.predict",
}
# `self.<attribute>` of a LightningModule that 2.0 removed (unless the class sets it itself)
_SELF_ATTRIBUTES = {
    "datamodule": "LightningModule.datamodule was removed: use self.trainer.datamodule",
    "model_size": "LightningModule.model_size was removed: use "
    "utilities.memory.get_model_size_mb(self)",
}
# `trainer.<attribute>` that 2.0 removed -> (code, message)
_TRAINER_ATTRIBUTES = {
    "lr_schedulers": (
        "TL237",
        (
            "trainer.lr_schedulers was removed: use trainer.lr_scheduler_configs "
            "(dataclasses, not dicts)"
        ),
    ),
    "weights_save_path": (
        "TL217",
        "trainer.weights_save_path was removed: use the ModelCheckpoint's dirpath",
    ),
    "truncated_bptt_steps": (
        "TL219",
        "truncated backpropagation was removed: implement it with manual optimization",
    ),
    "reset_train_val_dataloaders": (
        "TL237",
        "reset_train_val_dataloaders was removed: call trainer.fit_loop.setup_data()",
    ),
    "tune": (
        "TL210",
        "trainer.tune() was removed: call Tuner(trainer).lr_find(model) / .scale_batch_size(model)",
    ),
}
_PROFILER_KEYWORDS = {"profiled_functions": "record_functions"}


class CallsAndImports(cst.CSTVisitor):
    def __init__(self, upgrade: FileUpgrade):
        super().__init__()
        self.upgrade = upgrade
        self.trainers: set[str] = set()  # names bound to Trainer(...) anywhere in the file
        self.classes: list[cst.ClassDef | None] = []  # enclosing classes (None: not a module)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        bases = [base.value for base in node.bases]
        module = any(self.upgrade.refers_to(b, "LightningModule") for b in bases)
        self.classes.append(node if module else None)

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
        if any(name.startswith(("profiler.", "profilers.")) for name in names):
            self._profiler(node)
        if any(name.endswith("cli.LightningCLI") for name in names):
            self._cli(node)
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method in _KEYWORDS and self._is_trainer(func.value):
            self._keywords(node, _KEYWORDS[method])
        elif method in _SELF_CALLS and _is_self(func.value) and self._in_module():
            self.upgrade.reported(node, "TL237", _SELF_CALLS[method])
        elif method in ("log", "log_dict") and _is_self(func.value):
            self._sync_dist_op(node)

    def _in_module(self) -> bool:
        return bool(self.classes) and self.classes[-1] is not None

    def _profiler(self, call: cst.Call) -> None:
        index = keyword_index(call, "output_filename")
        if index is not None:
            self.upgrade.reported(
                call.args[index],
                "TL235",
                "output_filename= was removed: pass dirpath= and filename= to the profiler",
            )
        replace = {}
        for old, new in _PROFILER_KEYWORDS.items():
            index = keyword_index(call, old)
            if index is not None and keyword_index(call, new) is None:
                replace[old] = [keyword(new, call.args[index].value)]
                self.upgrade.applied(call.args[index], "TL235", f"{old}= -> {new}=")
        if replace:
            self.upgrade.edit(call, lambda node: rewrite_arguments(node, replace))

    def _cli(self, call: cst.Call) -> None:
        index = keyword_index(call, "seed_everything_default")
        if index is None or literal(self.upgrade.module, call.args[index].value) is not None:
            return
        replace = {"seed_everything_default": [keyword("seed_everything_default", "False")]}
        self.upgrade.edit(call, lambda node: rewrite_arguments(node, replace))
        self.upgrade.applied(call.args[index], "TL238", "seed_everything_default=None -> False")

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
        attribute = node.attr.value
        if attribute == "running_sanity_check" and self._is_trainer(node.value):
            self.upgrade.edit(node, lambda n: n.with_changes(attr=cst.Name("sanity_checking")))
            self.upgrade.applied(node, "TL232", "running_sanity_check -> sanity_checking")
        elif attribute in _TRAINER_ATTRIBUTES and self._is_trainer(node.value):
            self.upgrade.reported(node, *_TRAINER_ATTRIBUTES[attribute])
        elif attribute in _SELF_ATTRIBUTES and _is_self(node.value) and self._in_module():
            own = f"self.{attribute} ="
            if own not in self.upgrade.module.code_for_node(self.classes[-1]):
                self.upgrade.reported(node, "TL237", _SELF_ATTRIBUTES[attribute])
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
