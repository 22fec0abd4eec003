"""The script's batch norms made SyncBatchNorm before its DDP wrap -> `Trainer(sync_batchnorm=)`.

    if args.sync_bn:                                           -> removed
        model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = DDP(model)                                         -> removed (the strategy wraps)
    ...
    L.Trainer(..., strategy="ddp", sync_batchnorm=args.sync_bn)

Lightning's DDP strategy (and the runtime's) converts the layers the same way while fitting,
before its wrap: with any number of processes, also where DDP refuses them (on CPU, "SyncBatchNorm
layers only work with GPU modules", as it refused the script's); the parameters are the same
tensors, so the optimizer trains the same ones. When the fit ends they are plain batch norms again
(`_BatchNormXd`): evaluated afterwards they give the same numbers. Read only when the script's DDP
was understood (patterns/ddp), for the statement alone (`model = ...convert_sync_batchnorm(model)`,
`sync_batchnorm=True`) or alone under an `if` without `else` whose test reads names that keep
their value until the Trainer reads it; a process group of its own (a second argument) is not.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.names import bound_names, collect_names
from ...analysis.statements import single_assign
from ...source.code_text import code_of

CONVERT = "torch.nn.SyncBatchNorm.convert_sync_batchnorm"
_WHY = "SyncBatchNorm conversion -> `Trainer(sync_batchnorm=...)`: the strategy converts the layers"


def read_sync_batchnorm(ctx, plan, stmt, name: str) -> bool:
    """Take `stmt` over when it converts model `name` as described above: True when taken."""
    facts = ctx.found.get("ddp")
    if facts is None or not facts.launch:
        return False
    if _converts(ctx, stmt, name):
        flag = "True"
    elif converts_layers(ctx, stmt, name) and _steady(ctx, stmt):
        flag = code_of(stmt.test)
    else:
        return False
    plan.add_trainer_arg("sync_batchnorm", flag)
    plan.remove_stmts.append(stmt)
    plan.removed_why.append((stmt, _WHY))
    return True


def converts_layers(ctx, stmt, name: str) -> bool:
    """`name = <...>.convert_sync_batchnorm(name)`, alone or alone under an `if` (no `else`):
    the same layers, batch norms made SyncBatchNorm (the same buffers)."""
    if isinstance(stmt, cst.If):
        inner = stmt.body.body
        return stmt.orelse is None and len(inner) == 1 and _converts(ctx, inner[0], name)
    return _converts(ctx, stmt, name)


def _converts(ctx, stmt, name: str) -> bool:
    """`name = <...>.convert_sync_batchnorm(name)`."""
    assign = single_assign(stmt)
    if assign is None or assign[0] != name or not isinstance(assign[1], cst.Call):
        return False
    call = assign[1]
    return (
        CONVERT in ctx.call_qualnames(call)
        and len(call.args) == 1
        and call.args[0].keyword is None
        and not call.args[0].star
        and m.matches(call.args[0].value, m.Name(name))
    )


def _steady(ctx, stmt: cst.If) -> bool:
    """The test reads names and attributes only (no call), none bound after it before the loop
    nor in it, no attribute of them assigned in the scope or the loop: the Trainer reads the
    value the test read (built earlier, where the process group started, it may not read a
    name bound after that: ddp._trainer_built_early)."""
    test = stmt.test
    if m.findall(test, m.Call() | m.Lambda() | m.NamedExpr()):
        return False
    roots = collect_names(test).reads
    body = list(ctx.scope_before)
    later = [*body[body.index(stmt) + 1 :], ctx.loop]
    if any(roots & bound_names(s) for s in later):
        return False
    targets = m.AssignTarget(target=m.Attribute(value=m.Name()))
    owners = {t.target.value.value for node in [*body, ctx.loop] for t in m.findall(node, targets)}
    return not owners & roots
