"""Pattern: evaluation passes written without an outer `no_grad`, read as validation passes.

    for x, y in val_loader:                    with torch.no_grad():
        with torch.no_grad():          ->          for x, y in val_loader:
            out = model(x)                             out = model(x)
        total += criterion(out, y).item()              total += criterion(out, y).item()

    for data, target in test_loader:           (legacy `Variable(x, volatile=True)`, `.data`:
        output = model(Variable(data))          no no_grad at all)
        ...

    with torch.no_grad():                      with torch.no_grad():
        losses, nums = zip(                        outputs = []
            *[loss_batch(model, xb, yb)   ->       for xb, yb in valid_dl:
              for xb, yb in valid_dl]                  outputs.append(loss_batch(model, xb, yb))
        )                                          losses, nums = zip(*outputs)

(the last: "What is torch.nn really?"; the comprehension's names stay its own, so they must
not be read after it, and the list it built is named `outputs`, a name the file does not use.)

Lightning runs `validation_step` under `torch.inference_mode()`; where the script had no
`no_grad` (or had it only around the forward) its pass computed the same values with autograd
recording graphs nobody used. So a loop over another loader after the batch loop that never
uses gradients is rewritten, before the epoch is split, into the `with torch.no_grad(): for
...` pass eval_passes reads (its inner `no_grad` blocks flattened). Refused (TL145): such a
loop that does use gradients outside `no_grad` (`torch.autograd.grad`, `requires_grad_`,
`enable_grad`, `.grad`): inference mode would change or break it.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names, mentions
from ..analysis.statements import BACKWARD, LOOP, OPTIMIZER_CALL, contains
from ..rule import Rule
from .eval_passes import _is_no_grad, eval_loop_of, without_no_grad

GRADIENTS_IN_EVALUATION = Rule(
    "TL145",
    "evaluation loop uses gradients outside torch.no_grad()",
    """A loop over an evaluation loader after the batch loop becomes `validation_step`, which
    Lightning runs under `torch.inference_mode()`. That is faithful when the loop only computes
    values (with or without `no_grad`, legacy `Variable(..., volatile=True)`), not when it asks
    autograd for gradients (`torch.autograd.grad`, `requires_grad_()`, `torch.enable_grad()`,
    `.grad`): those would fail or change under inference mode.""",
    """Keep gradient computations (saliency maps, input gradients) out of the evaluation loop,
    e.g. in a function called after training, or convert this loop by hand with
    `Trainer(inference_mode=False)` and `torch.enable_grad()` in the step.""",
    """
    val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        for x, y in val_loader:
            x.requires_grad_()
            grad, = torch.autograd.grad(criterion(model(x), y), x)
            print(grad.abs().mean().item())
    """,
)

RULES = (GRADIENTS_IN_EVALUATION,)

_GRAD_CALLS = frozenset(
    {
        "torch.autograd.grad",
        "torch.autograd.backward",
        "torch.enable_grad",
        "torch.set_grad_enabled",
        "torch.autograd.enable_grad",
        "torch.autograd.set_grad_enabled",
    }
)
_GRAD_METHODS = frozenset({"requires_grad_", "retain_grad", "register_hook"})
_GRAD_ATTRIBUTES = frozenset({"grad", "requires_grad", "grad_fn"})


def epoch_body(ctx, stmts):
    """The first loop over a loader after the batch loop, written without an outer no_grad,
    as the canonical `with <torch>.no_grad(): for ...` pass (or blocked when it needs
    gradients)."""
    batch_at = next((i for i, s in enumerate(stmts) if contains(s, BACKWARD)), None)
    if batch_at is None:
        return stmts
    stmts = _comprehension_pass(ctx, stmts, batch_at)
    for i in range(batch_at + 1, len(stmts)):
        stmt = stmts[i]
        if not contains(stmt, LOOP):
            continue
        if not isinstance(stmt, cst.For) or eval_loop_of(ctx, stmt) is not None:
            return stmts  # the first pass is already canonical, or not a plain loop
        if not _is_evaluation_loop(ctx, stmt):
            return stmts
        if _uses_gradients(ctx, stmt):
            ctx.block(
                GRADIENTS_IN_EVALUATION,
                "evaluation loop uses gradients outside torch.no_grad() (Lightning evaluates "
                "under inference mode)",
                stmt,
            )  # still read as the pass below (refused already): no second message (TL110)
        torch_name = _torch_name(ctx)
        if torch_name is None:
            return stmts
        return [*stmts[:i], _canonical(ctx, stmt, torch_name), *stmts[i + 1 :]]
    return stmts


def _comprehension_pass(ctx, stmts, batch_at: int) -> list:
    """`with no_grad(): T = f(*[E for V in loader])` (or `T = [E for V in loader]`) after the
    batch loop, as the loop that builds the same list (`outputs`, or `T` itself) then `T =
    f(*outputs)`: the same calls in the same order, one loader pass."""
    for i in range(batch_at + 1, len(stmts)):
        stmt = stmts[i]
        if contains(stmt, LOOP):
            return stmts  # a loop first: the pass, if any, is that one
        if not (isinstance(stmt, cst.With) and _is_no_grad(ctx, stmt)):
            continue
        body = stmt.body.body
        if len(body) != 1 or not m.matches(
            body[0], m.SimpleStatementLine([m.Assign([m.AssignTarget()])])
        ):
            continue
        comps = m.findall(body[0], m.ListComp())
        simple = m.ListComp(for_in=m.CompFor(ifs=[], inner_for_in=None, asynchronous=None))
        if len(comps) != 1 or not m.matches(comps[0], simple):
            continue
        comp, assign = comps[0], body[0].body[0]
        loader = comp.for_in.iter
        if not isinstance(loader, cst.Name) or not (
            ctx.is_loader_name(loader.value) or loader.value in ctx.params
        ):
            continue
        # the loop leaves its names bound: nothing may read them with that value (after it in
        # the epoch, at the next epoch's start before the batch loop rebinds them, after the
        # epoch loop)
        names = {n.value for n in m.findall(comp.for_in.target, m.Name())}
        observers = [*stmts[i + 1 :], *stmts[:batch_at], *ctx.scope_after]
        if observers and names & collect_names(*observers).reads:
            continue
        whole = assign.value is comp
        if whole and not isinstance(assign.targets[0].target, cst.Name):
            continue
        if not whole and "outputs" in mentions(ctx.module):
            continue
        target = assign.targets[0].target if whole else cst.Name("outputs")
        append = cst.Call(cst.Attribute(target, cst.Name("append")), [cst.Arg(comp.elt)])
        loop = cst.For(
            target=comp.for_in.target,
            iter=loader,
            body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Expr(append)])]),
        )
        start = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(target)], cst.List([]))],
            leading_lines=body[0].leading_lines,
        )
        new_body = [start, loop]
        if not whole:
            value = _replace(assign.value, comp, target)
            new_body.append(body[0].with_changes(body=[assign.with_changes(value=value)]))
            new_body[-1] = new_body[-1].with_changes(leading_lines=[])
        new = stmt.with_changes(body=stmt.body.with_changes(body=new_body))
        return [*stmts[:i], new, *stmts[i + 1 :]]
    return stmts


def _replace(node, old, new):
    """`node` with its subtree `old` replaced by `new`."""

    class _Swap(cst.CSTTransformer):
        def on_leave(self, original, updated):
            return new if original is old else updated

    return node.visit(_Swap())


def _is_evaluation_loop(ctx, loop: cst.For) -> bool:
    """A loop over a DataLoader's name (not a list of metrics), with no loop over data,
    backward or optimizer call inside."""
    iterator = ctx.unwrap_iter(loop)[0]
    if not isinstance(iterator, cst.Name) or loop.orelse is not None:
        return False
    if not ctx.is_loader_name(iterator.value):
        return False
    if contains(loop.body, BACKWARD | OPTIMIZER_CALL):
        return False
    return all(ctx.harmless_loop(s) for s in loop.body.body if contains(s, LOOP))


def _uses_gradients(ctx, loop: cst.For) -> bool:
    for call in m.findall(loop, m.Call()):
        if ctx.call_qualnames(call) & _GRAD_CALLS:
            return True
        if m.matches(call.func, m.Attribute(attr=m.Name())) and (
            call.func.attr.value in _GRAD_METHODS
        ):
            return True
    for attribute in m.findall(loop, m.Attribute(attr=m.Name())):
        if attribute.attr.value in _GRAD_ATTRIBUTES:
            return True
    return False


def _torch_name(ctx) -> str | None:
    """The name the file binds the `torch` module to (`import torch`), if any."""
    return next((name for name, q in ctx.names.imports.items() if q == "torch"), None)


def _canonical(ctx, loop: cst.For, torch_name: str) -> cst.With:
    """`with <torch>.no_grad(): <loop>`, the loop's own no_grad blocks flattened."""
    body = without_no_grad(ctx, loop.body.body)
    inner = loop.with_changes(body=loop.body.with_changes(body=body), leading_lines=[])
    header = cst.parse_statement(f"with {torch_name}.no_grad():\n    pass\n")
    return header.with_changes(
        body=header.body.with_changes(body=[inner]), leading_lines=loop.leading_lines
    )
