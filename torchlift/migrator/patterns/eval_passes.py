"""Pattern: evaluation passes -> validation_step / test_step and their epoch hooks.

    for epoch in range(N):
        ...batch loop...
        val_loss = 0                               -> on_validation_epoch_start
        with torch.no_grad():
            for x, y in val_loader:                -> validation_step (val_loader passed to fit)
                val_loss += criterion(model(x), y).item()
        print(val_loss / len(val_loader))          -> on_train_epoch_end (after validation)

    with torch.no_grad():                          (after the epoch loop, over a loader bound
        for x, y in test_loader: ...               before it) -> test_step + trainer.test(...)

A pass is one `for batch in loader` under `torch.no_grad()` / `torch.inference_mode()` (the
`with` inside or outside the loop); a pass over the training loader validates over that same
loader (Lightning iterates it again after the epoch, its `iter()` drawing where the script's
did). Refused (TL110): nested loops over data, a second loop over data in the epoch, a pass over a Python list of samples
(`Trainer.fit` and `test` take a list for several loaders); (TL107) control flow in the pass but a
dry-run `break` (patterns/eval_dry_run.py, TL180). A
test pass with anything unusual (a list of samples too, a setup drawing from torch's generator:
Lightning creates the test iterator before on_test_epoch_start) is left as written (the
training loop still converts).
"""

from __future__ import annotations

import builtins

import libcst as cst
import libcst.matchers as m

from ..analysis.names import bound_names, collect_names
from ..analysis.python_lists import is_python_sequence
from ..analysis.statements import (
    BACKWARD,
    FLOW,
    FLOW_NO_BREAK,
    LOOP,
    call_method,
    contains,
    direct_breaks,
)
from ..analysis.torch_draws import draws, functions_drawing
from ..plan import EvalPlan
from ..rule import Rule, Unsupported
from ..shapes.context import CONTROL_FLOW
from .eval_dry_run import dry_run_limit

EVAL_SHAPE = Rule(
    "TL110",
    "evaluation loop shape not understood",
    """Validation and test passes become `validation_step` / `test_step` when they are one
    `for batch in loader` under `torch.no_grad()` or `torch.inference_mode()`, without nested
    loops over data. A pass over the training loader itself (a training loss or accuracy
    measured in eval mode) becomes a validation over that same loader.""",
    """Write the pass as `with torch.no_grad(): for x, y in val_loader: ...` after the batch
    loop.""",
    """
    val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            for x, y in val_loader:
                for x2, y2 in loader:
                    print(criterion(model(x + x2), y).item())
    """,
)

RULES = (EVAL_SHAPE,)

_NO_GRAD = {
    "torch.no_grad",
    "torch.inference_mode",
    "torch.autograd.no_grad",
    "torch.autograd.grad_mode.no_grad",
    "torch.autograd.grad_mode.inference_mode",
}
_BUILTINS = frozenset(dir(builtins))


def eval_loop_of(ctx, stmt) -> tuple[cst.CSTNode | None, cst.For] | None:
    """(with-statement or None, the batch For) when `stmt` is an evaluation pass."""
    if isinstance(stmt, cst.With) and _is_no_grad(ctx, stmt):
        loops = [s for s in stmt.body.body if isinstance(s, cst.For)]
        if len(loops) == 1 and isinstance(ctx.unwrap_iter(loops[0])[0], cst.Name):
            return stmt, loops[0]
    if isinstance(stmt, cst.For):
        inner = stmt.body.body
        if len(inner) == 1 and isinstance(inner[0], cst.With) and _is_no_grad(ctx, inner[0]):
            if isinstance(ctx.unwrap_iter(stmt)[0], cst.Name):
                return None, stmt
    return None


def without_no_grad(ctx, stmts) -> list:
    """`stmts` with their own `with torch.no_grad():` blocks flattened (the pass runs under
    no_grad as a whole)."""
    flat = []
    for stmt in stmts:
        if isinstance(stmt, cst.With) and _is_no_grad(ctx, stmt):
            flat.extend(stmt.body.body)
        else:
            flat.append(stmt)
    return flat


def _is_no_grad(ctx, stmt: cst.With) -> bool:
    return all(
        isinstance(item.item, cst.Call)
        and not item.item.args
        and ctx.call_qualnames(item.item) & _NO_GRAD
        and item.asname is None
        for item in stmt.items
    )


def read(ctx, plan, steps) -> None:
    stmt = ctx.found.get("validation_stmt")
    if stmt is not None:
        plan.validation = _read_validation(ctx, stmt, plan)
    _read_test(ctx, plan)


def _read_validation(ctx, stmt, plan) -> EvalPlan:
    kind = "validation"
    with_stmt, loop = eval_loop_of(ctx, stmt)
    if loop.orelse is not None or contains(loop.body, FLOW_NO_BREAK):
        raise Unsupported(CONTROL_FLOW, f"{kind} loop uses continue/return/else", loop)
    iterator, index, target = ctx.unwrap_iter(loop)
    if _sample_list(ctx, iterator.value):
        raise Unsupported(
            EVAL_SHAPE,
            f"{kind} loop iterates `{iterator.value}`, a Python list of samples: the Trainer "
            "takes a list for several loaders",
            loop,
        )
    if with_stmt is not None:
        inner = list(with_stmt.body.body)
        at = next(i for i, s in enumerate(inner) if s is loop)
        before, after = inner[:at], inner[at + 1 :]
        body = list(loop.body.body)
    else:
        before, after = [], []
        body = list(loop.body.body[0].body.body)
    for piece in before + body + after:
        if contains(piece, LOOP) and not ctx.harmless_loop(piece):
            raise Unsupported(EVAL_SHAPE, f"nested loop over data in the {kind} pass", piece)
    body = dry_run_limit(ctx, plan, kind, loop, body, plan.post_train)
    # statements between the training loop and this pass that set up its accumulators
    at = next(i for i, s in enumerate(plan.post_train) if s is stmt)
    between, rest = plan.post_train[:at], plan.post_train[at + 1 :]
    eval_names = collect_names(loop, *before).all()
    setup = [
        s for s in between if collect_names(s).writes & eval_names and not call_method(s, "eval")
    ]
    kept = [s for s in between if s not in setup]
    plan.post_train = kept + after + rest
    plan.pre_eval_reads = collect_names(*kept).reads
    plan.post_eval_reads = collect_names(*after, *rest).reads
    return EvalPlan(
        loader=iterator.value,
        target=target,
        index=index,
        before=setup + before,
        body=body,
        after=after,
        anchor=stmt,
        following=rest,
        between=between,
        more_loaders=list(ctx.found.get("more_val_loaders", [])),
    )


def _sample_list(ctx, name: str) -> bool:
    """`name` is bound before the loop to a Python list of samples, not a loader."""
    binding, _ = ctx.binding(name)
    return binding is not None and is_python_sequence(ctx.module, binding[1])


def _read_test(ctx, plan) -> None:
    """A test pass after training (`with torch.no_grad(): for batch in test_loader:`)
    becomes test_step + `trainer.test(...)`; anything unusual leaves it as written."""
    after = list(ctx.after)
    bound_before = set(ctx.params)
    for stmt in ctx.scope_before:
        bound_before |= bound_names(stmt)
    models = {model.name for model in plan.models}
    for i, stmt in enumerate(after):
        found = eval_loop_of(ctx, stmt)
        if found is None:
            if contains(stmt, LOOP | BACKWARD):
                return
            continue
        with_stmt, loop = found
        iterator, index, target = ctx.unwrap_iter(loop)
        if not isinstance(iterator, cst.Name) or iterator.value == plan.train_loader:
            return
        if iterator.value not in bound_before or loop.orelse is not None:
            return
        if _sample_list(ctx, iterator.value):
            return  # `trainer.test` would take the list for several loaders
        if with_stmt is not None:
            inner = list(with_stmt.body.body)
            at = next(k for k, s in enumerate(inner) if s is loop)
            inner_before, inner_after = inner[:at], inner[at + 1 :]
            body = list(loop.body.body)
        else:
            inner_before, inner_after, body = [], [], list(loop.body.body[0].body.body)
        if any(contains(p, FLOW | LOOP) for p in inner_before + inner_after):
            return
        if any(contains(p, FLOW_NO_BREAK | LOOP) for p in body):
            return
        pass_names = collect_names(loop, *inner_before).all()
        j = i
        while (
            j > 0
            and not contains(after[j - 1], LOOP)
            and (
                collect_names(after[j - 1]).writes & pass_names
                or m.matches(
                    call_method(after[j - 1], "eval"), m.Name(m.MatchIfTrue(models.__contains__))
                )
            )
        ):
            j -= 1
        written = collect_names(loop, *inner_before, *inner_after, *after[j:i]).writes
        k = i + 1
        while (
            k < len(after)
            and collect_names(after[k]).reads & written
            and not contains(after[k], LOOP)
            and not collect_names(after[k]).reads & models
        ):
            k += 1
        section = after[j:k]
        if len({ctx.depths.get(id(s)) for s in section}) > 1:
            return  # it straddles the end of a `with` kept around the loop: left as written
        reads = collect_names(*section).reads - collect_names(*section).writes
        if reads - bound_before - ctx.module_defs - _BUILTINS:
            return  # reads something bound after training: keep the pass as written
        # test_step reads what the LightningModule was built with before fit: a name the
        # script rebinds after training (`net = Net()` then a checkpoint loaded into it) is
        # another object by the time the pass runs, so the pass stays as written
        rebound = collect_names(*after[:j]).writes | (collect_names(*after[:i]).writes & models)
        if (reads | collect_names(loop).reads) & rebound:
            return
        before = after[j:i] + inner_before
        drawing = functions_drawing(ctx)
        if any(draws(ctx, s, drawing) for s in before):
            # its setup would run in on_test_epoch_start, which Lightning calls after creating
            # the test loader's iterator (a draw from torch's generator): the script drew first
            return
        if direct_breaks(loop):  # a dry-run switch, or left as written
            try:
                body = dry_run_limit(ctx, plan, "test", loop, body, [*plan.post_train, *after])
            except Unsupported:
                return
        plan.test = EvalPlan(
            loader=iterator.value,
            target=target,
            index=index,
            before=before,
            body=body,
            after=inner_after + after[i + 1 : k],
            anchor=stmt,
        )
        plan.test_stmts = section
        ctx.scope_after = [s for s in ctx.scope_after if not any(s is t for t in section)]
        return
