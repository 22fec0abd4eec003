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
takes no parameters (or only parameters with literal defaults, which a call without arguments
leaves to them: d2l's `try_gpu(i=0)`) and its body is `return D`, or `if C: return D1` then
`return D2` (or an `else:`), or binds one name by the if/else idiom and returns it (`if C:
device = D1` `else: device = D2` `return device`), with a condition reading only imported
modules (`torch.cuda.is_available()`), so it means the same wherever the Trainer is built. A
move takes `(data, device)` and does nothing but `data.to(device)` (`non_blocking=` only),
optionally first mapping itself over the items of a list or tuple into a list. Anything else
is not one of these (None): the callers refuse as they would for any unknown call.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names, only_module_binding, rename
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
    func = _module_function(ctx, call)
    defaults = _literal_defaults(func) if func is not None and not call.args else None
    if defaults is None:
        return None
    body = [_given_defaults(s, defaults) for s in without_docstring(func.body.body)]
    if len(body) == 2 and isinstance(body[0], cst.If) and body[0].orelse is not None:
        return _assigned_choice(ctx, *body)
    if len(body) == 2 and isinstance(body[0], cst.If) and body[0].orelse is None:
        choice, otherwise = body[0], _returned(body[1])
    elif len(body) == 1 and isinstance(body[0], cst.If) and isinstance(body[0].orelse, cst.Else):
        choice, otherwise = body[0], _returned(body[0].orelse)
    elif len(body) == 1:
        return _returned(body[0])
    else:
        return None
    chosen = _returned(choice.body)
    imported = set(ctx.names.imports)
    if chosen is None or otherwise is None or not collect_names(choice.test).reads <= imported:
        return None
    return cst.IfExp(test=choice.test, body=chosen, orelse=otherwise)


def _assigned_choice(ctx, choice: cst.If, last) -> cst.BaseExpression | None:
    """`if C: device = D1` `else: device = D2` (device_intent's if/else idiom) then `return
    device`, as `D1 if C else D2`. Not when a branch also prints: the call's binding goes
    once the Trainer chooses, and the print with it."""
    from .device_intent import as_conditional, device_if_binding, device_if_reports  # a cycle

    name = device_if_binding(ctx, choice)
    if name is None or device_if_reports(choice) or not m.matches(_returned(last), m.Name(name)):
        return None
    tests, branch = [], choice
    while isinstance(branch, cst.If):
        tests.append(branch.test)
        branch = branch.orelse
    if not collect_names(*tests).reads <= set(ctx.names.imports):
        return None
    return as_conditional(ctx, choice)


def _literal_defaults(func: cst.FunctionDef) -> dict[str, cst.BaseExpression] | None:
    """A choice's parameters, when each has a literal default (d2l's `try_gpu(i=0)`, called
    as `try_gpu()`): name -> default; None for a parameter a call would have to give."""
    params = func.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None:
        return None
    defaults = {}
    for param in [*params.posonly_params, *params.params, *params.kwonly_params]:
        if not isinstance(param.default, (cst.Integer, cst.SimpleString)):
            return None
        defaults[param.name.value] = param.default
    return defaults


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
