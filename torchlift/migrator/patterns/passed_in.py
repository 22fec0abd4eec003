"""Pattern: a training function given its model, optimizer and loader by its callers.

    def train(model, optimizer, loader, criterion, num_epochs):
        for epoch in range(num_epochs):          -> lit_model = LitModel(model, optimizer, criterion)
            for x, y in loader:                     trainer = L.Trainer(max_epochs=num_epochs)
                ...                                 trainer.fit(lit_model, loader)

    def main():
        model = Net()
        optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
        train(model, optimizer, loader, criterion, num_epochs=4)

The loop is converted where it lives, inside the function: its parameters are the bindings.
The LightningModule receives the caller's optimizer and returns it from
`configure_optimizers`, so the function keeps its signature and every caller keeps its
meaning, however many times it calls it (each call builds its own LightningModule around the
model and optimizer it passes).

What the function is given is read at its call sites in this file (Python scopes: the name
bound once in the caller's own scope, or, bound again before a later call -- a notebook cell
per learning rate, fresh objects loading a checkpoint -- the binding reaching that call:
analysis/reaching.py): every call must pass, for the optimizer parameter, a
name bound to a `torch.optim` optimizer built on `X.parameters()` (or a submodule's,
`X.fc.parameters()`), with that `X` passed as one
same parameter of the function (the model); for the loader parameter, a name bound to a
`DataLoader(...)`. A name may also be bound by unpacking a factory of the file (`model, opt =
get_model()`: patterns/factories.py), and a loader wrapped in a class of the file that maps
its batches (`train_dl = WrappedDataLoader(train_dl, preprocess)`: patterns/loader_wrappers.py)
or moves them to the device the model is placed on (`DeviceDataLoader(train_dl, device)`). A
callable parameter (`optimizer = opt_func(model.parameters(), lr)`, `opt_func=torch.optim.SGD`)
is what the calls pass for it, or its default (`callee_qualnames`). Refused (TL132): a
function never called in this file (a library helper: what it is given is unknown), used
other than by calls (passed as a callback), called with
`*args`/`**kwargs` or with expressions for those parameters, or given an optimizer whose
model is not passed alongside it.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import (
    bound_names,
    collect_names,
    function_uses,
    only_module_binding,
    scope_reads,
)
from ..analysis.reaching import loops_around, reaching_binding
from ..analysis.statements import move_calls, single_assign
from ..rule import Rule, Unsupported
from ..source.code_text import code_of
from ..source.find_loops import cst_contains
from .device_helpers import moved_data
from .device_intent import helper_device_problem, is_device_value
from .device_scope import is_name_main, module_device_value
from .factories import Returned, returned, trained_model
from .loader_wrappers import WRAPPER, Wrapped, wrapped_loader

PASSED_IN = Rule(
    "TL132",
    "what the function holding the loop is given cannot be read at its call sites",
    """A loop inside `train(model, optimizer, loader, ...)` is converted where it is, with the
    function's parameters as the model, optimizer and loader. What they are is read where the
    function is called in the same file: each call must pass names bound once in the
    caller, to a `torch.optim` optimizer built on the model passed beside it, and to a
    `DataLoader`.""",
    """Call the function from the same file with named arguments bound right before the call
    (`optimizer = torch.optim.SGD(model.parameters(), ...)`; `train(model, optimizer,
    loader)`), or convert the script that calls it.""",
    """
    def train(model, optimizer, loader):
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


    train(model, torch.optim.SGD(model.parameters(), lr=0.1), loader)
    """,
)

RULES = (PASSED_IN,)


def bind(ctx, plan, steps) -> None:
    """A parameter every call site passes a device for is a device name (its moves go)."""
    _bind_callers_model_device(ctx, plan)
    if ctx.function is None:
        return
    try:
        sites = _call_sites(ctx, ctx.loop)
    except Unsupported:  # passed on (`mp.spawn(train, ...)`): no device read from callers
        return
    for param in sorted(ctx.params - set(plan.device_names)):
        if ctx.binding(param)[1]:
            continue  # rebound in the function: not what the callers passed
        values = []
        for caller, call in sites:
            argument = _argument(ctx, call, param)
            values.append(_device_passed(ctx, caller, argument))
        if all(v is not None and is_device_value(ctx, v) for v in values):
            plan.device_names.add(param)
            ctx.found.setdefault("passed_devices", {})[param] = values  # for device_intent


def _bind_callers_model_device(ctx, plan) -> None:
    """A model the function is given was placed by its callers (`encoder =
    EncoderRNN(...).to(device)`; `train(loader, encoder, ...)`): the accelerator is read from
    there (`ctx.found["callers_model_device"]`, for device_intent) -- the device as the
    function can name it (a module global) or as code reading only `torch`; the Unsupported
    (TL132) to raise when a caller places it somewhere this cannot state."""
    params = [model.name for model in plan.models if model.name in ctx.params]
    if ctx.function is None or not params or not called_in_file(ctx):
        return
    found = set()
    try:
        for caller, call in _call_sites(ctx, ctx.loop):
            for param in params:
                argument = _argument(ctx, call, param)
                for scope, device in _placements(ctx, caller, argument):
                    found.add(_accelerator_in_function(ctx, scope, device, call))
        if len(found) > 1:
            raise Unsupported(PASSED_IN, "the callers place the model on different devices", call)
    except Unsupported as unreadable:  # raised by device_intent if it needs the device
        ctx.found["callers_model_device"] = unreadable
        return
    if found:
        ctx.found["callers_model_device"] = found.pop()


class ConditionalPlacement(Unsupported):
    """A caller places the model only under a condition (`net.cuda() if args.cuda else net`,
    `if args.cuda: net.cuda()`): the device cannot be read from the callers alone; the
    function's own device moves may still tell it (device_intent)."""


def _placements(ctx, caller, argument) -> list[tuple[cst.CSTNode, cst.BaseExpression | None]]:
    """(scope naming it, device) for each device `argument` (the model a call passes) is
    moved to: `.to(D)` / `.cuda()` in the expression itself or, for a name, in the caller's
    statements binding or moving it -- and, for a name the caller unpacks from a factory of
    the file (`model, opt = get_model()`: patterns/factories.py), in the factory's statements
    binding or moving the local it returns there (`model.to(dev)` before `return model,
    ...`), `D` then read in the factory's scope; ConditionalPlacement when a move is under a
    condition (a branch of a conditional expression, a statement in a block)."""
    exprs = [argument]
    found: list[tuple[cst.CSTNode, cst.BaseExpression | None]] = []
    if isinstance(argument, cst.Name):
        exprs = []
        try:
            factory = _factory_returned(ctx, caller, argument)
        except Unsupported:  # a factory that cannot be read (TL186, reported where it is used)
            factory = None
        if factory is not None:
            element = factory.returns[0].elements[factory.position].value
            if isinstance(element, cst.Name) and element.value in factory.locals:
                found += _placements(ctx, factory.factory, element)
            else:  # `return Net().to(dev), ...`: the element is the expression
                found += [(factory.factory, d) for _, d in _placements(ctx, caller, element)]
        conditional = _under_condition(caller)
        for stmt in _scope_statements(caller):
            before = len(exprs)
            assign = single_assign(stmt)
            if assign and assign[0] == argument.value:
                exprs.append(assign[1])
            elif m.matches(stmt, m.SimpleStatementLine(body=[m.Expr(m.Call())])):
                call = stmt.body[0].value
                if isinstance(call.func, cst.Attribute) and m.matches(
                    call.func.value, m.Name(argument.value)
                ):
                    exprs.append(call)
                moved = moved_data(ctx, call)  # `to_device(model, device)` (device_helpers)
                if moved is not None and m.matches(moved[0], m.Name(argument.value)):
                    exprs.append(call)
            if len(exprs) > before and id(stmt) in conditional and _moves_in(ctx, exprs[-1]):
                raise _conditional(ctx, argument, stmt)
    for expr in exprs:
        for choice in m.findall(expr, m.IfExp()):
            if _moves_in(ctx, choice.body) or _moves_in(ctx, choice.orelse):
                raise _conditional(ctx, argument, choice)
    for expr in exprs:
        for call in m.findall(expr, m.Call(func=m.Name())):
            moved = moved_data(ctx, call)
            if moved is not None:
                found.append((caller, moved[1]))
        for move in move_calls(expr):
            if move.func.attr.value == "cuda":
                found.append((caller, None))
            elif move.args and move.args[0].keyword is None:
                target = move.args[0].value
                if not ctx.qualnames(target) & _DTYPES:  # `.to(torch.float64)` places nothing
                    found.append((caller, target))
    return found


def _under_condition(scope) -> set[int]:
    """ids of the simple statements of `scope` that run only under a condition: in an `if`
    (not `if __name__ == "__main__":`, which runs once) or an `except` handler."""
    found: set[int] = set()

    class Visitor(cst.CSTVisitor):
        def __init__(self) -> None:
            self.depth = 0

        def visit_If(self, node: cst.If) -> None:
            self.depth += 0 if is_name_main(node) else 1

        def leave_If(self, node: cst.If) -> None:
            self.depth -= 0 if is_name_main(node) else 1

        def visit_ExceptHandler(self, node) -> None:
            self.depth += 1

        def leave_ExceptHandler(self, node) -> None:
            self.depth -= 1

        def visit_SimpleStatementLine(self, node) -> None:
            if self.depth:
                found.add(id(node))

    body = scope.body if isinstance(scope, cst.Module) else scope.body.body
    for stmt in body:
        stmt.visit(Visitor())
    return found


def _moves_in(ctx, expr) -> bool:
    """`expr` moves something: `.to(...)`, `.cuda()`, a device-moving function of the file."""
    if move_calls(expr):
        return True
    return any(moved_data(ctx, call) for call in m.findall(expr, m.Call(func=m.Name())))


def _conditional(ctx, argument, node) -> ConditionalPlacement:
    shown = ctx.module.code_for_node(node).strip().splitlines()[0]
    return ConditionalPlacement(
        PASSED_IN,
        f"the model `{_function(ctx)}` is given is placed by its caller only under a "
        f"condition (`{shown}`), and the function moves nothing to that device itself",
        node,
    )


_DTYPES = {
    f"torch.{name}"
    for name in "float16 half bfloat16 float32 float float64 double int64 long int32 int".split()
}


def _accelerator_in_function(ctx, caller, device, call) -> tuple[str, bool]:
    """`accelerator=` for a model placed on `device` by a caller, written so the function
    holding the loop can read it: the module global itself (`device.type`), or the choice
    as code reading only `torch` (`"cuda" if torch.cuda.is_available() else "cpu"`); and
    whether it names no GPU index (else the index is read at run time)."""
    from .device_intent import accelerator_of_value  # (device_intent imports this module's)

    if device is None:  # `.cuda()`
        return '"cuda"', True
    if isinstance(device, cst.Name):
        value = module_device_value(ctx, device.value)
        own = caller is not ctx.module and _bound_value(caller, device) is not None
        if value is not None and not own:  # the module's global, which the function reads
            accelerator = accelerator_of_value(ctx, value, call)
            if isinstance(value, cst.Call) and ".type" not in accelerator:
                return f"{device.value}.type", True  # a torch.device naming no GPU index
            return f"torch.device({device.value}).type", False
        value = _bound_value(caller, device)
    else:
        value = device
    if value is not None and is_device_value(ctx, value):
        accelerator = accelerator_of_value(ctx, value, call)
        names = {n.value for n in m.findall(cst.parse_expression(accelerator), m.Name())}
        if names <= {"torch"}:
            return accelerator, ".type" not in accelerator
    passed = _passed_attribute(ctx, caller, device, call)
    if passed is not None:  # read where the function stands, at run time: any index
        return f"torch.device({passed}).type", False
    raise Unsupported(
        PASSED_IN,
        f"the model `{_function(ctx)}` is given is placed by its caller on "
        f"`{ctx.module.code_for_node(device)}`, which the function cannot name"
        f"{_helper_origin(ctx, device)}",
        call,
    )


def _helper_origin(ctx, device) -> str:
    """Why a module global bound to the call of a function of the script is not a device
    (`DEVICE = get_device()`, whose body also calls `torch.cuda.set_device`), else ""."""
    if not isinstance(device, cst.Name):
        return ""
    binding = only_module_binding(ctx.module, device.value)
    assign = single_assign(binding) if binding is not None else None
    if assign is None or assign[0] != device.value or not isinstance(assign[1], cst.Call):
        return ""
    problem = helper_device_problem(ctx, assign[1])
    shown = ctx.module.code_for_node(assign[1])
    return f" (`{device.value} = {shown}`: {problem})" if problem else ""


def _passed_attribute(ctx, caller, device, call) -> str | None:
    """`args.device` as the function names it, for a model its caller placed on an attribute
    of an object it passes (the Hugging Face examples: `args.device = device`,
    `model.to(args.device)`, `train(args, train_dataset, model)`): the call passes the
    object itself, bound once in the caller, as one parameter the function never rebinds,
    and the attribute is set once in the caller and never in the function -- the same
    device the model was placed on when the Trainer reads it. Else None."""
    root = device
    while isinstance(root, cst.Attribute):
        root = root.value
    if root is device or not isinstance(root, cst.Name):
        return None
    if _bound_value(caller, root, call) is None:
        return None
    params = [
        p for p in sorted(ctx.params) if m.matches(_argument(ctx, call, p), m.Name(root.value))
    ]
    if len(params) != 1 or ctx.binding(params[0])[1]:
        return None
    own = device.deep_replace(root, cst.Name(params[0]))
    if _attribute_sets(caller, device) != 1 or _attribute_sets(ctx.function, own):
        return None
    return code_of(own)


def _attribute_sets(scope, attribute) -> int:
    """How many statements of `scope` assign `attribute` (`args.device = ...`, augmented or
    annotated too, in blocks and nested functions as well)."""
    targets = [
        *(t.target for a in m.findall(scope, m.Assign()) for t in a.targets),
        *(a.target for a in m.findall(scope, m.AugAssign() | m.AnnAssign())),
    ]
    return sum(1 for target in targets if target.deep_equals(attribute))


def _device_passed(ctx, caller, argument) -> cst.BaseExpression | None:
    """The value a call passes by name: bound once in the caller, or (a name the calling
    function neither binds nor is given) the module global the module binds once."""
    if isinstance(argument, cst.Call):  # `train(net, ..., try_gpu())`
        return argument
    if not isinstance(argument, cst.Name):
        return None
    value = _bound_value(caller, argument)
    if value is None and isinstance(caller, cst.FunctionDef):
        params = caller.params
        given = [*params.posonly_params, *params.params, *params.kwonly_params]
        given += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
        bound = any(argument.value in bound_names(s) for s in _scope_statements(caller))
        if not bound and argument.value not in {p.name.value for p in given}:
            value = module_device_value(ctx, argument.value)
    return value


def given_optimizer(ctx, name: str, node) -> str:
    """The parameter holding the model that the optimizer parameter `name` trains, read at
    every call site; Unsupported (TL132) when a call does not show it."""
    model_params: set[str] | None = None
    for caller, call in _call_sites(ctx, node):
        value = _argument_value(ctx, caller, call, name, node)
        factory = _factory_returned(ctx, caller, _argument(ctx, call, name))
        names = ctx.call_qualnames(value) if isinstance(value, cst.Call) else set()
        if not any(q.startswith("torch.optim.") for q in names) or any(
            q.startswith("torch.optim.lr_scheduler.") for q in names
        ):
            raise Unsupported(
                PASSED_IN,
                f"`{_function(ctx)}` is called with `{name}` not bound to a torch.optim "
                "optimizer in the caller",
                call,
            )
        trained = _parameters_of(value)
        if factory is not None:  # `model, opt = get_model()`: the factory's local -> caller's
            trained = trained_model(factory, trained, call)
        passed = {
            param
            for param in ctx.params
            if m.matches(_argument(ctx, call, param), m.Name(trained or ""))
        }
        model_params = passed if model_params is None else model_params & passed
        if not model_params:
            raise Unsupported(
                PASSED_IN,
                f"the optimizer `{_function(ctx)}` is given trains a model that is not passed "
                "beside it",
                call,
            )
    if len(model_params) != 1:
        raise Unsupported(PASSED_IN, "the model is passed as several parameters", node)
    return model_params.pop()


def callee_qualnames(ctx, call) -> set[str]:
    """The qualified names of what `call` calls; for a call of a parameter of the function
    holding the loop that the function does not rebind before it (`optimizer =
    opt_func(model.parameters(), lr)`), those of what the call sites pass for it, or of its
    default where a call passes none (`opt_func=torch.optim.SGD`), directly or through a name
    the caller binds once (`opt_func = torch.optim.Adam`). Empty when one of them is not a name
    of an import (a lambda, `functools.partial(...)`): unknown."""
    names = ctx.call_qualnames(call)
    if names or not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name)):
        return names
    param = call.func.value
    if ctx.function is None or param not in ctx.params or ctx.binding(param)[1]:
        return set()
    try:
        sites = _call_sites(ctx, ctx.loop)
        passed = [(caller, _argument(ctx, site, param)) for caller, site in sites]
    except Unsupported:
        return set()  # not read at call sites: what it is stays unknown (refused as before)
    found: set[str] = set()
    for caller, argument in passed:
        resolved = ctx.qualnames(argument) if argument is not None else set()
        if not resolved and isinstance(argument, cst.Name) and not _is_default(ctx, argument):
            bound = _bound_value(caller, argument)
            resolved = ctx.qualnames(bound) if bound is not None else set()
        if not resolved:
            return set()
        found |= resolved
    return found


def given_loader(ctx, name: str, node) -> None:
    """Unsupported (TL132) unless every call passes a name bound to a DataLoader as `name`."""
    for caller, call in _call_sites(ctx, node):
        value = _wrapped_loader(ctx, caller, call, _argument(ctx, call, name))
        if value is None:
            value = _argument_value(ctx, caller, call, name, node)
        names = ctx.call_qualnames(value) if isinstance(value, cst.Call) else set()
        if not any(q.endswith("DataLoader") for q in names) and not builds_loader(ctx, value):
            shown = "an expression"  # what the argument is bound to, as short as it reads
            if isinstance(value, cst.Call):
                shown = f"`{ctx.module.code_for_node(value.func)}(...)`"
            elif isinstance(value, (cst.Name, cst.Attribute)):
                shown = f"`{ctx.module.code_for_node(value)}`"
            raise Unsupported(
                PASSED_IN,
                f"`{_function(ctx)}` is called with `{name}` bound to {shown}, not to a "
                "`DataLoader(...)` call: which loader it is cannot be read",
                call,
            )


def given_eval_loader(ctx, name: str) -> None:
    """An evaluation loader the function is given is whatever its callers pass (the
    Trainer iterates any iterable); one passed inside a wrapper class of the file must only
    map batches (Unsupported TL187 otherwise, from patterns/loader_wrappers.py)."""
    try:
        sites = _call_sites(ctx, ctx.loop)
    except Unsupported:
        return  # not read at call sites (a spawned worker): the Trainer gets what it is given
    for caller, call in sites:
        if not any(arg.star for arg in call.args):
            _wrapped_loader(ctx, caller, call, _argument(ctx, call, name))


def not_built_per_run(ctx, param: str, is_alias) -> cst.Call | None:
    """The first call of the function holding the loop, made in a loop of its caller (a run
    per fold, seed, learning rate), whose argument for `param` is not built afresh in each
    iteration: not a name whose binding reaching the call (analysis/reaching.py) is a plain
    statement of the innermost loop around the call, or one naming another object again
    (`is_alias(stmt, name)`: `net = model`). None when every such call passes one."""
    for caller, call in _call_sites(ctx, ctx.loop):
        loops = loops_around(caller, call)
        if not loops:
            continue  # called once where it stands: not a run of a loop
        argument = _argument(ctx, call, param)
        if not isinstance(argument, cst.Name):
            return call
        binding = reaching_binding(caller, argument.value, call)
        if binding is None or not cst_contains(loops[-1], binding):
            return call
        if is_alias(binding, argument.value) is not None:
            return call
    return None


def _is_default(ctx, argument) -> bool:
    """`argument` is a parameter's default (read in the module's scope, not the caller's)."""
    params = ctx.function.params
    return any(p.default is argument for p in [*params.params, *params.kwonly_params])


def is_loader_call(ctx, value) -> bool:
    """`DataLoader(...)`, by qualified name."""
    return any(q.endswith("DataLoader") for q in ctx.call_qualnames(value))


def builds_loader(ctx, value) -> bool:
    """`get_dataloader(batch_size)`: a call of a function of this module whose every
    `return` gives a `DataLoader(...)` call, or a name bound to one just before."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
        return False
    for stmt in ctx.module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == value.func.value:
            returns = m.findall(stmt, m.Return())
            return bool(returns) and all(
                _is_data_loader(ctx, _returned_value(stmt, r)) for r in returns
            )
    return False


def _returned_value(function: cst.FunctionDef, returned: cst.Return):
    """What `return x` gives: for a name, the value of the one plain `x = ...` that reaches
    the return (`loader = DataLoader(...)` then `return loader`)."""
    if not isinstance(returned.value, cst.Name):
        return returned.value
    binding = reaching_binding(function, returned.value.value, returned)
    found = single_assign(binding) if binding is not None else None
    return found[1] if found is not None else None


def _is_data_loader(ctx, value) -> bool:
    return isinstance(value, cst.Call) and any(
        q.endswith("DataLoader") for q in ctx.call_qualnames(value)
    )


def called_in_file(ctx) -> bool:
    """The function holding the loop is called in this file, by plain calls (else TL132)."""
    return bool(_call_sites(ctx, ctx.loop))


def callers_passing(ctx, param: str) -> list[tuple[cst.BaseExpression | None, list]] | None:
    """Per call of the function holding the loop: what it passes for `param`, and the other
    statements of the caller's scope (what may run on it before or between calls); None when
    the calls cannot be read (TL132 elsewhere)."""
    try:
        sites = _call_sites(ctx, ctx.loop)
        found = []
        for caller, call in sites:
            others = [
                stmt
                for stmt in _scope_statements(caller)
                if not any(c is call for c in m.findall(stmt, m.Call()))
            ]
            found.append((_argument(ctx, call, param), others))
    except Unsupported:
        return None
    return found


def passed_values(ctx, param: str) -> list[tuple[str, cst.CSTNode | None]] | None:
    """Per call of the function holding the loop, (what it passes for `param` as written,
    the value that reaches it): a default or an expression as is, a name through the one
    plain assignment binding it in the caller, or the `def` that is the caller's only binding
    of it (d2l's `def updater(batch_size): ...` passed as `updater`); None when there is no
    such one. None when the calls cannot be read (TL132 elsewhere)."""
    try:
        sites = _call_sites(ctx, ctx.loop)
        found = []
        for caller, call in sites:
            argument = _argument(ctx, call, param)
            value = argument
            if isinstance(argument, cst.Name) and not _is_default(ctx, argument):
                value = _bound_value(caller, argument) or _only_def(ctx, caller, argument)
            shown = ctx.module.code_for_node(argument) if argument is not None else ""
            found.append((shown, value))
    except Unsupported:
        return None
    return found


def _only_def(ctx, caller, name: cst.Name) -> cst.FunctionDef | None:
    """The `def name(...)` binding `name` in the caller's scope when nothing else binds it
    there (no assignment, import or parameter of that name, and no function of the file
    declares it `global`): the function object every call is given."""
    if isinstance(caller, cst.FunctionDef) and m.findall(caller.params, m.Name(name.value)):
        return None  # a parameter of the caller (or a name its defaults read: not followed)
    body = caller.body if isinstance(caller, cst.Module) else caller.body.body
    bindings = [stmt for stmt in body if name.value in bound_names(stmt)]
    if len(bindings) != 1 or not isinstance(bindings[0], cst.FunctionDef):
        return None
    if any(name.value in bound_names(stmt) for stmt in _scope_statements(caller)):
        return None  # also bound in a block of the caller
    declared = m.Global(names=[m.ZeroOrMore(), m.NameItem(m.Name(name.value)), m.ZeroOrMore()])
    return None if m.findall(ctx.module, declared) else bindings[0]


def reaching_values(ctx, name: str) -> list[cst.BaseExpression | None] | None:
    """The values `name` may hold in the loop, when the loop never rebinds it: the one plain
    assignment binding it in the loop's scope before the loop, or -- a parameter of the
    function holding the loop -- what each call site passes (`passed_values`). None when
    that cannot be read (a None item: one call site's value is unknown)."""
    if name in collect_names(ctx.loop).writes:
        return None  # the loop rebinds it
    found, count = ctx.binding(name)
    if count:
        return [found[1]] if count == 1 and found is not None else None
    if ctx.function is None or name not in ctx.params:
        return None
    passed = passed_values(ctx, name)
    return [value for _, value in passed] if passed else None


def _function(ctx) -> str:
    return ctx.function.name.value


_PROCESS_STARTS = frozenset({"multiprocessing.Process", "torch.multiprocessing.Process"})


def _references(ctx, name: str, node) -> set[int]:
    """The ids of the `Name` nodes referring to the module's function `name` (`function_uses`:
    Python's scopes). Refused when the module also rebinds `name` (a `global` in a function
    included): which function a call reaches is not one `def`."""
    found = None
    if any(stmt is ctx.function for stmt in ctx.module.body):  # a def of the module's scope
        found = function_uses(ctx.module, ctx.function)
    accesses, rebindings = found or ([], [None])
    if rebindings:
        raise Unsupported(
            PASSED_IN,
            f"`{name}` is bound {len(rebindings) + 1} times in the module: which function a "
            "call reaches is not one `def`",
            node,
        )
    return {id(access) for access in accesses}


def _handed_to(ctx, stmt, name: str, references: set[int]) -> tuple[cst.Call, str] | None:
    """(the call, why) when `stmt` hands the function to a call instead of calling it
    (`mp.Process(target=train, args=(rank, model, ...))`), else None."""
    for call in m.findall(stmt, m.Call()):
        if not any(id(arg.value) in references for arg in call.args):
            continue
        callee = code_of(call.func)
        why = (
            f"`{name}` is handed to `{callee}(...)` rather than called: what runs it, and with "
            "what, is not read"
        )
        if ctx.call_qualnames(call) & _PROCESS_STARTS:
            why += (
                " (processes started by hand, each training the model it is given: with "
                "`share_memory()`, Hogwild -- Lightning has no strategy for it)"
            )
        return call, why
    return None


def _call_sites(ctx, node) -> list[tuple[cst.CSTNode, cst.Call]]:
    """(caller scope, call) for every call of the function holding the loop; every other
    use of its name is refused."""
    found = ctx.found.get("call_sites")
    if found is not None:
        return found
    name = _function(ctx)
    found = []
    references = _references(ctx, name, node)
    for stmt in ctx.module.body:
        if stmt is ctx.function:
            continue
        scopes = [stmt] if isinstance(stmt, cst.FunctionDef) else [ctx.module]
        if isinstance(stmt, cst.ClassDef):
            scopes = [stmt]
        spelled = [n for n in m.findall(stmt, m.Name(name)) if id(n) in references]
        calls = [c for c in m.findall(stmt, m.Call(func=m.Name(name))) if id(c.func) in references]
        if len(spelled) != len(calls):
            handed = _handed_to(ctx, stmt, name, references)
            if handed is not None:
                raise Unsupported(PASSED_IN, handed[1], handed[0])
            raise Unsupported(
                PASSED_IN, f"`{name}` is used other than by calls (passed or rebound)", node
            )
        if calls and isinstance(stmt, cst.ClassDef):
            raise Unsupported(PASSED_IN, f"`{name}` is called from a class", node)
        found += [(scopes[0], call) for call in calls]
    if not found:
        raise Unsupported(
            PASSED_IN,
            f"`{name}` is not called in this file, so what it is given (model, optimizer, "
            "loader) is unknown",
            node,
        )
    ctx.found["call_sites"] = found
    return found


def _argument(ctx, call: cst.Call, param: str) -> cst.BaseExpression | None:
    """The expression `call` passes for `param` (its default when it passes none)."""
    if any(arg.star for arg in call.args):
        raise Unsupported(PASSED_IN, f"`{_function(ctx)}` is called with *args/**kwargs", call)
    params = ctx.function.params
    ordered = [*params.posonly_params, *params.params]
    positional = [arg for arg in call.args if arg.keyword is None]
    for index, known in enumerate(ordered):
        if known.name.value == param and index < len(positional):
            return positional[index].value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == param:
            return arg.value
    for known in [*ordered, *params.kwonly_params]:
        if known.name.value == param:
            return known.default
    return None


def _argument_value(ctx, caller, call: cst.Call, param: str, node) -> cst.BaseExpression:
    """The value bound, once in the caller's scope, to the name `call` passes as `param`."""
    argument = _argument(ctx, call, param)
    if not isinstance(argument, cst.Name):
        raise Unsupported(
            PASSED_IN,
            f"`{_function(ctx)}` is called with an expression for `{param}`; bind it to a "
            "name first",
            call,
        )
    value = _bound_value(caller, argument, call)
    factory = _factory_returned(ctx, caller, argument)
    if factory is not None:
        value = factory.value
    if value is None:
        raise Unsupported(
            PASSED_IN,
            f"`{argument.value}`, passed to `{_function(ctx)}` as `{param}`, is not bound "
            "once by a plain assignment in the caller",
            call,
        )
    return value


def _bound_value(caller, name: cst.Name, call: cst.Call | None = None) -> cst.BaseExpression | None:
    """The value of the one plain assignment binding `name` in the caller's scope, if so; a
    `name = None` placeholder rebound before anything reads it (the course notebooks' `model =
    None` above "YOUR CODE HERE") does not count, nor (given the `call` passing it) a binding
    in a statement of the caller's body after the one holding the call, which runs after it
    (a book's `train_loader` rebuilt unshuffled for the evaluation after training). Bound
    again before the call (a notebook cell per learning rate, a fresh model and optimizer
    loaded from a checkpoint): the plain assignment that reaches the call
    (analysis/reaching.py)."""
    statements = list(_scope_statements(caller))
    later = _after_the_call(caller, call)
    bindings = [
        stmt
        for stmt in statements
        if name.value in bound_names(stmt) and not any(cst_contains(top, stmt) for top in later)
    ]
    if len(bindings) > 1 and call is not None:
        bindings = [reaching_binding(caller, name.value, call)]
    while len(bindings) > 1 and _placeholder(bindings[0], name.value):
        between = statements[statements.index(bindings[0]) + 1 : statements.index(bindings[1])]
        if any(name.value in scope_reads(stmt) for stmt in [*between, bindings[1]]):
            break
        bindings = bindings[1:]
    assign = single_assign(bindings[0]) if len(bindings) == 1 else None
    return assign[1] if assign is not None and assign[0] == name.value else None


def _after_the_call(caller, call: cst.Call | None) -> list[cst.BaseStatement]:
    """The statements of the caller's own body after the one holding `call` (none without
    it): they run once the call has returned."""
    if call is None:
        return []
    body = list(caller.body if isinstance(caller, cst.Module) else caller.body.body)
    later: list[cst.BaseStatement] = []
    while True:
        holding = [i for i, stmt in enumerate(body) if cst_contains(stmt, call)]
        if not holding:
            return later
        stmt = body[holding[0]]
        later += body[holding[0] + 1 :]
        # blocks that run once, in order: what follows the call inside them runs after it
        once = isinstance(stmt, cst.With) or (isinstance(stmt, cst.If) and is_name_main(stmt))
        if not once:
            return later
        body = list(stmt.body.body)


def _placeholder(stmt, name: str) -> bool:
    assign = single_assign(stmt)
    return assign is not None and assign[0] == name and m.matches(assign[1], m.Name("None"))


def _wrapped_loader(ctx, caller, call, name) -> cst.BaseExpression | None:
    """The loader a call passes inside a wrapper that maps its batches: the caller binds the
    name twice, in its own body, before the call -- to a loader (`train_dl, valid_dl =
    get_data(...)`), then `train_dl = WrappedDataLoader(train_dl, preprocess)`
    (patterns/loader_wrappers.py); the first binding's value, or None for any other case."""
    if not isinstance(name, cst.Name):
        return None
    value = _bound_value(caller, name)
    if isinstance(value, cst.Call) and value.args and is_loader_call(ctx, value.args[0].value):
        # `wrapped = Wrapper(DataLoader(...), device)`: the loader is the argument itself
        wrapped = wrapped_loader(ctx, value, value.args[0].value, call)
        if wrapped is not None:
            _moved_where_the_model_is(ctx, caller, call, wrapped)
            return value.args[0].value
        return None
    if isinstance(value, cst.Call) and value.args and isinstance(value.args[0].value, cst.Name):
        inner = value.args[0].value  # `wrapped = Wrapper(loader, func)`: bound once
        wrapped = wrapped_loader(ctx, value, inner, call) if inner.value != name.value else None
        if wrapped is not None:
            _moved_where_the_model_is(ctx, caller, call, wrapped)
            loader = _bound_value(caller, inner)
            factory = _factory_returned(ctx, caller, inner)
            return factory.value if factory is not None else loader
        return None
    body = list(caller.body if isinstance(caller, cst.Module) else caller.body.body)
    top = [stmt for stmt in body if name.value in bound_names(stmt)]
    inner = [stmt for stmt in _scope_statements(caller) if name.value in bound_names(stmt)]
    if len(top) != 2 or top != inner:
        return None  # bound once (read as usual), or also in a block: which binding reaches?
    first, second = top
    assign = single_assign(second)
    if assign is None or assign[0] != name.value:
        return None
    calling = [
        i for i, stmt in enumerate(body) if any(c is call for c in m.findall(stmt, m.Call()))
    ]
    if not calling or calling[0] <= body.index(second):
        return None
    wrapped = wrapped_loader(ctx, assign[1], name, call)
    if wrapped is None:
        return None
    _moved_where_the_model_is(ctx, caller, call, wrapped)
    loader = single_assign(first)
    if loader is not None and loader[0] == name.value:
        return loader[1]
    factory = returned(ctx, first, name.value)
    return factory.value if factory is not None else None


def _moved_where_the_model_is(ctx, caller, call, wrapped: Wrapped) -> None:
    """A wrapper that moves each batch to a device (`DeviceDataLoader(dl, device)`) is kept:
    the Trainer moves a batch already on its device nowhere. That holds when the device is the
    one the Trainer is given, i.e. the one the callers place the model on (read the same way,
    `accelerator=`); Unsupported (TL187) otherwise -- and when the callers place no model."""
    if wrapped.device is None:
        return
    placed = ctx.found.get("callers_model_device")
    if isinstance(placed, Unsupported):
        raise placed
    shown = ctx.module.code_for_node(wrapped.device)
    if placed is None:
        raise Unsupported(
            WRAPPER,
            f"the loader wrapper moves batches to `{shown}`, but no caller of "
            f"`{_function(ctx)}` places the model it is given there: the Trainer's device "
            "cannot be stated as that one",
            call,
        )
    if _accelerator_in_function(ctx, caller, wrapped.device, call) != placed:
        raise Unsupported(
            WRAPPER,
            f"the loader wrapper moves batches to `{shown}`, not to the device the model is "
            "placed on",
            call,
        )


def _factory_returned(ctx, caller, name) -> Returned | None:
    """What `name` is when the caller binds it once, by unpacking a call of a factory of
    the file (`model, opt = get_model()`; patterns/factories.py)."""
    if not isinstance(name, cst.Name):
        return None
    bindings = [stmt for stmt in _scope_statements(caller) if name.value in bound_names(stmt)]
    if len(bindings) != 1:
        return None
    return returned(ctx, bindings[0], name.value)


def _scope_statements(scope) -> list[cst.BaseStatement]:
    """The simple statements of a module or function body, in blocks too, not in nested
    functions or classes (their own scopes)."""
    out = []
    body = scope.body if isinstance(scope, cst.Module) else scope.body.body
    pending = list(body)
    while pending:
        stmt = pending.pop(0)
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(stmt, cst.SimpleStatementLine):
            out.append(stmt)
            continue
        for part in ("body", "orelse", "finalbody"):
            block = getattr(stmt, part, None)
            inner = getattr(block, "body", None)
            if isinstance(inner, (list, tuple)):
                pending[:0] = list(inner)
            elif isinstance(block, (cst.If, cst.Else)):
                pending.insert(0, block)
        for handler in getattr(stmt, "handlers", ()):
            pending[:0] = list(handler.body.body)
    return out


def _parameters_of(call: cst.Call) -> str | None:
    """`model` for an optimizer built on `model.parameters()`, or on a submodule's
    (`model.fc.parameters()`, fine-tuning a head): the parameters are the model's either way."""
    receivers = set()
    for found in m.findall(
        call,
        m.Call(func=m.Attribute(attr=m.Name("parameters") | m.Name("named_parameters"))),
    ):
        root = found.func.value
        while isinstance(root, cst.Attribute):
            root = root.value
        receivers.add(root.value if isinstance(root, cst.Name) else None)
    return receivers.pop() if len(receivers) == 1 else None
