"""A script started by `python -m torch.distributed.launch`: refused at its `--local_rank`.

    parser.add_argument("--local_rank", type=int, default=-1)    <- TL160 names this line
    ...
    if args.local_rank == -1:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    else:
        torch.distributed.init_process_group(backend="nccl")
    ...
    sampler = RandomSampler(ds) if args.local_rank == -1 else DistributedSampler(ds)
    if args.local_rank != -1:
        model = DistributedDataParallel(model, device_ids=[args.local_rank])

The launcher hands each process its rank as this argument (`--local_rank`, or
`--local-rank` since torch 2.0): the old Hugging Face examples and research code built on
them train in one process with plain `python` (the default -1) and in N under the launcher,
choosing in their own branches. A conversion of the one-process path alone would train
otherwise under the launcher, and the Trainer takes over neither the launcher's protocol
nor the script's branches: the loop is refused at the argument's line, naming why.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...rule import Unsupported
from .rules import LAUNCH

# what `torch.distributed.launch` passes each process (its --use-env option aside)
_LAUNCHER_OPTIONS = frozenset({"--local_rank", "--local-rank"})


def refuse_launcher_argument(ctx) -> None:
    """Unsupported (TL160) at the statement declaring the launcher's rank argument, if any."""
    for stmt in m.findall(ctx.module, m.SimpleStatementLine()):
        for call in m.findall(stmt, m.Call(func=m.Attribute(attr=m.Name("add_argument")))):
            options = {
                arg.value.evaluated_value
                for arg in call.args
                if arg.keyword is None and isinstance(arg.value, cst.SimpleString)
            }
            if options & _LAUNCHER_OPTIONS:
                shown = "` / `".join(sorted(options & _LAUNCHER_OPTIONS, reverse=True))
                raise Unsupported(
                    LAUNCH,
                    f"started by `python -m torch.distributed.launch` (its `{shown}` "
                    "argument): one process with plain `python`, N under the launcher, in "
                    "the script's own branches, which the Trainer would not take over",
                    stmt,
                )
