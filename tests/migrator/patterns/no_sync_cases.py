"""Cases of patterns/ddp/no_sync.py: DDP's `no_sync()` on accumulation micro-steps ->
`accumulate_grad_batches` under `strategy="ddp"`, where Lightning's groups are the script's."""

_WORKER = """
import contextlib
import os

import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data.distributed import DistributedSampler


def worker(rank, world_size):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29500"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    data = TensorDataset(torch.randn(20, 4), torch.randint(0, 2, (20,)))
    sampler = DistributedSampler(data, num_replicas=world_size, rank=rank)
    train_loader = DataLoader(data, batch_size=2, sampler=sampler)
    ddp_model = DDP(nn.Linear(4, 2))
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for i, (x, y) in enumerate(train_loader):
STEP
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
"""


def _worker(step: str) -> str:
    lines = [("            " + line if line else line) for line in step.strip("\n").split("\n")]
    return _WORKER.replace("STEP\n", "\n".join(lines) + "\n")


_GROUP = """
if last:
    opt.step()
    opt.zero_grad()
"""
_NAMED = (
    """
last = (i + 1) % 3 == 0 or i + 1 == len(train_loader)
context = contextlib.nullcontext() if last else ddp_model.no_sync()
with context:
    loss = nn.functional.cross_entropy(ddp_model(x), y) / 3
    loss.backward()
"""
    + _GROUP
)

_APART = (
    "    ddp_model = DDP(nn.Linear(4, 2))\n",
    "    model = nn.Linear(4, 2)\n    ddp_model = DDP(model)\n",
)

CONVERTS = {
    # the tutorials' names: the wrapper `ddp_model`, `model` kept as the module it wraps
    "wrapper_named_apart_from_its_model": (
        _worker(_NAMED).replace(*_APART),
        ["accumulate_grad_batches=3", 'strategy="ddp"'],
        ["no_sync", "nullcontext", "DDP("],
    ),
    "named_context_chosen_by_the_group_flag": (
        _worker(_NAMED),
        [
            "accumulate_grad_batches=3",
            'strategy="ddp"',
            "step_loss = nn.functional.cross_entropy(self(x), y)",
            "return step_loss",
        ],
        ["no_sync", "nullcontext", "last", "contextlib"],
    ),
    "inline_choice_negated": (
        _worker(
            """
last = (i + 1) % 3 == 0 or i + 1 == len(train_loader)
with ddp_model.no_sync() if not last else contextlib.nullcontext():
    loss = nn.functional.cross_entropy(ddp_model(x), y) / 3
    loss.backward()
"""
            + _GROUP
        ),
        ["accumulate_grad_batches=3"],
        ["no_sync", "nullcontext"],
    ),
    "same_statements_with_and_without_no_sync": (
        _worker(
            """
if (i + 1) % 3 != 0 and i + 1 != len(train_loader):
    with ddp_model.no_sync():
        loss = nn.functional.cross_entropy(ddp_model(x), y) / 3
        loss.backward()
else:
    loss = nn.functional.cross_entropy(ddp_model(x), y) / 3
    loss.backward()
if (i + 1) % 3 == 0 or i + 1 == len(train_loader):
    opt.step()
    opt.zero_grad()
"""
        ),
        ["accumulate_grad_batches=3"],
        ["no_sync"],
    ),
}

UNCHANGED = {
    # 10 batches per rank, groups of 3: the script never steps on the last one, Lightning would
    "no_step_on_the_epochs_partial_group": (
        _worker(_NAMED.replace(" or i + 1 == len(train_loader)", "")),
        "TL114",
    ),
    "syncs_on_other_batches_than_the_group_steps_on": (
        _worker(_NAMED.replace("if last:", "if (i + 1) % 3 == 0:")),
        "TL114",
    ),
    "flag_read_elsewhere": (
        _worker(_NAMED + "print(last)\n"),
        "TL114",
    ),
    "no_sync_on_another_model": (
        _worker(_NAMED.replace("ddp_model.no_sync()", "other.no_sync()")).replace(
            "    ddp_model = DDP(nn.Linear(4, 2))\n",
            "    ddp_model = DDP(nn.Linear(4, 2))\n    other = DDP(nn.Linear(4, 2))\n",
        ),
        "TL114",
    ),
    # `no_sync()` of the bare module (no such method): not the wrapper's
    "no_sync_on_the_module_the_wrapper_wraps": (
        _worker(_NAMED.replace("ddp_model.no_sync()", "model.no_sync()")).replace(*_APART),
        "TL114",
    ),
    # each micro-step clipped: kept under manual optimization, which all-reduces each backward
    "micro_steps_clipped_each": (
        _worker(
            _NAMED.replace(
                "    loss.backward()\n",
                "    loss.backward()\ntorch.nn.utils.clip_grad_norm_(ddp_model.parameters(), 1.0)\n",
            )
        ),
        "TL114",
    ),
    # without no_sync, the script all-reduces every micro-step: Lightning would not
    "accumulation_without_no_sync": (
        _worker(
            """
loss = nn.functional.cross_entropy(ddp_model(x), y) / 3
loss.backward()
if (i + 1) % 3 == 0 or i + 1 == len(train_loader):
    opt.step()
    opt.zero_grad()
"""
        ),
        "TL114",
    ),
}
