"""`DDP(model)` wrappers and `model.module` unwrappings: the model itself once the strategy
wraps it."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.names import collect_names
from ...analysis.statements import single_assign
from ...rule import Unsupported
from .facts import DDP_CLASSES, Facts, all_ranks, flag_body, is_flag, remove_with_reason
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
                extra = [a for a in call.args[1:] if not _harmless_ddp_arg(a, facts)]
                if extra or not call.args or call.args[0].keyword not in (None, "module"):
                    raise Unsupported(DDP_OPTIONS, "DDP(...) with options", each)
                inner = call.args[0].value
                # `DDP(model)` wraps `model`; `model = DDP(Net())` becomes `model = Net()`
                facts.wrappers[assign[0]] = (
                    inner.value if isinstance(inner, cst.Name) else assign[0]
                )


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
        if cst.Module(body=[]).code_for_node(original_node) in self.kept:
            return cst.Name("None")
        return updated_node
