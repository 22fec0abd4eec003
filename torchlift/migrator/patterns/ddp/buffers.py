"""Whether a model provably holds no buffers, for a validation pass under DDP.

Lightning runs `validation_step` through the DistributedDataParallel wrapper, whose forward
first broadcasts rank 0's buffers (BatchNorm's running statistics) to the other ranks; the
runtime calls `validation_step` on the module itself, with no broadcast. A script evaluating
`model(x)` through its wrapper matches the first, one evaluating `model.module` the second, so
for a model with buffers one engine would evaluate other statistics on ranks above 0. Without
buffers the broadcast is nothing: all three evaluate the same.

"Provably" is by construction: the model is built from torch.nn layers known to hold no
buffers (`nn.Sequential(nn.Linear(...), nn.ReLU(), ...)`), or from classes of the script whose
`__init__` builds only those (and calls nothing else but builtins and tensor factories), and
which never call `register_buffer`. Anything else -- BatchNorm, a torchvision model, a class
imported from elsewhere -- is "may hold buffers".
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.names import bound_names, mentions
from ...analysis.statements import single_assign
from ...rule import Unsupported
from ...source.code_text import code_of
from ..factories import returned
from .facts import DDP_CLASSES
from .sync_batchnorm import converts_layers

_LAYERS = """
Linear Bilinear LazyLinear Identity Flatten Unflatten Embedding EmbeddingBag
Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d
ReLU ReLU6 LeakyReLU PReLU ELU SELU CELU GELU SiLU Mish Tanh Sigmoid Hardtanh Hardswish
Hardsigmoid Softplus Softsign Tanhshrink Threshold Softmax LogSoftmax Softmin GLU
Dropout Dropout1d Dropout2d Dropout3d AlphaDropout
MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d
AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d
LayerNorm GroupNorm RNN LSTM GRU RNNCell LSTMCell GRUCell
Sequential ModuleList ModuleDict Parameter ParameterList ParameterDict
""".split()
BUFFER_FREE = frozenset(f"torch.nn.{name}" for name in _LAYERS)
# what else a model's construction may call: moves and dtype changes of the built module
_MODULE_METHODS = frozenset({"to", "cpu", "cuda", "float", "double", "half", "train"})
_BUILTINS = frozenset(
    {"range", "len", "int", "float", "list", "tuple", "zip", "enumerate", "super"}
)


def buffers_held(ctx, names: set[str]) -> str | None:
    """Why the model bound to one of `names` (its name and aliases) may hold buffers, or None
    when it provably holds none. Read: every statement before the loop binding it (each
    call in it known: `_construction`), the names handed to those calls as they are
    (`nn.Sequential(*layers)`: every statement mentioning `layers`, alike), and every other
    statement mentioning the model (`model.bn = nn.BatchNorm1d(4)`, `model.add_module(...)`:
    no torch.nn layer but those known, no module added by a method)."""
    classes = {s.name.value: s for s in ctx.module.body if isinstance(s, cst.ClassDef)}
    body = [s for s in ctx.scope_before if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
    built = False
    todo, done = list(names), set()
    while todo:
        name = todo.pop()
        done.add(name)
        for stmt in body:
            if name not in mentions(stmt):
                continue
            binds = name in bound_names(stmt)
            assign = single_assign(stmt)
            if binds and name in names and assign and _rebinding(ctx, assign[1], names):
                continue
            if binds and name in names and converts_layers(ctx, stmt, name):
                continue  # SyncBatchNorm for BatchNorm: buffers only where there were some
            if binds and name in names and assign is None:
                why = _from_factory(ctx, stmt, name, classes)
                if why != _NOT_A_FACTORY:  # `data, model, opt = load_train_objs()`
                    if why is not None:
                        return why
                    built = True
                    continue
            if binds or name not in names:
                built = built or name in names
                why = _construction(ctx, stmt, classes, frozenset())
                todo += [n for n in _handed_names(stmt) - done if n not in todo]
            else:
                why = _added_modules(ctx, stmt, classes)
            if why is not None:
                return why
    if not built:
        return f"`{sorted(names)[0]}` is not built where the conversion can see it"
    return None


_NOT_A_FACTORY = "not a factory"


def _from_factory(ctx, stmt, name: str, classes: dict) -> str | None:
    """Why the model `stmt` unpacks from a factory of the file (patterns/factories.py) may
    hold buffers, None when it provably holds none; _NOT_A_FACTORY for another statement.
    Read in the factory: the statement binding the local it returns (or the returned
    expression), handed nothing, and every other statement there mentioning that local."""
    try:
        factory = returned(ctx, stmt, name)
    except Unsupported as refused:
        return f"the model may hold buffers: {refused.reason}"
    if factory is None:
        return _NOT_A_FACTORY
    element = factory.returns[0].elements[factory.position].value
    local = element.value if isinstance(element, cst.Name) else None
    if factory.value is None or (local is not None and local not in factory.locals):
        return f"`{name}` is not built where the conversion can see it"
    body = [s for s in factory.factory.body.body if local is not None and local in mentions(s)]
    built = [s for s in body if local in bound_names(s)] or [factory.value]
    if any(_handed_names(node) for node in built):
        return f"the model may hold buffers: `{name}` is built from names the factory is handed"
    for node in built:
        why = _construction(ctx, node, classes, frozenset())
        if why is not None:
            return why
    for other in body:
        if local not in bound_names(other):
            why = _added_modules(ctx, other, classes)
            if why is not None:
                return why
    return None


def _handed_names(stmt) -> set[str]:
    """Names given as they are to a call in `stmt` (`f(x)`, `f(*xs)`, `f(k=x)`)."""
    return {
        arg.value.value
        for call in m.findall(stmt, m.Call())
        if not m.matches(call.func, m.Attribute(attr=m.Name()))
        or call.func.attr.value not in _MODULE_METHODS  # `.to(device)` adds nothing
        for arg in call.args
        if isinstance(arg.value, cst.Name)
    }


def _added_modules(ctx, stmt, classes: dict) -> str | None:
    """A statement using the built model: torch.nn layers it makes must be known, and it may
    not add modules or buffers through a method."""
    for call in m.findall(stmt, m.Call()):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _ADDING:
            return f"the model may hold buffers: `.{func.attr.value}(...)` adds to it"
        names = ctx.call_qualnames(call)
        makes = any(q.startswith("torch.nn.") and not _makes_no_module(q) for q in names)
        if (makes and not names & (BUFFER_FREE | DDP_CLASSES)) or (
            isinstance(func, cst.Name) and func.value in classes
        ):
            return _construction(ctx, call, classes, frozenset())
    return None


_ADDING = frozenset({"register_buffer", "add_module", "register_module", "append", "extend"})


def _rebinding(ctx, value, names: set[str]) -> bool:
    """`DDP(model)`, `model.module`, or another name of the model."""
    if isinstance(value, cst.Name):
        return value.value in names
    if m.matches(value, m.Attribute(m.Name(), m.Name("module"))):
        return value.value.value in names
    return m.matches(value, m.Call(args=[m.Arg(m.Name())])) and bool(
        ctx.call_qualnames(value) & DDP_CLASSES
    )


def _construction(ctx, node, classes: dict, seen: frozenset) -> str | None:
    for call in m.findall(node, m.Call()):
        code = code_of(call.func)
        names = ctx.call_qualnames(call)
        if names & (BUFFER_FREE | DDP_CLASSES) or names & {f"builtins.{b}" for b in _BUILTINS}:
            continue
        if any(_makes_no_module(q) for q in names):
            continue
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _MODULE_METHODS:
            continue
        if m.matches(call.func, m.Attribute(m.Call(m.Name("super")), m.Name("__init__"))):
            continue
        if isinstance(call.func, cst.Name) and call.func.value in classes:
            name = call.func.value
            if name not in seen:
                why = _script_class(ctx, classes[name], classes, seen | {name})
                if why is not None:
                    return why
            continue
        return f"the model may hold buffers: `{code}(...)` is not known to hold none"
    return None


def _makes_no_module(qualname: str) -> bool:
    """Tensor factories (`torch.randn`), initialisers and functions: no module, no buffer."""
    if qualname.startswith(("torch.nn.init.", "torch.nn.functional.")):
        return True
    return qualname.startswith("torch.") and not qualname.startswith("torch.nn.")


def _script_class(ctx, cls: cst.ClassDef, classes: dict, seen: frozenset) -> str | None:
    name = cls.name.value
    if (
        not all(
            ctx.qualnames(base.value) & {"torch.nn.Module", "torch.nn.modules.module.Module"}
            for base in cls.bases
        )
        or not cls.bases
    ):
        return f"the model may hold buffers: `{name}` is not a plain nn.Module"
    if m.findall(cls, m.Attribute(attr=m.Name("register_buffer"))):
        return f"the model holds buffers: `{name}` calls `register_buffer`"
    init = next(
        (s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
        None,
    )
    return None if init is None else _construction(ctx, init, classes, seen)
