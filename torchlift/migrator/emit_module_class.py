"""Build the generated code of a plan: the LightningModule class and the Trainer statements.

User statements are moved as libcst nodes (their comments come along); only names are
rewritten (`model(x)` -> `self(x)`, `criterion` -> `self.criterion`, device -> `self.device`).
The generated class is black-formatted on its own; nothing else in the file is reformatted.
"""

from __future__ import annotations

import black
import libcst as cst

from .names import collect_names, rename, self_attr
from .plan import LoopPlan
from .reserved import RESERVED_ATTRIBUTES

_BLACK = black.Mode()


def attr_name(name: str) -> str:
    return f"{name}_" if name in RESERVED_ATTRIBUTES else name


def format_code(code: str, indent: int = 0) -> str:
    """black, for code that will sit `indent` columns deep (line length counted there)."""
    mode = _BLACK if not indent else black.Mode(line_length=_BLACK.line_length - indent)
    try:
        return black.format_str(code, mode=mode)
    except Exception:  # black cannot format it: keep libcst's rendering, still valid Python
        return code


class _ModelCallsToSelf(cst.CSTTransformer):
    """`model(x)` -> `self(x)`: the LightningModule's forward delegates to the model."""

    def __init__(self, model: str) -> None:
        super().__init__()
        self.model = model

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if isinstance(updated_node.func, cst.Name) and updated_node.func.value == self.model:
            return updated_node.with_changes(func=cst.Name("self"))
        return updated_node


class _BreakToFlag(cst.CSTTransformer):
    """`break` after optimizer.step() -> `self.stop_epoch = True`; on_train_batch_start then
    returns -1, which makes Lightning end the epoch (validation still runs)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0

    def visit_For(self, node) -> None:
        self.depth += 1

    def leave_For(self, original_node, updated_node):
        self.depth -= 1
        return updated_node

    def visit_While(self, node) -> None:
        self.depth += 1

    def leave_While(self, original_node, updated_node):
        self.depth -= 1
        return updated_node

    def leave_Break(self, original_node, updated_node):
        if self.depth:
            return updated_node
        return cst.parse_statement("self.stop_epoch = True\n").body[0]


def _expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def _stmt(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


class ClassBuilder:
    def __init__(self, plan: LoopPlan, class_name: str, module: cst.Module) -> None:
        self.plan = plan
        self.class_name = class_name
        self.module = module
        mapping: dict[str, cst.BaseExpression] = {}
        for name in [*plan.init_args, *sorted(plan.state)]:
            mapping[name] = self_attr(attr_name(name))
        for name in plan.device_names:
            mapping[name] = _expr("self.device")
        mapping[plan.train_loader] = _expr("self.trainer.train_dataloader")
        if plan.validation:
            mapping[plan.validation.loader] = _expr("self.trainer.val_dataloaders")
        if plan.test:
            mapping[plan.test.loader] = _expr("self.trainer.test_dataloaders")
        mapping[plan.model] = _expr("self.model")
        for alias in plan.model_aliases:
            mapping[alias] = _expr("self.model")
        # reading the optimizer / scheduler in a step or hook (e.g. the learning rate)
        mapping[plan.optimizer] = _expr("self.optimizers()")
        if plan.scheduler:
            mapping[plan.scheduler] = _expr("self.lr_schedulers()")
        self.mapping = mapping

    def rewrite(self, nodes, extra=None):
        mapping = dict(self.mapping)
        if extra:
            mapping.update(extra)
        out = []
        for node in nodes:
            for model in (self.plan.model, *self.plan.model_aliases):
                node = node.visit(_ModelCallsToSelf(model))
            out.append(rename(node, mapping))
        return out

    def epoch_prefix(self, nodes) -> list[cst.BaseStatement]:
        plan = self.plan
        if not plan.epoch_var:
            return []
        reads = set()
        for node in nodes:
            reads |= collect_names(node).reads
        if plan.epoch_var not in reads:
            return []
        value = "self.current_epoch"
        if plan.epoch_start is not None:
            value += " + " + self.module.code_for_node(plan.epoch_start)
        return [_stmt(f"{plan.epoch_var} = {value}\n")]

    def target_prefix(self, target) -> list[cst.BaseStatement]:
        if isinstance(target, cst.Name) and target.value == "batch":
            return []
        # the batch target binds the same names as the step's body: renamed alike (a batch
        # variable carried as `self.x` is unpacked into `self.x`)
        code = self.module.code_for_node(self.rewrite([target])[0])
        return [_stmt(f"{code} = batch\n")]

    def method(self, header: str, body: list[cst.BaseStatement]) -> cst.FunctionDef:
        if body:  # no blank line right after the `def`
            first = body[0]
            lines = list(first.leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            body = [first.with_changes(leading_lines=lines), *body[1:]]
        func = _stmt(f"def {header}:\n    pass\n")
        return func.with_changes(body=func.body.with_changes(body=body))

    def build(self) -> cst.ClassDef:
        plan = self.plan
        methods = [self.init_method(), self.forward_method()]
        if plan.pre_train or plan.break_flag:
            methods.append(self.hook("on_train_epoch_start", plan.pre_train))
        if plan.break_flag:
            methods.append(
                self.method(
                    "on_train_batch_start(self, batch, batch_idx)",
                    [_stmt("if self.stop_epoch:\n    return -1\n")],
                )
            )
        methods.append(self.training_step())
        if plan.validation:
            v = plan.validation
            if v.before:
                methods.append(self.hook("on_validation_epoch_start", v.before))
            methods.append(self.step("validation_step", v.target, v.index, v.body, None))
        if plan.post_train:
            methods.append(self.hook("on_train_epoch_end", plan.post_train))
        if plan.test:
            t = plan.test
            if t.before:
                methods.append(self.hook("on_test_epoch_start", t.before))
            methods.append(self.step("test_step", t.target, t.index, t.body, None))
            if t.after:
                methods.append(self.hook("on_test_epoch_end", t.after))
        methods.append(self.configure_optimizers())
        cls = _stmt(f"class {self.class_name}(L.LightningModule):\n    pass\n")
        cls = cls.with_changes(body=cls.body.with_changes(body=methods))
        code = format_code(self.module.code_for_node(cls))
        self.code = code  # the class's text, for callers that need its words (no codegen)
        return cst.parse_statement(code)

    def init_method(self) -> cst.FunctionDef:
        plan = self.plan
        args = [plan.model, *plan.init_args]
        lines = ["super().__init__()"] + [f"self.{attr_name(a)} = {a}" for a in ["model"]]
        lines = ["super().__init__()", f"self.model = {plan.model}"]
        lines += [f"self.{attr_name(a)} = {a}" for a in plan.init_args]
        body = [_stmt(line + "\n") for line in lines]
        return self.method(f"__init__(self, {', '.join(args)})", body)

    def forward_method(self) -> cst.FunctionDef:
        params = self.plan.forward_params
        if params is None or params.star_kwarg is not None or params.kwonly_params:
            return self.method(
                "forward(self, *args, **kwargs)", [_stmt("return self.model(*args, **kwargs)\n")]
            )
        plain = [p for p in [*params.posonly_params, *params.params]][1:]
        star = params.star_arg if isinstance(params.star_arg, cst.Param) else None
        sig = [
            self.module.code_for_node(p.with_changes(comma=cst.MaybeSentinel.DEFAULT))
            for p in plain
        ]
        call = [p.name.value for p in plain]
        if star is not None:
            sig.append("*" + star.name.value)
            call.append("*" + star.name.value)
        header = ", ".join(["self", *sig])
        return self.method(f"forward({header})", [_stmt(f"return self.model({', '.join(call)})\n")])

    def hook(self, name: str, stmts) -> cst.FunctionDef:
        body = self.rewrite(stmts)
        if name == "on_train_epoch_start" and self.plan.break_flag:
            body.insert(0, _stmt("self.stop_epoch = False\n"))
        return self.method(f"{name}(self)", self.epoch_prefix(stmts) + body)

    def step(self, name, target, index, stmts, loss) -> cst.FunctionDef:
        extra = None
        prefix = []
        start = self.plan.index_start.get(index) if index else None
        if start is not None:
            prefix = [_stmt(f"{index} = batch_idx + {self.module.code_for_node(start)}\n")]
        elif index and index != "batch_idx":
            extra = {index: cst.Name("batch_idx")}
        body = prefix + self.target_prefix(target) + self.rewrite(stmts, extra)
        if loss is not None and self.plan.break_flag:
            body = [node.visit(_BreakToFlag()) for node in body]
        if loss is not None:
            loss_code = self.module.code_for_node(self.rewrite([cst.Name(loss)])[0])
            body.append(_stmt(f'self.log("train_loss", {loss_code})\n'))
            body.append(_stmt(f"return {loss_code}\n"))
        if not body:
            body = [_stmt("pass\n")]
        return self.method(f"{name}(self, batch, batch_idx)", self.epoch_prefix(stmts) + body)

    def training_step(self) -> cst.FunctionDef:
        p = self.plan
        loss = p.loss_capture or p.loss_name
        return self.step("training_step", p.train_target, p.train_index, p.train_body, loss)

    def configure_optimizers(self) -> cst.FunctionDef:
        plan = self.plan
        stmts = [plan.optimizer_stmt]
        if plan.scheduler_stmt is not None:
            stmts.append(plan.scheduler_stmt)
        local = {plan.optimizer: cst.Name(plan.optimizer)}
        # the Trainer sets up its dataloaders after configure_optimizers: use the ones passed in
        for loader in plan.loader_args:
            local[loader] = self_attr(attr_name(loader))
        if plan.scheduler:
            local[plan.scheduler] = cst.Name(plan.scheduler)
        body = self.rewrite(stmts, local)
        if plan.scheduler is None:
            body.append(_stmt(f"return {plan.optimizer}\n"))
        else:
            monitor = f'"monitor": "{plan.scheduler_monitor}", ' if plan.scheduler_monitor else ""
            body.append(
                _stmt(
                    f'return {{"optimizer": {plan.optimizer}, "lr_scheduler": '
                    f'{{"scheduler": {plan.scheduler}, {monitor}'
                    f'"interval": "{plan.scheduler_interval}"}}}}\n'
                )
            )
        return self.method("configure_optimizers(self)", body)


def needs_no_sanity_check(plan: LoopPlan, uses) -> bool:
    """Validation state first set outside on_validation_epoch_start would be missing (or
    changed) during Lightning's sanity check, which runs validation before any training."""
    if not plan.validation:
        return False
    carried = uses["validation_step"].read_first & plan.state
    initialised = uses.get("on_validation_epoch_start")
    return bool(carried - (initialised.writes if initialised else set()))


def build_trainer_statements(
    plan: LoopPlan, class_name: str, lit_name: str, trainer_name: str, module: cst.Module, uses
) -> list[cst.BaseStatement]:
    code = module.code_for_node
    args = ", ".join([plan.model, *plan.init_args])
    flags = [f"max_epochs={code(plan.max_epochs)}"]
    if plan.clip is not None:
        value, kind = plan.clip
        flags.append(f"gradient_clip_val={code(value)}")
        if kind == "value":
            flags.append('gradient_clip_algorithm="value"')
    if plan.accumulate is not None:
        flags.append(f"accumulate_grad_batches={code(plan.accumulate)}")
    if plan.precision and plan.precision_enabled is not None:
        enabled = code(plan.precision_enabled)
        flags.append(f'precision="{plan.precision}" if {enabled} else "32-true"')
    elif plan.precision:
        flags.append(f'precision="{plan.precision}"')
    if needs_no_sanity_check(plan, uses):
        flags.append("num_sanity_val_steps=0")
    loaders = [plan.train_loader] + ([plan.validation.loader] if plan.validation else [])
    lines = [
        f"{lit_name} = {class_name}({args})",
        f"{trainer_name} = L.Trainer({', '.join(flags)})",
        f"{trainer_name}.fit({lit_name}, {', '.join(loaders)})",
    ]
    lines += [f"{name} = {lit_name}.{attr_name(name)}" for name in plan.rebind_after]
    for name in plan.optim_after:
        if name == plan.optimizer:
            lines.append(f"{name} = {trainer_name}.optimizers[0]")
        else:
            lines.append(f"{name} = {trainer_name}.lr_scheduler_configs[0].scheduler")
    if plan.device_after:
        # the Trainer hands the model back on the CPU; later code expects it on `device`
        lines.append(f"{plan.model}.to({plan.device_after})")
    indent = 4 if plan.container is not module else 0
    return _statements(lines, indent)


def _statements(lines: list[str], indent: int) -> list:
    """Generated one-liners are written in black's style already: black only when one is
    too long to stay on its line."""
    code = "\n".join(lines) + "\n"
    if any(len(line) + indent > _BLACK.line_length for line in lines):
        code = format_code(code, indent)
    return list(cst.parse_module(code).body)


def build_test_statements(plan: LoopPlan, lit_name: str, trainer_name: str, module) -> list:
    lines = [f"{trainer_name}.test({lit_name}, {plan.test.loader})"]
    lines += [f"{name} = {lit_name}.{attr_name(name)}" for name in plan.test_rebind]
    if plan.device_after:
        lines.append(f"{plan.model}.to({plan.device_after})")
    indent = 4 if plan.container is not module else 0
    return _statements(lines, indent)
