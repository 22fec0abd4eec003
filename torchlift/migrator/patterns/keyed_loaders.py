"""Pattern: batch loops over a dict of loaders read by a constant key (the transfer-learning
tutorial and its copies), and the one resolver of `<loaders>["<key>"]` phase_loop.py uses too.

    dataloaders = {x: DataLoader(sets[x], batch_size=8, shuffle=x == "train")
                   for x in ["train", "val"]}
    for epoch in range(N):
        for inputs, labels in dataloaders["train"]:    -> training_step
            ...
        with torch.no_grad():
            for inputs, labels in dataloaders["val"]:  -> validation_step
                ...
                                                       -> trainer.fit(lit_model,
                                                              dataloaders["train"],
                                                              dataloaders["val"])

Each loop of the epoch over `<dict>["<key>"]` is rewritten, before the epoch is read, to
iterate a generated name standing for that loader (the shapes and the other patterns read
loader names); the Trainer is given the dict's entry as written, the same object the script
iterated. Everything else the script reads of the dict (`len(dataloaders["train"])`, another
dict such as `dataset_sizes["train"]`) keeps its meaning: it is the same dict, unchanged.

That holds when the dict is certain: bound once -- a dict display, `dict(train=...,
val=...)`, or a comprehension over a literal list of keys (analysis/dict_entries.py) -- in
the scope of the loop, at module level (a global of the function holding the loop), or by
every caller of that function for its parameter (patterns/passed_in.py); its entry under
the key is a `DataLoader(...)` call (or a name bound once to one, or a function of the file
returning one); and nothing in the file may change the dict (an item stored or deleted, a
method that is not a reading one, handed to a call that may change it, rebound:
analysis/passed_values.py's `first_change`). Refused (TL104, naming the statement): a
training loop over a dict read by a key that is not a string literal, over a dict that is
not certain or that changes, or under a key that holds something else than a loader. A loop
without backward() over such a dict entry that is no loader is left to the other patterns
(a list of metrics, `history["train"]`).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.dict_entries import dict_entry
from ..analysis.globals_read import module_global_binding
from ..analysis.names import bound_names, file_identifiers, only_module_binding
from ..analysis.passed_values import first_change
from ..analysis.statements import BACKWARD, contains, single_assign
from ..rule import Unsupported
from ..shapes.context import NOT_A_LOADER
from .passed_in import builds_loader, callers_passing, is_loader_call

RULES = ()

CONSTANT_KEY = m.Subscript(
    value=m.Name(), slice=[m.SubscriptElement(slice=m.Index(value=m.SimpleString()))]
)


def epoch_body(ctx, stmts):
    """The epoch body with each loop over `<dict>["<key>"]` iterating a generated name."""
    taken = None
    for loop in [loop for stmt in stmts for loop in _loops(stmt)]:
        loader = ctx.unwrap_iter(loop)[0]
        training = contains(loop, BACKWARD)
        if not isinstance(loader, cst.Subscript):
            continue
        if not m.matches(loader, CONSTANT_KEY):
            if training:
                raise Unsupported(
                    NOT_A_LOADER,
                    f"the batch loop iterates `{ctx.module.code_for_node(loader)}`: a dict of "
                    'loaders is read by a string literal key (`loaders["train"]`), or by '
                    "the variable of a phase loop (`for phase in [...]:`)",
                    loop,
                )
            continue
        if not training and not _holds_a_loader(ctx, loader):
            continue  # `for value in history["train"]:` is not this pattern's
        if ctx.module.code_for_node(loader) in ctx.found.get("keyed_loaders", {}).values():
            continue  # the same entry iterated again: renamed with the first loop
        if taken is None:
            taken = file_identifiers(ctx.module.code, "<loaders>")
        key = loader.slice[0].slice.value.evaluated_value
        stem = f"{loader.value.value}_{key if key.isidentifier() else 'loader'}"
        name = keyed_loader(ctx, loader, NOT_A_LOADER, loop, stem, taken)
        stmts = [_iterating(stmt, loop, loader, cst.Name(name)) for stmt in stmts]
    return stmts


def read(ctx, plan, steps) -> None:
    plan.loader_exprs.update(ctx.found.get("keyed_loaders", {}))


def _iterating(stmt, loop: cst.For, loader: cst.Subscript, name: cst.Name):
    """`stmt` with `loop` (itself, or inside its `with` blocks) iterating `name` instead of
    `loader`; every other statement is kept as the same node (findings and the change log
    find statements by identity). Other reads of the dict entry (`len(loaders["train"])`)
    stay as written: the same dict, never changed."""
    if stmt is loop:
        return loop.with_changes(iter=loop.iter.visit(ReplaceExpression(loader, name)))
    if isinstance(stmt, cst.With) and any(found is loop for found in _loops(stmt)):
        body = [_iterating(inner, loop, loader, name) for inner in stmt.body.body]
        return stmt.with_changes(body=stmt.body.with_changes(body=body))
    return stmt


def _loops(stmt) -> list[cst.For]:
    """The loops of the epoch body `stmt` is, or holds directly inside `with` blocks (an
    evaluation pass under `torch.no_grad()`)."""
    if isinstance(stmt, cst.For):
        return [stmt]
    if isinstance(stmt, cst.With):
        return [loop for inner in stmt.body.body for loop in _loops(inner)]
    return []


def keyed_loader(ctx, loader: cst.Subscript, rule, at, stem: str, taken: set[str]) -> str:
    """The generated name standing for the loader `<dict>["<key>"]` (`loader`, matching
    CONSTANT_KEY) that the loop `at` iterates, recorded with the loader's code for the
    Trainer's call (`ctx.found["keyed_loaders"]`); Unsupported (`rule`) when the dict is not
    certain, changes, or holds no loader under the key."""
    from ..shapes.epoch_batch import how_changed, maybe_changed

    name = loader.value.value
    code = ctx.module.code_for_node(loader)
    if maybe_changed(ctx, ctx.loop.body, {name}):
        how, where = how_changed(ctx, ctx.loop, name)
        raise Unsupported(
            rule,
            f"the epoch loop {how} `{name}`, whose loaders the Trainer is given once",
            where or at,
        )
    key = loader.slice[0].slice.value.evaluated_value
    found = _entry(ctx, name, key)
    if isinstance(found, tuple):
        why, where = found
        raise Unsupported(rule, f"the loop iterates `{code}`, but {why}", where or at)
    known = ctx.found.setdefault("keyed_loaders", {})
    generated = stem
    while generated in taken or generated in known:
        generated += "_"
    taken.add(generated)
    known[generated] = code
    ctx.found.setdefault("keyed_loader_calls", {})[generated] = found
    return generated


def _holds_a_loader(ctx, loader: cst.Subscript) -> bool:
    """Some binding of the dict has a loader under the key (a loop over it is an evaluation
    pass, whose dict must then be as certain as the training loop's)."""
    key = loader.slice[0].slice.value.evaluated_value
    sources = _sources(ctx, loader.value.value)
    if isinstance(sources, tuple):
        return False
    for _, value, stmts in sources:
        entry = dict_entry(ctx, value, key)
        if not isinstance(entry, str) and _loader_call(ctx, entry, stmts) is not None:
            return True
    return False


def _entry(ctx, name: str, key: str) -> cst.Call | tuple[str, cst.CSTNode | None]:
    """The `DataLoader(...)` call (or loader-returning call) under `key` in every dict `name`
    is bound to, or (why not, the statement to show)."""
    sources = _sources(ctx, name)
    if isinstance(sources, tuple):
        return sources
    calls = []
    for binding, value, stmts in sources:
        holder = single_assign(binding)[0] if single_assign(binding) else name
        entry = dict_entry(ctx, value, key)
        if isinstance(entry, str):
            return f"`{holder}` {entry}", binding
        call = _loader_call(ctx, entry, stmts)
        if call is None:
            shown = ctx.module.code_for_node(entry)
            return f'`{holder}["{key}"]` is `{shown}`, not a `DataLoader(...)`', binding
        changed = _changed(ctx, holder, binding)
        if changed is not None:
            return changed
        calls.append(call)
    if ctx.in_function and name in ctx.params:
        changed = _changed(ctx, name, ctx.function.params)
        if changed is not None:
            return changed
    return calls[0]


def _changed(ctx, name: str, binding) -> tuple[str, cst.CSTNode] | None:
    """(why, the statement) when the file may change the dict `name` bound by `binding`."""
    stmt = first_change(ctx, ctx.module, name, binding)
    if stmt is None:
        return None
    line = ctx.module.code_for_node(stmt.with_changes(leading_lines=())).strip()
    return (
        f"the file may change `{name}` (`{line.splitlines()[0]}`), which the Trainer would "
        "not see (it is given the loaders once)",
        stmt,
    )


def _sources(ctx, name: str):
    """[(binding statement, the dict value, the statements of its scope)] for every value
    the dict `name` may hold in the loop, or (why it is not certain, a statement to show)."""
    found, count = ctx.binding(name)
    if count:
        if count > 1 or found is None:
            return f"`{name}` is bound more than once, or not by a plain `=`, before the loop", None
        return [(found[0], found[1], ctx.scope_before)]
    if ctx.in_function and name in ctx.params:
        passed = callers_passing(ctx, name)
        if not passed:
            return (
                f"what the callers of `{ctx.function.name.value}` pass as `{name}` cannot be "
                "read (TL132's conditions)",
                None,
            )
        sources = []
        for argument, others in passed:
            bound = _bound_once(others, argument.value) if isinstance(argument, cst.Name) else None
            if bound is None:
                shown = ctx.module.code_for_node(argument) if argument is not None else "nothing"
                return (
                    f"a caller of `{ctx.function.name.value}` passes `{shown}` as `{name}`, not a "
                    "name bound once to a dict",
                    None,
                )
            sources.append((*bound, others))
        return sources
    if ctx.in_function:
        global_binding = module_global_binding(ctx, name)
        if global_binding is None:
            return f"`{name}` is not bound once at module level before the function", None
        return [(*global_binding, list(ctx.module.body))]
    return f"`{name}` is not bound before the loop", None


def _bound_once(stmts, name: str) -> tuple[cst.CSTNode, cst.BaseExpression] | None:
    """(statement, value) of the one plain `name = value` among `stmts`, if so."""
    bindings = [stmt for stmt in stmts if name in bound_names(stmt)]
    assign = single_assign(bindings[0]) if len(bindings) == 1 else None
    if assign is None or assign[0] != name:
        return None
    return bindings[0], assign[1]


def _loader_call(ctx, entry, stmts) -> cst.Call | None:
    """The call building the loader `entry` is: `DataLoader(...)` or a function of the file
    returning one, itself or through a name bound once in the dict's scope (else the
    module's)."""
    if isinstance(entry, cst.Name):
        bound = _bound_once(stmts, entry.value)
        if bound is None and not any(entry.value in bound_names(s) for s in stmts):
            stmt = only_module_binding(ctx.module, entry.value)
            assign = single_assign(stmt) if stmt is not None else None
            bound = (stmt, assign[1]) if assign and assign[0] == entry.value else None
        entry = bound[1] if bound is not None else None
    if isinstance(entry, cst.Call) and (is_loader_call(ctx, entry) or builds_loader(ctx, entry)):
        return entry
    return None


class ReplaceExpression(cst.CSTTransformer):
    """Every subscript equal to `old` (the loader as written) replaced by `new`."""

    def __init__(self, old: cst.BaseExpression, new: cst.BaseExpression) -> None:
        super().__init__()
        self.old, self.new = old, new

    def leave_Subscript(self, original_node, updated_node):
        if original_node.deep_equals(self.old):
            return self.new.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        return updated_node
