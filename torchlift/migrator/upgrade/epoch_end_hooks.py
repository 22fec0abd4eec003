"""LightningModule and Callback hooks whose 1.x form is gone in 2.0.

Applied:
- `training_epoch_end(self, outputs)` / `validation_epoch_end` / `test_epoch_end` become
  `on_*_epoch_end(self)`. The step appends what it returns to a list attribute created in
  `__init__` (the guide's `self.validation_step_outputs`), and the hook's first line takes the
  list and leaves an empty one, so the same values reach the hook and nothing is kept across
  epochs. For training, 1.x gave the hook `{"loss": loss.detach(), ...}` per step, so that is
  what is stored. A step returning None stored nothing in 1.x and stores nothing here.
- `on_train_batch_start/end(..., dataloader_idx)`, `optimizer_step(...)` and
  `optimizer_zero_grad(...)` lose the arguments 2.0 no longer passes (when the body does not
  read them); `Callback.on_load_checkpoint(self, checkpoint)` gains `trainer, pl_module`.
Reported (the guide's instruction at the line): several dataloaders (`dataloader_idx` in the
step), a training step returning something other than a name or a dict of names, an
`on_*_epoch_end` already defined next to the 1.x hook, `on_epoch_start/end`,
`training_step(..., optimizer_idx)`, `*_step_end` and the other hooks 2.0 removed.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..source.code_text import code_of
from .context import FileUpgrade
from .edits import generated_statement
from .rules import UpgradeRule
from .triggers import AstIndex

RULES = [
    UpgradeRule(
        "TL221",
        "training_epoch_end / validation_epoch_end / test_epoch_end(outputs) become "
        "on_*_epoch_end with the step outputs kept by the module",
        "2.0 no longer collects step outputs. The step appends them to a list created in "
        "__init__ and the on_*_epoch_end hook reads and empties it (Lightning PR 16520).",
        "def validation_epoch_end(self, outputs):\n    ...",
        "def on_validation_epoch_end(self):\n"
        "    outputs, self.validation_step_outputs = self.validation_step_outputs, []\n    ...",
        "keep the step outputs yourself: append them in the step to a list created in "
        "__init__, read and clear it in on_*_epoch_end",
    ),
    UpgradeRule(
        "TL222",
        "on_epoch_start / on_epoch_end were removed",
        "They ran around every training, validation and test epoch.",
        "def on_epoch_end(self):\n    ...",
        "def on_train_epoch_end(self):\n    ...",
        "move the code to on_train_epoch_start/end, on_validation_epoch_start/end or "
        "on_test_epoch_start/end, as it is meant",
    ),
    UpgradeRule(
        "TL223",
        "on_train_batch_start / on_train_batch_end lost dataloader_idx",
        "There is one training dataloader per step in 2.x.",
        "def on_train_batch_end(self, outputs, batch, batch_idx, dataloader_idx):",
        "def on_train_batch_end(self, outputs, batch, batch_idx):",
        "remove the dataloader_idx argument (it was always 0)",
    ),
    UpgradeRule(
        "TL224",
        "optimizer_step / optimizer_zero_grad lost optimizer_idx, on_tpu, using_native_amp, "
        "using_lbfgs",
        "2.x calls optimizer_step(epoch, batch_idx, optimizer, optimizer_closure).",
        "def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_idx, "
        "optimizer_closure, on_tpu, using_native_amp, using_lbfgs):",
        "def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_closure):",
        "use the 2.x signature; with several optimizers switch to manual optimization",
    ),
    UpgradeRule(
        "TL225",
        "Callback.on_load_checkpoint(checkpoint) takes trainer, pl_module, checkpoint",
        "Changed in 1.4 (Lightning PR 7253).",
        "def on_load_checkpoint(self, checkpoint):",
        "def on_load_checkpoint(self, trainer, pl_module, checkpoint):",
        "use the signature (self, trainer, pl_module, checkpoint)",
    ),
    UpgradeRule(
        "TL226",
        "training_step(..., optimizer_idx): several optimizers need manual optimization",
        "2.0 removed automatic optimization with several optimizers.",
        "def training_step(self, batch, batch_idx, optimizer_idx):",
        "self.automatic_optimization = False\n"
        "def training_step(self, batch, batch_idx):\n    g_opt, d_opt = self.optimizers()",
        "set self.automatic_optimization = False and step each optimizer with "
        "self.optimizers() / self.manual_backward",
    ),
    UpgradeRule(
        "TL227",
        "hooks removed in 2.0 (*_step_end, on_*_dataloader, on_pretrain_routine_*, "
        "on_keyboard_interrupt, on_hpc_*, ...)",
        "Lightning no longer calls them; each has a replacement named in the message.",
        "def validation_step_end(self, outputs):",
        "(the code moves into validation_step)",
        "move the code to the hook named in the message",
    ),
]

_STAGES = {  # 1.x hook -> (step method, 2.x hook, list attribute)
    "training_epoch_end": (
        "training_step",
        "on_train_epoch_end",
        "training_step_outputs",
    ),
    "validation_epoch_end": (
        "validation_step",
        "on_validation_epoch_end",
        "validation_step_outputs",
    ),
    "test_epoch_end": ("test_step", "on_test_epoch_end", "test_step_outputs"),
}
_REMOVED_HOOKS = {
    "training_step_end": "training_step_end was removed: do the reduction in training_step",
    "validation_step_end": "validation_step_end was removed: do it in validation_step",
    "test_step_end": "test_step_end was removed: do it in test_step",
    "on_train_dataloader": "on_train_dataloader was removed: use train_dataloader",
    "on_val_dataloader": "on_val_dataloader was removed: use val_dataloader",
    "on_test_dataloader": "on_test_dataloader was removed: use test_dataloader",
    "on_predict_dataloader": "on_predict_dataloader was removed: use predict_dataloader",
    "on_pretrain_routine_start": "on_pretrain_routine_start was removed: use on_fit_start",
    "on_pretrain_routine_end": "on_pretrain_routine_end was removed: use on_fit_start",
    "on_keyboard_interrupt": "on_keyboard_interrupt was removed: implement on_exception and "
    "check for KeyboardInterrupt",
    "on_hpc_save": "on_hpc_save was removed: use on_save_checkpoint",
    "on_hpc_load": "on_hpc_load was removed: use on_load_checkpoint",
    "on_batch_start": "on_batch_start was removed: use on_train_batch_start",
    "on_batch_end": "on_batch_end was removed: use on_train_batch_end",
    "on_init_start": "on_init_start was removed: do it before creating the Trainer",
    "on_init_end": "on_init_end was removed: do it after creating the Trainer",
    "get_progress_bar_dict": "get_progress_bar_dict moved to the progress bar: override "
    "TQDMProgressBar.get_metrics",
}
# hook -> number of parameters (self included) of its 1.x form, on a LightningModule / Callback
_BATCH_HOOKS = {"on_train_batch_start": (4, 6), "on_train_batch_end": (5, 7)}
# optimizer_step's 1.x positions (self is 0) that 2.x no longer passes: optimizer_idx,
# on_tpu, using_native_amp, using_lbfgs
_OPTIMIZER_STEP_REMOVED = (4, 6, 7, 8)


def may_apply(found: AstIndex) -> bool:
    """Whether the file defines a hook some row here starts from (see triggers.py)."""
    if not found.subclasses("LightningModule", "Callback", "LightningDataModule"):
        return False  # (a subclass of a module of this file: that class is here too)
    removed = (*_STAGES, "on_epoch_start", "on_epoch_end", *_REMOVED_HOOKS)
    return (
        any(found.defines(name) for name in removed)
        or any(found.defines(name, sizes) for name, sizes in _BATCH_HOOKS.items())
        or found.defines("optimizer_step", range(6, 64))
        or found.defines("optimizer_zero_grad", (5,))
        or found.defines("on_load_checkpoint", (2,))
        or found.defines("on_train_epoch_end", (2, 4))
        or found.defines("on_save")
        or found.defines("on_load")
        or "optimizer_idx" in found.parameters
    )


class EpochEndHooks(cst.CSTVisitor):
    def __init__(self, upgrade: FileUpgrade):
        super().__init__()
        self.upgrade = upgrade
        self.modules: set[str] = set()  # classes of this file that are LightningModules

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        bases = [base.value for base in node.bases]
        if any(self._is_module_base(base) for base in bases):
            self.modules.add(node.name.value)
            self._module(node)
        elif any(self.upgrade.refers_to(base, "Callback") for base in bases):
            self._callback(node)
        elif any(self.upgrade.refers_to(base, "LightningDataModule") for base in bases):
            methods = _methods(node)
            for name, instead in (
                ("on_save", "on_save_checkpoint"),
                ("on_load", "on_load_checkpoint"),
            ):
                if name in methods:
                    message = f"LightningDataModule.{name} was removed: use {instead}"
                    self.upgrade.reported(methods[name], "TL227", message)

    def _is_module_base(self, base: cst.BaseExpression) -> bool:
        if self.upgrade.refers_to(base, "LightningModule"):
            return True
        return isinstance(base, cst.Name) and base.value in self.modules

    # --- LightningModule --------------------------------------------------------------------

    def _module(self, cls: cst.ClassDef) -> None:
        methods = _methods(cls)
        additions: list[str] = []  # list attributes __init__ must create
        for old, (step_name, new, attribute) in _STAGES.items():
            if old in methods and self._epoch_end(cls, methods, old, step_name, new, attribute):
                additions.append(attribute)
        if additions:
            self._create_lists(cls, methods, additions)
        for name in ("on_epoch_start", "on_epoch_end"):
            if name in methods:
                self.upgrade.reported(methods[name], "TL222", RULES[1].action)
        step = methods.get("training_step")
        if step is not None and any(p.name.value == "optimizer_idx" for p in step.params.params):
            self.upgrade.reported(step, "TL226", RULES[5].action)
        self._batch_hooks(methods, callback=False)
        self._optimizer_hooks(methods)
        self._removed(methods)
        self._epoch_end_outputs(methods, 2)

    def _epoch_end(self, cls, methods, old, step_name, new, attribute) -> bool:
        hook, step = methods[old], methods.get(step_name)
        params = hook.params
        why = None
        extra = isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None
        if len(params.params) != 2 or extra or params.kwonly_params:
            why = f"{old} does not take (self, outputs)"
        elif step is None:
            why = f"{step_name} is not defined in this class"
        elif new in methods:
            why = f"{new} is also defined: merge {old} into it"
        elif any(p.name.value == "dataloader_idx" for p in step.params.params):
            why = "several dataloaders: the outputs were a list per dataloader"
        elif f"self.{attribute}" in self.upgrade.module.code_for_node(cls):
            why = f"self.{attribute} is already used"
        returns = _returns(step) if why is None else []
        if why is None and old == "training_epoch_end":
            stored = [_training_output(r.value, step) for r in returns]
            if any(s is None for s in stored):
                why = "training_step returns something other than a name or a dict of names"
        if why is not None:
            self.upgrade.reported(hook, "TL221", f"{why}; {RULES[0].action}")
            return False
        lines = [self.upgrade.parent(ret) for ret in returns]
        if any(len(line.body) != 1 for line in lines):
            self.upgrade.reported(
                hook,
                "TL221",
                f"a return of {step_name} shares its line with other statements; {RULES[0].action}",
            )
            return False
        for line in lines:
            indent = self.upgrade.position(line)[1]
            self.upgrade.edit(
                line, _appending(attribute, old == "training_epoch_end", step, indent)
            )
        outputs = params.params[1].name.value
        self.upgrade.edit(hook, lambda node: _as_new_hook(node, new, outputs, attribute))
        line = self.upgrade.position(step)[0]
        self.upgrade.applied(
            hook,
            "TL221",
            f"{old}({outputs}) -> {new}(), outputs kept in self.{attribute} "
            f"by {step_name} (line {line})",
        )
        return True

    def _create_lists(self, cls, methods, attributes: list[str]) -> None:
        lines = [f"self.{attribute} = []" for attribute in attributes]
        init = methods.get("__init__")
        if init is None:  # a new __init__ passing everything to the base class
            code = "def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)\n"
            code += "".join(f"    {line}\n" for line in lines)
            function = cst.parse_statement(code)

            def add(node: cst.ClassDef) -> cst.ClassDef:
                body = list(node.body.body)
                at = 1 if body and _is_docstring(body[0]) else 0
                body.insert(
                    at,
                    function.with_changes(
                        leading_lines=body[at].leading_lines if at < len(body) else ()
                    ),
                )
                if at < len(body) - 1:
                    body[at + 1] = body[at + 1].with_changes(
                        leading_lines=[cst.EmptyLine(indent=False)]
                    )
                return node.with_changes(body=node.body.with_changes(body=body))

            self.upgrade.edit(cls, add)
            return
        statements = [cst.parse_statement(line + "\n") for line in lines]
        at = _after_super_init(init)
        if at == 0 and init.body.body and _is_docstring(init.body.body[0]):
            at = 1  # the docstring stays first

        def extend(node: cst.FunctionDef) -> cst.FunctionDef:
            body = list(node.body.body)
            return node.with_changes(
                body=node.body.with_changes(body=body[:at] + statements + body[at:])
            )

        self.upgrade.edit(init, extend)

    # --- signatures ---------------------------------------------------------------------------

    def _batch_hooks(self, methods, callback: bool) -> None:
        for name, sizes in _BATCH_HOOKS.items():
            hook = methods.get(name)
            if hook is None or len(hook.params.params) != sizes[callback]:
                continue
            self._drop(hook, [sizes[callback] - 1], "TL223")

    def _optimizer_hooks(self, methods) -> None:
        step = methods.get("optimizer_step")
        if step is not None:
            count = len(step.params.params)
            if count == 9:
                self._drop(step, list(_OPTIMIZER_STEP_REMOVED), "TL224")
            elif count > 5 or isinstance(step.params.star_arg, cst.Param):
                self.upgrade.reported(step, "TL224", RULES[3].action)
        zero = methods.get("optimizer_zero_grad")
        if zero is not None and len(zero.params.params) == 5:
            self._drop(zero, [4], "TL224")

    def _drop(self, function: cst.FunctionDef, positions: list[int], code: str) -> None:
        params = function.params.params
        names = [params[i].name.value for i in positions]
        read = [name for name in names if self.upgrade.reads(function, name)]
        if read:
            self.upgrade.reported(
                function,
                code,
                f"{function.name.value} reads {', '.join(read)}, which 2.x no "
                "longer passes: " + RULES[int(code[2:]) - 221].action,
            )
            return
        self.upgrade.edit(function, lambda node: _without_params(node, positions))
        self.upgrade.applied(
            function,
            code,
            f"{function.name.value}: removed {', '.join(names)} (not passed in 2.x)",
        )

    def _epoch_end_outputs(self, methods, size: int) -> None:
        """1.4's `on_train_epoch_end(..., outputs)`: 2.x passes no outputs."""
        hook = methods.get("on_train_epoch_end")
        if hook is not None and len(hook.params.params) == size:
            self.upgrade.reported(
                hook, "TL221", "on_train_epoch_end no longer receives outputs: " + RULES[0].action
            )

    def _removed(self, methods) -> None:
        for name, message in _REMOVED_HOOKS.items():
            if name in methods:
                self.upgrade.reported(methods[name], "TL227", message)

    # --- Callback -----------------------------------------------------------------------------

    def _callback(self, cls: cst.ClassDef) -> None:
        methods = _methods(cls)
        self._batch_hooks(methods, callback=True)
        self._removed(methods)
        self._epoch_end_outputs(methods, 4)
        load = methods.get("on_load_checkpoint")
        if load is None or len(load.params.params) != 2:
            return
        if any(self.upgrade.reads(load, n) for n in ("trainer", "pl_module")):
            self.upgrade.reported(load, "TL225", RULES[4].action)
            return

        def widen(node: cst.FunctionDef) -> cst.FunctionDef:
            params = list(node.params.params)
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            new = [
                cst.Param(cst.Name("trainer"), comma=comma),
                cst.Param(cst.Name("pl_module"), comma=comma),
            ]
            params[0] = params[0].with_changes(comma=comma)
            return node.with_changes(
                params=node.params.with_changes(params=[params[0], *new, *params[1:]])
            )

        self.upgrade.edit(load, widen)
        self.upgrade.applied(
            load, "TL225", "on_load_checkpoint(self, trainer, pl_module, checkpoint)"
        )


# --- helpers -----------------------------------------------------------------------------------


def _methods(cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    return {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}


def _is_docstring(stmt) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


class _Returns(cst.CSTVisitor):
    """`return <value>` statements of one function, not of functions or classes inside it."""

    def __init__(self):
        super().__init__()
        self.found: list[cst.Return] = []

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None and not (
            isinstance(node.value, cst.Name) and node.value.value == "None"
        ):
            self.found.append(node)


def _returns(function: cst.FunctionDef) -> list[cst.Return]:
    finder = _Returns()
    function.body.visit(finder)
    return finder.found


def _simple(node) -> bool:
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString))


def _training_output(value: cst.BaseExpression, step: cst.FunctionDef):
    """How 1.x stored a training step's return for training_epoch_end: "tensor" (a name bound
    to a tensor), "dict" (a dict literal of names), "dict-name" (a name bound to a dict
    literal), or None when it cannot be told from the code."""
    if isinstance(value, cst.Dict):
        keys = [e.key for e in value.elements if isinstance(e, cst.DictElement)]
        if len(keys) != len(value.elements) or not all(_simple(e.value) for e in value.elements):
            return None
        if not any(isinstance(k, cst.SimpleString) and k.evaluated_value == "loss" for k in keys):
            return None
        return "dict"
    if isinstance(value, cst.Name):
        kinds = {_bound_kind(a, value.value) for a in _assignments(step)}
        kinds.discard(None)
        if kinds == {"dict"}:
            return "dict-name"
        if kinds <= {"other"}:
            return "tensor"
    return None


def _assignments(function: cst.FunctionDef) -> list[cst.Assign]:
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            found.append(node)

    function.body.visit(Finder())
    return found


def _bound_kind(assign: cst.Assign, name: str):
    if not any(isinstance(t.target, cst.Name) and t.target.value == name for t in assign.targets):
        return None
    value = assign.value
    if isinstance(value, cst.Dict) or (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "dict"
    ):
        return "dict"
    return "other"


def _appending(attribute: str, training: bool, step: cst.FunctionDef, indent: int):
    """The edit of the line holding one `return X` of a step (`indent` columns deep): first
    store what 1.x gave the epoch-end hook, then return as before."""

    def change(line: cst.SimpleStatementLine):
        ret = line.body[0]
        value = ret.value
        store = f"self.{attribute}"
        code = code_of(value)
        if not training:  # evaluated once: stored, then returned from the list
            stored = code
            ret = ret.with_changes(value=cst.parse_expression(f"{store}[-1]"))
        else:
            kind = _training_output(value, step)
            if kind == "tensor":
                stored = f'{{"loss": {code}.detach()}}'
            elif kind == "dict-name":
                stored = f'{{**{code}, "loss": {code}["loss"].detach()}}'
            else:  # a dict literal of names: the same dict, its loss detached
                stored = _detached_dict(value)
        append = generated_statement(f"{store}.append({stored})", indent)
        return cst.FlattenSentinel(
            [
                append.with_changes(leading_lines=line.leading_lines),
                line.with_changes(body=[ret], leading_lines=()),
            ]
        )

    return change


def _detached_dict(value: cst.Dict) -> str:
    parts = []
    for element in value.elements:
        key = code_of(element.key)
        item = code_of(element.value)
        if isinstance(element.key, cst.SimpleString) and element.key.evaluated_value == "loss":
            item += ".detach()"
        parts.append(f"{key}: {item}")
    return "{" + ", ".join(parts) + "}"


def _as_new_hook(node: cst.FunctionDef, new: str, outputs: str, attribute: str):
    first = cst.parse_statement(f"{outputs}, self.{attribute} = self.{attribute}, []\n")
    body = list(node.body.body)
    at = 1 if body and _is_docstring(body[0]) else 0
    body.insert(at, first)
    params = node.params.with_changes(
        params=[node.params.params[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    )
    return node.with_changes(
        name=cst.Name(new), params=params, body=node.body.with_changes(body=body)
    )


def _after_super_init(init: cst.FunctionDef) -> int:
    """Index after `super().__init__(...)` in the body of __init__ (0 if none is found)."""
    for index, stmt in enumerate(init.body.body):
        if m.matches(stmt, _SUPER_INIT):
            return index + 1
    return 0


# `super().__init__(...)` or `super(Model, self).__init__(...)` as a statement of its own
_SUPER_INIT = m.SimpleStatementLine(
    [m.Expr(m.Call(func=m.Attribute(value=m.Call(func=m.Name("super")), attr=m.Name("__init__"))))]
)


def _without_params(node: cst.FunctionDef, positions: list[int]) -> cst.FunctionDef:
    params = [p for i, p in enumerate(node.params.params) if i not in positions]
    last = node.params.params[-1]
    if params:
        params[-1] = params[-1].with_changes(comma=last.comma)
    return node.with_changes(params=node.params.with_changes(params=params))
