"""How many batches a loader yields per epoch, when the script makes it certain.

    data = torch.randn(64, 12)                              64 samples
    loader = DataLoader(TensorDataset(data, y), batch_size=8)   -> 8 batches

Known only for a `DataLoader` over a tensor or a `TensorDataset` whose first tensor is built
by a torch factory with a constant first dimension, with a constant `batch_size` and
`drop_last`, every name bound once before the loop and never rebound in it. Anything else
(a Dataset class, a sampler, a size read from a file) is unknown: None.
"""

from __future__ import annotations

import libcst as cst

from .names import collect_names

_FACTORIES = {"randn", "rand", "zeros", "ones", "empty", "full", "randint", "arange"}
_COUNT_NEUTRAL = {
    "shuffle",
    "num_workers",
    "pin_memory",
    "generator",
    "collate_fn",
    "worker_init_fn",
}


def batches_per_epoch(ctx, loader: str) -> int | None:
    value = _bound_value(ctx, loader)
    if not isinstance(value, cst.Call) or not any(
        q.endswith(".DataLoader") for q in ctx.call_qualnames(value)
    ):
        return None
    positional = [a.value for a in value.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in value.args if a.keyword is not None}
    if any(a.star for a in value.args) or len(positional) > 2:
        return None
    if set(keywords) - _COUNT_NEUTRAL - {"dataset", "batch_size", "drop_last"}:
        return None  # a sampler, batch_sampler, ... decides the count
    dataset = positional[0] if positional else keywords.get("dataset")
    batch_size = positional[1] if len(positional) > 1 else keywords.get("batch_size")
    samples = _length(ctx, dataset)
    size = 1 if batch_size is None else constant_int(ctx, batch_size)
    drop_last = keywords.get("drop_last")
    if drop_last is not None and not (
        isinstance(drop_last, cst.Name) and drop_last.value in ("True", "False")
    ):
        return None
    if samples is None or not size:
        return None
    if drop_last is not None and drop_last.value == "True":
        return samples // size
    return -(-samples // size)


def constant_int(ctx, expr) -> int | None:
    """The value of an integer literal, or of a name bound once to one."""
    if isinstance(expr, cst.Name):
        expr = _bound_value(ctx, expr.value)
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    return None


def _bound_value(ctx, name: str):
    """The value `name` is bound to once before the loop and never rebound in the loop."""
    found, count = ctx.binding(name)
    if found is None or count != 1 or name in collect_names(ctx.loop).writes:
        return None
    return found[1]


def _length(ctx, expr) -> int | None:
    """len() of a tensor or a TensorDataset expression."""
    if isinstance(expr, cst.Name):
        expr = _bound_value(ctx, expr.value)
    if not isinstance(expr, cst.Call):
        return None
    names = ctx.call_qualnames(expr)
    if any(q.endswith("TensorDataset") for q in names):
        first = expr.args[0] if expr.args else None
        if first is None or first.keyword is not None or first.star:
            return None
        return _length(ctx, first.value)
    factory = {q.rsplit(".", 1)[1] for q in names if q.startswith("torch.")} & _FACTORIES
    if len(factory) != 1:
        return None
    args = [a for a in expr.args if a.keyword is None and not a.star]
    if not args:
        return None
    kind = factory.pop()
    if kind == "arange":
        return constant_int(ctx, args[0].value) if len(args) == 1 else None
    # randint(low, high, size) / randint(high, size): the size is the last positional tuple
    shape = args[-1].value if kind == "randint" else args[0].value
    if isinstance(shape, (cst.Tuple, cst.List)):
        if not shape.elements or isinstance(shape.elements[0], cst.StarredElement):
            return None
        return constant_int(ctx, shape.elements[0].value)
    return None if kind == "randint" else constant_int(ctx, shape)
