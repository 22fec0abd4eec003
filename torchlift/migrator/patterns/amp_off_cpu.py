"""Whether the test turning an autocast on keeps it off the CPU.

    ctx = nullcontext() if device_type == "cpu" else torch.autocast(device_type, dtype=...)
    use_amp = args.amp and device.type == "cuda"
    with torch.autocast(device.type, dtype=torch.float16, enabled=use_amp):

A float16 autocast whose device type is chosen at run time trains in float16 on the CPU
when its flag allows the CPU; Lightning's `precision="16-mixed"` there is bfloat16 without a
scaler. Under a test that holds only off the CPU (nanoGPT's nullcontext on the CPU, a flag
requiring CUDA) the region is float16 only where "16-mixed" is float16 too.

Read from the code, by implication: the test is `<device> != "cpu"` or `<device> == "cuda"`
for the autocast's own device expression, a conjunction holding one, `not` of a test holding
whenever the device is the CPU, or a name bound once before the loop (and never in it) to one
of those. Anything else may allow the CPU.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.names import collect_names
from ..source.code_text import code_of


def keeps_off_cpu(ctx, test, device) -> bool:
    """`test` (the autocast's condition) holds only when `device` (its device type
    expression) is not the CPU's."""
    return _implies(ctx, test, code_of(device).strip(), cpu=False, seen=())


def _implies(ctx, test, device: str, cpu: bool, seen) -> bool:
    """`test` true implies that `device` is the CPU's (`cpu`) or is not (`not cpu`)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        # `not t` implies "not the CPU" when the CPU implies `t`: t false => not the CPU
        return _implied_by(ctx, test.expression, device, not cpu, seen)
    if isinstance(test, cst.BooleanOperation):
        left = _implies(ctx, test.left, device, cpu, seen)
        right = _implies(ctx, test.right, device, cpu, seen)
        return (left or right) if isinstance(test.operator, cst.And) else (left and right)
    if isinstance(test, cst.Comparison):
        return cpu in _IMPLIES.get(_comparison(test, device), ())
    value = _bound(ctx, test, seen)
    return value is not None and _implies(ctx, value, device, cpu, (*seen, test.value))


def _implied_by(ctx, test, device: str, cpu: bool, seen) -> bool:
    """`device` being the CPU's (`cpu`) or not (`not cpu`) implies `test`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _implies(ctx, test.expression, device, not cpu, seen)
    if isinstance(test, cst.BooleanOperation):
        left = _implied_by(ctx, test.left, device, cpu, seen)
        right = _implied_by(ctx, test.right, device, cpu, seen)
        return (left or right) if isinstance(test.operator, cst.Or) else (left and right)
    if isinstance(test, cst.Comparison):
        return cpu in _IMPLIED_BY.get(_comparison(test, device), ())
    value = _bound(ctx, test, seen)
    return value is not None and _implied_by(ctx, value, device, cpu, (*seen, test.value))


# (operator, device type) of `<device> <op> "<type>"` -> the values of "the device is the
# CPU's" the comparison implies when true, and those that imply it; "not CUDA" may be MPS
_IMPLIES = {("==", "cpu"): {True}, ("!=", "cpu"): {False}, ("==", "cuda"): {False}}
_IMPLIED_BY = {("==", "cpu"): {True}, ("!=", "cpu"): {False}, ("!=", "cuda"): {True}}


def _comparison(test: cst.Comparison, device: str) -> tuple[str, str] | None:
    """(operator, literal) of `<device> == "<literal>"` / `!=` (either way round), where
    `<device>` is the autocast's own device expression; None otherwise."""
    if len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    operator = {cst.Equal: "==", cst.NotEqual: "!="}.get(type(target.operator))
    sides = [test.left, target.comparator]
    literal = [s for s in sides if isinstance(s, cst.SimpleString)]
    other = [s for s in sides if not isinstance(s, cst.SimpleString)]
    if operator is None or len(literal) != 1 or len(other) != 1:
        return None
    if code_of(other[0]).strip() != device:
        return None
    return operator, literal[0].evaluated_value


def _bound(ctx, test, seen):
    """The value a name is bound to once before the loop and never in it, else None."""
    if not isinstance(test, cst.Name) or test.value in seen:
        return None
    if test.value in collect_names(ctx.loop).writes:
        return None
    found, count = ctx.binding(test.value)
    return found[1] if found is not None and count == 1 else None
