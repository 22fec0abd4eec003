"""Functions of the script that only choose a device or move data to one (course notebooks).

    def get_default_device():                         a device choice: `device =
        if torch.cuda.is_available():                 get_default_device()` reads as
            return torch.device("cuda")               `torch.device("cuda") if
        return torch.device("cpu")                    torch.cuda.is_available() else
                                                      torch.device("cpu")` (device_intent)

    def to_device(data, device):                      a device move: `to_device(model, device)`
        if isinstance(data, (list, tuple)):           places the model as `model.to(device)`
            return [to_device(x, device) for x in data]   does, `yield to_device(b, self.device)`
        return data.to(device, non_blocking=True)         moves each batch (loader_wrappers)

Read from the source only: a `def` of the module bound once, without decorators. A choice
takes no parameters, or parameters each given a constant by the call or left to a literal
default (d2l's `try_gpu(i=0)`, `get_device(False)`), read as those constants. Its body is
straight-line code of `if` tests and returns -- `return D`; `if C1: return D1` `if C2: return
D2` `return D3` (the tutorials' cuda / mps / cpu helper; `elif` / `else` read the same), as
`D1 if C1 else D2 if C2 else D3` -- or binds one name by the if/elif/else idiom and returns it
(`if C: device = D1` `else: device = D2` `return device`: by data flow, the name bound by that
`if` chain only, once in every branch, every other statement a report). A test reads only imported modules and
constants (`torch.cuda.is_available()`, `getattr(torch.backends, "mps", None) is not None`),
so it means the same wherever the Trainer is built. Reports beside the returns (`print("Using
device: cuda")`) are allowed: the call then stays where it is (emit/transform.py), so the
line prints where it did. Anything else the body runs (`torch.cuda.set_device`, reading
`LOCAL_RANK`, a code path returning nothing) makes it no choice, and `choice_problem` says
which statement, for the refusal (TL142, TL132). A move takes `(data, device)` and does
nothing but `data.to(device)` (`non_blocking=` only), optionally first mapping itself over
the items of a list or tuple into a list. Anything else is not one of these (None): the
callers refuse as they would for any unknown call.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import builtin_unshadowed, collect_names, only_module_binding, rename
from ..analysis.statements import without_docstring


def _module_function(ctx, call) -> cst.FunctionDef | None:
    """The plain `def` of the module that `call` calls by name, if it is bound once."""
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name)):
        return None
    func = only_module_binding(ctx.module, call.func.value)
    if not isinstance(func, cst.FunctionDef) or func.decorators or func.asynchronous:
        return None
    return func


def _returned(stmt) -> cst.BaseExpression | None:
    """X of a statement that is exactly `return X` (or a block holding only that)."""
    if isinstance(stmt, (cst.IndentedBlock, cst.Else)):
        body = stmt.body if isinstance(stmt, cst.IndentedBlock) else stmt.body.body
        return _returned(body[0]) if len(body) == 1 else None
    if m.matches(stmt, m.SimpleStatementLine(body=[m.Return(value=m.DoNotCare())])):
        return stmt.body[0].value
    return None


def device_choice(ctx, call) -> cst.BaseExpression | None:
    """The expression a call of a device-choosing function of the file stands for (its
    returned values as one conditional), or None. The caller checks the values are devices."""
    return _read_choice(ctx, call)[0]


def choice_reports(ctx, call) -> bool:
    """The device-choosing function `call` calls also reports its choice (`print("Using
    device: cuda")`): the call stays where it is, so the lines print where they did."""
    return _read_choice(ctx, call)[2]


def choice_problem(ctx, call) -> str | None:
    """Why a call of a function of the file is not read as a device choice ("`get_device()`
    also runs `torch.cuda.set_device(0)`"), for a refusal to say; None when it is one or when
    `call` calls no plain function of the file."""
    return _read_choice(ctx, call)[1]


def _read_choice(ctx, call) -> tuple[cst.BaseExpression | None, str | None, bool]:
    """(choice, problem, reports) of `call`, memoised per call node for the migration."""
    cache = ctx.found.setdefault("device_choices", {})
    hit = cache.get(id(call))
    if hit is None or hit[0] is not call:
        hit = (call, *_choice_of(ctx, call))
        cache[id(call)] = hit
    return hit[1:]


# the `if` tests a device choice may make (cuda, mps, xpu, ... then the cpu)
_MOST_TESTS = 6


def _choice_of(ctx, call) -> tuple[cst.BaseExpression | None, str | None, bool]:
    func = _module_function(ctx, call)
    if func is None:
        return None, None, False
    shown = f"`{func.name.value}()`"
    given = _given_constants(func, call)
    if given is None:
        return None, f"{shown} is given a value other than a constant", False
    if len(m.findall(func.body, m.If())) > _MOST_TESTS:  # each `if` may copy what follows it
        return None, f"{shown} tests more than a device choice does", False
    body = [_given_defaults(s, given) for s in without_docstring(func.body.body)]
    reports: list = []
    assigned = _assigned_choice(ctx, body, reports)
    if assigned is not None:
        choice, problem = assigned
        if choice is None:
            return None, f"{shown} {problem}", False
        return choice, None, bool(reports)
    choice, problem = _returns_chain(ctx, body, reports)
    if choice is None:
        return None, f"{shown} {problem}", False
    return choice, None, bool(reports)


def _returns_chain(ctx, stmts: list, reports: list) -> tuple[cst.BaseExpression | None, str]:
    """What straight-line code of `if` tests, reports and returns returns, as one
    conditional (`if C1: return D1` `if C2: return D2` `return D3` -> `D1 if C1 else D2 if C2
    else D3`; an `elif` / `else` reads the same), the reports it runs gathered in `reports`;
    else (None, what the code does more). A test may read only imported modules and
    constants (`torch.cuda.is_available()`, `getattr(torch.backends, "mps", None)`), so it
    means the same wherever the Trainer is built."""
    code = ctx.module.code_for_node
    if not stmts:
        return None, "may end without returning a device"
    first, rest = stmts[0], stmts[1:]
    if isinstance(first, cst.If):
        unread = collect_names(first.test).reads - _readable(ctx)
        if unread:
            shown = code(first.test).strip()
            return None, f"tests `{shown}`, reading `{sorted(unread)[0]}` of the script"
        body, problem = _returns_chain(ctx, [*first.body.body, *rest], reports)
        if body is None:
            return None, problem
        if first.orelse is None:
            after = rest
        elif isinstance(first.orelse, cst.If):  # elif
            after = [first.orelse, *rest]
        else:
            after = [*first.orelse.body.body, *rest]
        orelse, problem = _returns_chain(ctx, after, reports)
        if orelse is None:
            return None, problem
        return cst.IfExp(test=first.test, body=body, orelse=orelse), ""
    returned = _returned(first)
    if returned is not None:
        return returned, ""
    from .device_intent import reports_choice  # a cycle

    if reports_choice(ctx, first):
        reports.append(first)
        return _returns_chain(ctx, rest, reports)
    return None, f"also runs `{code(first.with_changes(leading_lines=[])).strip()}`"


# builtins a device test reads besides imported modules (`getattr(torch.backends, "mps",
# None) is not None` on old torch builds)
_TEST_BUILTINS = ("getattr", "hasattr")


def _readable(ctx) -> set[str]:
    """Names a helper's device test may read: imported modules, constants, and the builtins
    above where the file does not bind them."""
    cache = ctx.found.get("device_test_names")
    if cache is None:
        cache = set(ctx.names.imports) | {"None", "True", "False"}
        cache |= {n for n in _TEST_BUILTINS if builtin_unshadowed(ctx.module, n)}
        ctx.found["device_test_names"] = cache
    return cache


def _assigned_choice(ctx, body: list, reports: list):
    """`if C1: device = D1` `elif C2: device = D2` `else: device = D3` (device_intent's
    if/else idiom) then `return device`, as `D1 if C1 else D2 if C2 else D3`; None when `body`
    is not of that form. By data flow: the returned name is bound by one statement only, an
    `if` chain binding it to a device once in every branch, and every other statement only
    reports (`print(f"Using device: {device}")`, gathered in `reports`). (None, what the
    code does more) when the chain is there but a statement or a test keeps it from being a
    choice the Trainer can make."""
    from .device_intent import (  # a cycle
        as_conditional,
        device_if_binding,
        device_if_extra,
        device_if_reports,
        reports_choice,
    )

    returned = _returned(body[-1]) if body else None
    if not isinstance(returned, cst.Name):
        return None
    name = returned.value
    binders = [s for s in body[:-1] if name in collect_names(s).writes]
    chains = [s for s in binders if device_if_binding(ctx, s) == name]
    code = ctx.module.code_for_node
    if chains and len(binders) > 1:
        again = next(s for s in binders if s is not chains[0])
        shown = code(again.with_changes(leading_lines=[])).strip().splitlines()[0]
        return None, f"binds `{name}` besides the `if` choosing it: `{shown}`"
    if len(binders) != 1 or not isinstance(binders[0], cst.If):
        return None
    choice = binders[0]
    if device_if_binding(ctx, choice) != name:
        extra = device_if_extra(ctx, choice, name)
        if extra is None:
            return None
        return None, f"also runs `{code(extra.with_changes(leading_lines=[])).strip()}`"
    for stmt in body[:-1]:
        if stmt is choice:
            continue
        if not reports_choice(ctx, stmt):
            return None, f"also runs `{code(stmt.with_changes(leading_lines=[])).strip()}`"
        reports.append(stmt)
    branch = choice
    while isinstance(branch, cst.If):
        unread = collect_names(branch.test).reads - _readable(ctx)
        if unread:
            shown = code(branch.test).strip()
            return None, f"tests `{shown}`, reading `{sorted(unread)[0]}` of the script"
        branch = branch.orelse
    if device_if_reports(choice):
        reports.append(choice)
    return as_conditional(ctx, choice), ""


def _given_constants(func: cst.FunctionDef, call: cst.Call) -> dict | None:
    """A choice's parameters, each as the constant `call` gives it (`get_device(False)`) or
    its literal default (d2l's `try_gpu(i=0)`, called as `try_gpu()`): name -> constant;
    None when a parameter would be given anything else (a name, an expression, `*args`)."""
    params = func.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None:
        return None
    positional = [*params.posonly_params, *params.params]
    named = {p.name.value: p for p in [*positional, *params.kwonly_params]}
    given = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if index >= len(positional):
                return None
            name = positional[index].name.value
        elif arg.keyword.value in named and arg.keyword.value not in given:
            name = arg.keyword.value
        else:
            return None
        if name in given or not _constant(arg.value):
            return None
        given[name] = arg.value
    for name, param in named.items():
        if name not in given:
            if not _constant(param.default):
                return None
            given[name] = param.default
    return given


def _constant(value) -> bool:
    """A literal a device choice may be given: a number, a plain string, True/False/None."""
    if isinstance(value, (cst.Integer, cst.SimpleString)):
        return True
    return isinstance(value, cst.Name) and value.value in ("True", "False", "None")


class _LiteralFStrings(cst.CSTTransformer):
    """An f-string of literals replaced by the string it makes (`f"cuda:{0}"` -> `"cuda:0"`),
    so a choice given its defaults reads as a device of its own."""

    def leave_FormattedString(self, original, updated) -> cst.BaseExpression:
        if updated.start.lower() != "f" + updated.end:  # no r/b prefixes, no triple quotes
            return updated
        text = ""
        for part in updated.parts:
            if isinstance(part, cst.FormattedStringText):
                text += part.value
            elif isinstance(part.expression, cst.Integer) and part.format_spec is None:
                text += part.expression.value
            else:
                return updated
        if "\\" in text or '"' in text:
            return updated
        return cst.SimpleString(f'"{text}"')


def _given_defaults(stmt, defaults: dict[str, cst.BaseExpression]):
    """`stmt` with the parameters read as their defaults (by scope: not `torch.cuda` for a
    parameter `cuda`)."""
    return rename(stmt, defaults).visit(_LiteralFStrings()) if defaults else stmt


def moved_data(ctx, call) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(data, device) a call of a device-moving function of the file passes, or None."""
    func = _module_function(ctx, call)
    params = func.params if func is not None else None
    if params is None or params.kwonly_params or params.posonly_params or params.star_kwarg:
        return None
    if isinstance(params.star_arg, (cst.Param, cst.ParamStar)):
        return None
    if len(params.params) != 2 or any(p.default is not None for p in params.params):
        return None
    data, device = (p.name.value for p in params.params)
    body = without_docstring(func.body.body)
    if len(body) == 2 and not _maps_itself(body[0], func.name.value, data, device):
        return None
    if len(body) not in (1, 2) or not _moves(_returned(body[-1]), data, device):
        return None
    if any(arg.star or arg.keyword is not None for arg in call.args) or len(call.args) != 2:
        return None
    return call.args[0].value, call.args[1].value


def _moves(value, data: str, device: str) -> bool:
    """`data.to(device)` (also with `non_blocking=...`)."""
    if not m.matches(
        value, m.Call(func=m.Attribute(m.Name(data), m.Name("to")), args=[m.Arg(m.Name(device))])
    ) and not m.matches(
        value,
        m.Call(
            func=m.Attribute(m.Name(data), m.Name("to")),
            args=[m.Arg(m.Name(device)), m.Arg(keyword=m.Name("non_blocking"))],
        ),
    ):
        return False
    return value.args[0].keyword is None


def _maps_itself(stmt, name: str, data: str, device: str) -> bool:
    """`if isinstance(data, (list, tuple)): return [name(x, device) for x in data]`."""
    if not (isinstance(stmt, cst.If) and stmt.orelse is None):
        return False
    test = stmt.test
    if not m.matches(test, m.Call(func=m.Name("isinstance"), args=[m.Arg(m.Name(data)), m.Arg()])):
        return False
    kinds = test.args[1].value
    kinds = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    if not kinds or not all(m.matches(k, m.Name("list") | m.Name("tuple")) for k in kinds):
        return False
    mapped = _returned(stmt.body)
    if not m.matches(
        mapped,
        m.ListComp(
            elt=m.Call(func=m.Name(name), args=[m.Arg(m.Name()), m.Arg(m.Name(device))]),
            for_in=m.CompFor(target=m.Name(), iter=m.Name(data), ifs=[], inner_for_in=None),
        ),
    ):
        return False
    item = mapped.for_in.target.value
    return mapped.elt.args[0].value.value == item and item not in (name, device)
