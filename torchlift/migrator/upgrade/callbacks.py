"""Callback arguments and classes renamed or removed between 1.x and 2.0.

Applied: `ModelCheckpoint(filepath="dir/name")` -> `dirpath="dir", filename="name"` (a
literal path, split like 1.x did with os.path.split); `period=` and `every_n_val_epochs=` ->
`every_n_epochs=`; the 1.x `ProgressBar` (the tqdm bar) -> `TQDMProgressBar`, and
`ProgressBarBase` -> `ProgressBar` (2.x's name of the base class).
Reported: a computed `filepath`, `prefix=`, `EarlyStopping` without `monitor`,
`GPUStatsMonitor` / `XLAStatsMonitor`, the `*Plugin` strategies.
"""

from __future__ import annotations

import os

import libcst as cst

from ..source.code_text import code_of
from .context import FileUpgrade, canonical
from .edits import keyword, keyword_index, rewrite_arguments
from .rules import UpgradeRule
from .triggers import AstIndex
from .values import literal, source

RULES = [
    UpgradeRule(
        "TL241",
        "ModelCheckpoint(filepath=) becomes dirpath= + filename=",
        "Split in 1.2: the folder and the file name pattern are separate arguments.",
        'ModelCheckpoint(filepath="ckpts/{epoch}")',
        'ModelCheckpoint(dirpath="ckpts", filename="{epoch}")',
        "pass dirpath=<folder> and filename=<pattern without .ckpt>",
    ),
    UpgradeRule(
        "TL242",
        "ModelCheckpoint(period= / every_n_val_epochs=) becomes every_n_epochs=",
        "Renamed in 1.3 / 1.5.",
        "ModelCheckpoint(period=2)",
        "ModelCheckpoint(every_n_epochs=2)",
        "pass every_n_epochs= only",
    ),
    UpgradeRule(
        "TL243",
        "ModelCheckpoint(prefix=) was removed",
        "Removed in 1.5: the prefix is part of the filename pattern.",
        'ModelCheckpoint(prefix="run1")',
        'ModelCheckpoint(filename="run1-{epoch}")',
        "put the prefix into filename=...",
    ),
    UpgradeRule(
        "TL244",
        "EarlyStopping needs monitor=",
        "Required since 1.5 (1.x defaulted to a value from the removed result objects).",
        "EarlyStopping(patience=3)",
        'EarlyStopping(monitor="val_loss", patience=3)',
        "pass monitor= with the name you log with self.log",
    ),
    UpgradeRule(
        "TL245",
        "ProgressBar becomes TQDMProgressBar (and ProgressBarBase becomes ProgressBar)",
        "Renamed in 1.5 / 2.0: 2.x's ProgressBar is the abstract base class.",
        "ProgressBar(refresh_rate=10)",
        "TQDMProgressBar(refresh_rate=10)",
        "use TQDMProgressBar",
    ),
    UpgradeRule(
        "TL246",
        "GPUStatsMonitor / XLAStatsMonitor become DeviceStatsMonitor",
        "One monitor for every accelerator since 1.5; its arguments differ.",
        "GPUStatsMonitor(memory_utilization=True)",
        "DeviceStatsMonitor()",
        "use DeviceStatsMonitor(cpu_stats=...) (use --target lightning: the runtime has none)",
    ),
    UpgradeRule(
        "TL247",
        "DDPPlugin / DDPSpawnPlugin / *Plugin become strategies",
        "Training-type plugins became strategies in 1.6 and went in 2.0; num_nodes and "
        "sync_batchnorm are Trainer arguments.",
        "Trainer(plugins=DDPPlugin(find_unused_parameters=False))",
        "Trainer(strategy=DDPStrategy(find_unused_parameters=False))",
        "pass strategy=DDPStrategy(...) (from lightning.pytorch.strategies); num_nodes= and "
        "sync_batchnorm= go to the Trainer",
    ),
]

_RENAMED_CLASSES = {
    "callbacks.ProgressBar": "TQDMProgressBar",
    "callbacks.ProgressBarBase": "ProgressBar",
}
_MONITORS_1X = ("GPUStatsMonitor", "XLAStatsMonitor")
_MONITORS = tuple(f"callbacks.{name}" for name in _MONITORS_1X)
# 1.x training-type plugins (strategies since 1.6); 2.x precision plugins keep the suffix
_STRATEGY_PLUGINS = {
    "DDPPlugin",
    "DDPSpawnPlugin",
    "DDP2Plugin",
    "DDPShardedPlugin",
    "DDPSpawnShardedPlugin",
    "DDPFullyShardedPlugin",
    "DataParallelPlugin",
    "DeepSpeedPlugin",
    "HorovodPlugin",
    "SingleDevicePlugin",
    "TPUSpawnPlugin",
    "SingleTPUPlugin",
    "IPUPlugin",
    "ParallelPlugin",
}


def may_apply(found: AstIndex) -> bool:
    """Whether the file uses a callback argument or class some row here starts from."""
    used = found.names | found.attributes
    return bool(
        found.call_keywords("ModelCheckpoint")
        & {"filepath", "period", "every_n_val_epochs", "prefix"}
        or found.called("ProgressBar")
        or used & {"ProgressBarBase", *_MONITORS_1X, *_STRATEGY_PLUGINS}
        or any(
            positional == 0 and "monitor" not in keywords
            for positional, keywords in found.calls.get("EarlyStopping", ())
        )
    )


class Callbacks(cst.CSTVisitor):
    def __init__(self, upgrade: FileUpgrade):
        super().__init__()
        self.upgrade = upgrade
        self.in_import = False
        self.uses: dict[str, list] = {}  # renamed class -> [(node, "import"|"call"|"other")]

    def visit_Call(self, node: cst.Call) -> None:
        names = self.upgrade.lightning_names(node.func)
        if "callbacks.ModelCheckpoint" in names:
            self._checkpoint(node)
        elif "callbacks.EarlyStopping" in names:
            if keyword_index(node, "monitor") is None and not any(
                a.keyword is None for a in node.args
            ):
                self.upgrade.reported(node, "TL244", RULES[3].action)
        elif any(name in _MONITORS for name in names):
            self.upgrade.reported(node, "TL246", RULES[5].action)
        elif any(name.rpartition(".")[2] in _STRATEGY_PLUGINS for name in names):
            self.upgrade.reported(node, "TL247", RULES[6].action)

    def _checkpoint(self, call: cst.Call) -> None:
        replace: dict[str, list[cst.Arg]] = {}
        for old in ("period", "every_n_val_epochs"):
            index = keyword_index(call, old)
            if index is None:
                continue
            arg = call.args[index]
            if (
                keyword_index(call, "every_n_epochs") is not None
                or len(replace) > 0
                and any(
                    a.keyword.value == "every_n_epochs" for new in replace.values() for a in new
                )
            ):
                self.upgrade.reported(arg, "TL242", RULES[1].action)
                continue
            replace[old] = [keyword("every_n_epochs", arg.value)]
            self.upgrade.applied(arg, "TL242", f"{old}= -> every_n_epochs=")
        index = keyword_index(call, "filepath")
        if index is not None:
            self._filepath(call, call.args[index], replace)
        index = keyword_index(call, "prefix")
        if index is not None:
            self.upgrade.reported(call.args[index], "TL243", RULES[2].action)
        if replace:
            self.upgrade.edit(call, lambda node: rewrite_arguments(node, replace))

    def _filepath(self, call, arg, replace) -> None:
        value = literal(self.upgrade.module, arg.value)
        taken = [n for n in ("dirpath", "filename") if keyword_index(call, n) is not None]
        if not isinstance(value, str) or value.endswith(".ckpt") or taken:
            self.upgrade.reported(arg, "TL241", RULES[0].action)
            return
        folder, name = os.path.split(value)
        new = []
        if folder:
            new.append(keyword("dirpath", cst.SimpleString(repr(folder).replace("'", '"'))))
        if name:
            new.append(keyword("filename", cst.SimpleString(repr(name).replace("'", '"'))))
        replace["filepath"] = new
        after = ", ".join(source(self.upgrade.module, a) for a in new)
        self.upgrade.applied(arg, "TL241", f"filepath= -> {after}")

    # --- class renames ---------------------------------------------------------------------
    # 2.x still has a class named ProgressBar (the base class): only an instantiation is
    # surely the 1.x tqdm bar. ProgressBarBase exists only in 1.x.

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.in_import = True
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            for name in self._imported(node, alias):
                if name in _RENAMED_CLASSES:
                    self.uses.setdefault(name, []).append((alias, "import"))

    def leave_ImportFrom(self, node) -> None:
        self.in_import = False

    def _imported(self, node: cst.ImportFrom, alias: cst.ImportAlias) -> set[str]:
        module = self.upgrade.module.code_for_node(node.module) if node.module else ""
        name = canonical(f"{module}.{code_of(alias.name)}")
        return {name} if name else set()

    def visit_Name(self, node: cst.Name) -> None:
        if not self.in_import:
            self._use(node, node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._use(node, node.attr.value)

    def _use(self, node, short: str) -> None:
        for name in self.upgrade.lightning_names(node):
            if name not in _RENAMED_CLASSES:
                continue
            parent = self.upgrade.parent(node)
            kind = "call" if isinstance(parent, cst.Call) and parent.func is node else "other"
            # through an `import ... as PB` alias the use keeps working: only the name moves
            own = node if short == name.rpartition(".")[2] else None
            self.uses.setdefault(name, []).append((own, kind))

    def leave_Module(self, original_node: cst.Module) -> None:
        for name, uses in self.uses.items():
            new = _RENAMED_CLASSES[name]
            kinds = {kind for _, kind in uses}
            if name == "callbacks.ProgressBar" and "call" not in kinds:
                continue  # subclassed or annotated only: 2.x's base class, as likely
            if name == "callbacks.ProgressBar" and "other" in kinds:
                first = next(node for node, kind in uses if kind == "call" and node)
                self.upgrade.reported(
                    first,
                    "TL245",
                    "ProgressBar is instantiated (the 1.x tqdm bar) and also "
                    "used otherwise: rename the 1.x uses to TQDMProgressBar by hand",
                )
                continue
            for node, kind in uses:
                if node is None:
                    continue
                self.upgrade.edit(node, _renamed(new))
                if kind != "other" or isinstance(node, cst.Attribute):
                    self.upgrade.applied(node, "TL245", f"{name.rpartition('.')[2]} -> {new}")


def _renamed(new: str):
    def change(node):
        if isinstance(node, cst.ImportAlias):
            return node.with_changes(name=cst.Name(new))
        if isinstance(node, cst.Attribute):
            return node.with_changes(attr=cst.Name(new))
        return node.with_changes(value=new)

    return change
