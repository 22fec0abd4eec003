"""A peek at a batch's size at the epoch start that leaves torch's draws where Lightning has
them (patterns/loader_rng.py: TL190 refuses the other peeks).

    for epoch in range(epochs):
        b_sz = len(next(iter(train_data))[0])    # the DDP tutorial series' print
        for source, targets in train_data: ...

Every DataLoader iterator draws its base seed from torch's generator when it is made
(`_BaseDataLoaderIter.__init__`), and a RandomSampler its permutation's seed at the first
batch: its `__iter__`, like BatchSampler's, is a generator, run by the first `next`. Lightning
makes the first epoch's training iterator before `on_train_epoch_start` and asks it for its
first batch after (a loader with a length is not fetched ahead), so epoch 0 draws

    script:     peek base, peek batch (sampler seed, dataset),  train base, train batch ...
    Lightning:  train base, peek base, peek batch (sampler seed, dataset),  train batch ...

The same operations, one base seed moved: every draw from the training's first batch on is
the same number at the same place of the generator's stream. The training is then identical
when what moved is read by nothing: a base seed seeds only the workers (none: `num_workers`
0), and the peek's batch -- other samples once shuffled -- is read only by `len()`, the
number of samples of a first batch (default collate), the same whatever the order. Later
epochs run on_train_epoch_start before making their iterator, as the script does.

Loaders whose draws could fall elsewhere are not neutral: workers (a worker iterator asks
its sampler for the first batches at once, and seeds the workers from the base seed), a
`batch_sampler=` or a sampler of the script's own (its `__iter__` may draw at once), a
`collate_fn=` (a batch's `len()` may depend on its samples), a dataset that may be iterable
(not shuffled, given no sampler, and neither a TensorDataset nor an instance of a Dataset
class of the script: Lightning fetches an unsized loader's first batch ahead, before the
peek), a loader not built by a `DataLoader(...)` call the migrator can see.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..upgrade.edits import keyword_value
from .loader_iteration import loader_iterations

# torch's samplers whose `__iter__` is a generator, or draws nothing from torch's generator
_LAZY_SAMPLERS = frozenset(
    "RandomSampler SequentialSampler SubsetRandomSampler DistributedSampler".split()
)
_DATASETS = frozenset({"torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset"})
# DataLoader's positional parameters after which a neutral loader passes nothing positionally
_POSITIONAL = 3  # dataset, batch_size, shuffle


def neutral_size_peeks(ctx, stmt, train_loader: str) -> bool:
    """Every loader `stmt` iterates is iterated by a peek `len(next(iter(loader))[k])` (or
    without `[k]`) of a neutral loader, and the training loader is neutral (see the
    docstring); False when `stmt` iterates no loader."""
    sites = loader_iterations(ctx, stmt)
    if not sites or not neutral_loader(ctx, loader_call(ctx, cst.Name(train_loader))):
        return False
    covered: set[int] = set()
    for peek in m.findall(stmt, m.Call(func=m.Name("len"))):
        found = _peeked(ctx, peek)
        if found is not None:
            covered.update(id(call) for call in found)
    return all(id(site) in covered for site in sites)


def _peeked(ctx, peek: cst.Call) -> tuple[cst.Call, cst.Call] | None:
    """(`next(...)`, `iter(...)`) of `len(next(iter(loader))[k])` when `loader` is neutral."""
    if len(peek.args) != 1 or "builtins.len" not in ctx.call_qualnames(peek):
        return None
    batch = peek.args[0].value
    while isinstance(batch, cst.Subscript) and _constant_index(batch):
        batch = batch.value
    if not (_builtin_call(ctx, batch, "next") and len(batch.args) == 1):
        return None
    made = batch.args[0].value
    if not (_builtin_call(ctx, made, "iter") and len(made.args) == 1):
        return None
    if not neutral_loader(ctx, loader_call(ctx, made.args[0].value)):
        return None
    return batch, made


def neutral_loader(ctx, call: cst.Call | None) -> bool:
    """`DataLoader(...)` without workers, batch sampler, collate function or sampler of the
    script's own, over a dataset that is not iterable (shuffled, given a sampler, or known)."""
    if call is None or len([a for a in call.args if a.keyword is None]) > _POSITIONAL:
        return False
    if any(a.star for a in call.args):
        return False
    workers = keyword_value(call, "num_workers")
    if workers is not None and not m.matches(workers, m.Integer("0")):
        return False
    if any(keyword_value(call, k) is not None for k in ("batch_sampler", "collate_fn")):
        return False
    sampler = keyword_value(call, "sampler")
    if sampler is not None:
        return isinstance(sampler, cst.Call) and any(
            q.startswith("torch.utils.data.") and q.rsplit(".", 1)[1] in _LAZY_SAMPLERS
            for q in ctx.call_qualnames(sampler)
        )
    shuffle = keyword_value(call, "shuffle")
    if shuffle is None and len(call.args) > 2 and call.args[2].keyword is None:
        shuffle = call.args[2].value
    if shuffle is not None and m.matches(shuffle, m.Name("True")):
        return True
    dataset = keyword_value(call, "dataset") or (call.args[0].value if call.args else None)
    return _map_style(ctx, dataset)


def _map_style(ctx, dataset) -> bool:
    """`dataset` is a TensorDataset or an instance of a class of the script deriving from
    torch's Dataset alone (an IterableDataset derives from it too, never directly here)."""
    if isinstance(dataset, cst.Name):
        binding, count = ctx.binding(dataset.value)
        dataset = binding[1] if binding is not None and count == 1 else None
    if not isinstance(dataset, cst.Call):
        return False
    if any(q.endswith("torch.utils.data.TensorDataset") for q in ctx.call_qualnames(dataset)):
        return True
    if not isinstance(dataset.func, cst.Name):
        return False
    classes = [
        s
        for s in ctx.module.body
        if isinstance(s, cst.ClassDef) and s.name.value == dataset.func.value
    ]
    return (
        len(classes) == 1
        and len(classes[0].bases) == 1
        and ctx.qualnames(classes[0].bases[0].value) & _DATASETS
    )


def loader_call(ctx, expr) -> cst.Call | None:
    """The `DataLoader(...)` call `expr` (read before the training loop) is, followed through
    names bound once, constant keys of dict literals (`loaders["train"]`), and the one
    `return` of a module function (`model, loaders = load_train_objs(cfg)`)."""
    return _resolve(ctx, expr, lambda name: _loop_value(ctx, name), 6)


def _resolve(ctx, expr, lookup, depth: int) -> cst.Call | None:
    if depth == 0:
        return None
    if isinstance(expr, cst.Name):
        keyed = ctx.found.get("keyed_loader_calls", {}).get(expr.value)
        if keyed is not None:
            return keyed
        found = lookup(expr.value)
        return _resolve(ctx, found[0], found[1], depth - 1) if found else None
    if isinstance(expr, cst.Subscript):
        key = _constant_index(expr)
        container = expr.value
        while isinstance(container, cst.Name) and depth > 0:
            found = lookup(container.value)
            if found is None:
                return None
            container, lookup = found
            depth -= 1
        if key is None or not isinstance(container, cst.Dict):
            return None
        for element in container.elements:
            if isinstance(element, cst.DictElement) and _same_constant(element.key, key):
                return _resolve(ctx, element.value, lookup, depth - 1)
        return None
    if not isinstance(expr, cst.Call):
        return None
    if any(q.endswith(".DataLoader") for q in ctx.call_qualnames(expr)):
        return expr
    returned = _returned(ctx, expr)
    return _resolve(ctx, returned[0], returned[1], depth - 1) if returned else None


def _loop_value(ctx, name: str):
    """(value, lookup) of the one binding of `name` before the loop: `name = value`, or
    `a, name = f(...)` with module function `f` returning a tuple."""
    binding, count = ctx.binding(name)
    if count != 1:
        return None
    if binding is not None:
        return binding[1], lambda other: _loop_value(ctx, other)
    for stmt in ctx.scope_before:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            continue
        small = stmt.body[0]
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
            continue
        target = small.targets[0].target
        if not isinstance(target, cst.Tuple):
            continue
        names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
        if name not in names:
            continue
        returned = _returned(ctx, small.value)
        if returned is None or not isinstance(returned[0], cst.Tuple):
            return None
        elements = returned[0].elements
        if len(elements) != len(names) or isinstance(
            elements[names.index(name)], cst.StarredElement
        ):
            return None
        return elements[names.index(name)].value, returned[1]
    return None


def _returned(ctx, call):
    """(value, lookup in the function) of the one `return value` of the module function
    `call` calls."""
    from .reaching import reaching_binding
    from .statements import single_assign

    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name)):
        return None
    functions = [
        s
        for s in ctx.module.body
        if isinstance(s, cst.FunctionDef) and s.name.value == call.func.value
    ]
    if len(functions) != 1:
        return None
    function = functions[0]
    returns = m.findall(function, m.Return())
    if len(returns) != 1 or returns[0].value is None:
        return None

    def lookup(name: str, at=returns[0]):
        stmt = reaching_binding(function, name, at)
        found = single_assign(stmt) if stmt is not None else None
        if found is None:
            return None
        return found[1], lambda other: lookup(other, stmt)

    return returns[0].value, lookup


def _constant_index(subscript: cst.Subscript):
    """The one constant index of `x[0]` / `x["train"]`, else None."""
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    index = subscript.slice[0].slice.value
    return index if isinstance(index, (cst.Integer, cst.SimpleString)) else None


def _same_constant(a, b) -> bool:
    return type(a) is type(b) and getattr(a, "value", None) == getattr(b, "value", None)


def _builtin_call(ctx, node, name: str) -> bool:
    return isinstance(node, cst.Call) and f"builtins.{name}" in ctx.call_qualnames(node)
