"""Pattern: backward() for the gradient of an input in the batch loop (Langevin / SGLD
negatives of an energy-based model, a PGD attack) -> kept in `training_step`, as written.

    for x, y in loader:                              training_step(self, batch, batch_idx):
        delta = torch.zeros_like(x).uniform_(-e, e)      x, y = batch
        delta.requires_grad = True                       delta = ...
        for _ in range(iters):                           for _ in range(iters):   # as written
            F.cross_entropy(model(x + delta), y).backward()      ...
            delta.data = (delta + a * delta.grad.sign()).clamp(-e, e)
            delta.grad.zero_()                           loss = F.cross_entropy(self(x + delta), y)
        loss = F.cross_entropy(model(x + delta), y)      return loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

Input-gradient code (analysis/input_gradients.py: it calls backward(), reaches no `.step()`,
and updates by hand only tensors a model takes as input) trains nothing; a statement holding
it, or calling a function or method of the file that calls backward() (`fake =
buffer.sample()`, a replay buffer running SGLD), is ordinary code of the step. One thing
differs: its backward() also leaves gradients on the model's parameters (unless it froze
them). Lightning zeroes the gradients after `training_step` returns, right before its
backward() (loops/optimization/automatic.py, `Closure`), so the step is the script's exactly
when the script zeroes them between that code and its own backward():

    fake = buffer.sample()        # Langevin: backward() on the samples' energy
    optimizer.zero_grad()         # clears what it left on the parameters
    loss.backward()

Refused (TL300): the code before the zero_grad() that follows it (a zero_grad() at the top of
the batch, or after the step: the sampler's gradients add into the script's step, Lightning
clears them), after the loss's backward(), under a zero_grad() in an accumulation group, or in
a multi-process (DDP) conversion (a backward() inside Lightning's DDP forward). The
gradients are not followed further: a sampler that freezes the parameters
(`p.requires_grad = False`) before its loop is refused the same way.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..analysis.input_gradients import (
    FileFacts,
    calls_backward_through,
    parse_statement,
    samples_inputs,
)
from ..analysis.statements import BACKWARD, contains
from ..rule import Rule

INPUT_GRADIENTS = Rule(
    "TL300",
    "backward() for an input's gradient where its gradients on the parameters would reach the step",
    """Code in the batch loop that calls backward() for the gradient of a model's input
    (Langevin / SGLD sampling, an adversarial attack) stays in `training_step`. Its backward()
    also adds gradients to the model's parameters; Lightning zeroes them after
    `training_step`, right before its own backward(). The script trains the same only when
    it zeroes the gradients between that code and the loss's backward(); zeroed before it (at
    the top of the batch) or after the step, the script's step adds them in.""",
    """Call `optimizer.zero_grad()` right before `loss.backward()` (after the sampler or the
    attack), or compute the input's gradient with `torch.autograd.grad(energy.sum(), x)`,
    which leaves the parameters' `.grad` alone.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            delta = torch.zeros_like(x, requires_grad=True)
            for _ in range(3):
                criterion(model(x + delta), y).backward()
                delta.data = (delta + 0.1 * delta.grad.sign()).clamp(-0.3, 0.3)
                delta.grad.zero_()
            loss = criterion(model(x + delta.detach()), y)
            loss.backward()
            optimizer.step()
    """,
)

RULES = (INPUT_GRADIENTS,)

FOUND = "input_gradients"  # steps key: [(position, statement)] claimed here

_LAST: list = [None, None]  # the last module asked about and its facts


def file_facts(module: cst.Module) -> FileFacts:
    if _LAST[0] is not module:  # one module per migration: asked once per statement
        _LAST[:] = [module, FileFacts(ast.parse(module.code))]
    return _LAST[1]


def samples(ctx, stmt) -> bool:
    """`stmt` (of the batch loop) calls backward() only for a model input's gradient."""
    if not contains(stmt, BACKWARD):
        return False
    node = parse_statement(ctx.module.code_for_node(stmt))
    return node is not None and samples_inputs(node, file_facts(ctx.module))


def claim(ctx, steps, stmt, position) -> bool:
    if steps.get("manual") or not samples(ctx, stmt):
        return False  # a manual step keeps every statement and call in the script's order
    steps.setdefault(FOUND, []).append((position, stmt))
    steps["body"].append((position, stmt))
    return True


def read(ctx, plan, steps) -> None:
    if steps.get("manual"):
        return
    found = list(steps.get(FOUND, ()))
    # a call reaches a backward() only where some function or class of the file holds one:
    # the file is parsed again (analysis/input_gradients.py) only then
    if any(
        isinstance(s, (cst.FunctionDef, cst.ClassDef)) and contains(s, BACKWARD)
        for s in ctx.module.body
    ):
        facts = file_facts(ctx.module)
        claimed = {id(s) for _, s in found}
        found += [
            (position, stmt)
            for position, stmt in steps["body"]
            if id(stmt) not in claimed and _reaches_backward(ctx, stmt, facts)
        ]
    backward = steps["backward"]
    if not found or backward is None:  # no backward of the loss: refused elsewhere
        return
    zeros = [z for z, _, _ in steps["zero_grad"]]
    where = (
        "between zero_grad() and the loss's backward()"
        if any(z < backward for z in zeros)
        else "before the loss's backward(), the gradients zeroed only after the step"
    )
    arguments = dict(plan.trainer_args)
    for position, stmt in sorted(found, key=lambda p: p[0]):
        what = _first_line(ctx, stmt)
        if "strategy" in arguments or arguments.get("devices", "1") != "1":
            why = "in a multi-process (DDP) conversion: inside Lightning's DDP forward"
        elif position > backward:
            why = "after the loss's backward(): its gradients on the parameters reach the step"
        elif steps.get("accumulate") is not None:
            why = "with gradient accumulation: its gradients add into the group's"
        elif not any(position < z < backward for z in zeros):
            why = (
                f"{where}: the gradients it leaves on the model's parameters add into the "
                "script's step, where Lightning zeroes them after training_step, right before "
                "its backward()"
            )
        else:
            continue
        ctx.block(
            INPUT_GRADIENTS, f"`{what}` calls backward() for an input's gradient, {why}", stmt
        )


def _reaches_backward(ctx, stmt, facts: FileFacts) -> bool:
    """`stmt` calls a function or method of the file calling backward() (and no step)."""
    if not facts.backwarding:
        return False
    node = parse_statement(ctx.module.code_for_node(stmt))
    return node is not None and calls_backward_through(node, facts)


def _first_line(ctx, stmt) -> str:
    """`fake = buffer.sample()`, `for _ in range(attack_iters)`: the statement's own line."""
    code = ctx.module.code_for_node(stmt.with_changes(leading_lines=()))
    return code.strip().splitlines()[0].rstrip(":")
