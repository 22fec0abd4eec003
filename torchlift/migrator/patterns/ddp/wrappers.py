"""`DDP(model)` wrappers and `model.module` unwrappings: the model itself once the strategy
wraps it."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.function_reads import module_functions
from ...analysis.names import bound_names, collect_names
from ...analysis.statements import single_assign, statements
from ...rule import Unsupported
from ...source.code_text import code_of
from ..factories import name_uses
from .facts import (
    DDP_CLASSES,
    Facts,
    _Unwrap,
    all_ranks,
    flag_body,
    is_flag,
    remove_with_reason,
)
from .rules import DDP_OPTIONS


def read_wrappers(ctx, facts: Facts) -> None:
    """`ddp_model = DDP(model)` (also under `if <flag>:`): the strategy's wrapper now;
    `raw_model = model.module if <flag> else model`: the model itself."""
    for stmt in ctx.scope_before:
        inner = flag_body(facts, stmt)
        for each in [stmt] if inner is None else inner:
            assign = single_assign(each)
            if assign and _unwraps(facts, assign[1]):
                facts.wrappers[assign[0]] = _unwraps(facts, assign[1])
                facts.unwrapped.add(assign[0])
                remove_with_reason(facts, [stmt], "the unwrapped model -> the model itself")
                continue
            for call in m.findall(each, m.Call()):
                if not ctx.call_qualnames(call) & DDP_CLASSES:
                    continue
                if assign is None or assign[1] is not call:
                    raise Unsupported(
                        DDP_OPTIONS, "DDP(...) is not bound by itself to a name", each
                    )
                if not call.args or call.args[0].keyword not in (None, "module"):
                    raise Unsupported(DDP_OPTIONS, "DDP(...) without its module first", each)
                for arg in call.args[1:]:
                    _read_option(facts, arg, each)
                inner = call.args[0].value
                # `DDP(model)` wraps `model`; `model = DDP(Net())` becomes `model = Net()`
                wrapped = inner.value if isinstance(inner, cst.Name) else assign[0]
                if isinstance(inner, cst.Name):  # `model = net; model = DDP(model)`
                    wrapped = _aliased(ctx, stmt, wrapped)
                    facts.wraps.append((each, stmt, assign[0], wrapped))
                facts.wrappers[assign[0]] = wrapped


def _aliased(ctx, at, name: str) -> str:
    """The name `name` copies when the one statement binding it before `at` in the loop's
    scope is `name = other` (the copy a trainer class's `__init__` leaves, inlined:
    `model = net`), followed back; else `name`."""
    seen = {name}
    while True:
        before = ctx.scope_before[: next(i for i, s in enumerate(ctx.scope_before) if s is at)]
        bindings = [s for s in before if name in bound_names(s)]
        assign = single_assign(bindings[0]) if len(bindings) == 1 else None
        if assign is None or not isinstance(assign[1], cst.Name) or assign[1].value in seen:
            return name
        at, name = bindings[0], assign[1].value
        seen.add(name)


def drop_wrappers(ctx, plan, facts: Facts) -> None:
    """`ddp_model = DDP(model)` statements the model's binding did not take away
    (bindings.py removes those of the model the optimizer trains, `model = DDP(model)`): the
    strategy wraps the model, and kept they would run before the Trainer starts the process
    group (a crash). A wrapper of anything but the model trained is refused (TL165)."""
    models = {n for model in plan.models for n in (model.name, *model.aliases)}
    gone = {id(s) for s in [*plan.remove_stmts, *facts.removed]}
    for each, stmt, wrapper, wrapped in facts.wraps:
        if id(stmt) in gone:
            continue
        if wrapped not in models:
            ctx.block(
                DDP_OPTIONS,
                f"`{wrapper}` wraps `{wrapped}` in DDP, not the model the optimizer trains",
                each,
            )
        elif each is stmt:
            remove_with_reason(facts, [stmt], 'DDP wrapper -> `strategy="ddp"` wraps the model')
        else:  # under `if <flag>:` beside other statements
            ctx.block(DDP_OPTIONS, "DDP(...) beside other statements under the flag", stmt)


def _unwraps(facts: Facts, value) -> str | None:
    """The model `value` reads through DDP's `.module` (`model.module if ddp else model`, or
    `ddp_model.module` of a wrapper bound before)."""
    if m.matches(value, m.Attribute(m.Name(), m.Name("module"))):
        return facts.wrappers.get(value.value.value)
    if isinstance(value, cst.IfExp) and is_flag(facts, value.test):
        body, orelse = value.body, value.orelse
        if m.matches(body, m.Attribute(m.Name(), m.Name("module"))) and m.matches(
            orelse, m.Name(body.value.value)
        ):
            return orelse.value
    return None


def _read_option(facts: Facts, arg: cst.Arg, stmt) -> None:
    """An option of `DDP(...)` the strategy reproduces: the device of this process, or
    `find_unused_parameters=` (True: Lightning's `strategy="ddp_find_unused_parameters_true"`,
    the same DDP option; False: the strategy's default). Else TL165 naming the option."""
    if _harmless_ddp_arg(arg, facts):
        return
    if arg.keyword is not None and arg.keyword.value == "find_unused_parameters":
        if m.matches(arg.value, m.Name("False")):
            return
        if m.matches(arg.value, m.Name("True")) and facts.strategy == '"ddp"':
            facts.strategy = '"ddp_find_unused_parameters_true"'
            return
    shown = code_of(arg).rstrip(", ")
    raise Unsupported(
        DDP_OPTIONS,
        f"DDP(...) with the option `{shown}`, which the Trainer's strategy is not given",
        stmt,
    )


def _harmless_ddp_arg(arg: cst.Arg, facts: Facts) -> bool:
    """`device_ids=` / `output_device=`: None, or this process's own rank (as the strategy
    passes them)."""
    if arg.keyword is None or arg.keyword.value not in ("device_ids", "output_device"):
        return False
    kept = {code for code, _ in all_ranks(facts)}
    value = arg.value.visit(_KeptRanks(kept))
    reads = collect_names(value).reads
    return reads <= {"None", "torch", *facts.roles, *kept}


class _KeptRanks(cst.CSTTransformer):
    """`args.gpu` (a rank the script keeps binding) read as no name at all."""

    def __init__(self, kept: set[str]) -> None:
        super().__init__()
        self.kept = kept

    def leave_Attribute(self, original_node, updated_node):
        if code_of(original_node) in self.kept:
            return cst.Name("None")
        return updated_node


def unwrap_in_functions(ctx, plan, facts: Facts) -> None:
    """A function of the script handed the DDP wrapper (`_save_checkpoint(ddp_model, epoch)`)
    is handed the model itself once converted: its `param.module` reads the model too
    (`param.module.state_dict()` -> `param.state_dict()`; kept, it would raise
    AttributeError). Only for a function every call of which hands it a wrapper there, that
    does not rebind the parameter nor ask what it is (`isinstance`, `hasattr`); else TL165."""
    functions = module_functions(ctx.module)
    scope = [ctx.loop, *ctx.scope_before, *ctx.scope_after]
    handed: dict[str, set[str]] = {}  # function -> its parameters given a wrapper
    for call in [c for s in scope for c in m.findall(s, m.Call(func=m.Name()))]:
        function = functions.get(call.func.value)
        if function is None or function is ctx.function:
            continue
        for param, arg in _parameters_given(function, call):
            if isinstance(arg, cst.Name) and arg.value in facts.wrappers:
                handed.setdefault(function.name.value, set()).add(param or "*")
    for name, params in sorted(handed.items()):
        function = functions[name]
        unwrap = _Unwrap({p: p for p in params})
        simple = [s for s in statements(function) if isinstance(s, cst.SimpleStatementLine)]
        reads = [s for s in simple if _module_reads(s, params)]
        if not reads:
            continue
        why = _unwrap_refused(ctx, function, params)
        if why is None and len(_module_reads(function, params)) != sum(
            len(_module_reads(s, params)) for s in reads
        ):  # `if model.module.training:`: a compound statement's header
            why = "reads it outside a simple statement"
        if why is not None:
            ctx.block(
                DDP_OPTIONS,
                f"`{name}()` is handed the DDP wrapper and reads its `.module`, but {why}",
                function,
            )
            continue
        for stmt in reads:
            new = stmt.visit(unwrap)
            plan.rewrite_stmts.append((stmt, new))
            why = "the DDP wrapper's `.module` -> the model itself (the function is handed it)"
            plan.rewritten_why.append((stmt, cst.Module(body=[new]).code, why))


def _module_reads(node, params: set[str]) -> list:
    """The `<param>.module` attributes in `node`."""
    found = m.findall(node, m.Attribute(m.Name(), m.Name("module")))
    return [n for n in found if n.value.value in params]


def _parameters_given(function: cst.FunctionDef, call: cst.Call):
    """(parameter or None when unknown, argument) for each argument of `call`."""
    params = [*function.params.posonly_params, *function.params.params]
    position = 0
    for arg in call.args:
        if arg.star:
            yield None, arg.value
        elif arg.keyword is not None:
            yield arg.keyword.value, arg.value
        else:
            yield (params[position].name.value if position < len(params) else None), arg.value
            position += 1


def _unwrap_refused(ctx, function: cst.FunctionDef, params: set[str]) -> str | None:
    """Why `.module` of `params` cannot be read as the model in `function`, or None."""
    if "*" in params:
        return "a call hands it by `*args` or past its parameters"
    name = function.name.value
    calls = m.findall(ctx.module, m.Call(func=m.Name(name)))
    if name_uses(ctx.module, name) != len(calls) + 1:
        return "it is used other than by calls"
    facts = ctx.found["ddp"]
    for call in calls:
        given = dict(_parameters_given(function, call))
        for param in params:
            arg = given.get(param)
            if not (isinstance(arg, cst.Name) and arg.value in facts.wrappers):
                return f"a call does not hand it the wrapper as `{param}`"
    if params & collect_names(function.body).writes:
        return "it rebinds the parameter"
    for call in m.findall(
        function, m.Call(func=m.Name("isinstance") | m.Name("hasattr") | m.Name("getattr"))
    ):
        if params & collect_names(call).reads:
            return "it asks what the parameter is"
    return None
