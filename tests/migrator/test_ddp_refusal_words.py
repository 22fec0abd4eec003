"""A DDP refusal says what the conversion would change, at the statement that causes it: the
official tutorial's checkpoint round trip through the wrapper, a group started only when there
are several processes, a rendezvous read from the command line."""

from __future__ import annotations

import textwrap

import pytest

from torchlift.migrator import migrate_source

_HEADER = """
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

criterion = nn.CrossEntropyLoss()
"""

# the launch of the cases that are `mp.spawn` workers
_SPAWN = """

if __name__ == "__main__":
    mp.spawn(train, args=(2,), nprocs=2)
"""

CASES = {
    # the tutorial's demo_checkpoint: rank 0 saves the wrapper's state, every rank loads it,
    # then steps on batches of its own
    "wrapper_saved_before_the_loop": (
        """
        def train(rank, world_size):
            os.environ["MASTER_ADDR"] = "localhost"
            os.environ["MASTER_PORT"] = "12355"
            dist.init_process_group("gloo", rank=rank, world_size=world_size)
            torch.manual_seed(0)
            model = nn.Linear(4, 2)
            ddp_model = DDP(model)
            if rank == 0:
                torch.save(ddp_model.state_dict(), "init.pt")  # <- cause
            dist.barrier()
            ddp_model.load_state_dict(torch.load("init.pt"))
            optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
            torch.manual_seed(100 + rank)
            for step in range(4):
                optimizer.zero_grad()
                outputs = ddp_model(torch.randn(8, 4))
                criterion(outputs, torch.randint(0, 2, (8,))).backward()
                optimizer.step()
            dist.destroy_process_group()
        """,
        True,
        "TL165",
        '(`torch.save(ddp_model.state_dict(), "init.pt")`): in the conversion neither the '
        "wrapper nor the process group exists before `fit`",
    ),
    # the wrapper's state saved at each epoch's end: the file would hold other keys
    "wrapper_state_saved_each_epoch": (
        """
        def train(rank, world_size):
            os.environ["MASTER_ADDR"] = "localhost"
            os.environ["MASTER_PORT"] = "12355"
            dist.init_process_group("gloo", rank=rank, world_size=world_size)
            data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
            loader = DataLoader(data, batch_size=4, sampler=DistributedSampler(data))
            ddp_model = DDP(nn.Linear(4, 2))
            optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
            for epoch in range(2):
                loader.sampler.set_epoch(epoch)
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(ddp_model(x), y).backward()
                    optimizer.step()
                if rank == 0:
                    torch.save(ddp_model.state_dict(), "ckpt.pt")  # <- cause
            dist.destroy_process_group()
        """,
        True,
        "TL165",
        "the conversion has no wrapper there and the model's keys lack it (a file written "
        "from it would hold other keys",
    ),
    # one script for 1 or N processes: the group only when there are several
    "group_started_only_for_several_processes": (
        """
        def train(rank, world_size):
            if world_size > 1:  # <- cause
                os.environ["MASTER_ADDR"] = "localhost"
                os.environ["MASTER_PORT"] = "12355"
                dist.init_process_group("gloo", rank=rank, world_size=world_size)
            data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
            loader = DataLoader(data, batch_size=4, sampler=DistributedSampler(data))
            ddp_model = DDP(nn.Linear(4, 2))
            optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
            for epoch in range(2):
                loader.sampler.set_epoch(epoch)
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(ddp_model(x), y).backward()
                    optimizer.step()
            dist.destroy_process_group()
        """,
        True,
        "TL161",
        "only under `if world_size > 1:` (else one process trains without a group): the "
        'conversion writes one launch, `strategy="ddp"`',
    ),
    # the launch under a second test at the module's level: not said to be in a function
    "spawn_under_a_test_in_the_main_block": (
        """
        def train(rank, world_size):
            os.environ["MASTER_ADDR"] = "localhost"
            os.environ["MASTER_PORT"] = "12355"
            dist.init_process_group("gloo", rank=rank, world_size=world_size)
            data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
            loader = DataLoader(data, batch_size=4, sampler=DistributedSampler(data))
            ddp_model = DDP(nn.Linear(4, 2))
            optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
            for epoch in range(2):
                loader.sampler.set_epoch(epoch)
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(ddp_model(x), y).backward()
                    optimizer.step()
            dist.destroy_process_group()


        if __name__ == "__main__":
            if torch.cuda.device_count() != 1:
                mp.spawn(train, args=(2,), nprocs=2)  # <- cause
        """,
        False,
        "TL160",
        "`mp.spawn(...)` is nested deeper than the body of the module's `if`",
    ),
    # torchrun's variables read by an init helper, the rendezvous from the command line
    "rendezvous_from_the_command_line": (
        """
        import argparse


        def init_distributed_mode(args):
            if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
                args.rank = int(os.environ["RANK"])
                args.world_size = int(os.environ["WORLD_SIZE"])
            else:
                args.distributed = False
                return
            args.distributed = True
            dist.init_process_group(  # <- cause
                backend="gloo", init_method=args.dist_url, world_size=args.world_size,
                rank=args.rank,
            )


        def main(args):
            init_distributed_mode(args)
            data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
            sampler = DistributedSampler(data) if args.distributed else None
            loader = DataLoader(data, batch_size=4, sampler=sampler)
            model = nn.Linear(4, 2)
            if args.distributed:
                model = DDP(model)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()


        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--dist-url", default="env://")
            main(parser.parse_args())
        """,
        False,
        "TL161",
        'meets at `init_method=args.dist_url`, not known to be "env://"',
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_ddp_refusal_says_what_differs(name):
    body, spawned, code, words = CASES[name]
    source = _HEADER.lstrip() + textwrap.dedent(body) + (_SPAWN if spawned else "")
    result = migrate_source(source, f"{name}.py")
    assert result.output == source
    found = [f for f in result.findings if f.code == code]
    assert found, [(f.code, f.message) for f in result.findings]
    cause = next(i for i, line in enumerate(source.splitlines(), 1) if "# <- cause" in line)
    hits = [f for f in found if words in f.message]
    assert hits, [f.message for f in found]
    assert hits[0].line == cause, (hits[0].line, cause, hits[0].message)
