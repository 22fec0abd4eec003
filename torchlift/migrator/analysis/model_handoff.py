"""Whether a call the model is handed to only reads its state, never runs it.

    early_stopping(val_loss, model)        # EarlyStopping.__call__ -> self.save_checkpoint(
                                           #   val_loss, model) -> torch.save(model.state_dict())

Code after an evaluation pass that hands the model to a function of the script may run it, in
whatever mode the script left it. When the callee (a function of the file, or a method of an
instance of a class of the file) only takes the model's state -- `state_dict()`,
`parameters()` -- or hands it on to another such callee, the mode does not matter. Anything
else the callee does with it (calls it, stores it, reads an attribute) counts as a run, and so
does a callee reading a model as a global. So does `torch.save(model, ...)`: the pickled
module keeps its `training` flags, and whoever loads it predicts in that mode.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .names import definition_reads, only_module_binding

# methods whose result does not depend on the module's train/eval mode (and do not run it)
STATE_METHODS = frozenset(
    "state_dict parameters named_parameters buffers named_buffers modules named_modules "
    "children named_children".split()
)
_DEPTH = 4  # callees followed through; deeper chains count as runs


def only_reads_state(ctx, call: cst.Call, models: set[str]) -> bool:
    """Whether `call`, which is handed one of `models` (or is a function of the script reading
    one), only reads the model's state."""
    return _only_reads(ctx, call, models, None, _DEPTH)


def _only_reads(ctx, call, models, cls, depth) -> bool:
    if depth == 0:
        return False
    target = callee_of(ctx, call, cls)
    if target is None:
        return False
    function, owner = target
    if definition_reads(function) & models:
        return False  # it reads a model as a global
    params = [p.name.value for p in function.params.params]
    if owner is not None:
        params = params[1:]  # self
    handed = _handed_parameters(call, params, models)
    if handed is None:
        return False
    return all(_param_only_read(ctx, function, owner, p, depth - 1) for p in handed)


def callee_of(ctx, call, cls) -> tuple[cst.FunctionDef, cst.ClassDef | None] | None:
    """The `def` a call runs: a function of the file, `self.method` of the class being read,
    or `__call__` / a method of an instance bound once to a class of the file."""
    func = call.func
    if cls is not None and m.matches(func, m.Attribute(m.Name("self"), m.Name())):
        method = _method(cls, func.attr.value)
        return (method, cls) if method is not None else None
    if isinstance(func, cst.Name):
        binding = only_module_binding(ctx.module, func.value)
        if isinstance(binding, cst.FunctionDef) and not binding.decorators:
            return binding, None
        instance, method_name = func.value, "__call__"
    elif m.matches(func, m.Attribute(m.Name(), m.Name())):
        instance, method_name = func.value.value, func.attr.value
    else:
        return None
    binding, count = ctx.binding(instance)
    value = binding[1] if binding is not None and count == 1 else None
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
        return None
    owner = only_module_binding(ctx.module, value.func.value)
    if not isinstance(owner, cst.ClassDef) or owner.bases:
        return None  # a base class could define the method the call runs
    method = _method(owner, method_name)
    return (method, owner) if method is not None else None


def _method(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    for item in cls.body.body:
        if isinstance(item, cst.FunctionDef) and item.name.value == name and not item.decorators:
            return item
    return None


def _handed_parameters(call, params, models) -> list[str] | None:
    """The parameters the call hands a model to (None: not readable, e.g. `*args`)."""
    handed = []
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if not (isinstance(arg.value, cst.Name) and arg.value.value in models):
            continue
        if arg.keyword is not None:
            name = arg.keyword.value
        elif index < len(params):
            name = params[index]
        else:
            return None
        if name not in params:
            return None
        handed.append(name)
    return handed


def _param_only_read(ctx, function, owner, param, depth) -> bool:
    """Every use of `param` in the body takes state from it or hands it to a callee that
    does (the body rebinding or storing it counts as a use that is neither)."""
    uses = _Uses(param)
    function.body.visit(uses)
    readings = 0
    for call in m.findall(function.body, m.Call()):
        if m.matches(call.func, m.Attribute(m.Name(param), m.Name())):
            if call.func.attr.value not in STATE_METHODS:
                return False
            readings += 1
        if any(m.matches(a.value, m.Name(param)) for a in call.args):
            if not _only_reads(ctx, call, {param}, owner, depth):
                return False
            readings += sum(m.matches(a.value, m.Name(param)) for a in call.args)
    return uses.count == readings


class _Uses(cst.CSTVisitor):
    """Occurrences of a name as a name (not an attribute's or a keyword's)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.count += 1

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False
