"""Pattern: model, optimizer and loaders read through a factory function of the script.

    def get_model():                                      (kept, still called)
        model = Mnist_CNN()
        return model, optim.SGD(model.parameters(), lr=lr, momentum=0.9)

    model, opt = get_model()                              (kept)
    fit(epochs, model, loss_func, opt, train_dl)          -> LitModel(model, opt): opt given

A name the caller binds by unpacking a call of a module function (`a, b = f(...)`) is the
element the function returns at that position: a local of the function bound once by a
plain assignment (`return model, optimizer`) or the expression itself (`return model,
optim.SGD(model.parameters())`), read in the function's own scope (`symtable`). A local of
the factory named in that element (the model an optimizer is built on) is the caller's name
bound to the position where the factory returns that local. Nothing is rebuilt: the
LightningModule receives the caller's objects -- the ones the script trained -- and
`configure_optimizers` returns the optimizer it is given (patterns/passed_in.py), so the
factory stays and is called once, as before.

Refused (TL186): a factory called more than once or used other than by that call, whose
returns are not all tuples of the unpacked length, whose returns differ at the position
read, or whose optimizer trains a model it does not return (a global, a parameter, another
local, a local bound more than once), or that wraps a model in DataParallel / DDP.
Not a factory (left to the other rules): a call of anything but a function defined
once at module level. A scheduler returned by a function of the script
(`get_linear_schedule_with_warmup`) is read by scheduler_factories.py, refused with this
code too.
"""

from __future__ import annotations

import symtable
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from ..analysis.names import bound_names, only_module_binding
from ..analysis.statements import single_assign
from ..rule import Rule, Unsupported

FACTORY = Rule(
    "TL186",
    "a model, optimizer, scheduler or loader comes from a factory function that cannot be "
    "read faithfully",
    """`model, opt = get_model()` is read through the function: each name is the element
    returned at its position, and a model the factory builds and returns is the caller's name
    at that position. This holds only for a function of the file called once, whose every
    `return` is a tuple of that length giving the same element at the position read, and
    whose optimizer trains a model it returns. A scheduler built by a function of the file
    (`get_linear_schedule_with_warmup(optimizer, warmup, total)`) is built again by calling
    it in `configure_optimizers`, when `fit` starts, and its rate function runs at every
    step: the function must build one `torch.optim.lr_scheduler` object on the optimizer it
    is given and return it, and do nothing but compute (no print or other call, no store
    into an object, no `global` / `nonlocal`, no global the script rebinds or changes). An
    optimizer built by a function of the file (`_select_optimizer(args, model)`) is built
    again the same way: one `torch.optim` optimizer on `parameters()` of a model it is given,
    returned, and nothing done but computing.""",
    """Call the factory once and return the model beside the optimizer built on it
    (`model = Net(); return model, torch.optim.SGD(model.parameters(), ...)`), or bind the
    model and optimizer in the caller. For a scheduler function, move what it does besides
    building the scheduler to the caller, and pass it what it reads as arguments.""",
    """
    def fit(net, opt):
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()


    def get_model():
        net = nn.Linear(4, 2)
        return net, torch.optim.SGD(net.parameters(), lr=0.1)


    net, opt = get_model()
    other, other_opt = get_model()
    fit(net, opt)
    """,
)

RULES = (FACTORY,)


@dataclass(frozen=True)
class Returned:
    """What the caller's name at `position` of `targets` is: `value`, an expression of the
    factory's own scope (None when it is no local bound once, nor an expression)."""

    factory: cst.FunctionDef
    targets: tuple[str, ...]
    position: int
    value: cst.BaseExpression | None
    returns: tuple[cst.Tuple, ...]
    locals: frozenset[str]  # the factory's locals bound once, by a plain assignment

    def caller_name(self, local: str | None) -> str | None:
        """The caller's name bound to the factory's local `local` (returned as such)."""
        if local is None or local not in self.locals:
            return None
        for index in range(len(self.targets)):
            if all(m.matches(r.elements[index].value, m.Name(local)) for r in self.returns):
                return self.targets[index]
        return None


def returned(ctx, stmt: cst.CSTNode, name: str) -> Returned | None:
    """`name` as `stmt` binds it, when `stmt` is `a, b = f(...)` with `f` a function defined
    once at module level; None for any other statement; Unsupported (TL186) when the factory
    cannot be read faithfully."""
    unpacked = _unpacking(stmt)
    if unpacked is None:
        return None
    targets, call = unpacked
    if name not in targets:
        return None
    factory = _module_function(ctx, call.func.value)
    if factory is None:
        return None
    fname = factory.name.value
    if name_uses(ctx.module, fname) != 2:  # the `def` and this call
        raise Unsupported(
            FACTORY,
            f"`{fname}()` is called more than once (or used other than by one call): which "
            f"call built the `{name}` the loop uses is not one binding",
            stmt,
        )
    if any(
        "DataParallel" in q for c in m.findall(factory, m.Call()) for q in ctx.call_qualnames(c)
    ):
        raise Unsupported(
            FACTORY,
            f"`{fname}()` wraps a model in DataParallel / DistributedDataParallel: the "
            "Trainer's strategy does that itself, and the wrapper is not the caller's to remove",
            stmt,
        )
    returns = _own_returns(factory)
    if not returns or not all(
        isinstance(r.value, cst.Tuple)
        and len(r.value.elements) == len(targets)
        and not any(isinstance(e, cst.StarredElement) for e in r.value.elements)
        for r in returns
    ):
        raise Unsupported(
            FACTORY,
            f"`{fname}()` does not return a tuple of {len(targets)} elements from every "
            f"`return`: which element `{name}` is cannot be read",
            stmt,
        )
    position = targets.index(name)
    elements = [r.value.elements[position].value for r in returns]
    if not all(e.deep_equals(elements[0]) for e in elements[1:]):
        raise Unsupported(
            FACTORY,
            f"the returns of `{fname}()` give different values for `{name}`",
            stmt,
        )
    local_names = _locals(ctx, factory)
    value = elements[0]
    if isinstance(value, cst.Name):
        value = _local_value(factory, value.value) if value.value in local_names else None
    # a local rebound after the optimizer was built on it (`model = DataParallel(model)`)
    # may not be the object the optimizer trains: only locals bound once count
    once = {local for local in local_names if _local_value(factory, local) is not None}
    return Returned(
        factory,
        targets,
        position,
        value,
        tuple(r.value for r in returns),
        frozenset(once),
    )


def trained_model(returned_value: Returned, local: str | None, stmt) -> str:
    """The caller's name for the factory's local `local`, the model an optimizer it returns
    is built on; Unsupported (TL186) when the factory does not return that local."""
    found = returned_value.caller_name(local)
    if found is None:
        fname = returned_value.factory.name.value
        raise Unsupported(
            FACTORY,
            f"the optimizer `{fname}()` returns trains a model it does not return as a local "
            "of its own, so which of the caller's names holds that model cannot be read",
            stmt,
        )
    return found


def name_uses(module: cst.Module, name: str) -> int:
    """How many times `name` is spelled as a name in `module` (its `def` included), not
    counting attributes (`torch.save` for `save`) nor keywords of calls."""
    uses = len(m.findall(module, m.Name(name)))
    uses -= len(m.findall(module, m.Attribute(attr=m.Name(name))))
    return uses - len(m.findall(module, m.Arg(keyword=m.Name(name))))


def _unpacking(stmt) -> tuple[tuple[str, ...], cst.Call] | None:
    """(targets, call) for `a, b = f(...)` (names only, one target, `f` a plain name)."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return None
    small = stmt.body[0]
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
        return None
    target, value = small.targets[0].target, small.value
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
        return None
    if not all(
        isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements
    ):
        return None
    return tuple(e.value.value for e in target.elements), value


def _module_function(ctx, name: str) -> cst.FunctionDef | None:
    """The module-level `def name` when it is the module's only binding of `name`."""
    binding = only_module_binding(ctx.module, name)
    return binding if isinstance(binding, cst.FunctionDef) else None


def _own_returns(function: cst.FunctionDef) -> list[cst.Return]:
    """The `return` statements of `function` itself (not of nested functions or lambdas)."""
    found = []

    class Visitor(cst.CSTVisitor):
        def __init__(self):
            self.depth = 0

        def visit_FunctionDef(self, node):
            self.depth += 1

        def leave_FunctionDef(self, node):
            self.depth -= 1

        def visit_ClassDef(self, node):
            self.depth += 1

        def leave_ClassDef(self, node):
            self.depth -= 1

        def visit_Return(self, node):
            if self.depth == 1:
                found.append(node)

    function.visit(Visitor())
    return found


def _locals(ctx, function: cst.FunctionDef) -> set[str]:
    """The function's own local names, not its parameters (Python's scopes: symtable)."""
    code = ctx.module.code_for_node(function).lstrip()
    table = symtable.symtable(code, "<factory>", "exec").get_children()[0]
    return {
        symbol.get_name()
        for symbol in table.get_symbols()
        if symbol.is_local() and not symbol.is_parameter()
    }


def _local_value(function: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    """The value of the one plain assignment binding `name` in the function's own body."""
    from .passed_in import _scope_statements

    if sum(name in bound_names(s) for s in function.body.body) != 1:
        return None  # bound in several statements, or by a loop / `with` target
    bindings = [s for s in _scope_statements(function) if name in bound_names(s)]
    assign = single_assign(bindings[0]) if len(bindings) == 1 else None
    return assign[1] if assign is not None and assign[0] == name else None
