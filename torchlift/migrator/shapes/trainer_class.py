"""A training loop inside a class's method: a hand-written trainer class.

    class Trainer:
        def __init__(self, model, train_loader, config):
            self.model, self.train_loader = model, train_loader
            self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)

        def train_epoch(self):                      <- the batch loop (backward, step)
            for x, y in self.train_loader: ...

        def fit(self):                              <- the epoch loop, calling train_epoch()
            for epoch in range(self.config.epochs): ...

Such a class is a trainer of its own: the model, optimizer and loaders are attributes of
`self` that `__init__` sets and every method shares. When the script creates it once and
runs it once, in one block, the class is inlined there (trainer_inline.py, TL170) and the
flat script is converted by the loop shapes. This module holds the codes of that decision
and finds the class; a class that is not inlined is refused with a precise reason:
TL133 (the class's own shape), TL171 (how the script uses it), TL172 (`self` or the
instance escaping), TL173 (a method that cannot be inlined), TL174 (a name clash).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.statements import statements
from ..rule import Rule, Unsupported

TRAINER_CLASS = Rule(
    "TL133",
    "the training loop is in a method of a class (a hand-written trainer class)",
    """A trainer class is inlined where the script runs it (TL170) only when the class is
    all there is to see: no base class (its methods could come from elsewhere; one defined in
    the same file is flattened into it first where nothing could tell them apart, TL340), no class
    decorators or keywords, nothing but methods taking `self` first (no class attributes nor
    properties), and loops in one such class of the file. Static and class methods that reach
    the class only through one another (minGPT's `Trainer.get_default_config()`, a config
    factory) stay in the class, kept for them (trainer_static.py); one creating an instance or
    reading anything else of the class is refused.""",
    """Move the loop into a function that binds `model`, `optimizer` and the loaders as names
    (or write the LightningModule by hand: `train_epoch`'s batch body becomes
    `training_step`, `evaluate`'s becomes `validation_step`, `fit()` becomes
    `L.Trainer(max_epochs=...).fit(...)`).""",
    """
    from runners.base import BaseRunner


    class Runner(BaseRunner):
        def __init__(self, net, data):
            self.net = net
            self.data = data
            self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

        def fit(self, epochs):
            for epoch in range(epochs):
                for x, y in self.data:
                    self.opt.zero_grad()
                    loss = criterion(self.net(x), y)
                    loss.backward()
                    self.opt.step()
                self.log(loss.item())


    runner = Runner(model, loader)
    runner.fit(2)
    """,
)

INLINED = Rule(
    "TL170",
    "a hand-written trainer class was inlined where the script creates and runs it",
    """The class's `__init__` runs where the instance is created, the method the script
    calls (`fit()`) where it is called, its attributes become names (`self.model` ->
    `model`) and the methods the loop calls become functions; then the loop is converted
    like any other. Reads of the instance's attributes after the run read those names
    (`trainer.history` -> `history`, carried back from the LightningModule). Methods the
    script never calls are removed with the class; the report names them.""",
    """Nothing to do; review the diff. Keep the class (and write its LightningModule by
    hand) if other modules import it.""",
    """
    class Runner:
        def __init__(self, net, data, lr):
            self.net = net
            self.data = data
            self.opt = torch.optim.SGD(net.parameters(), lr=lr)

        def fit(self, epochs):
            for epoch in range(epochs):
                for x, y in self.data:
                    self.opt.zero_grad()
                    loss = criterion(self.net(x), y)
                    loss.backward()
                    self.opt.step()


    runner = Runner(model, loader, 0.1)
    runner.fit(2)
    """,
    converts=True,
)

INSTANCE_USE = Rule(
    "TL171",
    "the trainer class is not created once and run once by a method call in the same block",
    """A class is inlined where the script uses it: `trainer = Trainer(...)` once, then one
    call of the method holding (or reaching) the loop, `trainer.fit(...)`, later in the same
    block (module level, a function, `if __name__ == "__main__":`, or the body of a `for` loop
    in them: one experiment per iteration, `for ii in range(args.itr): exp = Exp(args)`, a
    loop over runs then), or both at once, `Trainer(...).fit()`. That one call may also sit in
    a loop or an `if` of that block (`for epoch in ...: loss = engine.train(loader)`, an
    Engine whose `train()` is one epoch; `if config.mode == "train": solver.train()`): each
    method then becomes a function given the attributes it reads, called where the method
    was (the `if` kept). A class created twice, run by
    several calls, never created in the file, called with `*args`, or created in a loop and
    used after it (which iteration's instance?) has no single place to inline it. A second call
    of the training method (`trainer.fit(3)`, a learning rate lowered by hand, `trainer.fit(2)`)
    goes on with the same optimizer and its state (Adam's moments), which two Lightning `fit`
    calls would not: each builds its optimizer anew in `configure_optimizers`.""",
    """Create the instance once and call its loop method once, by name (not through
    `getattr`); read what a run in a loop computed inside the loop (append it to a list
    there).""",
    """
    class Runner:
        def __init__(self, net, data):
            self.net = net
            self.data = data
            self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

        def fit(self, epochs):
            for epoch in range(epochs):
                for x, y in self.data:
                    self.opt.zero_grad()
                    loss = criterion(self.net(x), y)
                    loss.backward()
                    self.opt.step()


    for seed in (0, 1):
        torch.manual_seed(seed)
        runner = Runner(nn.Linear(4, 2), loader)
        runner.fit(2)
    print(runner.net.weight)
    """,
)

SELF_ESCAPES = Rule(
    "TL172",
    "`self` or the trainer instance is used other than through its attributes and methods",
    """Inlining turns `self.x` into the name `x`. That is faithful only when the object is
    never seen as a whole: `self` passed to a function or stored, the instance handed to
    other code, an attribute set from outside the class or read before anything assigns it,
    an attribute deleted, or a function defined in a method setting attributes of `self`. A
    function of the script given the instance only to read attributes `__init__` sets for
    sure is given those attributes instead (TL157).""",
    """Pass the attributes the other code needs instead of the object, or set them in
    `__init__`.""",
    """
    class Runner:
        def __init__(self, net, data):
            self.net = net
            self.data = data
            self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

        def fit(self, epochs):
            for epoch in range(epochs):
                for x, y in self.data:
                    self.opt.zero_grad()
                    loss = criterion(self.net(x), y)
                    loss.backward()
                    self.opt.step()
                report(self)


    def report(runner):
        print(vars(runner))


    runner = Runner(model, loader)
    runner.fit(2)
    """,
)

METHOD_SHAPE = Rule(
    "TL173",
    "a method of the trainer class cannot be inlined as written",
    """The run method's body is placed where it was called and the methods it calls become
    functions; one rebinding an attribute returns it and each call assigns it back
    (trainer_state.py). Refused: such a call where the value cannot come back right after it
    (inside an expression that also reads the attribute, in a nested function or a `try`,
    assigned to a target naming the attribute, or the attribute not set by `__init__` before
    it calls a method), `return` before the end of `__init__` or the run method, `*args` /
    `**kwargs`, a default that is not a literal, `global` / `nonlocal` / `yield`, `__init__`
    or the run method called again from another method.""",
    """Call the method as a statement of its own (`loss = self.validate()`), then read the
    attribute (`print(loss, self.best)`).""",
    """
    class Runner:
        def __init__(self, net, data):
            self.net = net
            self.data = data
            self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
            self.last = None

        def train_epoch(self):
            for x, y in self.data:
                self.opt.zero_grad()
                loss = criterion(self.net(x), y)
                loss.backward()
                self.opt.step()
                self.last = loss.item()
            return self.last

        def fit(self, epochs):
            for epoch in range(epochs):
                print(self.train_epoch(), self.last)


    runner = Runner(model, loader)
    runner.fit(2)
    """,
)

NAME_CLASH = Rule(
    "TL174",
    "inlining the trainer class would give one name two meanings",
    """Once inlined, the class's attributes, the parameters and locals of `__init__` and of
    the run method, and the code around the call share one namespace. A name used for two
    things there (a parameter of the run method named like one of `__init__`, a local of the
    class named like a name of the script) would change what the code reads. An attribute
    or a method so named is renamed first (TL159), except in a file reading names by their
    spelling (`exec`, `eval`, `globals()`, `locals()`). An attribute the constructor stores
    unchanged from an argument the script spells like it (`self.D = discriminator` given the
    script's `D`) is that object: one meaning, unless something rebinds one of them after the
    instance is created (trainer_shared.py).""",
    """Rename one of the two (the parameter or local, or the script's name).""",
    """
    class Runner:
        def __init__(self, net, data):
            self.net = net
            self.data = data
            self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

        def fit(self, data):
            for epoch in range(2):
                for x, y in data:
                    self.opt.zero_grad()
                    loss = criterion(self.net(x), y)
                    loss.backward()
                    self.opt.step()


    runner = Runner(model, loader)
    runner.fit(loader)
    """,
)


class NameClash(Unsupported):
    """TL174 for one name of the class (`name`) meaning something else where it is inlined:
    with the script's name of the instance (`instance`, "" for `Trainer(...).fit()`) and the
    node binding it (`binding`), so that trainer_clashes.py can rename the class's side."""

    def __init__(self, reason: str, node, name: str, instance: str, binding) -> None:
        super().__init__(NAME_CLASH, reason, node)
        self.name, self.instance, self.binding = name, instance, binding


RULES = (TRAINER_CLASS, INLINED, INSTANCE_USE, SELF_ESCAPES, METHOD_SHAPE, NAME_CLASH)


def class_holding(module: cst.Module, loops) -> cst.ClassDef | None:
    """The one module-level class whose methods hold candidate loops, or None."""
    found = []
    for cls in module.body:
        if isinstance(cls, cst.ClassDef):
            inner = {id(n) for n in m.findall(cls, m.For() | m.While())}
            if any(id(loop) in inner for loop in loops):
                found.append(cls)
    return found[0] if len(found) == 1 else None


def refuse_method_loop(module: cst.Module, loop: cst.CSTNode) -> None:
    """Unsupported (TL133) when `loop` sits in a method of a module-level class that was not
    inlined: the loops of several classes, or of a class another one already refused."""
    for cls in module.body:
        if not isinstance(cls, cst.ClassDef):
            continue
        methods = [s for s in cls.body.body if isinstance(s, cst.FunctionDef)]
        for method in methods:
            if any(stmt is loop for stmt in statements(method)):
                raise Unsupported(TRAINER_CLASS, _reason(cls, method, methods), loop)


def _reason(cls: cst.ClassDef, method: cst.FunctionDef, methods) -> str:
    owner, name = cls.name.value, method.name.value
    callers = [
        f"`{owner}.{other.name.value}`"
        for other in methods
        if other is not method
        and m.findall(other, m.Call(func=m.Attribute(value=m.Name("self"), attr=m.Name(name))))
    ]
    called = f", called from {', '.join(callers)}" if callers else ""
    return (
        f"the training loop is in method `{owner}.{name}`{called}, of a hand-written trainer "
        "class that is not inlined (only one class of a file holding training loops is)"
    )
