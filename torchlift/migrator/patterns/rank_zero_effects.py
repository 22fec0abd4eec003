"""Pattern: in a DataParallel -> DDP conversion, what the script wrote out happens once.

DataParallel is one process: its prints, its `torch.save`, its `os.mkdir` ran once. Under
`strategy="ddp"` every process runs the hooks and the code after `fit` (Lightning and the
runtime start N copies of the script). Statements whose only effect is output
(analysis/output_effects.py) run on rank zero:

    print("\\nEpoch: %d" % epoch)              -> if self.trainer.is_global_zero:
                                                       print("\\nEpoch: %d" % epoch)
    if acc > best_acc:                           if acc > self.best_acc:
        state = {"net": net.state_dict()}            state = {"net": self.model.state_dict()}
        if not os.path.isdir("checkpoint"):          if self.trainer.is_global_zero:
            os.mkdir("checkpoint")                       if not os.path.isdir("checkpoint"):
        torch.save(state, "ckpt.pth")                        os.mkdir("checkpoint")
        best_acc = acc                                   torch.save(state, "ckpt.pth")
                                                     self.best_acc = acc
    print("best acc", best_acc)   (after fit)    -> if trainer.is_global_zero: print(...)

Everything else (bindings, accumulators, `list.append`, `self.log`) runs on every process, so
each process keeps the state the script kept; with the evaluation loaders whole on every
process (whole_eval_loaders.py) the evaluation's values, and the decisions taken on them, are
the same on all of them. The training pass's prints show rank zero's share of each batch.
Not guarded: code before the Trainer is built (no rank is known there; it prints once per
process), and output inside statements that also change state (a `for` loop printing and
appending), which runs on every process.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import file_identifiers
from ..analysis.output_effects import output_only
from ..emit.rank_zero import guarded
from ..resolve_names import pieces_of

RULES = ()

_GUARDED = m.If(
    test=m.Attribute(
        value=m.Attribute(value=m.Name("self"), attr=m.Name("trainer")),
        attr=m.Name("is_global_zero"),
    )
)


def clean(ctx, plan) -> None:
    if not ctx.found.get("data_parallel_ddp"):
        return
    pieces = pieces_of(plan)
    pieces.pop("configure_optimizers")
    marked: set[int] = set()
    for piece in pieces.values():
        _mark(ctx, [s for s in piece if isinstance(s, cst.BaseStatement)], marked)
    plan.rank_zero |= marked
    if _after_fit(ctx, plan) or marked:
        note = (
            "prints and files the hooks and the code after fit write happen on rank zero (the "
            "training pass's prints show its share of each batch); code before the Trainer "
            "runs once per process"
        )
        plan.notes.append(note)
        plan.device_note += f"; {note}"


def _mark(ctx, stmts, marked: set[int]) -> None:
    """Mark each output-only statement of `stmts`, and look inside the others."""
    for stmt in stmts:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) or m.matches(stmt, _GUARDED):
            continue  # a rank-zero guard already (after_step.py's around a save)
        if output_only(ctx, stmt):
            marked.add(id(stmt))
            continue
        for block in _blocks(stmt):
            _mark(ctx, block, marked)


def _blocks(node):
    """The statement lists nested in a compound statement: body, elif / else, handlers."""
    for child in node.children:
        if isinstance(child, cst.IndentedBlock):
            yield list(child.body)
        elif isinstance(child, (cst.Else, cst.If, cst.ExceptHandler, cst.Finally)):
            yield from _blocks(child)


def _after_fit(ctx, plan) -> bool:
    """Output-only statements of the code after the loop: under `trainer.is_global_zero`
    (every process runs them). Skipped when `trainer` is a name of the script (the
    Trainer is then named otherwise, unknown here)."""
    if "trainer" in file_identifiers(ctx.module.code, "<script>"):
        return False
    taken = {
        id(s)
        for s in [*plan.remove_stmts, *plan.strip_stmts, *plan.test_stmts]
        + [s for s, _ in plan.rewrite_stmts]
    }
    guarded_any = False
    for stmt in ctx.scope_after:
        if id(stmt) in taken or isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        marked: set[int] = set()
        _mark(ctx, [stmt], marked)
        if not marked:
            continue
        new = guarded([stmt], marked, "trainer.is_global_zero")[0]
        plan.rewrite_stmts.append((stmt, new))
        why = "output after fit -> rank zero's: every process runs the code after `fit`"
        plan.rewritten_why.append((stmt, cst.Module(body=[new]).code, why))
        guarded_any = True
    return guarded_any
