"""Pattern: a loader wrapped in a class of the script that maps each batch.

    class WrappedDataLoader:                        (kept: the Trainer iterates it)
        def __init__(self, dl, func):
            self.dl = dl
            self.func = func

        def __len__(self):
            return len(self.dl)

        def __iter__(self):
            for b in self.dl:
                yield self.func(*b)

    train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
    train_dl = WrappedDataLoader(train_dl, preprocess)
    fit(epochs, model, loss_func, opt, train_dl, valid_dl)   -> trainer.fit(lit_model, train_dl)

Lightning's `fit` takes any iterable: it calls `iter()` on it each epoch and `len()` for the
number of batches, and leaves a non-DataLoader alone (no sampler replaced, no worker seeding
added). Iterating the wrapper is iterating the DataLoader inside it (one `iter()` per epoch,
the same torch RNG draws for its base seed and shuffling, at the first batch), then calling
the mapping function. Lightning reads one batch ahead, the runtime does not: the two agree
only when the mapping function draws no random numbers -- so it must be a function of the
file whose body is one `return` of the batch's parts through tensor methods that do not
(`x.view(-1, 1, 28, 28)`, `.float()`), calling nothing else but `.to(dev)` with `dev` one
module-level name: accepted, as a moving wrapper is, where the model is placed on `dev`.

A wrapper that moves each batch to a device (the course notebooks' `DeviceDataLoader`,
`yield to_device(b, self.device)` with `to_device` a function of the file that only calls
`data.to(device)`, over the items of a list or tuple: patterns/device_helpers.py) is kept too:
the Trainer moves a batch already on its device nowhere, and the structure the step unpacks is
the one the wrapper yields. It is accepted where the device is the one the model is placed on
(the Trainer's `accelerator=`, patterns/passed_in.py), refused (TL187) otherwise.

Accepted: a class of the file with no bases, decorators or class-level statements (docstrings
aside), whose
`__init__` only stores its parameters on `self`, whose `__iter__` is exactly `for b in
self.<loader>: yield self.<func>(*b)` (or `yield b`), and whose `__len__`, if any, is `return
len(self.<loader>)`; created once per name, `name = Wrapper(name, func)`, right on the name's
loader binding. Refused (TL187) otherwise: an `__iter__` that does more than map batches
(skips, counts, draws), a length that is not the loader's, a mapping function that calls
anything or moves the batch to a device, another method the loop could rely on.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from ..analysis.names import only_module_binding
from ..analysis.statements import without_docstring
from ..rule import Rule, Unsupported
from .device_helpers import moved_data

WRAPPER = Rule(
    "TL187",
    "the loader is wrapped in a class whose iteration the Trainer may not reproduce",
    """The Trainer iterates any iterable, so a wrapper class that maps each batch of a
    DataLoader (`yield self.func(*b)`) is kept and passed to `trainer.fit`. That is faithful
    only when iterating it is iterating the DataLoader and mapping each batch without drawing
    random numbers (Lightning reads one batch ahead): `__iter__` exactly `for b in self.dl:
    yield self.func(*b)`, `__len__` the loader's, and the mapping function one `return`
    through tensor methods such as `.view()`, `.float()` (no device moves: the Trainer
    moves batches itself) -- or `yield to_device(b, self.device)` with a `to_device` that
    only calls `.to(device)`, to the device the model is placed on. A metric logger's
    generator iterating the loader (`metric_logger.log_every(loader, print_freq)`) is looked
    through when it yields each item once, in order, as it is, and otherwise only prints,
    reads the clock and updates its own meters: that is what the Trainer would not run.""",
    """Do the per-batch mapping in the training loop (or in a Dataset / `collate_fn`), or
    write the wrapper as shown: store the loader and the function, yield the mapped batch.
    For a logger's generator, move what it does to the batches (device moves, skips) into the
    loop body, and keep its own work to printing and timing.""",
    """
    class Shifted:
        def __init__(self, dl):
            self.dl = dl

        def __iter__(self):
            for x, y in self.dl:
                yield x + torch.randn_like(x), y


    def fit(net, opt, data):
        for epoch in range(2):
            for x, y in data:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()


    train_dl = Shifted(loader)
    fit(model, optimizer, train_dl)
    """,
)

RULES = (WRAPPER,)

# tensor methods that only reshape or convert: none draws from an RNG. Not `.to()` /
# `.cuda()`: a device the mapping moves batches to is one the Trainer's accelerator cannot
# follow (the model would be placed elsewhere on a GPU machine)
_PURE_METHODS = frozenset(
    "view reshape float double long int half bool contiguous flatten unsqueeze squeeze "
    "permute transpose t clone detach view_as reshape_as".split()
)


@dataclass(frozen=True)
class Wrapped:
    """A loader wrapper accepted: `device` is what it moves each batch to (the expression its
    creation passes), None for one that only maps batches."""

    device: cst.BaseExpression | None = None


def wrapped_loader(ctx, value: cst.BaseExpression, loader: cst.BaseExpression, stmt):
    """A Wrapped when `value` (the binding of a loader passed to the training function) is
    `Wrapper(loader, ...)` (`loader` a name, or the `DataLoader(...)` call itself) with
    `Wrapper` a class of the file that only maps batches or moves them to a device; None when
    it is no call of a class of the file; Unsupported (TL187) for a wrapper that may iterate
    otherwise."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
        return None
    cls = only_module_binding(ctx.module, value.func.value)
    if not isinstance(cls, cst.ClassDef):
        return None
    if isinstance(loader, cst.Call):  # `DeviceDataLoader(DataLoader(...), device)`
        name = f"{ctx.module.code_for_node(loader.func)}(...)"
    else:
        name = ctx.module.code_for_node(loader)
    where = f"`{cls.name.value}`, wrapping `{name}`"
    if cls.bases or cls.keywords or cls.decorators:
        raise Unsupported(WRAPPER, f"{where}, has bases, keywords or decorators", stmt)
    methods = {}
    for item in without_docstring(cls.body.body):
        if not isinstance(item, cst.FunctionDef) or item.decorators:
            raise Unsupported(WRAPPER, f"{where}, holds more than plain methods", stmt)
        body = item.body.with_changes(body=without_docstring(item.body.body))
        methods[item.name.value] = item.with_changes(body=body)  # docstrings run nothing
    if set(methods) != {"__init__", "__iter__", "__len__"}:
        raise Unsupported(
            WRAPPER,
            f"{where}, does not have exactly `__init__`, `__iter__` and `__len__` (without "
            "`len()` the Trainer reads it as an endless iterable)",
            stmt,
        )
    stored = _stored_parameters(methods.get("__init__"), where, stmt)
    loader_attr, func_attr, device_attr = _iteration(ctx, methods["__iter__"], where, stmt)
    if not m.matches(
        methods["__len__"].body,
        m.IndentedBlock(
            body=[
                m.SimpleStatementLine(
                    body=[
                        m.Return(
                            m.Call(
                                func=m.Name("len"),
                                args=[m.Arg(m.Attribute(m.Name("self"), m.Name(loader_attr)))],
                            )
                        )
                    ]
                )
            ]
        ),
    ):
        raise Unsupported(WRAPPER, f"{where}: `__len__` is not `len(self.{loader_attr})`", stmt)
    arguments = _arguments(methods.get("__init__"), value, where, stmt)
    iterated = arguments.get(stored.get(loader_attr, ""))
    if iterated is None or not iterated.deep_equals(loader):
        raise Unsupported(WRAPPER, f"{where}, iterates something else than `{name}`", stmt)
    if func_attr is not None:
        func = arguments.get(stored.get(func_attr, ""))
        if not isinstance(func, cst.Name):
            raise Unsupported(WRAPPER, f"{where}: its mapping function is not named", stmt)
        mapped_to = _check_mapping(ctx, func.value, where, stmt)
        if mapped_to is not None:  # accepted where it is the model's device, as a mover's
            return Wrapped(mapped_to)
    if device_attr is None:
        return Wrapped()
    device = arguments.get(stored.get(device_attr, ""))
    if device is None:
        raise Unsupported(WRAPPER, f"{where}: the device it moves batches to is not given", stmt)
    return Wrapped(device)


def _stored_parameters(init, where, stmt) -> dict[str, str]:
    """attribute -> parameter, for an `__init__` that only runs `self.attr = param`."""
    if init is None:
        return {}
    params = [p.name.value for p in init.params.params]
    stored = {}
    for line in init.body.body:
        if not m.matches(
            line,
            m.SimpleStatementLine(
                body=[
                    m.Assign(
                        targets=[m.AssignTarget(m.Attribute(m.Name("self"), m.Name()))],
                        value=m.Name(),
                    )
                ]
            ),
        ):
            raise Unsupported(
                WRAPPER, f"{where}: `__init__` does more than store its arguments", stmt
            )
        assign = line.body[0]
        if assign.value.value not in params[1:]:
            raise Unsupported(WRAPPER, f"{where}: `__init__` stores something else", stmt)
        stored[assign.targets[0].target.attr.value] = assign.value.value
    return stored


def _iteration(ctx, method, where, stmt) -> tuple[str, str | None, str | None]:
    """(loader attribute, mapping function attribute or None, device attribute or None) of
    `for b in self.dl: yield self.func(*b)` / `yield b` / `yield to_device(b, self.device)`
    (a function of the file that only moves data to a device: patterns/device_helpers.py)."""
    body = method.body.body
    loop = body[0] if len(body) == 1 else None
    if not (
        isinstance(loop, cst.For)
        and loop.orelse is None
        and loop.asynchronous is None
        and isinstance(loop.target, cst.Name)
        and m.matches(loop.iter, m.Attribute(m.Name("self"), m.Name()))
        and len(loop.body.body) == 1
        and m.matches(loop.body.body[0], m.SimpleStatementLine(body=[m.Expr(m.Yield())]))
    ):
        raise Unsupported(
            WRAPPER, f"{where}: `__iter__` does more than `for b in self.dl: yield ...`", stmt
        )
    batch = loop.target.value
    yielded = loop.body.body[0].body[0].value.value
    if m.matches(yielded, m.Name(batch)):
        return loop.iter.attr.value, None, None
    moved = moved_data(ctx, yielded)
    if moved is not None and m.matches(moved[0], m.Name(batch)):
        if not m.matches(moved[1], m.Attribute(m.Name("self"), m.Name())):
            raise Unsupported(
                WRAPPER, f"{where}: `__iter__` moves batches to a device it does not store", stmt
            )
        return loop.iter.attr.value, None, moved[1].attr.value
    if m.matches(
        yielded,
        m.Call(
            func=m.Attribute(m.Name("self"), m.Name()),
            args=[m.Arg(m.Name(batch), star="*") | m.Arg(m.Name(batch), star="")],
        ),
    ):
        return loop.iter.attr.value, yielded.func.attr.value, None
    if m.matches(yielded, m.Call(func=m.Name(), args=[m.Arg(m.Name(batch)), m.ZeroOrMore()])):
        shown = yielded.func.value  # `to_device(b, self.device)` of a function doing more
        raise Unsupported(
            WRAPPER,
            f"{where}: `__iter__` yields `{shown}(...)` of each batch, and `{shown}` does more "
            "than `data.to(device)` (over the items of a list or tuple): the Trainer would run "
            "it one batch ahead",
            stmt,
        )
    raise Unsupported(
        WRAPPER, f"{where}: `__iter__` yields more than `self.func(*b)` of each batch", stmt
    )


def _arguments(init, call: cst.Call, where, stmt) -> dict[str, cst.BaseExpression]:
    """parameter -> what the wrapper's creation passes."""
    params = [p.name.value for p in init.params.params][1:] if init is not None else []
    found = {}
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > len(params):
        raise Unsupported(WRAPPER, f"{where}, is created with arguments not read", stmt)
    for param, arg in zip(params, positional):
        found[param] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            found[arg.keyword.value] = arg.value
    return found


def _check_mapping(ctx, name: str, where, stmt) -> cst.Name | None:
    """The mapping function is a `def` of the file, one `return` through tensor methods
    that draw no random numbers; what it moves the batch to with `.to(dev)` (one module-level
    name: the `preprocess` of "What is torch.nn really?"), or None."""
    func = only_module_binding(ctx.module, name)
    body = func.body.body if isinstance(func, cst.FunctionDef) else []
    if not (
        isinstance(func, cst.FunctionDef)
        and not func.decorators
        and len(body) == 1
        and m.matches(body[0], m.SimpleStatementLine(body=[m.Return()]))
    ):
        raise Unsupported(
            WRAPPER, f"{where}: its mapping function `{name}` is not one `return` of the file", stmt
        )
    devices = set()
    params = {p.name.value for p in func.params.params}
    for call in m.findall(body[0], m.Call()):
        method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
        if (
            method == "to"
            and len(call.args) == 1
            and call.args[0].keyword is None
            and isinstance(call.args[0].value, cst.Name)
            and call.args[0].value.value not in params
            and only_module_binding(ctx.module, call.args[0].value.value) is not None
        ):
            devices.add(call.args[0].value.value)
            continue
        if method in ("to", "cuda", "cpu"):
            raise Unsupported(
                WRAPPER,
                f"{where}: its mapping function `{name}` moves the batch with `.{method}()`, to "
                "a device the Trainer's accelerator cannot follow (it places batches itself)",
                stmt,
            )
        if method not in _PURE_METHODS:
            shown = ctx.module.code_for_node(call.func)
            raise Unsupported(
                WRAPPER,
                f"{where}: its mapping function `{name}` calls `{shown}`, which may draw random "
                "numbers (Lightning maps one batch ahead)",
                stmt,
            )
    if len(devices) > 1:
        raise Unsupported(
            WRAPPER,
            f"{where}: its mapping function `{name}` moves parts to different devices",
            stmt,
        )
    return cst.Name(devices.pop()) if devices else None
