"""The statements that replace the loop: build the LightningModule, the Trainer with the
arguments the shape and the patterns contributed, `fit` (and `test`), then read back what
later code uses (carried values, the optimizer, the model's device)."""

from __future__ import annotations

import libcst as cst

from ..plan import LIGHTNING, LoopPlan
from ..shapes.wrappers import extra_indent
from .module_class import attr_name, format_code, line_length


def build_trainer_statements(
    plan: LoopPlan,
    class_name: str,
    lit_name: str,
    trainer_name: str,
    module: cst.Module,
    uses,
    alias: str = "L",
) -> list[cst.BaseStatement]:
    args = ", ".join([*(model.name for model in plan.models), *plan.init_args])
    flags = _flags(plan, alias)
    loaders = [plan.train_loader] + ([plan.validation.loader] if plan.validation else [])
    loaders = [plan.loader_exprs.get(name, name) for name in loaders]
    if plan.validation and plan.validation.more_loaders:  # one validation loop per pass
        loaders[-1] = f"[{', '.join([loaders[-1], *plan.validation.more_loaders])}]"
    lines = [stmt for stmt in (plan.loader_stmt, plan.eval_loader_stmt) if stmt]
    lines.append(f"{lit_name} = {class_name}({args})")
    if plan.trainer_at is None:
        lines += [
            f"{trainer_name} = {alias}.Trainer({', '.join(flags)})",
            *plan.after_trainer,
        ]
    lines += plan.before_fit
    lines.append(f"{trainer_name}.fit({lit_name}, {', '.join(loaders)})")
    lines += [f"{name} = {lit_name}.{attr_name(name)}" for name in plan.rebind_after]
    optimizers = [optimizer.name for optimizer in plan.optimizers]
    for name in plan.optim_after:
        if name in optimizers:
            lines.append(f"{name} = {trainer_name}.optimizers[{optimizers.index(name)}]")
        else:
            lines.append(f"{name} = {trainer_name}.lr_scheduler_configs[0].scheduler")
    if plan.scaler_after is not None:  # read after the loop: the scaler that trained
        flag, when_off = plan.scaler_after
        trained = f"{trainer_name}.precision_plugin.scaler"
        lines.append(f"{plan.scaler} = {trained} if {flag} else {when_off}" if flag else "")
        lines[-1] = lines[-1] or f"{plan.scaler} = {trained}"
    if plan.device_after:
        # the Trainer hands the model back on the CPU; later code expects it on `device`
        lines += [f"{model.name}.to({plan.device_after})" for model in plan.models]
    lines += [f"{name}.to({plan.held_device[name]})" for name in plan.held_after]
    if "fit" in plan.eval_after and not plan.test:
        lines += _back_to_eval(plan, "validation")
    indent = _indent(plan, plan.wrapper or plan.epoch_loop, module) + extra_indent(plan.wrapper)
    return _statements(lines, indent)


def build_early_trainer(plan: LoopPlan, trainer_name: str, module: cst.Module, alias="L") -> list:
    """`trainer = L.Trainer(...)` where `plan.trainer_at` stood (where the script started its
    process group), for the code between it and the loop that reads the rank."""
    flags = _flags(plan, alias)
    lines = [f"{trainer_name} = {alias}.Trainer({', '.join(flags)})", *plan.after_trainer]
    indent = _indent(plan, plan.trainer_at, module)
    return _statements(lines, indent)


def _flags(plan: LoopPlan, alias: str) -> list[str]:
    """The Trainer's `keyword=code` arguments, Lightning named by the file's alias."""
    return [
        f"{keyword}={code.replace(LIGHTNING + '.', alias + '.')}"
        for keyword, code in plan.trainer_args
    ]


def build_test_statements(plan: LoopPlan, lit_name: str, trainer_name: str, module) -> list:
    lines = [*plan.before_test, f"{trainer_name}.test({lit_name}, {plan.test.loader})"]
    lines += [f"{name} = {lit_name}.{attr_name(name)}" for name in plan.test_rebind]
    if plan.device_after:
        lines += [f"{model.name}.to({plan.device_after})" for model in plan.models]
    lines += [f"{name}.to({plan.held_device[name]})" for name in plan.held_after]
    if "test" in plan.eval_after:
        lines += _back_to_eval(plan, "test")
    indent = _indent(plan, plan.test_stmts[0], module)
    return _statements(lines, indent)


def _back_to_eval(plan: LoopPlan, last_pass: str) -> list[str]:
    why = f"# the script's last {last_pass} pass left the model in eval mode (Lightning's: train)"
    return [why, *(f"{model.name}.eval()" for model in plan.models)]


def _indent(plan: LoopPlan, stmt, module) -> int:
    """The columns `stmt` (a statement of the loop's scope) stands indented by: black wraps
    the generated lines that replace it at that width."""
    depth = plan.depths.get(id(stmt))
    if depth is None:
        depth = 1 if plan.container is not module else 0
    return 4 * depth


def _statements(lines: list[str], indent: int) -> list:
    """Generated one-liners are written in black's style already: black only when one is
    too long to stay on its line."""
    code = "\n".join(lines) + "\n"
    if any(len(line) + indent > line_length() for line in lines):
        code = format_code(code, indent)
    module = cst.parse_module(code)
    body = list(module.body)
    comments = [line for line in module.header if line.comment is not None]
    if comments:  # a leading comment line belongs to the first statement
        body[0] = body[0].with_changes(leading_lines=[*comments, *body[0].leading_lines])
    return body
