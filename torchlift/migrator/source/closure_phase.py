"""A training phase stepping an optimizer with a closure, left as written beside a conversion.

    optimizer = torch.optim.Adam(...)          lit_model = LitPINN(model, ...)
    for it in range(ADAM_ITERS): ...      ->   trainer.fit(lit_model, iterations)
    optimizer = torch.optim.LBFGS(...)         optimizer = torch.optim.LBFGS(...)   (as written,
    def closure(): ...                         def closure(): ...                    TL325, info)
    for it in range(LBFGS_ITERS):              for it in range(LBFGS_ITERS):
        loss = optimizer.step(closure)             loss = optimizer.step(closure)

A PINN's second phase (Adam, then LBFGS on the same model) has no backward() of its own: the
closure holds it, so the loop is no candidate and stays a plain loop after the converted phase's
`fit`. It trains the same model object, so the numbers are the script's; the report says so,
naming the loop, since a reader of the diff expects every phase in Lightning. Lightning could run
it as a second fit with LBFGS in `configure_optimizers` (training_step returning the loss,
Lightning building the closure), but its closure keeps the result of its last call, handed to
`on_train_batch_end`, where LBFGS's `step` returns the loss of its first: what the script
records per step would change, so that is not done here.

Only reported when the file is converted (a file left unchanged says why already).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..result import Finding
from ..rule import Rule

CLOSURE_PHASE = Rule(
    "TL325",
    "a loop stepping an optimizer with a closure (LBFGS) stays a plain loop beside the conversion",
    """A loop whose only update is `optimizer.step(closure)` (LBFGS after an Adam phase, the
    closure calling backward()) is not a training loop the migrator converts: it stays as
    written, after the converted loop's `fit`, training the same model object, so the script's
    numbers are kept. Lightning's automatic optimization could run it as a second `fit`, but
    the loss it hands to `on_train_batch_end` is the closure's last evaluation, where
    `optimizer.step(closure)` returns the first, which such scripts record.""",
    """Nothing to do. To move the phase into Lightning by hand, give a second LightningModule
    `configure_optimizers` returning the LBFGS optimizer and a `training_step` returning the
    closure's loss, and fit it with `max_steps` set to the loop's iterations.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    lbfgs = torch.optim.LBFGS(model.parameters(), max_iter=4)
    x_all, y_all = next(iter(loader))


    def closure():
        lbfgs.zero_grad()
        full = criterion(model(x_all), y_all)
        full.backward()
        return full


    for it in range(3):
        print(lbfgs.step(closure).item())
    """,
    converts=True,
)

RULES = (CLOSURE_PHASE,)

_STEP_WITH_ARGUMENT = m.Call(
    func=m.Attribute(value=m.Name(), attr=m.Name("step")), args=[m.Arg(keyword=None)]
)
_BACKWARD = m.Call(func=m.Attribute(attr=m.Name("backward")))


def closure_phases(module: cst.Module, converted: list, lines, path: str) -> list[Finding]:
    """Info findings for the loops of `module` (outside the `converted` loops and any `def`)
    calling `<name>.step(<closure>)` with no backward() of their own."""
    found = []
    inside_converted = {id(n) for loop in converted for n in m.findall(loop, m.For() | m.While())}

    def walk(stmts):
        for stmt in stmts:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            if isinstance(stmt, (cst.For, cst.While)) and id(stmt) not in inside_converted:
                steps = m.findall(stmt, _STEP_WITH_ARGUMENT)
                if steps and not m.findall(stmt, _BACKWARD):
                    call = steps[0]
                    line, column = lines.position(stmt, (1, 0))
                    found.append(
                        Finding(
                            path,
                            line,
                            column,
                            CLOSURE_PHASE.code,
                            f"the loop calling `{call.func.value.value}.step("
                            f"{cst.Module([]).code_for_node(call.args[0].value)})` "
                            "(a closure optimizer, as LBFGS) stays a plain loop after the "
                            "converted training's `fit`, on the same model: a second fit would "
                            "hand on_train_batch_end the closure's last loss, where `step` "
                            "returns its first",
                            "info",
                        )
                    )
                    continue
            for block in _blocks(stmt):
                walk(block)

    walk(module.body)
    return found


def _blocks(stmt) -> list:
    """The statement lists directly inside a compound statement."""
    from ..shapes.enclosing import blocks

    if isinstance(stmt, cst.SimpleStatementLine):
        return []
    return list(blocks(stmt))
