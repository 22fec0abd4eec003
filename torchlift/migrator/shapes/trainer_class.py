"""A training loop inside a class's method: a hand-written trainer class (refused, TL133).

    class Trainer:
        def __init__(self, model, train_loader, config):
            self.model, self.train_loader = model, train_loader
            self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)

        def train_epoch(self):                      <- the batch loop (backward, step)
            for x, y in self.train_loader: ...

        def fit(self):                              <- the epoch loop, calling train_epoch()
            for epoch in range(self.config.epochs): ...

Such a class is a trainer of its own: the model, optimizer and loaders are attributes of
`self` that `__init__` sets and every method shares, and the loop is split over methods that
the class (or its callers) may also call elsewhere. The converted shapes read names bound in
one scope around the loop, so this is refused with the class, the method holding the loop
and the methods calling it named, for the user to decide where the LightningModule goes.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.statements import statements
from ..rule import Rule, Unsupported

TRAINER_CLASS = Rule(
    "TL133",
    "the training loop is in a method of a class (a hand-written trainer class)",
    """The model, optimizer and loaders of a trainer class are attributes of `self`, set in
    `__init__` and shared by its methods; its loop is split over methods (`train_epoch()`
    called by `fit()`) that other code may call too. The migrator converts loops whose
    bindings are names in one scope, so such a class is left as it is.""",
    """Move the loop into a function that binds `model`, `optimizer` and the loaders as names
    (or write the LightningModule by hand: `train_epoch`'s batch body becomes
    `training_step`, `evaluate`'s becomes `validation_step`, `fit()` becomes
    `L.Trainer(max_epochs=...).fit(...)`).""",
    """
    class Runner:
        def __init__(self, model, loader, optimizer):
            self.model = model
            self.loader = loader
            self.optimizer = optimizer

        def fit(self, epochs):
            for epoch in range(epochs):
                for x, y in self.loader:
                    self.optimizer.zero_grad()
                    loss = criterion(self.model(x), y)
                    loss.backward()
                    self.optimizer.step()


    Runner(model, loader, optimizer).fit(2)
    """,
)

RULES = (TRAINER_CLASS,)


def refuse_method_loop(module: cst.Module, loop: cst.CSTNode) -> None:
    """Unsupported (TL133) when `loop` sits in a method of a module-level class."""
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
        f"class: its model, optimizer and loaders are attributes of `self`, not converted"
    )
