"""Pattern: `nn.DataParallel` -> removed; the Trainer places the model on its devices.

    model = nn.DataParallel(model)        -> removed
    parallel = nn.DataParallel(model)     -> removed; `parallel(x)` in the loop -> `self(x)`

Refused (TL115): DistributedDataParallel with no launch patterns/ddp/ recognises (an
`mp.spawn` worker or torchrun's environment); (TL112) a DataParallel wrapper used outside the
loop.
"""

from __future__ import annotations

import libcst as cst

from ..rule import Rule

DISTRIBUTED = Rule(
    "TL115",
    "DistributedDataParallel with no mp.spawn worker or torchrun setup to convert",
    """A script wrapping its model in `DistributedDataParallel` starts its own processes and
    process group; the Trainer does both (`strategy="ddp"`). Converted: a worker started by
    `mp.spawn`, or a script setting up from torchrun's environment (patterns/ddp/). A DDP
    model with neither has no launch the Trainer could take over.""",
    """Start the worker with `mp.spawn`, or read RANK / LOCAL_RANK / WORLD_SIZE from the
    environment as torchrun sets them; or convert the single-process version of the script
    and run it with `Trainer(strategy="ddp", devices=N)`.""",
    """
    import torch
    from torch.nn.parallel import DistributedDataParallel

    model = DistributedDataParallel(torch.nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
    """,
    uses_header=False,
)

RULES = (DISTRIBUTED,)

_DATA_PARALLEL = {
    "torch.nn.DataParallel",
    "torch.nn.parallel.DataParallel",
    "torch.nn.parallel.data_parallel.DataParallel",
}


def is_data_parallel(ctx, value) -> bool:
    return isinstance(value, cst.Call) and bool(ctx.call_qualnames(value) & _DATA_PARALLEL)


def bind(ctx, plan, steps) -> None:
    """`parallel = nn.DataParallel(inner)` bound once to another name and trained through:
    the model is `inner`, `parallel` an alias of it."""
    model = plan.model
    binding, count = ctx.binding(model.name)
    if binding is None or count != 1:
        return
    stmt, value = binding
    from .ddp import is_ddp_wrap

    if (
        (is_data_parallel(ctx, value) or is_ddp_wrap(ctx, value))
        and value.args
        and isinstance(value.args[0].value, cst.Name)
        and value.args[0].value.value != model.name
    ):
        key = "ddp_wrapper" if is_ddp_wrap(ctx, value) else "data_parallel_wrapper"
        ctx.found[key] = stmt
        model.aliases.add(model.name)
        model.name = value.args[0].value.value
