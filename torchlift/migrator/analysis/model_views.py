"""Names holding the model's own objects: its parameters, submodules or their gradients.

    parameters = list(model.parameters())          `parameters` holds the model's tensors:
    named = dict(model.named_parameters())         code reading it after optimizer.step()
    head = model[-1]                               reads what the step changed (`p.grad`,
    params = optimizer.param_groups[0]["params"]   `p.data`), as a read of `model` does

A name is such a view when a statement binds it, or fills it (`decay.append(p)`), from an
expression using the model other than by calling it: `model(x)` or a method of the model's
own, `model.loss_fn(out, y)`, computes a new value; `model.parameters()`, `model[-1]`,
`model.fc.weight` or `model` itself hand out the model's objects. The same for the names built from such a view (`ps = [p for p in parameters]`), and
for an optimizer's `param_groups` / `state` (the model's tensors and their moments). A name
computed from a view (`n = sum(p.numel() for p in parameters)`) counts too: reading it after
the step where the script read it is what the script did, and telling a count from a tensor
would take the types. A value that is new by its form is no view, though: arithmetic
(`loss = mse + lam * l2`), a builtin reduction (`l2 = sum(p.pow(2).sum() for p in ...)`), a
tensor method that allocates (`.item()`, `.norm()`), a torch loss module's call, or a call of
the script's own function returning only such values (`f = pde_residual(model, x, t)`): it
holds nothing the step changes afterwards, so reading it stays in the step, where it reads
better.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .function_reads import module_functions
from .names import bound_names, builtin_unshadowed, collect_names, only_module_binding

_FILLING = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})

# nn.Module's methods returning the module's own objects (any other method of the model
# called on it, `model.encode(x)`, computes a value; `model.fc.weight.t()` is a view still)
_HANDING_OUT = frozenset(
    {
        *("parameters", "named_parameters", "buffers", "named_buffers", "state_dict"),
        *("children", "named_children", "modules", "named_modules"),
        *("get_parameter", "get_buffer", "get_submodule"),
    }
)

# an optimizer's attributes holding the model's parameters or the moments its step changes
_OPTIMIZER_VIEWS = frozenset({"param_groups", "state", "state_dict"})


def model_views(
    statements, models: set[str], optimizers: set[str] = frozenset(), module=None
) -> set[str]:
    """The names `statements` (in order, one scope) bind or fill from the `models`' objects,
    directly or through names bound so, or from the `optimizers`' parameter groups or state.
    The models and optimizers themselves are not among them. `module`, when given, is the
    file: its functions and loss modules tell values computed by calling them."""
    new_value = _NewValues(module)
    views: set[str] = set()
    changed = True
    while changed:  # a view built later in the list from one built earlier, or in a loop
        changed = False
        for stmt, binding in _bindings(statements):
            if not (_hands_out(binding, models | views) or _optimizer_view(binding, optimizers)):
                continue
            if new_value.binds(stmt):
                continue
            new = (bound_names(stmt) | _filled(stmt)) - views - models - optimizers
            if new:
                views |= new
                changed = True
    return views


def _bindings(statements):
    """(statement, the part of it to read) for every simple statement of `statements`, also
    inside compound ones, and for the headers binding names (`for p in model.parameters()`,
    `with ... as x`, read as `p = model.parameters()`): an `if` binding the model's device
    and a loss module's is not one binding of both."""
    for stmt in statements:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield stmt, stmt
            continue
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue  # defines a name, binds no view
        headers = []
        if isinstance(stmt, cst.For):
            headers = [(stmt.target, stmt.iter)]
        elif isinstance(stmt, cst.With):
            headers = [(i.asname.name, i.item) for i in stmt.items if i.asname is not None]
        for target, value in headers:
            assign = cst.Assign(targets=[cst.AssignTarget(target)], value=value)
            yield cst.SimpleStatementLine(body=[assign]), value
        for block in _blocks(stmt):
            yield from _bindings(block)


def _blocks(stmt):
    """The statement lists of a compound statement: its body, else, handlers, finally."""
    if isinstance(stmt.body, cst.IndentedBlock):
        yield stmt.body.body
    for part in (getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None)):
        if isinstance(part, cst.If):  # `elif`
            yield [part]
        elif part is not None and isinstance(part.body, cst.IndentedBlock):
            yield part.body.body
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body.body


def _hands_out(stmt, names: set[str]) -> bool:
    """`stmt` reads one of `names` other than as the callee of a call (`model(x)`)."""
    if not collect_names(stmt).reads & names:
        return False
    finder = _NonCalleeUse(names)
    stmt.visit(finder)
    return finder.found


def _optimizer_view(stmt, optimizers: set[str]) -> bool:
    attribute = m.Attribute(
        value=m.Name(m.MatchIfTrue(lambda n: n in optimizers)),
        attr=m.Name(m.MatchIfTrue(lambda n: n in _OPTIMIZER_VIEWS)),
    )
    return bool(optimizers) and bool(m.findall(stmt, attribute))


def reads_optimizer_tensors(stmt, optimizers: set[str]) -> bool:
    """`stmt` reads the tensors an optimizer holds: its `state` (`state_dict()`), or the
    "params" of its `param_groups` (a group's "lr" alone is no tensor: Lightning's scheduler
    step, not the optimizer's, changes it)."""
    if not optimizers or not collect_names(stmt).reads & optimizers:
        return False
    owned = m.Name(m.MatchIfTrue(lambda n: n in optimizers))
    if m.findall(stmt, m.Attribute(value=owned, attr=m.Name("state") | m.Name("state_dict"))):
        return True
    if not m.findall(stmt, m.Attribute(value=owned, attr=m.Name("param_groups"))):
        return False
    key = m.SubscriptElement(m.Index(m.SimpleString(m.MatchIfTrue(_is_params_key))))
    return bool(m.findall(stmt, m.Subscript(slice=[key])))


def _is_params_key(literal: str) -> bool:
    return literal.strip("\"'") == "params"


def _filled(stmt) -> set[str]:
    """The names `stmt` adds to in place (`name.append(p)`, `name[k] = p`)."""
    filled = set()
    for call in m.findall(stmt, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name()))):
        if call.func.attr.value in _FILLING:
            filled.add(call.func.value.value)
    for target in m.findall(stmt, m.AssignTarget(target=m.Subscript(value=m.Name()))):
        filled.add(target.target.value.value)
    return filled


class _NonCalleeUse(cst.CSTVisitor):
    """Finds a use of one of `names` that is not the callee of a call nor an attribute's
    name (`x.model` is no read of `model`)."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.found = False
        self._skip: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name):  # `model(x)`: a new tensor
            self._skip.add(id(func))
        elif (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.attr.value not in _HANDING_OUT
        ):  # `model.loss_fn(out, y)`, `model.encode(x)`: a method computing a value
            self._skip.add(id(func.value))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._skip.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names and id(node) not in self._skip:
            self.found = True


# calls making a new value whatever they are given (the builtins' when not shadowed)
_NEW_VALUE_BUILTINS = frozenset({"sum", "len", "float", "int", "round", "abs", "bool", "str"})

# tensor methods that always allocate (`.detach()`, `.t()`, `.view()`, `.cpu()` may share the
# parameter's storage, so they are not here)
_ALLOCATING_METHODS = frozenset(
    {"item", "tolist", "numel", "sum", "mean", "norm", "std", "var", "pow", "sqrt", "clone"}
)


class _NewValues:
    """Tells a statement binding only a value that is new by its form."""

    def __init__(self, module) -> None:
        self.module = module
        self.functions = module_functions(module) if module is not None else {}
        self._returns_new: dict[str, bool] = {}

    def binds(self, stmt) -> bool:
        """`stmt` is `x = <new value>` (also annotated or augmented)."""
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return False
        small = stmt.body[0]
        if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            return small.value is not None and self.is_new(small.value)
        return False

    def is_new(self, expr) -> bool:
        if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)):
            return True
        if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString, cst.FormattedString)):
            return True
        if isinstance(expr, (cst.Tuple, cst.List)):  # `return loss, {"mse": mse.item()}`
            return all(self.is_new(element.value) for element in expr.elements)
        if isinstance(expr, cst.Dict):
            return all(
                isinstance(element, cst.DictElement) and self.is_new(element.value)
                for element in expr.elements
            )
        if not isinstance(expr, cst.Call):
            return False
        func = expr.func
        if isinstance(func, cst.Attribute):
            return func.attr.value in _ALLOCATING_METHODS
        if not isinstance(func, cst.Name) or self.module is None:
            return False
        name = func.value
        if name in _NEW_VALUE_BUILTINS:
            return builtin_unshadowed(self.module, name)
        return self._loss_module(name) or self._function_returns_new(name)

    def _loss_module(self, name: str) -> bool:
        """`name` is bound once, at module level, to a torch loss module (`nn.MSELoss()`)."""
        binding = only_module_binding(self.module, name)
        if binding is None or not m.matches(
            binding, m.SimpleStatementLine(body=[m.Assign(value=m.Call())])
        ):
            return False
        dotted = _dotted(binding.body[0].value.func)
        return (
            dotted is not None
            and dotted.split(".")[0] in ("nn", "torch")
            and (dotted.endswith("Loss"))
        )

    def _function_returns_new(self, name: str) -> bool:
        """The file's function `name` returns only values new by their form."""
        if name not in self._returns_new:
            self._returns_new[name] = False  # a recursive function: not known
            function = self.functions.get(name)
            returns = m.findall(function, m.Return()) if function is not None else []
            self._returns_new[name] = bool(returns) and all(
                r.value is not None and self.is_new(r.value) for r in returns
            )
        return self._returns_new[name]


def _dotted(expr) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        head = _dotted(expr.value)
        return None if head is None else f"{head}.{expr.attr.value}"
    return None
