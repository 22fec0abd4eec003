"""A learning-rate scheduler built by a function of the script (the Hugging Face helpers).

    def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
        def lr_lambda(current_step):                      (kept, still called)
            ...
        return LambdaLR(optimizer, lr_lambda)

    scheduler = get_linear_schedule_with_warmup(optimizer, warmup, total)
                                      -> moved into configure_optimizers, called there with the
                                         module's optimizer (its other arguments module args)

The function is read as a scheduler when it builds exactly one `torch.optim.lr_scheduler`
object, on a parameter it does not rebind, and returns that object from every `return`. The
conversion calls it when `fit` starts instead of before the loop, and the rate function it
hands the scheduler runs at every step: so nothing the function runs may do anything but
compute (builtins such as `float`/`max`, `math`, its own nested functions and lambdas, the
script's functions doing the same), and the module globals it reads must be bound once and
never changed. A function choosing one of several by a setting (a Kaggle `get_scheduler(cfg,
optimizer)`: `if cfg.scheduler == 'CosineAnnealingLR': ...`) is read per call as the branch
that call's settings take (scheduler_choice.py). Refused (TL186), with the line: several
schedulers (with no choice, or one by a setting not known before the run), a `return` of something
else, prints or other calls, stores into objects (`group["lr"] = ...`), `global` /
`nonlocal`, a global bound more than once or changed in place, a callable it is given.
Not a scheduler function (left to the other rules): one that builds no lr_scheduler object.
"""

from __future__ import annotations

import builtins
import dataclasses
import symtable
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from ..analysis.confined_effects import READ_METHODS, _target_parts, root_name
from ..analysis.globals_read import rebound_through_global
from ..analysis.loader_length import class_setting
from ..analysis.names import bound_names, definition_reads, only_module_binding
from ..analysis.statements import single_assign
from ..rule import Unsupported
from ..shapes.trainer_inline import bind_call
from ..source.code_text import code_of
from .factories import FACTORY, _local_value, _module_function, _own_returns
from .scheduler_choice import chosen_body, why_undecided

SCHEDULER_MODULE = "torch.optim.lr_scheduler."
# what a scheduler function and its rate function may call besides `math`: these compute and
# return, nothing else (`functools.partial` binds a function of the script, checked itself)
_PURE_CALLS = frozenset(
    f"builtins.{name}"
    for name in "abs all any bool divmod float int isinstance len max min pow range round sum".split()
) | {"functools.partial"}
# methods of what it is given that only read it: a model's parameters for an optimizer
_READS = READ_METHODS | {"parameters", "named_parameters"}
_FORBIDDEN = {
    cst.Global: "declares a global",
    cst.Nonlocal: "rebinds a variable of its enclosing function (`nonlocal`): a state the "
    "rate function keeps",
    cst.Del: "deletes a name",
    cst.Yield: "is a generator",
    cst.Await: "awaits",
    cst.Import: "imports a module",
    cst.ImportFrom: "imports a module",
    cst.ClassDef: "defines a class",
    cst.With: "enters a context manager",
}


@dataclass(frozen=True)
class SchedulerFunction:
    """`function` builds the scheduler `built` on its parameter `optimizer`; `problem` is
    (node, why) when it cannot be read as doing only that. A function choosing among several
    (`alternatives`) is read per call as the branch the call's settings take
    (scheduler_choice.py): `function` is then that branch's body."""

    function: cst.FunctionDef
    optimizer: str | None
    problem: tuple[cst.CSTNode, str] | None
    built: cst.Call | None = None
    alternatives: bool = False
    note: str | None = None  # which alternative a call takes, and why


def scheduler_function(ctx, call) -> SchedulerFunction | None:
    """What `call` calls when it is a module-level function of the script building a
    torch.optim.lr_scheduler object (faithful or not: see `problem`); None otherwise."""
    found = read_function(ctx, call, "scheduler_functions", _read)
    if found is None or not found.alternatives:
        return found
    cache = ctx.found.setdefault("scheduler_choices", {})
    if id(call) not in cache:
        cache[id(call)] = _chosen(ctx, found, call)
    return cache[id(call)]


def scheduler_classes(ctx, call) -> set[str]:
    """The qualified names of the scheduler class `call` builds: its own, or that of the
    scheduler a function of the script builds for it."""
    found = scheduler_function(ctx, call)
    if found is not None and found.built is not None and call_problem(found, call) is None:
        return ctx.call_qualnames(found.built)
    return ctx.call_qualnames(call)


def _chosen(ctx, found: SchedulerFunction, call: cst.Call) -> SchedulerFunction:
    """`found`, a function building several schedulers, read as the branch `call` takes."""
    function = found.function
    bound = bound_arguments(function, call)
    if bound is None or any(arg.star for arg in call.args):
        return found  # call_problem names the call
    chosen, decided = chosen_body(ctx, function, bound, call)
    constructors = _constructors(ctx, chosen)
    if len(constructors) > 1:
        held = {id(c) for c in constructors}
        choice = next(
            (
                s
                for s in m.findall(chosen, m.If())
                if any(id(c) in held for c in m.findall(s.body, m.Call()))
            ),
            None,
        )
        if choice is None:  # built one after the other (a SequentialLR of two), no choice
            return SchedulerFunction(function, None, (constructors[1], "builds several schedulers"))
        test = code_of(choice.test, ctx.module)
        why = why_undecided(ctx, function, bound, call, choice.test)
        return SchedulerFunction(
            function,
            None,
            (choice, f"builds several schedulers, chosen by `{test}`, not known before "
             f"training: {why}"),
        )
    if not constructors:
        return SchedulerFunction(
            function, None, (call, "builds none of its schedulers for the settings it is given")
        )
    read = _read(ctx, chosen)
    taken = code_of(constructors[0].func, ctx.module)
    tests = ", ".join(f"`{code_of(s.test, ctx.module)}` is {t}" for s, t in decided)
    note = (
        f"`{function.name.value}()` builds `{taken}` here: {tests} wherever the training runs "
        "(settings the script never changes); the converted script calls it as written"
    )
    return dataclasses.replace(read, note=note if decided else None)


def choice_note(ctx, call) -> str | None:
    """The report's note saying which scheduler a function of the script choosing among
    several builds for `call`, and why; None for any other call."""
    found = scheduler_function(ctx, call)
    return found.note if found is not None and call_problem(found, call) is None else None


def _constructors(ctx, function: cst.FunctionDef) -> list[cst.Call]:
    return [
        c
        for c in m.findall(function, m.Call())
        if any(q.startswith(SCHEDULER_MODULE) for q in ctx.call_qualnames(c))
    ]


def read_function(ctx, call, key: str, reader):
    """`reader(ctx, function)` for the module-level function of the script `call` calls,
    once per function (kept in `ctx.found[key]`); None for a call of anything else."""
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name)):
        return None
    function = _module_function(ctx, call.func.value)
    if function is None:
        return None
    cache = ctx.found.setdefault(key, {})
    if id(function) not in cache:
        cache[id(function)] = reader(ctx, function)
    return cache[id(function)]


def faithful_scheduler_function(ctx, call) -> bool:
    """`call` builds a scheduler through a function of the script read faithfully."""
    found = scheduler_function(ctx, call)
    return found is not None and call_problem(found, call) is None


def refuse_unfaithful(ctx, call, name: str) -> None:
    """Unsupported (TL186) when `name = call` calls a scheduler function of the script that
    cannot be read faithfully, at the line of what it does."""
    refuse_problem(scheduler_function(ctx, call), call, f"scheduler `{name}`")


def refuse_problem(found, call: cst.Call, what: str) -> None:
    """Unsupported (TL186) at the line of `found`'s problem with `call`, if any: `what` (a
    scheduler, an optimizer) is built by a function that does more than build it."""
    problem = call_problem(found, call) if found is not None else None
    if problem is not None:
        node, why = problem
        fname = found.function.name.value
        raise Unsupported(FACTORY, f"{what} is built by `{fname}()`, which {why}", node)


def built_on(ctx, call: cst.Call) -> cst.BaseExpression | None:
    """The optimizer a scheduler call is given: its first positional argument or `optimizer=`;
    through a scheduler function of the script, the argument its optimizer parameter gets."""
    found = scheduler_function(ctx, call)
    if found is not None and found.optimizer is not None:
        return dict(bound_arguments(found.function, call) or ()).get(found.optimizer)
    return next(
        (a.value for a in call.args if a.keyword is None or a.keyword.value == "optimizer"), None
    )


def call_problem(found, call: cst.Call) -> tuple[cst.CSTNode, str] | None:
    """What the function `found` read does besides building its object, or what the call
    passes that cannot be bound to its parameters (*args, names it does not take)."""
    if found.problem is not None:
        return found.problem
    if any(arg.star for arg in call.args) or bound_arguments(found.function, call) is None:
        return call, "is called with *args / **kwargs or arguments it does not take"
    return None


def bound_arguments(function: cst.FunctionDef, call: cst.Call):
    """(parameter, argument or default) of `function` for `call`, None when Python would
    reject the call."""
    try:
        return bind_call(function, call, function.name.value, call, FACTORY)
    except Unsupported:
        return None


def _read(ctx, function: cst.FunctionDef) -> SchedulerFunction | None:
    constructors = _constructors(ctx, function)
    if not constructors:
        return None

    def refused(node, why) -> SchedulerFunction:
        return SchedulerFunction(function, None, (node, why))

    if len(constructors) > 1:  # read per call: the branch its settings take, if known
        return SchedulerFunction(
            function, None, (constructors[1], "builds several schedulers"), alternatives=True
        )
    built = constructors[0]
    shape = returns_only(function, built, "the scheduler")
    if shape is not None:
        return refused(*shape)
    first = next(
        (a.value for a in built.args if a.keyword is None or a.keyword.value == "optimizer"), None
    )
    table = _table(ctx, function)
    optimizer = first.value if isinstance(first, cst.Name) else None
    symbol = table.lookup(optimizer) if optimizer in table.get_identifiers() else None
    if symbol is None or not symbol.is_parameter() or symbol.is_assigned():
        return refused(built, "builds it on something other than an optimizer it is given")
    problem = _effect(ctx, function, set())
    return SchedulerFunction(function, optimizer, problem, built)


def returns_only(function: cst.FunctionDef, built, what: str):
    """(node, why) unless `function` takes plain parameters and returns the object `built`
    (directly, or a local bound once to it; or one of several `built`, alternatives) from
    every `return`, ending with one or with a `raise` (no path falls off its end)."""
    built = built if isinstance(built, list) else [built]
    params = function.params
    if isinstance(params.star_arg, cst.Param):
        return function, "takes *args"
    if params.star_kwarg is not None or params.posonly_params:
        return function, "takes **kwargs or positional-only parameters"
    returns = _own_returns(function)
    body = function.body.body
    if not returns or not (body and _ends(body[-1])):
        return function, f"does not end by returning {what}"
    for ret in returns:
        value = ret.value
        if isinstance(value, cst.Name):
            value = _local_value(function, value.value)
        if not any(value is b for b in built):
            return ret, f"returns something other than {what} it builds"
    return None


def _ends(stmt) -> bool:
    """A `return` or a `raise` (`raise ValueError(name)` after the alternatives)."""
    return isinstance(stmt, cst.SimpleStatementLine) and isinstance(
        stmt.body[-1], (cst.Return, cst.Raise)
    )


def _table(ctx, function: cst.FunctionDef) -> symtable.SymbolTable:
    code = ctx.module.code_for_node(function).lstrip()
    return symtable.symtable(code, "<scheduler>", "exec").get_children()[0]


def _scope_names(table: symtable.SymbolTable) -> set[str]:
    """The names local to the function or to a function or lambda nested in it."""
    found = set()
    pending = [table]
    while pending:
        child = pending.pop()
        found |= {s.get_name() for s in child.get_symbols() if s.is_local() or s.is_parameter()}
        pending += child.get_children()
    return found


def _effect(
    ctx, function: cst.FunctionDef, seen: set[int], approved: list | None = None
) -> tuple[cst.CSTNode, str] | None:
    """(node, what it does) for the first thing `function` -- or a function of the script it
    reads -- does besides computing; None when it only computes. `approved` are calls known
    to change nothing but the function's own new objects (optimizer_groups.py)."""
    approved_ids = {id(c) for c in approved or ()}
    if id(function) in seen:
        return None
    seen.add(id(function))
    own = [function, *m.findall(function.body, m.FunctionDef())]
    for definition in own:
        if definition.decorators or definition.asynchronous is not None:
            return definition, f"holds `{definition.name.value}`, decorated or async"
    nodes = m.findall(function, m.MatchIfTrue(lambda _: True))
    for node in nodes:
        why = _FORBIDDEN.get(type(node))
        if why is not None:
            return node, why
    local = _scope_names(_table(ctx, function))
    nested = {d.name.value for d in own[1:]} | _lambda_locals(function)
    for node in nodes:
        for target in _store_targets(node):
            if not isinstance(target, cst.Name):
                shown = ctx.module.code_for_node(target)
                return node, f"stores into `{shown}`: a change the conversion would make later"
        if isinstance(node, cst.Call) and id(node) not in approved_ids:
            why = _call_effect(ctx, node, local, nested)
            if why is not None:
                return node, why
    for name in sorted(definition_reads(function) - local):
        read = next(iter(m.findall(function, m.Name(name))), function)  # the line reading it
        found = _global_effect(ctx, read, name, seen)
        if found is not None:
            return found
    return None


def _lambda_locals(function: cst.FunctionDef) -> set[str]:
    """Names the function binds to a lambda (`lr_lambda = lambda step: ...`)."""
    found = set()
    for assign in m.findall(function, m.Assign(value=m.Lambda())):
        found |= {t.target.value for t in assign.targets if isinstance(t.target, cst.Name)}
    return found


def _store_targets(node) -> list:
    """What an assignment or loop `node` binds or stores into, unpacked (`a`, `x.y`, `d[k]`)."""
    if isinstance(node, cst.Assign):
        return [p for t in node.targets for p in _target_parts(t.target)]
    if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)):
        return _target_parts(node.target)
    return []


def _call_effect(ctx, call: cst.Call, local: set[str], nested: set[str]) -> str | None:
    """Why `call` may do more than compute, or None."""
    func = call.func
    shown = ctx.module.code_for_node(func)
    head = func
    while isinstance(head, (cst.Attribute, cst.Subscript, cst.Call)):
        head = head.func if isinstance(head, cst.Call) else head.value
    if isinstance(func, cst.Name) and func.value in nested:
        return None  # its own rate function: checked as part of its body
    if isinstance(head, cst.Name) and head.value in local:
        if isinstance(func, cst.Attribute) and func.attr.value in _READS:
            return None
        what = "a callable" if isinstance(func, cst.Name) else "a method of an object"
        return f"calls `{shown}()`, {what} it is given or makes: what that does is not known"
    names = ctx.call_qualnames(call)
    if names == {"builtins.filter"} and call.args and isinstance(call.args[0].value, cst.Lambda):
        return None  # its lambda is checked as part of the function's body
    # an exception is built for `raise`: a run that goes on is the same
    if names and all(
        _torch_optim_class(q)
        or q in _PURE_CALLS
        or q.startswith("math.")
        or _is_exception(q)
        for q in names
    ):
        return None
    if isinstance(func, cst.Name) and _module_function(ctx, func.value) is not None:
        return None  # the script's function: checked as a global it reads
    return (
        f"calls `{shown}()`: the conversion calls the function when `fit` starts, "
        "not before the loop, so what that call does would move"
    )


def _torch_optim_class(qualname: str) -> bool:
    """A scheduler or optimizer class of torch.optim: building one only computes."""
    return qualname.startswith("torch.optim.") and qualname.split(".")[-1][:1].isupper()


def _is_exception(qualname: str) -> bool:
    head, _, name = qualname.partition(".")
    found = getattr(builtins, name, None) if head == "builtins" else None
    return isinstance(found, type) and issubclass(found, BaseException)


def _global_effect(ctx, read: cst.CSTNode, name: str, seen: set[int]):
    """(node, why) when the module global `name` a scheduler function reads (at `read`) may
    not hold the same value when the conversion calls it, or is a function of the script
    doing more than computing; None otherwise."""
    binding = only_module_binding(ctx.module, name)
    if binding is None:
        bound = any(name in bound_names(s) for s in ctx.module.body)
        if not bound and hasattr(builtins, name):
            return None
        why = "binds more than once" if bound else "does not bind at module level"
        return read, f"reads the global `{name}`, which the script {why}"
    if name in rebound_through_global(ctx):
        return read, f"reads the global `{name}`, which a function rebinds (`global`)"
    imported = isinstance(binding, cst.SimpleStatementLine) and isinstance(
        binding.body[0], (cst.Import, cst.ImportFrom)
    )
    if isinstance(binding, cst.FunctionDef):
        return _effect(ctx, binding, seen)
    if isinstance(binding, cst.ClassDef):
        if _settings_read(ctx, binding, name):
            return None  # `CFG.T_max` of a class of literals the script never changes
        return read, f"uses the script's class `{name}`"
    if not imported and single_assign(binding) is None:
        return read, f"reads the global `{name}`, not bound by a plain assignment"
    # a module's functions (`torch.manual_seed(0)`) are not its changes: only its stores
    changed = _changed_in_place(ctx, name, calls=not imported)
    if changed is not None:
        shown = ctx.module.code_for_node(changed).strip()
        return changed, (
            f"reads the global `{name}`, which the script changes (`{shown}`): the "
            "conversion reads it later than the script did"
        )
    return None


def _settings_read(ctx, binding: cst.ClassDef, name: str) -> bool:
    """Every mention of the class `name` in the functions reading it as a global is
    `name.field` of a field bound to a literal the script never changes (a Kaggle `class
    CFG`, analysis/loader_length.class_setting): read when the conversion calls them, the
    same values."""
    readers = [
        s for s in ctx.module.body if isinstance(s, cst.FunctionDef) and name in definition_reads(s)
    ]
    for reader in readers:
        fields = {id(a.value): a for a in m.findall(reader, m.Attribute(value=m.Name(name)))}
        for mention in m.findall(reader, m.Name(name)):
            read = fields.get(id(mention))
            if read is None or class_setting(ctx, read) is None:
                return False
    return bool(readers)


def _changed_in_place(ctx, name: str, calls: bool) -> cst.CSTNode | None:
    """The first place the script stores into the module global `name` (`name.x = ...`,
    `name[k] = ...`) or, with `calls`, calls a method of it that is not a known read: at
    module level, or in a definition reading `name` as the module's."""
    for stmt in ctx.module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and name not in definition_reads(stmt):
            continue
        for node in m.findall(stmt, m.Assign() | m.AugAssign() | m.AnnAssign()):
            if any(
                not isinstance(t, cst.Name) and root_name(t) == name for t in _store_targets(node)
            ):
                return node
        for call in m.findall(stmt, m.Call(func=m.Attribute())) if calls else ():
            if root_name(call.func.value) == name and call.func.attr.value not in READ_METHODS:
                return call
    return None
