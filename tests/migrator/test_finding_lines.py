"""A refusal about an expression (a call's argument, a lambda) names the line of the statement
holding it, not the loop's or the file's first line (source/find_loops.py's LineIndex)."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import libcst.matchers as m

from torchlift.migrator import migrate_source
from torchlift.migrator.source.find_loops import LineIndex

SOURCE = textwrap.dedent(
    """
    import torch

    values = [1, 2,
              3]
    if values:
        total = sum(map(lambda v: v * 2, values))
    """
).lstrip()


def test_an_expression_is_placed_on_the_statement_holding_it():
    module = cst.parse_module(SOURCE)
    lines = LineIndex(module, ast.parse(SOURCE))
    lam = m.findall(module, m.Lambda())[0]
    three = [n for n in m.findall(module, m.Integer()) if n.value == "3"][0]
    assert lines.position(lam, (1, 0)) == (6, 4)
    assert lines.position(three, (1, 0)) == (3, 0)  # the statement's first line
    assert lines.position(cst.Name("elsewhere"), (9, 9)) == (9, 9)


def test_a_refusal_about_a_call_names_the_call():
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset


        def train(model, optimizer, loader):
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    optimizer.step()


        loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        train(model, optimizer, loader)
        if len(loader) > 1:
            optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        train(model, optimizer, loader)
        """
    ).lstrip()
    result = migrate_source(source, path="train.py")
    assert not result.changed
    finding = next(f for f in result.findings if f.code == "TL132")
    assert finding.line in (18, 21), finding  # a call of train(), not the loop (line 7)


def test_a_refusal_about_an_inlined_helper_statement_names_the_helper_line():
    # evaluate() is inlined into the epoch loop; its range reads `steps`, which its own
    # statement `grow(steps)` may change: the refusal names that line, not the epoch loop's
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset

        loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        val_data = torch.randn(9, 4)
        steps = [2]


        def evaluate(model, data):
            model.eval()
            grow(steps)
            total = 0.0
            with torch.no_grad():
                for i in range(0, data.size(0) - 1, steps[0]):
                    total += model(data[i : i + 1]).sum().item()
            return total


        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = nn.functional.mse_loss(model(x), y)
                loss.backward()
                optimizer.step()
            val = evaluate(model, val_data)
            print(val)
        """
    ).lstrip()
    result = migrate_source(source, path="train.py")
    assert not result.changed
    finding = next(f for f in result.findings if f.code == "TL192")
    assert finding.line == 14, finding  # `grow(steps)` in evaluate(), not the loop (line 22)
    assert "`grow(steps)`" in finding.message, finding


def test_a_loop_over_a_name_bound_to_a_wrapper_names_the_call_and_its_binding():
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset
        from tqdm import tqdm

        loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            pbar = tqdm(zip(range(4), loader), total=2)
            for i, (x, y) in pbar:
                optimizer.zero_grad()
                loss = nn.functional.mse_loss(model(x), y)
                loss.backward()
                optimizer.step()
        """
    ).lstrip()
    result = migrate_source(source, path="train.py")
    assert not result.changed
    finding = next(f for f in result.findings if f.code == "TL104")
    assert finding.line == 10, finding  # the binding, not the loop (line 11)
    assert "iterates `pbar`, bound here to `tqdm(...)` over `zip(range(4), loader)`" in (
        finding.message
    ), finding


_HEADER = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
"""


def test_a_step_function_called_inside_an_expression_names_the_call():
    source = _HEADER + textwrap.dedent(
        """
        def train():
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1))
            loss.backward()
            optimizer.step()
            return loss.item()


        for epoch in range(3):
            print(epoch, train())
        """
    )
    result = migrate_source(source, path="train.py")
    finding = next(f for f in result.findings if f.code == "TL182")
    assert finding.line == 19, finding  # `print(epoch, train())`, not the `def` (line 10)


def test_a_trainer_class_created_in_a_loop_names_that_creation():
    source = _HEADER + textwrap.dedent(
        """
        class Experiment:
            def __init__(self, lr):
                self.lr = lr

            def train(self):
                for epoch in range(2):
                    for x, y in loader:
                        optimizer.zero_grad()
                        loss = nn.functional.mse_loss(model(x), y)
                        loss.backward()
                        optimizer.step()


        for run in range(2):
            experiment = Experiment(0.1)
            experiment.train()
        print(experiment.lr)
        """
    )
    result = migrate_source(source, path="train.py")
    # one instance per iteration, read after the loop
    finding = next(f for f in result.findings if f.code == "TL171")
    assert finding.line == 24, finding  # `experiment = Experiment(0.1)`, not the class (line 10)


_UNREAD_DEVICE = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Linear(4, 2)
loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train_one_epoch(model, loader, optimizer, dev):
    for x, y in loader:
        if x.dim() > 1:
            x, y = x.to(dev), y.to(dev)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


device = pick_device()
for epoch in range(2):
{body}
"""


_INLINE_BODY = (
    "    for x, y in loader:\n        x, y = x.to(device), y.to(device)\n"
    "        optimizer.zero_grad()\n        loss = nn.functional.cross_entropy(model(x), y)\n"
    "        loss.backward()\n        optimizer.step()"
)


def test_a_move_to_an_unread_device_names_its_binding():
    """TL142 names the statement binding the device it cannot read (`device =
    pick_device()`, where the cause and the fix are), not the epoch loop nor the move; also
    when the move is in a helper inlined per epoch."""
    for body in (_INLINE_BODY, "    train_one_epoch(model, loader, optimizer, device)"):
        result = migrate_source(_UNREAD_DEVICE.lstrip().replace("{body}", body), path="t.py")
        assert not result.changed
        finding = next(f for f in result.findings if f.code == "TL142")
        assert finding.line == 20, finding
        assert "(`device = pick_device()`)" in finding.message, finding


def test_a_move_to_a_device_bound_nowhere_before_names_the_move():
    """With nothing before the loop binding the device (a name the loop body is handed by
    an inlined helper's parameter default, here a global bound after the loop), TL142 names
    the statement moving the tensors (copied by device_moves' strip), not the epoch loop;
    inlined from a helper, the helper's statement."""
    source = _UNREAD_DEVICE.lstrip().replace("device = pick_device()\n", "")
    for body, line in ((_INLINE_BODY, 22), ("    train_one_epoch(model, loader, optimizer, device)", 13)):
        result = migrate_source(source.replace("{body}", body) + "device = 0\n", path="t.py")
        assert not result.changed
        finding = next(f for f in result.findings if f.code == "TL142")
        assert finding.line == line, finding


def test_a_branch_of_the_device_chain_not_followed_is_named():
    """ImageNet's chain converts (patterns/placement_chain.py); a branch the Trainer's
    arguments cannot follow is TL144 at its statement, the message naming the branch."""
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset

        loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
        model = nn.Linear(4, 1)
        if not torch.cuda.is_available():
            print("using CPU, this will be slow")
        elif gpu is not None:
            torch.cuda.set_device(gpu)
            model = model.to(gpu)
        else:
            model = torch.nn.DataParallel(model).cuda()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = nn.functional.mse_loss(model(x), y)
                loss.backward()
                optimizer.step()
        """
    ).lstrip()
    result = migrate_source(source, path="train.py")
    finding = next(f for f in result.findings if f.code == "TL144")
    assert finding.line == 11, finding
    assert "the branch `elif gpu is not None:`" in finding.message, finding
    assert "`.to(...)`" in finding.message, finding


def test_a_device_choice_doing_more_than_print_is_named():
    """The if/else idiom with a branch that selects a GPU: TL142 says which statement, and
    stands on it."""
    choice = (
        "if torch.cuda.is_available():\n    torch.cuda.set_device(1)\n"
        '    device = torch.device("cuda")\nelse:\n    device = torch.device("cpu")\n'
    )
    source = _UNREAD_DEVICE.lstrip().replace("device = pick_device()\n", choice)
    body = "    train_one_epoch(model, loader, optimizer, device)"
    result = migrate_source(source.replace("{body}", body), path="t.py")
    finding = next(f for f in result.findings if f.code == "TL142")
    assert "(its if/else choice also runs `torch.cuda.set_device(1)`" in finding.message, finding
    assert finding.line == 21, finding


def test_a_device_choice_with_a_branch_not_read_is_named():
    """minGPT's `if cfg.device == "auto": ... else: device = cfg.device` converts (the
    Trainer reads the device at run time); a branch bound to what is not read as a device
    is TL142 at that branch's statement, the message quoting it."""
    choice = (
        'if cfg.device == "auto":\n    device = "cuda" if torch.cuda.is_available() else "cpu"\n'
        "else:\n    device = pick_device(cfg)\n"
    )
    source = _UNREAD_DEVICE.lstrip().replace("device = pick_device()\n", choice)
    result = migrate_source(source.replace("{body}", _INLINE_BODY), path="t.py")
    finding = next(f for f in result.findings if f.code == "TL142")
    assert "(a branch of its if/else choice binds `device = pick_device(cfg)`)" in finding.message
    assert finding.line == 23, finding
    converts = source.replace("pick_device(cfg)", "cfg.device").replace("{body}", _INLINE_BODY)
    assert migrate_source(converts, path="t.py").changed


def test_a_script_torch_distributed_launch_starts_is_refused_at_its_rank_argument():
    """TL160 names the `--local_rank` argument the launcher sets, not the loop."""
    source = textwrap.dedent(
        """
        import argparse

        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset


        def train(args, model, loader):
            if args.local_rank != -1:
                model = nn.parallel.DistributedDataParallel(model)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    optimizer.step()


        parser = argparse.ArgumentParser()
        parser.add_argument("--local-rank", "--local_rank", type=int, default=-1)
        args = parser.parse_args()
        loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
        train(args, nn.Linear(4, 1), loader)
        """
    ).lstrip()
    result = migrate_source(source, "launched.py")
    assert not result.changed
    found = [f for f in result.findings if f.code == "TL160"]
    assert [f.line for f in found] == [21], result.findings
    assert "torch.distributed.launch" in found[0].message


def test_clipping_in_an_accumulation_group_lightning_would_not_reproduce_names_the_group():
    """TL114 names the group's `if` and why its groups may not be Lightning's."""
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset

        model = nn.Linear(4, 1)
        loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        params = list(model.parameters())
        for epoch in range(2):
            for step, (x, y) in enumerate(loader):
                loss = nn.functional.mse_loss(model(x), y) / 3
                loss.backward()
                if (step + 1) % 3 == 0:
                    torch.nn.utils.clip_grad_norm_(params, 1.0)
                    optimizer.step()
                    optimizer.zero_grad()
        """
    ).lstrip()
    result = migrate_source(source, "uneven.py")
    found = [f for f in result.findings if f.code == "TL114"]
    assert [f.line for f in found] == [13], result.findings
    assert "`3` does not divide the 2 batches per epoch of `loader`" in found[0].message


_TUTORIAL = textwrap.dedent(
    """
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP


    def demo(rank, world_size):
        dist.init_process_group("gloo", rank=rank, world_size=world_size)
        model = nn.Linear(4, 2)
        ddp_model = DDP(model)
        if rank == 0:
            torch.save(ddp_model.state_dict(), "start.pt")
        dist.barrier()
        optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
        for step in range(4):
            optimizer.zero_grad()
            loss = ddp_model(torch.randn(3, 4)).sum()
            loss.backward()
            optimizer.step()
        dist.destroy_process_group()


    def run_demo(demo_fn, world_size):
        mp.spawn(demo_fn, args=(world_size,), nprocs=world_size, join=True)


    if __name__ == "__main__":
        run_demo(demo, 2)
        run_demo(demo, 2)
    """
).lstrip()


def test_the_ddp_tutorial_is_refused_at_its_causes_not_as_a_binding():
    # the tutorial's demo_checkpoint run twice by run_demo: each cause on its own line, and
    # no TL106 "`ddp_model` is not bound by a plain assignment" (`ddp_model = DDP(model)` is)
    result = migrate_source(_TUTORIAL, path="tutorial.py")
    assert not result.changed
    lines = {(f.code, f.line) for f in result.findings}
    second_launch = _TUTORIAL.splitlines().index("    run_demo(demo, 2)") + 2
    assert ("TL160", second_launch) in lines, lines
    assert ("TL165", 13) in lines, lines  # rank 0 saves the wrapper's state_dict
    assert ("TL163", 14) in lines, lines  # the barrier
    assert "TL106" not in {code for code, _ in lines}


def test_a_process_group_started_under_a_condition_is_named():
    source = _TUTORIAL.replace(
        '    dist.init_process_group("gloo", rank=rank, world_size=world_size)\n',
        "    if world_size > 1:\n"
        '        dist.init_process_group("gloo", rank=rank, world_size=world_size)\n',
    )
    result = migrate_source(source, path="optional.py")
    assert not result.changed
    assert ("TL161", 9) in {(f.code, f.line) for f in result.findings}


def test_a_phase_loop_over_phases_chosen_at_run_time_names_their_binding():
    """Sentence-VAE's `for split in splits:` with `splits = ['train', 'valid'] + (['test']
    if args.test else [])`: refused at that binding, not as a backward() in a loop inside
    the batch loop (the phase loop was read as the batch loop)."""
    source = textwrap.dedent(
        """
        import argparse

        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset

        parser = argparse.ArgumentParser()
        parser.add_argument("--test", action="store_true")
        args = parser.parse_args()
        model = nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        data = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
        splits = ["train", "valid"] + (["test"] if args.test else [])
        for epoch in range(2):
            for split in splits:
                model.train(split == "train")
                for x, y in DataLoader(data, batch_size=4):
                    loss = nn.functional.cross_entropy(model(x), y)
                    if split == "train":
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
        """
    ).lstrip()
    result = migrate_source(source, "vae.py")
    assert not result.changed
    (finding,) = result.findings
    assert (finding.code, finding.line) == ("TL176", 13)
    assert "`splits` is bound to `[\"train\", \"valid\"] + ([\"test\"] if args.test else [])`" in (
        finding.message
    )


def test_no_sync_accumulation_lightning_would_not_reproduce_names_the_group():
    """DDP `no_sync()` on micro-steps whose group never steps on an epoch's partial end (the
    held-out DDP accumulation script): refused at the group's `if`, whose rank names the DDP
    pattern rewrote, not at the epoch loop."""
    source = textwrap.dedent(
        """
        import contextlib
        import os

        import torch
        import torch.distributed as dist
        import torch.multiprocessing as mp
        import torch.nn as nn
        from torch.nn.parallel import DistributedDataParallel as DDP
        from torch.utils.data import DataLoader, TensorDataset
        from torch.utils.data.distributed import DistributedSampler


        def worker(rank, world_size, accum):
            os.environ["MASTER_ADDR"] = "127.0.0.1"
            os.environ["MASTER_PORT"] = "29500"
            dist.init_process_group("gloo", rank=rank, world_size=world_size)
            data = TensorDataset(torch.randn(20, 4), torch.randint(0, 2, (20,)))
            sampler = DistributedSampler(data, num_replicas=world_size, rank=rank)
            loader = DataLoader(data, batch_size=2, sampler=sampler)
            model = DDP(nn.Linear(4, 2))
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(2):
                sampler.set_epoch(epoch)
                for i, (x, y) in enumerate(loader):
                    last = (i + 1) % accum == 0
                    ctx = contextlib.nullcontext() if last else model.no_sync()
                    with ctx:
                        loss = nn.functional.cross_entropy(model(x), y) / accum
                        loss.backward()
                    if last:
                        optimizer.step()
                        optimizer.zero_grad()
                        if rank == 0:
                            print(loss.item())
            dist.destroy_process_group()


        if __name__ == "__main__":
            mp.spawn(worker, args=(2, 3), nprocs=2)
        """
    ).lstrip()
    result = migrate_source(source, "accum.py")
    assert not result.changed
    (finding,) = result.findings
    assert (finding.code, finding.line) == ("TL114", 30)  # `if last:`
    assert "`accum` is not known to divide the batches per epoch of `loader`" in finding.message
