"""A refusal names the statement that causes it, in words that say what the script does
there: the forum habits (a zero_grad() or step() once per epoch, an optimizer built again
every epoch) are pointed at, not the epoch loop holding them."""

from __future__ import annotations

import textwrap

import pytest

from torchlift.migrator import migrate_source

_HEADER = """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Linear(4, 2)
criterion = nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=4)
"""

CASES = {
    "zero_grad_once_per_epoch": (
        """
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            optimizer.zero_grad()  # <- cause
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL105",
        "zero_grad() runs outside the batch loop (once per epoch)",
    ),
    "step_once_per_epoch": (
        """
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
            optimizer.step()  # <- cause
        """,
        "TL105",
        "`optimizer.step()` runs outside the batch loop (once per epoch)",
    ),
    "optimizer_built_every_epoch": (
        """
        for epoch in range(2):
            optimizer = torch.optim.Adam(model.parameters(), lr=0.1 * 0.8**epoch)  # <- cause
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL106",
        "`optimizer` is built again inside the loop",
    ),
    # bound before the loop too: the rebinding is named
    "optimizer_bound_before_and_rebuilt": (
        """
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.01)  # <- cause
        """,
        "TL106",
        "the loop rebinds `optimizer`",
    ),
    # 2 batches per epoch in groups of 3: the group the script never completes in an epoch
    "scaled_accumulation_leaving_a_partial_group": (
        """
        model.cuda()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler("cuda")
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                x, y = x.cuda(), y.cuda()
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = criterion(model(x), y)
                scaler.scale(loss / 3).backward()
                if (i + 1) % 3 == 0:  # <- cause
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad()
        """,
        "TL114",
        "`3` does not divide the 2 batches per epoch of `loader`",
    ),
    # a resume's state for the script's scaler under bf16: Lightning's bf16 mixed precision
    # takes no scaler to hand it to (float16 converts: amp_handed_scaler.py)
    "scaler_state_loaded_before_the_loop": (
        """
        import sys

        model.cuda()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler("cuda")
        if len(sys.argv) > 1:
            checkpoint = torch.load(sys.argv[1])
            scaler.load_state_dict(checkpoint["scaler"])  # <- cause
        for epoch in range(2):
            for x, y in loader:
                x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
        """,
        "TL113",
        "the script loads a saved state into `scaler` before the loop (a resume)",
    ),
    # the same through a helper of the script reading the global scaler: named at the load
    # inside it
    "scaler_state_loaded_by_a_helper_before_the_loop": (
        """
        model.cuda()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler("cuda")


        def resume(path):
            checkpoint = torch.load(path)
            scaler.load_state_dict(checkpoint["scaler"])  # <- cause


        resume("last.pt")
        for epoch in range(2):
            for x, y in loader:
                x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
        print(scaler.get_scale())
        """,
        "TL113",
        "the script loads a saved state into `scaler` (in `resume`, called before the loop)",
    ),
    # a loop at the epoch's start running the model: named with the name that reaches it
    "loop_at_the_epoch_start_running_the_model": (
        """
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        probes = [torch.ones(1, 4), torch.zeros(1, 4)]
        for epoch in range(2):
            for probe in probes:  # <- cause
                print(model(probe))
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL109",
        "loop before the training batch loop in the epoch reaches the model through `model`",
    ),
    # d2l's train_epoch_ch3 given its from-scratch updater: the test is known (False), the
    # update by hand inside the function is what is refused
    "hand_update_inside_the_updater_function": (
        """
        def sgd(params, lr, batch_size):
            with torch.no_grad():
                for param in params:
                    param -= lr * param.grad / batch_size
                    param.grad.zero_()


        def train(net, loader, updater):
            for epoch in range(2):
                for x, y in loader:
                    l = criterion(net(x), y)
                    if isinstance(updater, torch.optim.Optimizer):
                        updater.zero_grad()
                        l.mean().backward()
                        updater.step()
                    else:
                        l.sum().backward()
                        updater(x.shape[0])  # <- cause


        def updater(batch_size):
            return sgd(list(model.parameters()), 0.1, batch_size)


        train(model, loader, updater)
        """,
        "TL127",
        "updates tensors by hand inside `updater() -> sgd()` (`param -= lr * param.grad / "
        "batch_size`)",
    ),
    # the two callers decide the test each, differently: said so, not "not known"
    "test_decided_differently_by_two_callers": (
        """
        def train(net, loader, updater):
            for epoch in range(2):
                for x, y in loader:
                    l = criterion(net(x), y)
                    if isinstance(updater, torch.optim.Optimizer):  # <- cause
                        updater.zero_grad()
                        l.mean().backward()
                        updater.step()
                    else:
                        l.sum().backward()
                        updater(x.shape[0])


        def updater(batch_size):
            pass


        train(model, loader, updater)
        train(model, loader, torch.optim.SGD(model.parameters(), lr=0.1))
        """,
        "TL114",
        "differs between the calls of `train()` (False where `updater` is the function "
        "`updater`; True where `updater` is `torch.optim.SGD(model.parameters(), lr=0.1)`)",
    ),
    # the step as the script writes it: the optimizer handed to the GradScaler's step
    "optimizer_stepped_through_a_scaler_bound_by_an_unknown_call": (
        """
        import helpers

        scaler = torch.amp.GradScaler("cuda", enabled=False)
        optimizer = helpers.make_optimizer(model)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)  # <- cause
                scaler.update()
        """,
        "TL106",
        "`scaler.step(optimizer)`: `optimizer` is not bound to a torch.optim optimizer",
    ),
    # a helper's `return` before its end is named where it stands, not at the call
    "helper_returning_inside_a_with_followed_by_more": (
        """
        def evaluate(model, loader):
            with torch.no_grad():
                total = 0.0
                for x, y in loader:
                    total += criterion(model(x), y).item()
                return total  # <- cause
            print("not reached")


        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()
            val = evaluate(model, loader)
        """,
        "TL111",
        "helper `evaluate` returns early",
    ),
    "helper_returning_inside_an_unknown_context_manager": (
        """
        def evaluate(model, loader):
            with timer():
                total = 0.0
                for x, y in loader:
                    total += criterion(model(x), y).item()
                return total  # <- cause


        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()
            val = evaluate(model, loader)
        """,
        "TL111",
        "inside `with timer()`",
    ),
    # Hogwild: the training function is the target of processes started by hand, named at
    # the `mp.Process(...)` that starts them, not at the function's loop
    "training_function_started_by_processes": (
        """
        import torch.multiprocessing as mp


        def train(rank, model):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()


        if __name__ == "__main__":
            model.share_memory()
            processes = []
            for rank in range(2):
                p = mp.Process(target=train, args=(rank, model))  # <- cause
                p.start()
                processes.append(p)
            for p in processes:
                p.join()
        """,
        "TL132",
        "`train` is handed to `mp.Process(...)` rather than called",
    ),
    # the imagenet example's device block: the machine decides the branch, said as such
    # another model on a GPU than on the CPU (the ImageNet placement block under the same test
    # converts: placement_chain_cases)
    "model_rebound_under_a_cuda_check": (
        """
        if torch.cuda.is_available():  # <- cause
            model = nn.Sequential(model, nn.Softmax(dim=1))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()
        """,
        "TL106",
        "its test calls `torch.cuda.is_available()`, whose result is known only when the "
        "script runs",
    ),
    # torchrun's loaders as an `if / else` of two `DataLoader(...)`s differing beyond their
    # sampler (a per-rank batch): the block is named, with what differs
    "torchrun_loaders_built_in_both_branches": (
        """
        import os

        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        from torch.utils.data.distributed import DistributedSampler

        ddp = "RANK" in os.environ
        if ddp:
            dist.init_process_group(backend="gloo")
        data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
        if ddp:  # <- cause
            sampler = DistributedSampler(data)
            train_loader = DataLoader(data, batch_size=2, sampler=sampler)
        else:
            sampler = None
            train_loader = DataLoader(data, batch_size=4, shuffle=True)
        if ddp:
            model = DDP(model)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            if ddp:
                sampler.set_epoch(epoch)
            for x, y in train_loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()
        """,
        "TL162",
        "built in both branches of `if ddp:` (with a DistributedSampler in one): the two `DataLoader(...)` calls differ",
    ),
    # a port drawn per process in an argparse default, the Namespace handed whole to the worker
    "pid_port_in_an_argparse_default": (
        """
        import argparse
        import os

        import torch.distributed as dist
        import torch.multiprocessing as mp
        from torch.nn.parallel import DistributedDataParallel as DDP


        def parse_args():
            p = argparse.ArgumentParser()
            p.add_argument("--port", type=int, default=29500 + os.getpid() % 1000)
            return p.parse_args()


        def train(rank, world_size, args):
            os.environ["MASTER_ADDR"] = "127.0.0.1"
            os.environ["MASTER_PORT"] = str(args.port)
            dist.init_process_group("gloo", rank=rank, world_size=world_size)
            net = DDP(model)
            optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(net(x), y).backward()
                    optimizer.step()
            dist.destroy_process_group()


        if __name__ == "__main__":
            args = parse_args()  # <- cause
            mp.spawn(train, args=(2, args), nprocs=2)
        """,
        "TL160",
        "(the default of `--port` in `parse_args()`",
    ),
    # a rollout stepping an env whose class reads a global that is not followed: the env's
    # `step()` is named, not a continue/return the loop does not have
    "rollout_stepping_an_env_reading_a_global_list": (
        """
        class Walk:
            def reset(self):
                self.pos = 0
                return torch.zeros(1, 4)

            def step(self, action):
                self.pos += starts[0]
                return torch.full((1, 4), float(self.pos)), 1.0, self.pos >= 3


        starts = [1]
        env = Walk()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for episode in range(4):
            state, rewards = env.reset(), []
            for t in range(10):  # <- cause
                state, reward, done = env.step(model(state).argmax().item())
                rewards.append(reward)
                if done:
                    break
            optimizer.zero_grad()
            loss = model(state).pow(2).mean() * sum(rewards)
            loss.backward()
            optimizer.step()
        """,
        "TL107",
        "calls `env.step(model(state).argmax().item())`, which may be an optimizer's step: "
        "`env` holds a `Walk`, which reads the global `starts`",
    ),
    # an optimizer held by a plain object of the script: that object is named, not a nested
    # statement the step is not in
    "optimizer_held_by_an_agent_object": (
        """
        class Agent:
            def __init__(self):
                self.policy = nn.Linear(4, 2)
                self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=0.01)


        agent = Agent()
        for update in range(3):
            losses = []
            for _ in range(2):
                losses.append(agent.policy(torch.randn(1, 4)).pow(2).sum())
            loss = torch.stack(losses).mean()
            agent.optimizer.zero_grad()
            loss.backward()
            agent.optimizer.step()  # <- cause
        """,
        "TL106",
        "`agent.optimizer.step()` steps an optimizer held by `agent`, an instance of `Agent`",
    ),
    # the autocast context bound twice: the `with` naming it, not "GradScaler without autocast"
    "autocast_context_bound_twice_around_a_scaled_step": (
        """
        from contextlib import nullcontext

        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        use_amp = torch.cuda.is_available()
        ctx = nullcontext()
        if use_amp:
            ctx = torch.autocast("cuda", dtype=torch.float16)
        scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                with ctx:  # <- cause
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
        """,
        "TL113",
        "GradScaler with the step under `with ctx:`, bound 2 times",
    ),
    # one GradScaler stepping two optimizers: at its first step, naming mixed precision
    "grad_scaler_stepping_two_optimizers": (
        """
        gen = nn.Linear(4, 4)
        opt_d = torch.optim.Adam(model.parameters(), lr=1e-3)
        opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
        scaler = torch.amp.GradScaler("cuda")
        for epoch in range(2):
            for x, y in loader:
                opt_d.zero_grad()
                with torch.autocast("cuda", dtype=torch.float16):
                    loss_d = criterion(model(gen(x).detach()), y)
                scaler.scale(loss_d).backward()
                scaler.step(opt_d)  # <- cause
                opt_g.zero_grad()
                with torch.autocast("cuda", dtype=torch.float16):
                    loss_g = -criterion(model(gen(x)), y)
                scaler.scale(loss_g).backward()
                scaler.step(opt_g)
                scaler.update()
        """,
        "TL125",
        "mixed precision with several optimizers: `opt_d` is stepped through a GradScaler",
    ),
    # an uneven accumulation kept as written with a per-epoch GradScaler that is off (a
    # Kaggle `GradScaler(enabled=CFG.apex)`): no mixed precision involved, the message says so
    "uneven_accumulation_with_an_off_scaler": (
        """
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            scaler = torch.cuda.amp.GradScaler(enabled=False)
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 3
                scaler.scale(loss).backward()
                if (i + 1) % 3 == 0:  # <- cause
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad()
        """,
        "TL114",
        "(`scaler` is off, so they are the plain step, but they are not rewritten so)",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_refusal_names_its_cause(name):
    loop, code, words = CASES[name]
    source = _HEADER.lstrip() + textwrap.dedent(loop)
    result = migrate_source(source, f"{name}.py")
    assert result.output == source
    found = [f for f in result.findings if f.code == code]
    assert found, [(f.code, f.message) for f in result.findings]
    cause = next(i for i, line in enumerate(source.splitlines(), 1) if "# <- cause" in line)
    assert (found[0].line, words in found[0].message) == (cause, True), found[0].message
