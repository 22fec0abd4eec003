"""Pattern: an `if` in the batch loop whose test is known before training: only the branch
that runs is the step.

    def train_epoch(net, loader, loss, updater):
        for X, y in loader:
            l = loss(net(X), y)
            if isinstance(updater, torch.optim.Optimizer):      -> updater.zero_grad()
                updater.zero_grad()                                l.mean().backward()
                l.mean().backward()                                updater.step()
                updater.step()
            else:                                               (the branch that never runs
                l.sum().backward()                               is left out)
                updater(X.shape[0])

    train_epoch(net, loader, loss, torch.optim.SGD(net.parameters(), lr=0.1))

What a name of the test holds is read from data flow, never from its spelling: the one plain
assignment binding it in the loop's scope before the loop, or -- for a parameter of the
function holding the loop -- what every call site passes (a literal, its default, or the name
the caller binds once: patterns/passed_in.py), when the loop itself never rebinds it. Known:
None, literals, an object built by a `torch.optim` optimizer class (an instance of
`torch.optim.Optimizer`) or a `GradScaler` (not None), a function of the script (not None, no
optimizer). Tests decided: `x`, `not x`, `x is None`, `x is not None`, `isinstance(x, C)`
(analysis/branches.py). An `autocast(enabled=<test>)` the same values decide is read the same
way: off, it is no autocast at all (its body runs as written); on, it is the plain autocast.

The branch left out never runs in the script either, so nothing changes; the report notes
which test was decided. Why leave the branch out rather than keep the `if`: the step
sequence must see one zero_grad/backward/step, and a branch that never runs has nothing to
say about the training. An `if` around optimizer calls whose test is not known is converted
only when both branches are the same Lightning step: a GradScaler that exists or not
(amp_choice.py: `precision=` follows the same test); otherwise it stays, and the step
sequence refuses it (TL114) naming what the test depends on (a command-line flag, a device
check, callers passing different things).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.branches import (
    FUNCTION,
    INT,
    MODULE_BASES,
    NONE,
    NOT_NONE,
    OPTIMIZER_BASES,
    Instance,
    decide,
    resolve,
    suite,
)
from ..analysis.globals_read import function_locals
from ..analysis.loader_length import class_setting, config_field, config_item, setting_problem
from ..analysis.names import collect_names
from ..analysis.statements import BACKWARD, OPTIMIZER_CALL, contains
from ..source.code_text import code_of
from .amp import SCALERS, is_autocast
from .amp_choice import scaler_choice
from .passed_in import passed_values, reaching_values

RULES = ()


def batch_statements(ctx, stmts):
    """The batch loop's statements with each decided `if` around optimizer calls replaced by
    its branch, and each decided `autocast(enabled=...)` read as on or off."""
    decided: list = []

    def decide_test(test):
        return known_test(ctx, test)

    out = []
    for stmt in stmts:
        if isinstance(stmt, cst.If) and _steps(stmt):
            out += resolve([stmt], decide_test, decided)
            if out and out[-1] is stmt:  # not decided: the same step either way?
                scaled = scaler_choice(ctx, stmt, stmts)
                if scaled is not None:
                    out[-1:] = scaled
                    continue
                # else TL114 names what the test depends on
                ctx.found.setdefault("undecided_branches", {})[id(stmt)] = _why(ctx, stmt.test)
        else:
            out.append(_autocast(ctx, stmt, decide_test, decided))
    _note(ctx, decided)
    return [s for stmt in out for s in _unwrapped(stmt)]


def epoch_body(ctx, stmts):
    """The epoch's statements (helpers inlined) with each decided `if` around a mode switch
    (`if isinstance(net, torch.nn.Module): net.train()`) replaced by its branch: the Trainer
    switches modes itself, and must know where the script does."""
    decided: list = []
    out = [_resolve_nested(ctx, stmt, decided) for stmt in stmts]
    _note(ctx, decided)
    return [s for stmt in out for s in (stmt if isinstance(stmt, list) else [stmt])]


def _resolve_nested(ctx, stmt, decided):
    """`stmt`, or the statements it stands for, with decided mode-switch `if`s resolved in
    its blocks too (not in functions or classes it defines: other scopes)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return stmt
    if isinstance(stmt, cst.If) and _switches_mode(stmt):
        taken = resolve([stmt], lambda test: known_test(ctx, test), decided)
        if not (taken and taken[0] is stmt):
            return [s for t in taken for s in _as_list(_resolve_nested(ctx, t, decided))]
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.IndentedBlock) and not isinstance(stmt, cst.If):
        inner = [s for t in body.body for s in _as_list(_resolve_nested(ctx, t, decided))]
        if len(inner) == len(body.body) and all(a is b for a, b in zip(inner, body.body)):
            return stmt  # unchanged: the same node (patterns key facts on node identity)
        return stmt.with_changes(body=body.with_changes(body=inner))
    return stmt


def taken_branch(ctx, stmt) -> list | None:
    """The statements (the nodes themselves) of the branch that an `if` run before the loop
    takes, when its test is decided by names bound once before it to what `known_test`
    reads -- nanoGPT's `if init_from == 'scratch': model = GPT(conf)` under `init_from =
    'scratch'` -- so that what the branch binds is read as bound; None when not decided
    (`why_branch_unknown` says why)."""
    if why_branch_unknown(ctx, stmt) is not None:
        return None
    if known_test(ctx, stmt.test):
        return suite(stmt.body)
    if isinstance(stmt.orelse, cst.If):
        return [stmt.orelse]
    return suite(stmt.orelse.body) if stmt.orelse is not None else []


def why_branch_unknown(ctx, stmt) -> str | None:
    """Why the branch an `if` before the loop takes is not known, for a message; None when
    it is. A name some function declares `global`, or a file that may rebind its globals
    behind the assignments (`exec(open('configurator.py').read())`, `globals()[k] = v`),
    decides nothing."""
    if not isinstance(stmt, cst.If) or not any(s is stmt for s in ctx.scope_before):
        return "it is no `if` of the loop's scope"
    names = collect_names(stmt.test).reads
    rebound = sorted(names & _declared_global(ctx))
    if rebound:
        return f"a function declares `global {rebound[0]}`"
    dynamic = _rebinds_globals(ctx)
    if dynamic is not None:
        return f"the file may rebind its globals through `{ctx.module.code_for_node(dynamic)}`"
    called = _call_in_test(stmt.test)
    if called is not None:  # `if torch.cuda.is_available():` -- the machine decides
        code = ctx.module.code_for_node(called.func)
        return f"its test calls `{code}()`, whose result is known only when the script runs"
    position = next(i for i, s in enumerate(ctx.scope_before) if s is stmt)
    for name in sorted(names):  # bound before the `if` (a binding after it would not reach it)
        found, count = ctx.binding(name)
        if found is None or count != 1 or not any(
            s is found[0] for s in ctx.scope_before[:position]
        ):
            return f"`{name}` is not bound once, to a value, before it"
    if known_test(ctx, stmt.test) is None:
        # say where the test's values come from: `args = parser.parse_args()` is the command
        # line, known only when the script runs
        shown = []
        for name in sorted(names):
            found, _ = ctx.binding(name)
            if found is not None:
                shown.append(f"`{name} = {ctx.module.code_for_node(found[1]).strip()}`")
        origin = f" (from {', '.join(shown)})" if shown else ""
        return f"the test's value{origin} is known only when the script runs"
    return None


def _call_in_test(test) -> cst.Call | None:
    """A call in an `if` test other than `isinstance(...)` (which known_test reads): what it
    returns is not a value bound before the loop."""
    for call in m.findall(test, m.Call()):
        if not m.matches(call.func, m.Name("isinstance")):
            return call
    return None


def _declared_global(ctx) -> set[str]:
    return {item.name.value for g in m.findall(ctx.module, m.Global()) for item in g.names}


def _rebinds_globals(ctx) -> cst.Call | None:
    """A call of the file that may rebind its globals: `exec` / `eval` (a configurator
    overriding the module's settings), `vars()` (no argument: the namespace itself), or
    `globals()` other than to read an entry."""
    dynamic = m.Call(func=m.Name("exec") | m.Name("eval")) | m.Call(func=m.Name("vars"), args=[])
    for call in m.findall(ctx.module, dynamic):
        return call
    calls = m.findall(ctx.module, m.Call(func=m.Name("globals")))
    read = {
        id(s.value)
        for s in m.findall(ctx.module, m.Subscript(value=m.Call(func=m.Name("globals"))))
    } | {
        id(c.func.value)
        for c in m.findall(
            ctx.module,
            m.Call(
                func=m.Attribute(
                    value=m.Call(func=m.Name("globals")),
                    attr=m.Name("items") | m.Name("keys") | m.Name("get"),
                )
            ),
        )
    }
    stored = {
        id(t.target.value)
        for t in m.findall(ctx.module, m.AssignTarget(target=m.Subscript()))
    }
    return next((c for c in calls if id(c) not in read or id(c) in stored), None)


def _as_list(found) -> list:
    return found if isinstance(found, list) else [found]


def _switches_mode(stmt) -> bool:
    return bool(m.findall(stmt, m.Call(func=m.Attribute(attr=m.Name("train") | m.Name("eval")))))


def known_test(ctx, test) -> bool | None:
    """The value of `test` wherever the loop runs, from what its names are bound to (None:
    not known). A setting read from a namespace of literals (`CFG.apex` of a Kaggle `class
    CFG`, `config["apex"]` of a dict only ever read) is read as its literal."""
    test = test.visit(_Settings(ctx))
    return decide(test, _known(ctx, test), lambda node: ctx.qualnames(node))


class _Settings(cst.CSTTransformer):
    """Each `CFG.field` / `cfg["key"]` holding a literal for sure replaced by the literal."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx

    def leave_Attribute(self, original, updated):
        return setting_literal(self.ctx, original) or updated

    def leave_Subscript(self, original, updated):
        return setting_literal(self.ctx, original) or updated


def setting_literal(ctx, node):
    """The literal a setting holds for sure (`CFG.apex` of a settings class, `cfg.apex` of a
    `@dataclass` default, `config["apex"]` of a dict only ever read), else None."""
    if isinstance(node, cst.Attribute):
        value = class_setting(ctx, node) or config_field(ctx, node)
    else:
        value = config_item(ctx, node)
    literal = isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)) or m.matches(
        value, m.Name("True") | m.Name("False") | m.Name("None")
    )
    return value if literal else None


def note_decided(ctx, stmt, taken) -> None:
    """The report's note for an `if` another pattern resolved by `known_test`."""
    _note(ctx, [(stmt, taken)])


def _note(ctx, decided) -> None:
    for node, taken in decided:
        test = ctx.module.code_for_node(node.test)
        ctx.notes.append(
            f"`{test}` is {taken} wherever the training runs (from what its names are "
            "bound to): only that branch is kept"
        )


def _steps(stmt) -> bool:
    return contains(stmt, BACKWARD) or contains(stmt, OPTIMIZER_CALL)


def _autocast(ctx, stmt, decide_test, decided):
    """`with autocast(..., enabled=<known>)`: the plain autocast when on, a marker of its
    body (unwrapped below) when off."""
    if not (isinstance(stmt, cst.With) and len(stmt.items) == 1 and is_autocast(ctx, stmt)):
        return stmt
    call = stmt.items[0].item
    enabled = next((a for a in call.args if a.keyword and a.keyword.value == "enabled"), None)
    if enabled is None:
        return stmt
    on = decide_test(enabled.value)
    if on is None:
        return stmt
    decided.append((cst.If(test=enabled.value, body=stmt.body), on))
    if not on:
        return _Off(stmt)
    args = [a for a in call.args if a is not enabled]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    item = stmt.items[0].with_changes(item=call.with_changes(args=args))
    return stmt.with_changes(items=[item])


class _Off:
    """An autocast turned off: its body runs as if written without it."""

    def __init__(self, stmt: cst.With) -> None:
        self.stmt = stmt


def _unwrapped(stmt) -> list:
    if not isinstance(stmt, _Off):
        return [stmt]
    body = list(stmt.stmt.body.body)
    if body:
        body[0] = body[0].with_changes(
            leading_lines=[*stmt.stmt.leading_lines, *body[0].leading_lines]
        )
    return body


# -- what the names of a test hold ---------------------------------------------------------


def _known(ctx, test) -> dict[str, object]:
    known = {}
    for name in collect_names(test).reads:
        if name == ctx.found.get("batch_index"):
            known[name] = INT  # enumerate's count, which the batch loop never rebinds
            continue
        value = _value_of_name(ctx, name)
        if value is not None:
            known[name] = value
    return known


def _value_of_name(ctx, name: str):
    """What `name` holds wherever the loop runs, as analysis/branches.py knows values, or
    None when that is not known."""
    if _module_global(ctx, name) and (
        name in _declared_global(ctx) or _rebinds_globals(ctx) is not None
    ):
        return None  # a function or a configurator's `exec` may rebind it behind its binding
    values = {_value(ctx, value) for value in reaching_values(ctx, name) or [None]}
    return values.pop() if len(values) == 1 else None


def _module_global(ctx, name: str) -> bool:
    """`name` is read from the module's globals where the loop runs."""
    return not ctx.in_function or (name not in ctx.params and name not in function_locals(ctx))


def _value(ctx, expr):
    if expr is None:
        return None
    if m.matches(expr, m.Name("None")):
        return NONE
    if m.matches(expr, m.Name("True") | m.Name("False")):
        return expr.value == "True"
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return expr.evaluated_value
    if isinstance(expr, (cst.Lambda, cst.FunctionDef)) or (
        isinstance(expr, cst.Name) and _script_function(ctx, expr.value)
    ):
        return FUNCTION
    if isinstance(expr, cst.Call):
        called = ctx.call_qualnames(expr)
        if any(_optimizer_class(q) for q in called):
            return Instance(OPTIMIZER_BASES | called)
        if any(_scheduler_class(q) for q in called):  # not None: `scheduler is not None`
            return Instance(frozenset(called))
        if called & SCALERS:
            return NOT_NONE
        if any(_module_class(q) for q in called) or _script_module_class(ctx, expr.func):
            return Instance(MODULE_BASES | called)
    return None


def _optimizer_class(qualname: str) -> bool:
    """`torch.optim.SGD`: every class torch.optim exports at its top is an optimizer."""
    parts = qualname.split(".")
    return len(parts) == 3 and parts[:2] == ["torch", "optim"] and parts[2][:1].isupper()


def _scheduler_class(qualname: str) -> bool:
    """`torch.optim.lr_scheduler.StepLR`: a class torch.optim.lr_scheduler exports."""
    parts = qualname.split(".")
    return len(parts) == 4 and parts[:3] == ["torch", "optim", "lr_scheduler"] and parts[3][:1].isupper()


# torch.nn's exports that are no Module (every other class it exports at its top is one)
_NOT_MODULES = frozenset({"Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"})


def _module_class(qualname: str) -> bool:
    parts = qualname.split(".")
    return (
        len(parts) == 3
        and parts[:2] == ["torch", "nn"]
        and parts[2][:1].isupper()
        and parts[2] not in _NOT_MODULES
    )


def _script_module_class(ctx, func) -> bool:
    """A class of the script deriving directly from `torch.nn.Module` (or one of its
    subclasses torch.nn exports)."""
    if not isinstance(func, cst.Name):
        return False
    for stmt in ctx.module.body:
        if isinstance(stmt, cst.ClassDef) and stmt.name.value == func.value:
            return any(any(_module_class(q) for q in ctx.qualnames(b.value)) for b in stmt.bases)
    return False


def _script_function(ctx, name: str) -> bool:
    return any(
        isinstance(stmt, cst.FunctionDef) and stmt.name.value == name for stmt in ctx.module.body
    )


def why_test_unknown(ctx, test) -> str:
    """"is not known before training: ..." for an `if` test another pattern met."""
    return _why(ctx, test)


def _why(ctx, test) -> str:
    """Why the undecided test is not one value, for the refusal: it differs between the
    callers of the function holding the loop, or what each name's binding is."""
    split = _split_by_callers(ctx, test)
    if split:
        return split
    parts = []
    for node in m.findall(test, m.Attribute(value=m.Name())):  # `CFG.apex` of `class CFG`
        problem = setting_problem(ctx, node)
        if problem:
            parts.append(f"`{code_of(node)}` is not read as a setting: {problem}")
    for name in sorted(collect_names(test).reads):
        if name in collect_names(ctx.loop).writes:
            parts.append(f"`{name}` changes during training")
            continue
        (found, count) = ctx.binding(name)
        if count == 1 and found is not None:
            parts.append(f"`{name}` is bound to `{ctx.module.code_for_node(found[1])}`")
        elif count:
            parts.append(f"`{name}` is bound {count} times")
        elif ctx.function is not None and name in ctx.params:
            shown = sorted({_shown(ctx, arg, value) for arg, value in passed_values(ctx, name) or []})
            if shown:
                parts.append(f"`{name}` is given {', '.join(shown)} by the callers")
    return "is not known before training" + (": " + "; ".join(parts) if parts else "")


def _split_by_callers(ctx, test) -> str:
    """`is True for one call ... and False for another: ...` when every call of the function
    holding the loop decides the test, not all the same way (d2l's `train_ch3` given the
    function `updater`, then `torch.optim.SGD(...)`)."""
    if ctx.function is None:
        return ""
    names = collect_names(test).reads
    given = sorted(names & ctx.params - collect_names(ctx.loop).writes)
    if not given:
        return ""
    per_name = {name: passed_values(ctx, name) for name in given}
    if any(not passed for passed in per_name.values()):
        return ""
    calls = len(next(iter(per_name.values())))
    outcomes = []
    for i in range(calls):
        known = {**_known(ctx, test)}
        for name, passed in per_name.items():
            value = _value(ctx, passed[i][1])
            if value is None:
                return ""
            known[name] = value
        taken = decide(test, known, lambda node: ctx.qualnames(node))
        if taken is None:
            return ""
        shown = " and ".join(f"`{n}` is {_shown(ctx, *per_name[n][i])}" for n in given)
        outcomes.append((taken, shown))
    if len({taken for taken, _ in outcomes}) < 2:
        return ""
    listed = "; ".join(f"{taken} where {shown}" for taken, shown in outcomes)
    return f"differs between the calls of `{ctx.function.name.value}()` ({listed})"


def _shown(ctx, argument: str, value) -> str:
    """What a caller passes, for a message: the value bound to the name it passes."""
    if isinstance(value, cst.FunctionDef):
        return f"the function `{argument}`"
    return f"`{ctx.module.code_for_node(value) if value is not None else argument}`"
