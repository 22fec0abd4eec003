"""The rule codes of the DDP pattern (TL153, TL160-TL169), each with an example it refuses."""

from __future__ import annotations

from ...rule import Rule

_HEAD = """
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def setup(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "29500"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)

"""


def _example(worker: str, launch: str = "mp.spawn(train, args=(2,), nprocs=2)") -> str:
    return f'{_HEAD}\n{worker.strip(chr(10))}\n\n\nif __name__ == "__main__":\n    {launch}\n'


_WORKER = """
def train(rank, world_size):
    setup(rank, world_size)
    torch.manual_seed(0)
    dataset = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank{sampler})
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    model = {model}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step(){after_step}
    dist.destroy_process_group()
"""


def _worker(sampler="", model="DDP(nn.Linear(4, 1))", after_step=""):
    return _WORKER.format(sampler=sampler, model=model, after_step=after_step)


LAUNCH = Rule(
    "TL160",
    "DDP launch not understood (one `mp.spawn` of the function holding the loop)",
    """The Trainer starts the processes itself (`strategy="ddp"`, `devices=N`), so the
    script's launcher must go: one `mp.spawn(worker, args=(...), nprocs=N)` of the function
    holding the loop (directly, or through a helper given that function), whose first
    parameter is the rank, and whose process count is a literal or one of the arguments it
    hands the worker. The parent's code around the spawn runs in every process then: after
    the spawn it is refused, before it its output stays the launching process's, and a value
    each process would compute differently (a random draw, the clock) is refused.""",
    """Start the worker with one `mp.spawn(worker, args=(...), nprocs=N)` and pass N to it;
    or convert the single-process script and ask for `Trainer(strategy="ddp", devices=N)`.
    A value the parent draws before the spawn (a seed, a timestamp): read it from the command
    line or a fixed constant instead.""",
    _example(_worker(), "mp.spawn(train, args=(2,), nprocs=2, join=False)"),
    uses_header=False,
)

PROCESS_GROUP = Rule(
    "TL161",
    "process group not started once by an `init_process_group` the Trainer can replace",
    """The Trainer creates the process group. The worker must start it once, before the
    loop, by `init_process_group("gloo", ...)` (or a `setup()` helper doing only that and
    setting MASTER_ADDR / MASTER_PORT) and end it after the loop. NCCL workers place the
    model and every batch on the GPU of their rank, which is not converted yet (a torchrun
    script choosing `"nccl" if torch.cuda.is_available() else "gloo"` is: the Trainer then
    gets the same choice of accelerator).""",
    """Use the gloo backend on CPU, or convert the single-process script and ask for
    `Trainer(accelerator="gpu", strategy="ddp", devices=N)`.""",
    _example(_worker().replace("setup(rank, world_size)", 'dist.init_process_group("nccl")')),
    uses_header=False,
)

SAMPLER = Rule(
    "TL162",
    "DistributedSampler that Lightning's own sampler would not reproduce",
    """Lightning replaces the training loader's sampler by `DistributedSampler(dataset,
    shuffle=True, seed=0, drop_last=False)` (it always shuffles a training loader) and calls
    `set_epoch(epoch)` every epoch; a validation loader's by the same with `shuffle=False`
    (every rank as many samples, the last ones repeated). The script's sampler is removed when
    it is exactly that: same dataset as the loader, the default seed and drop_last, shuffling
    with `set_epoch(epoch)` at the start of each epoch for training, `shuffle=False` for
    validation; the plain run's sampler (`else:` branch) is the one `DataLoader` makes. The
    epochs must count from 0 as Lightning's do: `range(1, N + 1)` or a resumed
    `range(start_epoch, N)` gives the sampler other epoch numbers, so other shuffles. A
    training sampler of an `mp.spawn` worker with its own seed, `drop_last=True` or
    `shuffle=False` is kept instead (`use_distributed_sampler=False`, its rank the Trainer's)
    when the worker does not validate and calls `set_epoch(epoch)` first in each epoch (or never,
    not shuffling): both engines call `set_epoch` on the loader's sampler each epoch.""",
    """Use the sampler's defaults and call `sampler.set_epoch(epoch)` first in the epoch, or
    keep your sampler in a hand-written `train_dataloader()` with
    `Trainer(use_distributed_sampler=False)`.""",
    _example(_worker(sampler=", seed=42").replace("        sampler.set_epoch(epoch)\n", "")),
    uses_header=False,
)

COLLECTIVE = Rule(
    "TL163",
    "hand-written torch.distributed call (all_reduce, barrier, broadcast, ...) under DDP",
    """Collectives the script calls itself run at points of its own loop that the Trainer's
    hooks do not reproduce one for one (and a barrier around file IO may deadlock when moved).
    Kept as written: `dist.all_reduce(t[, op=...])` of a tensor the epoch made itself (its
    counters, not the step's `loss`) and a plain `dist.barrier()`, in the epoch's code after
    the batch loop, which both engines run on every rank in an epoch-end hook. Refused: one in
    the step, under a test of the rank, before the batch loop or outside the epoch loop, and
    other collectives.""",
    """Reduce the epoch's own counters after the batch loop on every rank, or use
    `self.log(..., sync_dist=True)` / `self.all_gather` in the converted module.""",
    _example(_worker(after_step="\n            dist.all_reduce(loss)")),
    uses_header=False,
)

RANK_READ = Rule(
    "TL164",
    "the rank is read where the Trainer cannot give it",
    """The rank becomes `self.global_rank` in the LightningModule and `trainer.global_rank`
    outside it. Code after the process group starts that reads the rank (a per-rank seed,
    per-rank data) gets a Trainer built where the group started; code before that point has
    no Trainer, nor rank, in Lightning (only a `print` there is moved after the Trainer).""",
    """Start the process group first, then seed or build per-rank data.""",
    _example(
        _worker().replace(
            "    setup(rank, world_size)\n    torch.manual_seed(0)",
            "    torch.manual_seed(rank)\n    setup(rank, world_size)",
        )
    ),
    uses_header=False,
)

DDP_OPTIONS = Rule(
    "TL165",
    "DistributedDataParallel wrapper with options or used other than as the model",
    """`DDP(model)` (with `device_ids` of the rank on CPU at most) is what `strategy="ddp"`
    builds, and `find_unused_parameters=True` what `strategy="ddp_find_unused_parameters_true"`
    builds (both written for you); other options (`broadcast_buffers=False`,
    `gradient_as_bucket_view=True`, ...) belong to `DDPStrategy(...)`, which is not written for
    you yet: the message names the option.""",
    """Drop the option or pass `strategy=DDPStrategy(broadcast_buffers=False)` by hand.""",
    _example(_worker(model="DDP(nn.Linear(4, 1), broadcast_buffers=False)")),
    uses_header=False,
)

STEP_LOOP = Rule(
    "TL166",
    "step loop under DDP not started by `mp.spawn`",
    """A step loop in an `mp.spawn` worker converts: each rank runs every iteration, drawing
    its own batches from its own generator as in the script (the loader of iteration numbers
    is not sharded: `use_distributed_sampler=False`). Under torchrun, a setup helper or a
    module-level process group, how the Trainer's processes would reproduce the script's
    per-rank state before the loop is not read.""",
    """Start the processes with `mp.spawn(worker, args=(...), nprocs=N)`, or iterate a
    DataLoader with a DistributedSampler in an epoch loop.""",
    """
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("gloo")
    torch.manual_seed(int(os.environ["RANK"]))
    model = DDP(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for it in range(10):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
""",
    uses_header=False,
)

NOT_WRAPPED = Rule(
    "TL169",
    "process group started but the trained model is not wrapped in DistributedDataParallel",
    """Without `DDP(model)` every rank trains its own copy: nothing averages the gradients.
    `strategy="ddp"` always wraps the model, so the converted script would average them
    across ranks and train differently.""",
    """Wrap the model (`model = DDP(model)`) if the ranks were meant to train together, or
    leave the script as it is (each process training alone).""",
    _example(_worker(model="nn.Linear(4, 1)")),
    uses_header=False,
)

EVAL_UNDER_DDP = Rule(
    "TL167",
    "evaluation pass under DDP that Lightning would not reproduce",
    """Lightning gives each rank a shard of the validation loader, by a `DistributedSampler(
    shuffle=False)`, and runs `validation_step` through the DDP wrapper (whose forward
    broadcasts rank 0's buffers; the runtime calls the module itself). A validation pass is
    converted when the script sharded its loader the same way and the model provably holds no
    buffers (built from torch.nn layers without any, BatchNorm excluded). A loader every rank
    evaluated whole, a model that may hold buffers (also when code run by one rank evaluates
    the DDP wrapper rather than `model.module`), and a test pass after training are not.""",
    """Shard the validation loader with `DistributedSampler(val_set, shuffle=False)`, evaluate
    `model.module` on rank 0 only, or evaluate after training.""",
    None,
)

TORCHRUN = Rule(
    "TL168",
    "torchrun-style setup (RANK / LOCAL_RANK / WORLD_SIZE) not understood",
    """A script started by torchrun reads its ranks from the environment, usually in an
    `if ddp:` block that starts the process group (and an `else` for a plain `python
    script.py`). The Trainer takes the block over when it holds only: the group's start, rank
    bindings `int(os.environ[...])`, `rank == 0` flags, the device choice and the backend's
    name; the Trainer gets `devices=` torchrun's LOCAL_WORLD_SIZE and `strategy="ddp"` under
    the script's own flag. A script that starts its group with no such test (the tutorial
    series' `ddp_setup()`) runs only under torchrun: its Trainer reads `devices=` and
    `num_nodes=` from torchrun's environment with no default, and is refused when the script
    sets torchrun's variables itself (it would also run without torchrun).""",
    """Move other statements out of the setup block (after it), or bind them from the
    Trainer after it is built (`trainer.global_rank`).""",
    """
import os

import torch
import torch.nn as nn
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset

ddp = "RANK" in os.environ
if ddp:
    init_process_group(backend="gloo")
    rank = int(os.environ["RANK"])
    print("process", rank, "ready")
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=8)
model = nn.Linear(4, 1)
if ddp:
    model = DDP(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
if ddp:
    destroy_process_group()
""",
    uses_header=False,
)

SHARDED_LOADER_READ = Rule(
    "TL153",
    "a loader whose DistributedSampler goes to Lightning is read outside the Trainer's run",
    """A loader's DistributedSampler that Lightning's own reproduces is removed: the Trainer
    gives each rank its shard inside `fit` only. Code the conversion leaves in the script before
    or after `fit` would read the whole loader instead of this rank's shard: `len(loader)` in a
    log line, in a scheduler's `total_steps` / `steps_per_epoch` (another schedule), an
    evaluation over it. Its dataset (`loader.dataset`) and batch size stay the same. An
    `mp.spawn` worker that does not validate keeps its training sampler instead
    (`use_distributed_sampler=False`), so its loader is this rank's shard everywhere.""",
    """Compute the length from the sampler's arithmetic yourself (`math.ceil(len(dataset) /
    world_size / batch_size)`), or read the length inside the epoch loop, where the converted
    module reads the Trainer's sharded loader.""",
    """
import os

import torch
import torch.nn as nn
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

ddp = "RANK" in os.environ
if ddp:
    init_process_group(backend="gloo")
dataset = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
sampler = DistributedSampler(dataset) if ddp else None
loader = DataLoader(dataset, batch_size=8, shuffle=(sampler is None), sampler=sampler)
print(len(loader), "batches per process")
model = nn.Linear(4, 1)
if ddp:
    model = DDP(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    if ddp:
        sampler.set_epoch(epoch)
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
if ddp:
    destroy_process_group()
""",
    uses_header=False,
)


RULES = (
    SHARDED_LOADER_READ,
    LAUNCH,
    PROCESS_GROUP,
    SAMPLER,
    COLLECTIVE,
    RANK_READ,
    DDP_OPTIONS,
    STEP_LOOP,
    EVAL_UNDER_DDP,
    TORCHRUN,
    NOT_WRAPPED,
)
