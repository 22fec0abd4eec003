"""Which names of a step hold the Trainer's batch: the names its batch unpacks into, and the
names the step binds only from them (or from a model's output, already on its device).

The Trainer moves the model and the batch it delivers, nothing else: a step's move of any
other tensor -- a second loader's batch drawn with `next(other_iter)`, a tensor built in the
step, a module-level tensor -- is the script's own placement and stays. Data flow decides,
not the spelling: `data_target, = next(target_iter)` is not the batch, `x = x.view(-1, 784)`
and `inputs = batch["x"]` are.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names

# methods whose result leaves the device (or the tensor): what they return is not the batch
_LEAVES_DEVICE = frozenset({"cpu", "numpy", "tolist", "item"})
_CONSTANTS = frozenset({"True", "False", "None"})
_CONTAINERS = frozenset({"list", "tuple"})  # hold the tensors they are given, where they are
# attributes of a tensor that are the tensor's own data (a view): on its device. Any other
# attribute read from the batch (`batch.src` of a collate_fn's `Batch(src, trg)`) may be a
# plain object's, which the Trainer does not move: Lightning's `move_data_to_device` moves
# tensors, collections, namedtuples, dataclasses and objects with a `to` method only, and the
# class of the batch is not known here. Keeping such a move is at worst a no-op.
_TENSOR_VIEWS = frozenset({"T", "mT", "H", "mH", "real", "imag"})


def is_tensor_view(node: cst.Attribute) -> bool:
    """`x.T`: the tensor's own data, where the tensor is."""
    return node.attr.value in _TENSOR_VIEWS


def batch_names_of(
    ctx, stmts, batch_names: set[str], models: frozenset, is_factory, current=None
) -> set[str]:
    """`batch_names` and the names `stmts` bind only from them, from each other, or from a
    model's output. A name any binding of which reads something else (or something not
    read here: a call of a script function, a `with ... as`) is not the batch's.

    `current`: the statement whose moves are asked about, after `stmts`. Of a simple line
    only its comprehensions' targets count (`list(im.to(d) for im in images)`): its own
    assignment binds after its moves ran (`data_target = data_target.to(d)`). Of a compound
    statement every binding counts (an earlier line of its block may bind the name)."""
    bindings: dict[str, list] = {}
    whole = list(stmts)
    if current is not None and not isinstance(current, cst.SimpleStatementLine):
        whole.append(current)
    for stmt in whole:
        for name, sources in _bindings(ctx, stmt, is_factory):
            bindings.setdefault(name, []).append(sources)
        for name in collect_names(stmt).writes - bindings.keys():
            bindings[name] = [None]  # bound by a def, an import, `with ... as`, ...
    if isinstance(current, cst.SimpleStatementLine):
        for name, sources in _loop_bindings(ctx, current, is_factory):
            bindings.setdefault(name, []).append(sources)
    # the greatest set closed under "every binding reads only the batch": start from every
    # name, drop those with a binding reading anything else, until nothing changes
    held = set(batch_names) | {n for n, found in bindings.items() if None not in found}
    changed = True
    while changed:
        changed = False
        for name in sorted(held & bindings.keys()):
            if any(s is None or not s <= held | models for s in bindings[name]):
                held.discard(name)
                changed = True
    return held


def _bindings(ctx, stmt, is_factory):
    """(name, names its value reads its data from, None when unknown) per binding."""
    found = []
    for assign in m.findall(stmt, m.Assign()):
        for target in assign.targets:
            found += _pairs(ctx, target.target, assign.value, is_factory)
    for assign in m.findall(stmt, m.AnnAssign() | m.AugAssign()):
        sources = _sources(ctx, assign.value, is_factory) if assign.value is not None else None
        if isinstance(assign, cst.AugAssign) and sources is not None:
            sources = sources | collect_names(assign.target).reads
        found += [(n, sources) for n in _target_names(assign.target)]
    return found + _loop_bindings(ctx, stmt, is_factory)


def _loop_bindings(ctx, stmt, is_factory):
    """`for k, v in batch.items()`, also in a comprehension: each target from the iterable."""
    found = []
    for loop in m.findall(stmt, m.For() | m.CompFor()):
        sources = _sources(ctx, loop.iter, is_factory)
        found += [(n, sources) for n in _target_names(loop.target)]
    return found


def _pairs(ctx, target, value, is_factory):
    """`x, y = x.to(d), y.to(d)`: each name from its own element."""
    if (
        isinstance(target, (cst.Tuple, cst.List))
        and isinstance(value, (cst.Tuple, cst.List))
        and len(target.elements) == len(value.elements)
        and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))
    ):
        return [
            pair
            for t, v in zip(target.elements, value.elements)
            for pair in _pairs(ctx, t.value, v.value, is_factory)
        ]
    sources = _sources(ctx, value, is_factory)
    return [(n, sources) for n in _target_names(target)]


def _target_names(target) -> set[str]:
    """The names a target binds (`x.attr = ...`, `x[i] = ...` bind none)."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for e in target.elements for n in _target_names(e.value)}
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()


def _sources(ctx, node, is_factory) -> set[str] | None:
    """The names `node`'s tensor data comes from; None when it may come from elsewhere (a
    script function's result, a tensor created here, a move to the CPU)."""
    if isinstance(node, cst.Name):
        return set() if node.value in _CONSTANTS else {node.value}
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
        return set()
    if isinstance(node, cst.Attribute) and not is_tensor_view(node):
        return None  # `batch.src`: an object's attribute, which the Trainer may not move
    if isinstance(node, (cst.Attribute, cst.Subscript)):  # `x.T`, `batch["x"]`, `x[:, 0]`
        return _sources(ctx, node.value, is_factory)
    if isinstance(node, (cst.Tuple, cst.List)):
        return _union(ctx, [e.value for e in node.elements], is_factory)
    if isinstance(node, cst.BinaryOperation):
        return _union(ctx, [node.left, node.right], is_factory)
    if isinstance(node, cst.UnaryOperation):
        return _sources(ctx, node.expression, is_factory)
    if isinstance(node, cst.Comparison):
        return _union(ctx, [node.left, *(c.comparator for c in node.comparisons)], is_factory)
    if isinstance(node, cst.IfExp):
        return _union(ctx, [node.body, node.orelse], is_factory)
    if isinstance(node, cst.Call):
        return _call_sources(ctx, node, is_factory)
    if isinstance(node, cst.Dict):  # `{"x": x, "y": y}`
        return _union(ctx, [e.value for e in node.elements], is_factory)
    if isinstance(node, cst.DictComp):  # `{k: v.to(device) for k, v in batch.items()}`
        return _sources(ctx, node.value, is_factory)
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return _sources(ctx, node.elt, is_factory)
    return None


def _call_sources(ctx, call: cst.Call, is_factory) -> set[str] | None:
    if is_factory(call):
        return None
    qualnames = ctx.call_qualnames(call)
    if qualnames:  # `torch.cat([x, y])`, `F.one_hot(y)`: on the device of what they read
        if all(q.startswith("torch.") for q in qualnames):
            return _union(ctx, [a.value for a in call.args], is_factory)
        return None
    func = call.func
    if isinstance(func, cst.Name) and func.value in _CONTAINERS:  # `list(x for x in xs)`
        return _union(ctx, [a.value for a in call.args], is_factory)
    if isinstance(func, cst.Name):  # `model(x)` is on the model's device; other calls unknown
        return {func.value}
    if isinstance(func, cst.Attribute):  # `x.view(-1)`, `model.encoder(x)`
        if func.attr.value in _LEAVES_DEVICE:
            return None
        return _sources(ctx, func.value, is_factory)
    return None


def _union(ctx, nodes, is_factory) -> set[str] | None:
    total: set[str] = set()
    for node in nodes:
        sources = _sources(ctx, node, is_factory)
        if sources is None:
            return None
        total |= sources
    return total
