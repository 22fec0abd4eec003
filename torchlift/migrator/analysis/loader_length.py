"""How many batches a loader yields per epoch, when the script makes it certain.

    data = torch.randn(64, 12)                              64 samples
    loader = DataLoader(TensorDataset(data, y), batch_size=8)   -> 8 batches

Known only for a `DataLoader` over a tensor or a `TensorDataset` whose first tensor is built
by a torch factory with a constant first dimension, with a constant `batch_size` (a literal,
a name bound once to one, or `cfg["batch_size"]` of a config dict only ever read) and
`drop_last`, every name bound once before the loop and never rebound in it. Anything else
(a Dataset class, a sampler, a size read from a file) is unknown: None.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

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
    """The value of an integer literal, of a name bound once to one, or of a research
    script's `cfg["key"]` holding one."""
    if isinstance(expr, cst.Name):
        expr = _bound_value(ctx, expr.value)
    if isinstance(expr, cst.Subscript):  # `accum_steps = cfg["accum_steps"]` too
        expr = _config_item(ctx, expr)
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    return None


def _config_item(ctx, expr: cst.Subscript):
    """The value of `cfg["key"]` when `cfg` is a dict literal bound once that the file only
    ever reads by string keys (never assigns an item, passes on, or calls a method of)."""
    if not isinstance(expr.value, cst.Name) or len(expr.slice) != 1:
        return None
    index = expr.slice[0].slice
    if not (isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)):
        return None
    name = expr.value.value
    value = _bound_value(ctx, name)
    if not isinstance(value, cst.Dict) or not _only_read_by_key(ctx.module, name):
        return None
    if any(not isinstance(e, cst.DictElement) for e in value.elements):
        return None  # `**defaults` could hold the key
    key = index.value.evaluated_value
    found = [
        e.value
        for e in value.elements
        if isinstance(e.key, cst.SimpleString) and e.key.evaluated_value == key
    ]
    if len(found) != 1 or any(not isinstance(e.key, cst.SimpleString) for e in value.elements):
        return None
    return found[0]


def _only_read_by_key(module: cst.Module, name: str) -> bool:
    """Every mention of `name` in the file but one (its binding) is `name["key"]`, read."""
    item = m.Subscript(
        value=m.Name(name), slice=[m.SubscriptElement(slice=m.Index(value=m.SimpleString()))]
    )
    reads = {id(found.value) for found in m.findall(module, item)}
    targets = m.findall(module, m.AssignTarget() | m.AugAssign() | m.AnnAssign() | m.Del())
    for target in targets:
        if m.matches(target.target, item):
            return False  # `cfg["lr"] = ...`
    others = [n for n in m.findall(module, m.Name(name)) if id(n) not in reads]
    return len(others) == 1


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
