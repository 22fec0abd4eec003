"""Pattern: a device the function holding the loop reads from outside its own body.

    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")   (module global)

    def train(model, optimizer, epochs):         lit_model = LitModel(model, optimizer)
        for epoch in range(epochs):          ->  trainer = L.Trainer(
            for x, y in loader:                      accelerator="cuda" if torch.cuda.is_available()
                x, y = x.to(device), ...             else "cpu", devices=1, max_epochs=epochs)
                ...                              trainer.fit(lit_model, loader)

Python's scopes decide what the loop's `device` is (stdlib `symtable`): a name the function
reads without binding it is the module's. When the module binds it once, at its top level or
under `if __name__ == "__main__":`, to a device (and no function rebinds it through `global`),
it is the device the loop trains on, wherever the call happens: a device name like one bound
beside the loop, so the batch moves go and the Trainer's `accelerator=` follows the same
condition. A parameter every caller passes such a global for is one too (patterns/passed_in.py
reads call sites through `module_device_value`).

Whatever the device's origin, the output never pairs a fixed `accelerator=` with moves it kept
to a device it could not read (`x.to(dev)` with `dev = pick_device()`): on a GPU machine the
Trainer would put the model on one device and the batches would go to another. Refused: TL142,
at the statement binding that device (where the cause is, and the fix), or at the move when
nothing before the loop binds it. (A config's device field is read at run time:
patterns/config_device.py.)
"""

from __future__ import annotations

import symtable

import libcst as cst
import libcst.matchers as m

from ..analysis.globals_read import nested_tables, rebound_through_global
from ..analysis.loader_length import config_item_problem
from ..analysis.names import bound_names, collect_names
from ..analysis.statements import single_assign, statements
from ..rule import Rule, Unsupported
from ..source.find_loops import cst_contains
from .device_intent import (
    device_if_binding,
    device_if_extra,
    device_value,
    helper_device_problem,
    note_device_values,
)

UNKNOWN_DEVICE_MOVE = Rule(
    "TL142",
    "code moved into the LightningModule moves tensors to a device the Trainer cannot follow",
    """The Trainer places the model on the accelerator it is given and moves the batches
    there itself. A `.to(dev)` kept in a hook, with `dev` a value the migrator cannot read as
    a device (an attribute of a config, a name bound by a helper call), would send those
    tensors to another device than the model's on a GPU machine.""",
    """Bind the device once with `torch.device("cuda" if <condition> else "cpu")` (at module
    level, beside the loop, or passed to the training function), and move tensors with it.""",
    """
    device = get_device()


    def train(net, opt, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()


    train(model, optimizer, 2)
    """,
)

RULES = (UNKNOWN_DEVICE_MOVE,)

# what `.to(name)` may be given that is not a device: a dtype
_DTYPES = frozenset(
    "torch." + name
    for name in (
        "float float32 float64 double half float16 bfloat16 int int8 int16 int32 int64 long "
        "uint8 bool short complex64 complex128"
    ).split()
)


def module_device_value(ctx, name: str) -> cst.BaseExpression | None:
    """The device value of the module global `name` when the module binds it exactly once (at
    its top level or under `if __name__ == "__main__":`) and no function rebinds it."""
    found = _module_binding(ctx, name)
    return found[1] if found is not None else None


def _module_binding(ctx, name: str):
    """(statement, device value) of the one module-level binding of `name`, or None."""
    cache = ctx.found.setdefault("module_device_bindings", {})
    if name not in cache:
        cache[name] = _find_module_binding(ctx, name)
    return cache[name]


def _find_module_binding(ctx, name: str):
    if name in rebound_through_global(ctx):
        return None
    binders = []
    for stmt in ctx.module.body:
        if name not in bound_names(stmt):
            continue
        if isinstance(stmt, cst.If) and is_name_main(stmt):
            binders += [s for s in stmt.body.body if name in bound_names(s)]
        else:
            binders.append(stmt)
    if len(binders) != 1:
        return None
    stmt = binders[0]
    assign = single_assign(stmt)
    value = device_value(ctx, assign[1]) if assign is not None and assign[0] == name else None
    if value is not None:
        return stmt, value
    if device_if_binding(ctx, stmt) == name:
        return stmt, None  # device_intent reads the if/else idiom itself
    return None


def is_name_main(stmt: cst.If) -> bool:
    """`if __name__ == "__main__":` (no else): its body runs at module level, once."""
    return stmt.orelse is None and m.matches(
        stmt.test,
        m.Comparison(
            left=m.Name("__name__"),
            comparisons=[m.ComparisonTarget(operator=m.Equal(), comparator=m.SimpleString())],
        ),
    )


def _function_global_reads(ctx) -> set[str]:
    """Names the function holding the loop (or code nested in it) reads as module globals
    without declaring them `global`."""
    table = symtable.symtable(ctx.module.code_for_node(ctx.function).lstrip(), "<def>", "exec")
    return {
        symbol.get_name()
        for child in nested_tables(table)
        for symbol in child.get_symbols()
        if symbol.is_global() and not symbol.is_declared_global() and symbol.is_referenced()
    }


def function_locals(ctx) -> set[str]:
    """Every name the function holding the loop binds, its parameters included."""
    names = set(ctx.params)
    for stmt in ctx.function.body.body:
        names |= bound_names(stmt)
    return names


def bind(ctx, plan, steps) -> None:
    """A global the function reads and the module binds once to a device is a device name."""
    if not ctx.in_function:
        return
    local = function_locals(ctx)
    for name in sorted(_function_global_reads(ctx) - local - plan.device_names):
        found = _module_binding(ctx, name)
        if found is None:
            continue
        plan.device_names.add(name)
        note_device_values(ctx, plan, name, found[0])
        # its condition, repeated in the function, must read what it read at module level
        readable = not (collect_names(found[0]).reads & local)
        ctx.found.setdefault("global_devices", {})[name] = found[0], readable


def clean(ctx, plan) -> None:
    """Refuse (TL142) a fixed accelerator beside a kept move to a device not read."""
    if not plan.trainer_args or plan.trainer_args[0][0] != "accelerator":
        return
    if not isinstance(cst.parse_expression(plan.trainer_args[0][1]), cst.SimpleString):
        return
    pieces = [*plan.pre_train, *plan.before_step, *plan.train_body]
    pieces += [*plan.post_train, *plan.after_step]
    for evaluation in (plan.validation, plan.test):
        if evaluation is not None:
            pieces += [*evaluation.before, *evaluation.body, *evaluation.after]
    written = collect_names(plan.epoch_loop).writes
    finder = _MovesTo()
    for piece in pieces:
        finder.piece = piece
        piece.visit(finder)
    for call, target, piece in finder.moves:
        name = target.value
        if name in plan.device_names or name in written or _is_dtype(ctx, name):
            continue
        raise Unsupported(
            UNKNOWN_DEVICE_MOVE,
            f"`.to({name})` moves tensors to a device not read from the script"
            f"{_origin(ctx, name)}, beside a Trainer on accelerator={plan.trainer_args[0][1]}",
            # the binding not read as a device; else the move (an inlined helper's names
            # the helper's line)
            _cause(ctx, name) or _statement_holding(piece, call),
        )


def _cause(ctx, name: str) -> cst.CSTNode | None:
    """The statement that makes `name` a device not read: the last binding of it before the
    loop (in an if/else choice, the statement doing more than choosing or the branch binding
    what is not read as a device), or the module's last binding of a global the function
    reads; None when nothing there binds it (a parameter, a name bound after the loop)."""
    binders = [s for s in ctx.scope_before if name in bound_names(s)]
    if not binders and ctx.in_function and name not in function_locals(ctx):
        for stmt in ctx.module.body:
            if isinstance(stmt, cst.If) and is_name_main(stmt):
                binders += [s for s in stmt.body.body if name in bound_names(s)]
            elif name in bound_names(stmt):
                binders.append(stmt)
    if not binders:
        return None
    last = binders[-1]
    return device_if_extra(ctx, last, name) or _unread_branch(ctx, last, name) or last


def _statement_holding(piece: cst.CSTNode, call: cst.Call) -> cst.CSTNode:
    """The innermost statement of `piece` holding `call`: what the engine places on its line
    (through helpers.py's `inlined_at` for a statement copied from a helper)."""
    return [s for s in statements(piece) if cst_contains(s, call)][-1]


def _origin(ctx, name: str) -> str:
    """Why the device `name` is not known: what it is bound to, when the scope binds it once,
    and for a config entry why the dict literal does not tell (the script sets the entry,
    hands the dict to other code, ...)."""
    found, count = ctx.binding(name)
    if found is None and count == 1:  # an `if` choosing it that does more than choose
        stmt = next(s for s in ctx.scope_before if name in bound_names(s))
        extra = device_if_extra(ctx, stmt, name)
        if extra is not None:
            shown = ctx.module.code_for_node(extra).strip()
            return f" (its if/else choice also runs `{shown}`, more than a print beside it)"
        branch = _unread_branch(ctx, stmt, name)
        if branch is not None:
            shown = ctx.module.code_for_node(branch).strip()
            return f" (a branch of its if/else choice binds `{shown}`)"
    if found is None or count != 1:
        return ""
    value = found[1]
    shown = ctx.module.code_for_node(value).strip()
    problem = config_item_problem(ctx, value) if isinstance(value, cst.Subscript) else None
    if isinstance(value, cst.Call):  # a function of the script choosing it
        problem = helper_device_problem(ctx, value)
    if problem:
        return f" (`{name} = {shown}`: {problem})"
    return f" (`{name} = {shown}`)"


def _unread_branch(ctx, stmt, name: str) -> cst.CSTNode | None:
    """The first `name = value` in a branch of the `if` statement `stmt` whose value is not
    read as a device (`device = pick_device(config)` beside `device = "cuda" if ...`)."""
    if not isinstance(stmt, cst.If):
        return None
    for inner in m.findall(stmt, m.SimpleStatementLine()):
        assign = single_assign(inner)
        if assign is not None and assign[0] == name and device_value(ctx, assign[1]) is None:
            return inner
    return None


def _is_dtype(ctx, name: str) -> bool:
    """`name` is bound (in the loop's scope or the module) to a torch dtype."""
    value = None
    found, count = ctx.binding(name)
    if found is not None and count == 1:
        value = found[1]
    else:
        binders = [s for s in ctx.module.body if name in bound_names(s)]
        assign = single_assign(binders[0]) if len(binders) == 1 else None
        value = assign[1] if assign is not None and assign[0] == name else None
    return value is not None and bool(ctx.qualnames(value) & _DTYPES)


class _MovesTo(cst.CSTVisitor):
    """`x.to(name, ...)` and `x.to(device=name)` calls, with the name."""

    def __init__(self) -> None:
        super().__init__()
        self.moves: list[tuple[cst.Call, cst.Name, cst.CSTNode]] = []
        self.piece: cst.CSTNode | None = None  # the statement being visited

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "to" and node.args):
            return
        first = node.args[0]
        if first.keyword is None and not first.star and isinstance(first.value, cst.Name):
            self.moves.append((node, first.value, self.piece))
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "device":
                if isinstance(arg.value, cst.Name):
                    self.moves.append((node, arg.value, self.piece))
