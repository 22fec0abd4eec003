"""Pattern: the optimizer built by a method of the model (nanoGPT, minGPT).

    class GPT(nn.Module):
        def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
            ...groups from self.named_parameters()...
            return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas)

    model = GPT(config)
    optimizer = model.configure_optimizers(        -> configure_optimizers(self):
        weight_decay, learning_rate, (b1, b2), dt)        return self.model.configure_optimizers(
                                                              weight_decay, learning_rate, ...)

The statement is the optimizer's binding like any `torch.optim` call (patterns/bindings.py),
and the model it trains is the method's receiver. Read only when that is certain: the
receiver is bound once to a call of a class of the script whose own body defines the method
once, undecorated, and nothing in the file assigns an attribute of that name (which could
replace it on an instance or the class); every `return` of the method returns a `torch.optim`
optimizer call or a local bound once to one; every global the method reads is a builtin or
an import (so the only model it can reach is `self`, not a model of the script); and the
call's arguments read no receiver and, when they read a name bound to a call (minGPT's
`model.configure_optimizers(train_config)`, a config object), the parameters the optimizer is
built on come from `self` alone (what its `params` reads, followed through the method's
statements, reaches no other parameter of the method), the method only reads attributes of
that object, and so do the statements between the call and the loop (the method runs when
`fit` starts, after them: neither may change what the other reads).
The method then runs once, when `fit` starts, on the same parameters, as the script ran it
once before the loop. The receiver may be moved in place after it is built (`model =
model.to(device)`, a torch module of the script). Otherwise refused (TL106) at the binding,
naming the condition that fails.
"""

from __future__ import annotations

import builtins
import symtable

import libcst as cst
import libcst.matchers as m

from ..analysis.globals_read import module_global_binding
from ..analysis.names import bound_names, collect_names, definition_reads, only_module_binding
from ..analysis.output_effects import console_call
from ..analysis.statements import single_assign
from ..rule import Unsupported
from ..shapes.model_method import is_torch_module
from ..shapes.trainer_inline import bind_call
from .factories import FACTORY, _local_value, _own_returns

_BUILTINS = frozenset(dir(builtins))


def method_optimizer_model(ctx, value) -> str | None:
    """The receiver `model` of `model.<method>(...)` when the method surely returns a
    `torch.optim` optimizer on `model`'s own parameters, else None."""
    found = _read(ctx, value)
    return found if found is not None and not found.startswith("!") else None


def own_parameters_model(ctx, value) -> str | None:
    """The receiver `model` of `model.<method>(...)` read as the optimizer when every
    parameter it optimizes is one of `model`'s own (`_parameters_of_self`), else None: a
    zero_grad() of `model` then reaches them all (module_zero_grad.py)."""
    receiver = method_optimizer_model(ctx, value)
    if receiver is None:
        return None
    built = _bound_value(ctx, receiver)
    method = _own_method(ctx, built.func.value, value.func.attr.value)
    return receiver if _parameters_of_self(method) else None


def method_optimizer_calls(ctx, value) -> list[cst.Call] | None:
    """The `torch.optim` calls the method returns when `model.<method>(...)` is read as the
    optimizer (its `fused=` is what the Trainer steps), else None."""
    if method_optimizer_model(ctx, value) is None:
        return None
    built = _bound_value(ctx, value.func.value.value)
    method = _own_method(ctx, built.func.value, value.func.attr.value)
    calls = []
    for returned in _own_returns(method):
        found = returned.value
        if isinstance(found, cst.Name):
            found = _local_value(method, found.value)
        calls.append(found)
    return calls


def why_not_method_optimizer(ctx, value) -> str | None:
    """Why `model.<method>(...)` (a method of a class of the script) is not read as the
    optimizer, for the refusal; None when it is, or when `value` is no such call."""
    found = _read(ctx, value)
    return found[1:] if found is not None and found.startswith("!") else None


def _read(ctx, value) -> str | None:
    """The receiver, or "!" + the reason it is not read, or None (not a script's method)."""
    if not m.matches(value, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name()))):
        return None
    receiver, name = value.func.value.value, value.func.attr.value
    built = _bound_value(ctx, receiver)
    if built is None:
        undecided = _undecided_binder(ctx, receiver, name)
        if undecided is not None:
            return f"!`{receiver}.{name}(...)`: {undecided}"
    if not (isinstance(built, cst.Call) and isinstance(built.func, cst.Name)):
        return None
    method = _own_method(ctx, built.func.value, name)
    if method is None:
        return None
    call = f"`{receiver}.{name}(...)`"
    if _replaced(ctx, name):
        return f"!{call}: the file assigns an attribute `{name}`, which may replace the method"
    other = _other_global(ctx, method)
    if other is not None:
        return (
            f"!{call}: the method reads the global `{other}` (only imports and builtins are "
            "read as reaching no model but `self`)"
        )
    if not all(_optimizer_returned(ctx, method, r.value) for r in _own_returns(method) or [None]):
        return f"!{call}: not every `return` of the method is a torch.optim optimizer call"
    objects = _objects_read(ctx, value, receiver)
    if objects is None:
        return f"!{call}: an argument reads the model or a name not bound once before"
    if objects and not _parameters_of_self(method):
        return (
            f"!{call}: an argument reads `{sorted(objects)[0]}`, bound to a call, and the "
            "optimizer's parameters do not come from `self` alone"
        )
    touched = _touched_objects(method, value, objects)
    if touched is not None:
        return (
            f"!{call}: the method does more than read attributes of `{touched}` (an object "
            "it is given): run when `fit` starts, it would change it later than the script did"
        )
    changed = _changed_before_loop(ctx, value, objects)
    if changed is not None:
        return (
            f"!{call}: `{changed}`, an object an argument reads, may change before the loop "
            "(the method runs when `fit` starts)"
        )
    printed = _printed_between(ctx, method, value)
    if printed is not None:
        return (
            f"!{call}: the method prints, and so does `{printed}` after the call, before the "
            "loop: run when `fit` starts, its lines would come after that one's"
        )
    return receiver


def _bound_value(ctx, name: str):
    found, count = ctx.binding(name)
    if count == 0:
        found = module_global_binding(ctx, name)
    elif count != 1:
        return _moved_in_place(ctx, name)
    elif found is None:  # `if init_from == 'scratch': model = GPT(conf)`, a known branch
        return _bound_in_taken_branch(ctx, name)
    return found[1] if found is not None else None


def _bound_in_taken_branch(ctx, name: str):
    """The value of the one plain `name = value` of the branch taken by the `if` binding
    `name` before the loop, when its test is known (known_branches.taken_branch)."""
    from .known_branches import taken_branch  # known_branches -> amp_choice -> ... -> here

    binder = next((s for s in ctx.scope_before if name in bound_names(s)), None)
    taken = taken_branch(ctx, binder) if binder is not None else None
    while taken is not None:
        binders = [s for s in taken if name in bound_names(s)]
        if len(binders) != 1:
            return None
        assign = single_assign(binders[0])
        if assign is not None:
            return assign[1] if assign[0] == name else None
        taken = taken_branch(ctx, binders[0])
    return None


def _undecided_binder(ctx, receiver: str, method: str) -> str | None:
    """Why the receiver, bound once under an `if` whose branch is not known (a test on a
    setting a configurator may override) to an instance of a class of the script defining
    `method`, is not read as that instance; None otherwise."""
    from .known_branches import why_branch_unknown  # known_branches -> ... -> here

    found, count = ctx.binding(receiver)
    if count != 1 or found is not None:
        return None
    binder = next((s for s in ctx.scope_before if receiver in bound_names(s)), None)
    if not isinstance(binder, cst.If):
        return None
    classes = {
        c.func.value
        for c in m.findall(binder, m.Call(func=m.Name()))
        if _own_method(ctx, c.func.value, method) is not None
    }
    why = why_branch_unknown(ctx, binder)
    if not classes or why is None:
        return None
    test = ctx.module.code_for_node(binder.test)
    return f"`{receiver}` is bound under `if {test}:`, whose branch is not known before the loop ({why})"


def _moved_in_place(ctx, name: str):
    """The value of `name`'s first binding when every later one only moves it, `model =
    model.to(device)` (minGPT's trainer once inlined), and it is an instance of a torch
    module class of the script: `Module.to` moves it in place and returns it."""
    bindings = [single_assign(s) for s in ctx.scope_before if name in bound_names(s)]
    if not bindings or any(b is None or b[0] != name for b in bindings):
        return None
    moved = m.Call(func=m.Attribute(m.Name(name), m.Name("to") | m.Name("cuda")))
    if not all(m.matches(value, moved) for _, value in bindings[1:]):
        return None
    first = bindings[0][1]
    if not (isinstance(first, cst.Call) and isinstance(first.func, cst.Name)):
        return None
    cls = only_module_binding(ctx.module, first.func.value)
    return first if isinstance(cls, cst.ClassDef) and is_torch_module(cls) else None


def _sources(value) -> set[str]:
    """Names whose values may be among the parameters `value` gives: of a parameter group
    dict only its "params" entry counts (`"weight_decay": weight_decay` gives none)."""
    if isinstance(value, (cst.List, cst.Tuple)):
        return set().union(*(_sources(e.value) for e in value.elements))
    if isinstance(value, cst.Dict):
        found: set[str] = set()
        for element in value.elements:
            if not isinstance(element, cst.DictElement):
                return collect_names(value).reads  # `**other`: anything
            key = element.key
            if not (isinstance(key, cst.SimpleString) and key.evaluated_value != "params"):
                found |= collect_names(element.key).reads | _sources(element.value)
        return found
    return collect_names(value).reads


def _changed_in_place(stmt) -> set[str]:
    """Names a statement may change in place: the receivers of its method calls
    (`decay.add(name)`) and the bases of its subscript or attribute targets."""
    calls = m.findall(stmt, m.Call(func=m.Attribute(value=m.Name())))
    found = {c.func.value.value for c in calls}
    for target in m.findall(stmt, m.AssignTarget() | m.AugAssign()):
        base = target.target
        while isinstance(base, (cst.Subscript, cst.Attribute)):
            base = base.value
        if isinstance(base, cst.Name) and base is not target.target:
            found.add(base.value)
    return found


def _parameters_of_self(method: cst.FunctionDef) -> bool:
    """Every optimizer the method returns is built on parameters that only `self` gives:
    what its `params` argument reads, through the method's own statements (one binding a
    name it reads, changing one in place -- `decay.add(name)`, `groups[k] = v` -- or a `for`
    binding one), reaches none of the method's other parameters. Its arguments (a config
    object) then give values, never another model's parameters."""
    others = {p.name.value for p in [*method.params.params, *method.params.kwonly_params]}
    others -= {method.params.params[0].name.value} if method.params.params else set()
    returned = [r.value for r in _own_returns(method)]
    if not returned:
        return False
    reached: set[str] = set()
    for value in returned:
        if isinstance(value, cst.Name):
            value = _local_value(method, value.value)
        if not isinstance(value, cst.Call):
            return False
        params = next(
            (a.value for a in value.args if a.keyword is None or a.keyword.value == "params"),
            None,
        )
        if params is None:
            return False
        reached |= _sources(params)
    grown = True
    while grown:  # through the statements reading or binding what is reached
        before = len(reached)
        for stmt in m.findall(method.body, m.SimpleStatementLine()):
            if m.matches(stmt, m.SimpleStatementLine([m.Return()])):
                continue  # what it returns is where the search started
            use = collect_names(stmt)
            assign = single_assign(stmt)
            if assign is not None and assign[0] in reached:
                reached |= _sources(assign[1])  # `groups = [{"params": decay, ...}]`
            elif use.writes & reached or _changed_in_place(stmt) & reached:
                reached |= use.reads
        for loop in m.findall(method.body, m.For()):
            if {n.value for n in m.findall(loop.target, m.Name())} & reached:
                reached |= collect_names(loop.iter).reads
        grown = len(reached) != before
    return not reached & others


def _own_method(ctx, class_name: str, name: str) -> cst.FunctionDef | None:
    cls = only_module_binding(ctx.module, class_name)
    if not isinstance(cls, cst.ClassDef):
        return None
    found = [s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    others = [
        s
        for s in cls.body.body
        if not isinstance(s, cst.FunctionDef) and name in collect_names(s).writes
    ]
    if len(found) != 1 or others or found[0].decorators or found[0].asynchronous:
        return None
    return found[0]


def _replaced(ctx, name: str) -> bool:
    """An assignment or deletion of an attribute `name` anywhere in the file."""
    targets = m.AssignTarget(target=m.Attribute(attr=m.Name(name)))
    deleted = m.Del(target=m.Attribute(attr=m.Name(name)))
    return bool(m.findall(ctx.module, targets | deleted))


def _other_global(ctx, method: cst.FunctionDef) -> str | None:
    """A global the method reads that is neither a builtin nor an import, or None."""
    code = ctx.module.code_for_node(method.with_changes(decorators=[])).lstrip()
    tables = [symtable.symtable(code, "<method>", "exec").get_children()[0]]
    symbols = []
    while tables:  # the method and what it nests (comprehensions: their own scope before 3.12)
        table = tables.pop()
        symbols += table.get_symbols()
        tables += table.get_children()
    for symbol in symbols:
        if not symbol.is_global():
            continue
        binding = only_module_binding(ctx.module, symbol.get_name())
        if binding is None and symbol.get_name() in _BUILTINS:
            continue
        if not m.matches(binding, m.SimpleStatementLine(body=[m.Import() | m.ImportFrom()])):
            return symbol.get_name()
    return None


def _optimizer_returned(ctx, method, value) -> bool:
    if isinstance(value, cst.Name):
        value = _local_value(method, value.value)
    if not isinstance(value, cst.Call):
        return False
    names = ctx.call_qualnames(value)
    return bool(names) and all(
        q.startswith("torch.optim.") and not q.startswith("torch.optim.lr_scheduler.")
        for q in names
    )


def _objects_read(ctx, call: cst.Call, receiver: str) -> set[str] | None:
    """The names the call's arguments read that are bound to a call (objects: a config, maybe
    a model); None when one reads the receiver or a name not bound once."""
    found = set()
    for arg in call.args:
        for name in collect_names(arg.value).reads:
            bound = _bound_value(ctx, name)
            if name == receiver or bound is None:
                return None
            if m.findall(bound, m.Call()):
                found.add(name)
    return found


def _touched_objects(method: cst.FunctionDef, call: cst.Call, objects: set[str]) -> str | None:
    """The first parameter of the method given an argument reading one of `objects` that the
    method uses otherwise than by reading its attributes (`config.lr`): a call on it, a store,
    the object itself handed on. None when there is none."""
    try:
        args = bind_call(method, call, method.name.value, call, FACTORY, skip=1)
    except Unsupported:
        return method.name.value
    for param, value in args:
        if not collect_names(value).reads & objects:
            continue
        reads = {
            id(a.value)
            for a in m.findall(method.body, m.Attribute(value=m.Name(param)))
            if not _called_or_stored(method.body, a)
        }
        spelled = {id(a.attr) for a in m.findall(method.body, m.Attribute())}
        spelled |= {id(a.keyword) for a in m.findall(method.body, m.Arg()) if a.keyword}
        uses = [n for n in m.findall(method.body, m.Name(param)) if id(n) not in spelled]
        if any(id(n) not in reads for n in uses):
            return param
    return None


def _changed_before_loop(ctx, call: cst.Call, objects: set[str]) -> str | None:
    """One of `objects` that the statements between the call and the loop may change: the
    method runs when `fit` starts, after them, where the script ran it before them. Only
    attribute reads of them there (`config.batch_size`), and no call of a function of the
    script reading them as globals."""
    after = False
    functions = {s.name.value: s for s in ctx.module.body if isinstance(s, cst.FunctionDef)}
    for stmt in ctx.scope_before:
        if not after:
            after = any(c is call for c in m.findall(stmt, m.Call()))
            continue
        for name in objects:
            uses = m.findall(stmt, m.Name(name))
            reads = {
                id(a.value)
                for a in m.findall(stmt, m.Attribute(value=m.Name(name)))
                if not _called_or_stored(stmt, a)
            }
            if any(id(u) not in reads for u in uses):
                return name
        for inner in m.findall(stmt, m.Call(func=m.Name())):
            function = functions.get(inner.func.value)
            if function is not None and definition_reads(function) & objects:
                return sorted(definition_reads(function) & objects)[0]
    return None


def _printed_between(ctx, method: cst.FunctionDef, call: cst.Call) -> str | None:
    """The first console call (`print`, a logger) the statements between `call` and the loop
    make -- themselves or through the script's functions they call -- when the method writes
    to the console too: its lines, printed where the script called it (before those), would
    come when `fit` starts. None when there is none, or the method prints nothing."""
    if _console_call_in(ctx, method, set()) is None:
        return None
    after = False
    for stmt in ctx.scope_before:
        if not after:
            after = any(c is call for c in m.findall(stmt, m.Call()))
            continue
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue  # defined, not run
        printed = _console_call_in(ctx, stmt, set())
        if printed is not None:
            return ctx.module.code_for_node(printed)
    return None


def _console_call_in(ctx, node, seen: set[str]) -> cst.Call | None:
    """A console call `node` makes, itself or in a function of the script it calls."""
    functions = {s.name.value: s for s in ctx.module.body if isinstance(s, cst.FunctionDef)}
    for inner in m.findall(node, m.Call()):
        if console_call(ctx, inner):
            return inner
        name = inner.func.value if isinstance(inner.func, cst.Name) else None
        if name in functions and name not in seen:
            seen.add(name)
            if _console_call_in(ctx, functions[name], seen) is not None:
                return inner
    return None


def _called_or_stored(stmt, attribute: cst.Attribute) -> bool:
    """`config.update(...)`, `config.lr = ...`, `del config.lr`, `config.lr += 1`."""
    if any(c.func is attribute for c in m.findall(stmt, m.Call())):
        return True
    targets = [t.target for t in m.findall(stmt, m.AssignTarget() | m.AugAssign())]
    targets += [d.target for d in m.findall(stmt, m.Del())]
    return any(t is attribute for t in targets)
