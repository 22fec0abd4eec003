"""A name the epoch loop rebinds to the same value every epoch, and that value.

    for epoch in range(n_epoch):
        len_dataloader = min(len(dataloader_source), len(dataloader_target))
        ...
        for i in range(len_dataloader):        # the same numbers every epoch

The DANN scripts recompute a count at the top of each epoch from the lengths of loaders
that never change. Code built once before `fit` (the batch loop's numbers) may then read
the value itself. The value is the same every epoch when:

- one statement binds the name in the epoch loop, `name = value` at the top of its body,
  before the batch loop (it runs every epoch before the numbers are read), and nothing else
  in the loop binds or changes it;
- `value` is made of names, attributes of names, literals, arithmetic and the builtins
  `len` / `min` / `max` / `int` / `abs` / `round` (no call that could draw or change
  anything);
- every name it reads is bound before the epoch loop, is not the epoch's variable, and the
  epoch loop neither binds nor changes it -- nor what it was made from (`len(loader)` reads
  the loader's dataset: the names the loader's binding reads are checked too, two levels).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .names import collect_names
from .passed_values import immutable_names
from .statements import BACKWARD, contains, single_assign

_PURE_BUILTINS = frozenset(f"builtins.{n}" for n in "len min max int abs round".split())
_ATOMIC = (cst.Name, cst.Attribute, cst.Call, cst.Integer, cst.Float, cst.Subscript)
_DEPTH = 2  # how far back through the bindings of what the value reads


def epoch_constant(ctx, name: str, batch_loop) -> cst.BaseExpression | None:
    """The value `name` is bound to at the top of the epoch loop `ctx.loop` (before
    `batch_loop`), parenthesized when needed, when it is the same every epoch; else None."""
    from ..shapes.epoch_batch import maybe_changed  # epoch_batch.py imports this module

    loop = ctx.loop
    body = list(loop.body.body)
    at = next((i for i, s in enumerate(body) if s is batch_loop), None)
    if at is None:  # rewritten by an epoch_body pattern: the epoch's loop calling backward()
        at = next(
            (i for i, s in enumerate(body) if isinstance(s, cst.For) and contains(s, BACKWARD)),
            None,
        )
    if at is None:
        return None
    binders = [s for s in body[:at] if (single_assign(s) or ("",))[0] == name]
    if len(binders) != 1:
        return None
    binder = binders[0]
    value = single_assign(binder)[1]
    if not _pure(ctx, value):
        return None
    others = cst.Module(body=[s for s in body if s is not binder])
    epoch_target = collect_names(cst.AssignTarget(loop.target)).writes
    if name in epoch_target or maybe_changed(ctx, others, {name}):
        return None
    called = {c.func.value for c in m.findall(value, m.Call(func=m.Name()))}
    reads = collect_names(value).reads - called  # the calls are the pure builtins
    if any(ctx.binding(n)[1] == 0 and n not in ctx.params for n in reads):
        return None  # bound nowhere before the loop: nothing to read before `fit`
    if reads & epoch_target or maybe_changed(ctx, loop.body, reads):
        return None
    # what they were made from may only be changed in place to change them (`len(loader)`
    # reads its dataset); an immutable value or a module cannot be
    deeper = _made_from(ctx, reads) - immutable_names(ctx) - set(ctx.names.imports)
    if maybe_changed(ctx, loop.body, deeper - set(ctx.module_defs)):
        return None
    if isinstance(value, _ATOMIC) and not value.lpar:
        return value
    return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _pure(ctx, node) -> bool:
    """Only names, literals, arithmetic, attribute reads and calls of the pure builtins."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Attribute):
        return _pure(ctx, node.value)
    if isinstance(node, cst.UnaryOperation):
        return _pure(ctx, node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _pure(ctx, node.left) and _pure(ctx, node.right)
    if isinstance(node, cst.Call):
        return (
            bool(ctx.call_qualnames(node))
            and ctx.call_qualnames(node) <= _PURE_BUILTINS
            and all(a.keyword is None and not a.star and _pure(ctx, a.value) for a in node.args)
        )
    return False


def _made_from(ctx, names: set[str]) -> set[str]:
    """The names the bindings of `names` before the loop read, `_DEPTH` levels back."""
    found, frontier = set(), set(names)
    for _ in range(_DEPTH):
        more = set()
        for name in frontier:
            binding, _count = ctx.binding(name)
            if binding is not None:
                more |= collect_names(binding[1]).reads
        frontier = more - found - names
        found |= more
    return found - names
