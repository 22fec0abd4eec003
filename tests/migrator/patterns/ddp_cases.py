"""Cases of patterns/ddp/: hand-written DDP (mp.spawn workers, torchrun's environment)
becomes `strategy="ddp"`; what Lightning would not reproduce is refused with its own code.
"""

IMPORTS = """
import os

import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data.distributed import DistributedSampler
"""


def worker(
    sampler="DistributedSampler(data, num_replicas=world_size, rank=rank)",
    loader="DataLoader(data, batch_size=4, sampler=sampler)",
    net="DDP(net)",
    set_epoch="sampler.set_epoch(epoch)",
    init='dist.init_process_group("gloo", rank=rank, world_size=world_size)',
    before="",
    after_step="",
    epoch_end="",
    after="",
    launch="mp.spawn(train, args=(2,), nprocs=2)",
    params="rank, world_size",
):
    """A gloo worker started by mp.spawn; each keyword replaces one of its parts."""
    lines = [
        IMPORTS,
        f"def train({params}):",
        f"    {init}",
        before,
        "    data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))",
        f"    sampler = {sampler}",
        f"    loader = {loader}",
        "    net = nn.Linear(4, 2)",
        f"    ddp_net = {net}",
        "    opt = torch.optim.SGD(ddp_net.parameters(), lr=0.1)",
        "    for epoch in range(2):",
        f"        {set_epoch}",
        "        for x, y in loader:",
        "            opt.zero_grad()",
        "            loss = criterion(ddp_net(x), y)",
        "            loss.backward()",
        "            opt.step()",
        after_step,
        epoch_end,
        after,
        "    dist.destroy_process_group()",
        "",
        "",
        'if __name__ == "__main__":',
        f"    {launch}",
        "",
    ]
    return "\n".join(line for line in lines if line)


TORCHRUN = """
import os

from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data.distributed import DistributedSampler

ddp = int(os.environ.get("RANK", -1)) != -1
if ddp:
    init_process_group(backend="gloo")
    ddp_rank = int(os.environ["RANK"])
    {extra}
else:
    ddp_rank = 0
master = ddp_rank == 0
data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
sampler = DistributedSampler(data) if ddp else None
train_loader = DataLoader(data, batch_size=4, shuffle=(sampler is None), sampler=sampler)
if ddp:
    model = DDP(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    if ddp:
        sampler.set_epoch(epoch)
    for x, y in train_loader:
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
    if master:
        print(epoch, loss.item())
if master:
    torch.save(model.module.state_dict() if ddp else model.state_dict(), "model.pt")
if ddp:
    destroy_process_group()
"""

_INIT_HELPER = """
import argparse
import os

import torch.distributed as dist
from torch.utils.data.distributed import DistributedSampler


def init_distributed_mode(args):
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        args.rank = int(os.environ["RANK"])
        args.world_size = int(os.environ["WORLD_SIZE"])
    else:
        args.distributed = False
        return
    args.distributed = True
    args.dist_backend = "gloo"
    dist.init_process_group(backend=args.dist_backend, world_size=args.world_size, rank=args.rank)
    dist.barrier()


def main(args):
    init_distributed_mode(args)
    data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    if args.distributed:
        sampler = DistributedSampler(data)
    else:
        sampler = torch.utils.data.RandomSampler(data)
    train_loader = DataLoader(data, batch_size=4, sampler=sampler)
    net = nn.Linear(4, 2)
    net_without_ddp = net
    if args.distributed:
        net = torch.nn.parallel.DistributedDataParallel(net)
        net_without_ddp = net.module
    opt = torch.optim.SGD(net_without_ddp.parameters(), lr=0.1)
    for epoch in range(2):
        if args.distributed:
            sampler.set_epoch(epoch)
        for x, y in train_loader:
            opt.zero_grad()
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()
    if not args.distributed or dist.get_rank() == 0:
        torch.save(net_without_ddp.state_dict(), "net.pt")
    if args.distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main(argparse.Namespace())
"""


def init_helper(*edits: tuple[str, str]) -> str:
    """A torchrun script whose `init_distributed_mode(args)` starts the process group, each
    (old, new) edit applied once."""
    source = _INIT_HELPER
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new, 1)
    return source


_GATE = """    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        args.rank = int(os.environ["RANK"])
        args.world_size = int(os.environ["WORLD_SIZE"])
    else:
        args.distributed = False
        return
"""
_START = "    init_distributed_mode(args)\n"


_VALIDATION = (
    "        correct = torch.zeros(1)\n"
    "        with torch.no_grad():\n"
    "            for x, y in val_loader:\n"
    "                correct += (ddp_net(x).argmax(1) == y).sum()\n"
    "        dist.all_reduce(correct)\n"
    "        if rank == 0:\n"
    "            print(epoch, correct.item())"
)
_VAL_LOADER = (
    "    val = TensorDataset(torch.randn(9, 4), torch.randint(0, 2, (9,)))\n"
    "    val_sampler = DistributedSampler(val, num_replicas=world_size, rank=rank{shuffle})\n"
    "    val_loader = DataLoader(val, batch_size=4, sampler=val_sampler)"
)


def validating_worker(shuffle=", shuffle=False", epoch_end=_VALIDATION, **parts):
    """A worker validating each epoch on its shard, the counter all-reduced."""
    return worker(before=_VAL_LOADER.format(shuffle=shuffle), epoch_end=epoch_end, **parts)


_COUNTERS = "sampler.set_epoch(epoch)\n        total = torch.zeros(1)\n        seen = 0"
_COUNTED = "            total += loss.detach()\n            seen += len(y)"
_REDUCED = (
    "        t = torch.tensor([total.item(), seen])\n"
    "        dist.all_reduce(t, op=dist.ReduceOp.SUM)\n"
    "        dist.all_reduce(total)\n"
    "        if rank == 0:\n"
    "            print(epoch, t.tolist(), total.item())"
)


def counting_worker(epoch_end=_REDUCED, after_step=_COUNTED, set_epoch=_COUNTERS, **parts):
    """A worker summing its training epoch's loss and sample count over the ranks after the
    batch loop (every rank reduces, rank 0 prints)."""
    return worker(set_epoch=set_epoch, after_step=after_step, epoch_end=epoch_end, **parts)


_REDUCE_MEAN = (
    "def reduce_mean(value, world_size):\n"
    "    t = torch.tensor([value])\n"
    "    dist.all_reduce(t)\n"
    "    return (t / world_size).item()\n"
    "\n\n"
    "def train("
)


def reducing_helper_worker(call_at="epoch_end", helper=_REDUCE_MEAN, **parts):
    """A worker averaging its epoch's loss over the ranks through a function of the script."""
    call = "reduce_mean(total.item(), world_size)"
    places = {
        "epoch_end": {"epoch_end": f"        print(epoch, {call})"},
        "step": {"after_step": _COUNTED + f"\n            print({call})", "epoch_end": ""},
        "rank_zero": {"epoch_end": f"        if rank == 0:\n            print({call})"},
        "epoch_start": {"set_epoch": _COUNTERS + f"\n        print({call})", "epoch_end": ""},
    }
    source = counting_worker(**{**places[call_at], **parts})
    return source.replace("def train(", helper, 1)


_EVALUATE = """def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(model(x).sum().item() for x, _ in loader)


def train("""


_TEST_LOADER = "    test_loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4)"


def rank_zero_evaluating(model: str, net: str = "nn.Linear(4, 2)") -> str:
    """A worker whose rank 0 alone evaluates `model` over a plain loader each epoch (the
    helper leaves it in eval mode: `ddp_net.train()` starts each epoch)."""
    source = worker(
        before=_TEST_LOADER,
        set_epoch="sampler.set_epoch(epoch)\n        ddp_net.train()",
        epoch_end=f"        if rank == 0:\n            print(evaluate({model}, test_loader))",
    )
    return source.replace("def train(", _EVALUATE, 1).replace("nn.Linear(4, 2)", net, 1)


_VALIDATING_HELPER = (
    (
        "        sampler = DistributedSampler(data)\n",
        "        sampler = DistributedSampler(data)\n"
        "        val_sampler = DistributedSampler(val, shuffle=False)\n",
    ),
    (
        "        sampler = torch.utils.data.RandomSampler(data)\n",
        "        sampler = torch.utils.data.RandomSampler(data)\n"
        "        val_sampler = torch.utils.data.SequentialSampler(val)\n",
    ),
    (
        "    train_loader = DataLoader(data, batch_size=4, sampler=sampler)\n",
        "    train_loader = DataLoader(data, batch_size=4, sampler=sampler)\n"
        "    val = TensorDataset(torch.randn(9, 4), torch.randint(0, 2, (9,)))\n"
        "    val_loader = DataLoader(val, batch_size=4, sampler=val_sampler)\n",
    ),
    (
        "            opt.step()\n",
        "            opt.step()\n"
        "        total = torch.zeros(1)\n"
        "        with torch.no_grad():\n"
        "            for x, y in val_loader:\n"
        "                total += criterion(net(x), y) * len(y)\n"
        "        if args.distributed:\n"
        "            dist.all_reduce(total)\n"
        "        print(total.item())\n",
    ),
)

_MAKE_LOADER = (
    "def make_loader(data):\n"
    "    return DataLoader(data, batch_size=4, sampler=DistributedSampler(data{options}))\n"
    "\n\n"
    "def train("
)


def loader_function_worker(options=""):
    """The tutorial series' `prepare_dataloader`: the loader and its sampler built by a
    function of the script, `set_epoch` called through the loader."""
    source = worker(
        sampler="None",
        loader="make_loader(data)",
        set_epoch="loader.sampler.set_epoch(epoch)",
    )
    return source.replace("def train(", _MAKE_LOADER.format(options=options), 1)


_SAVE = (
    "def save(model):\n"
    '    torch.save(model.module.state_dict(), "net.pt")\n'
    "\n\n"
    "def train("
)


def saving_worker(after="        if rank == 0:\n            save(ddp_net)"):
    """A worker handing its DDP wrapper to a function of the script reading `.module`."""
    return worker(epoch_end=after).replace("def train(", _SAVE, 1)

def step_worker(
    wrap="ddp_net = DDP(net)",
    before="",
    launch="mp.spawn(train, args=(2,), nprocs=2, join=True)",
):
    """The DDP tutorial's `demo_basic`: a step loop, each rank drawing its own batches after
    a per-rank seed."""
    lines = [
        IMPORTS,
        "def train(rank, world_size):",
        '    dist.init_process_group("gloo", rank=rank, world_size=world_size)',
        "    torch.manual_seed(0)",
        "    net = nn.Linear(4, 2)",
        f"    {wrap}",
        before,
        "    opt = torch.optim.SGD(ddp_net.parameters(), lr=0.1)",
        "    torch.manual_seed(100 + rank)",
        "    for step in range(5):",
        "        opt.zero_grad()",
        "        x, y = torch.randn(4, 4), torch.randint(0, 2, (4,))",
        "        loss = criterion(ddp_net(x), y)",
        "        loss.backward()",
        "        opt.step()",
        '        print(f"rank {rank} step {step} loss {loss.item()}")',
        "    dist.destroy_process_group()",
        "",
        "",
        'if __name__ == "__main__":',
        f"    {launch}",
        "",
    ]
    return "\n".join(line for line in lines if line)



# the tutorial series' `multigpu_torchrun.py`: started only by torchrun (no test of its
# environment: `python script.py` fails at `init_process_group`, env:// finding no RANK)
_TORCHRUN_ONLY = """
import os

from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data.distributed import DistributedSampler


def ddp_setup():
    init_process_group(backend="gloo")


def prepare_dataloader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, shuffle=False, sampler=DistributedSampler(dataset))


def main(epochs):
    ddp_setup()
    local_rank = int(os.environ["LOCAL_RANK"])
    data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    loader = prepare_dataloader(data, 4)
    net = DDP(nn.Linear(4, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()
        if local_rank == 0:
            print(epoch, loss.item())
    destroy_process_group()


if __name__ == "__main__":
    main(2)
"""


def torchrun_only(*edits: tuple[str, str]) -> str:
    """A script torchrun alone starts, each (old, new) edit applied once."""
    source = _TORCHRUN_ONLY
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new, 1)
    return source


_INLINE_LOADER = "    loader = DataLoader(data, batch_size=4, sampler=DistributedSampler(data))"
_NO_LOADER_FUNCTION = (
    "def prepare_dataloader(dataset, batch_size):\n"
    "    return DataLoader(dataset, batch_size=batch_size, shuffle=False, sampler="
    "DistributedSampler(dataset))\n\n\n",
    "",
)

_TORCHRUN_DEVICES = [
    'accelerator="cpu"',
    'devices=int(os.environ["LOCAL_WORLD_SIZE"])',
    'num_nodes=int(os.environ["WORLD_SIZE"]) // int(os.environ["LOCAL_WORLD_SIZE"])',
    'strategy="ddp"',
    "if self.local_rank == 0:",
]


_SYNC_BN = "    if sync_bn:\n        net = nn.SyncBatchNorm.convert_sync_batchnorm(net)\n"

def sync_bn_worker(sync: str = _SYNC_BN, after: str = "") -> str:
    """A spawn worker given `sync_bn`, converting its model's batch norms under that flag."""
    return worker(params="rank, world_size, sync_bn", launch="mp.spawn(train, args=(2, False), nprocs=2)").replace(
        "    ddp_net = DDP(net)", sync + after + "    ddp_net = DDP(net)"
    )


_CHECKPOINT_BEFORE = (
    "    if rank == 0:\n"
    '        torch.save(ddp_net.state_dict(), "start.pt")\n'
    "    dist.barrier()\n"
    '    ddp_net.load_state_dict(torch.load("start.pt", map_location={"cpu": "cpu"}))'
)

_FREE_PORT = (
    "def find_free_port():\n"
    "    with socket.socket() as s:\n"
    '        s.bind(("", 0))\n'
    "        return s.getsockname()[1]\n\n\n"
    "def train("
)
_SPAWN = "\n    mp.spawn(train, args=(2,), nprocs=2)"
_SAVED = '    if rank == 0:\n        torch.save(net.state_dict(), "net.pt")\n    dist.barrier()'


def free_port_worker(launch: str) -> str:
    """A worker whose parent sets MASTER_PORT to a free port (`launch` before the spawn)."""
    source = worker(launch=launch + _SPAWN).replace("def train(", _FREE_PORT, 1)
    return source.replace("import os\n", "import os\nimport socket\n", 1)


_PORT_SETUP = (
    "def setup(rank, world_size, port):\n"
    '    os.environ["MASTER_PORT"] = str(port)\n'
    '    dist.init_process_group("gloo", rank=rank, world_size=world_size)\n\n\n'
    "def train("
)


def port_worker(port: str, before: str = "") -> str:
    """A worker handed a port its setup helper alone reads (`port = <port>` in the parent)."""
    source = worker(
        params="rank, world_size, port",
        init="setup(rank, world_size, port)",
        before=before,
        launch=f"port = {port}\n    mp.spawn(train, args=(2, port), nprocs=2)",
    )
    source = source.replace("def train(", _PORT_SETUP, 1).replace("def train(", _FREE_PORT, 1)
    return source.replace("import os\n", "import os\nimport socket\n", 1)


_ONE_CYCLE = (
    "    sched = torch.optim.lr_scheduler.OneCycleLR(\n"
    "        opt, max_lr=0.1, epochs=2, steps_per_epoch=steps_per_epoch\n"
    "    )\n"
)
_SCHED_STEP = "            sched.step()"

CONVERTS = {
    "step_loop_in_a_spawn_worker_draws_per_rank": (
        step_worker(),
        [
            "def train(world_size):",
            'accelerator="cpu",\n        devices=2,\n        strategy="ddp",',
            "use_distributed_sampler=False",
            "torch.manual_seed(100 + trainer.global_rank)",
            "x, y = torch.randn(4, 4), torch.randint(0, 2, (4,))",
            'print(f"rank {self.global_rank} step {step} loss {loss.item()}")',
            "    train(2)",
        ],
        ["mp.spawn", "init_process_group", "DDP(", "destroy_process_group"],
    ),
    "spawn_worker": (
        worker(epoch_end="        if rank == 0:\n            print(epoch, loss.item())"),
        [
            "def train(world_size):",
            'accelerator="cpu", devices=2, strategy="ddp"',
            "loader = DataLoader(data, batch_size=4, shuffle=True)",
            "if self.global_rank == 0:",
            "    train(2)",
        ],
        [
            "mp.spawn",
            "DistributedSampler",
            "set_epoch",
            "init_process_group",
            "DDP(",
            "rank)",
        ],
    ),
    # the parent's code before the spawn ran once; under the Trainer's DDP every process runs
    # the script: its output happens in the launching process only (no `LOCAL_RANK` there)
    "parent_output_before_the_spawn_runs_in_the_launching_process": (
        worker(
            launch='print("starting 2 processes")\n    os.makedirs("out", exist_ok=True)\n'
            "    mp.spawn(train, args=(2,), nprocs=2)"
        ),
        [
            """
            if __name__ == "__main__":
                if os.environ.get("LOCAL_RANK", "0") == "0":
                    print("starting 2 processes")
                    os.makedirs("out", exist_ok=True)
                train(2)
            """
        ],
        ["mp.spawn"],
    ),
    "parent_output_in_the_main_holding_the_spawn_and_before_its_call": (
        worker(launch='print("launching")\n    main()').replace(
            'if __name__ == "__main__":',
            "def main():\n    world_size = 2\n"
            '    print(f"{world_size} processes")\n'
            "    mp.spawn(train, args=(world_size,), nprocs=world_size)\n\n\n"
            'if __name__ == "__main__":',
        ),
        [
            """
            def main():
                world_size = 2
                if os.environ.get("LOCAL_RANK", "0") == "0":
                    print(f"{world_size} processes")
                train(world_size)
            """,
            """
            if __name__ == "__main__":
                if os.environ.get("LOCAL_RANK", "0") == "0":
                    print("launching")
                main()
            """,
        ],
        ["mp.spawn"],
    ),
    "parent_output_in_a_branch_binding_the_process_count": (
        worker(
            launch="if torch.cuda.device_count() >= 2:\n        world_size = 4\n    else:\n"
            '        print("few GPUs: 2 processes", file=sys.stderr)\n        world_size = 2\n'
            "    mp.spawn(train, args=(world_size,), nprocs=world_size)"
        ).replace("import os\n", "import os\nimport sys\n"),
        [
            """
            if __name__ == "__main__":
                if torch.cuda.device_count() >= 2:
                    world_size = 4
                else:
                    if os.environ.get("LOCAL_RANK", "0") == "0":
                        print("few GPUs: 2 processes", file=sys.stderr)
                    world_size = 2
                train(world_size)
            """
        ],
        ["mp.spawn"],
    ),
    # argparse gives every process the same values (the Trainer runs each with the same argv)
    "parent_arguments_parsed_before_the_spawn": (
        worker(
            launch="import argparse\n    parser = argparse.ArgumentParser()\n"
            '    parser.add_argument("--world-size", type=int, default=2)\n'
            "    args = parser.parse_args()\n"
            "    mp.spawn(train, args=(args.world_size,), nprocs=args.world_size)"
        ),
        ["train(args.world_size)", "args = parser.parse_args()"],
        ["LOCAL_RANK", "mp.spawn"],
    ),
    # the worker's own code ran in each spawned process already: kept as it is; so is the
    # module's top, which the spawned processes import too
    "worker_output_before_the_trainer_stays_per_process": (
        worker(
            before='    print("worker up")',
            launch='print("parent up")\n    mp.spawn(train, args=(2,), nprocs=2)',
        ).replace("def train(", 'print("imported")\n\n\ndef train('),
        [
            """
            print("imported")


            def train(world_size):
                print("worker up")
            """,
            """
            if __name__ == "__main__":
                if os.environ.get("LOCAL_RANK", "0") == "0":
                    print("parent up")
                train(2)
            """,
        ],
        ["mp.spawn"],
    ),
    "process_count_passed_to_the_worker": (
        worker(launch="world_size = 2\n    mp.spawn(train, args=(world_size,), nprocs=world_size)"),
        ["devices=world_size", "train(world_size)"],
        ["mp.spawn"],
    ),
    "process_count_in_args_namespace": (
        worker(
            params="rank, args",
            init='dist.init_process_group("gloo", rank=rank, world_size=args.world_size)',
            sampler="DistributedSampler(data)",
            launch="import argparse\n    args = argparse.Namespace(world_size=2)\n"
            "    mp.spawn(train, args=(args,), nprocs=args.world_size)",
        ),
        ["devices=args.world_size", "def train(args):"],
        ["DistributedSampler"],
    ),
    "setup_and_cleanup_helpers_go": (
        worker(init="setup(rank, world_size)")
        .replace(
            "def train(",
            "def setup(rank, world_size):\n"
            '    os.environ["MASTER_ADDR"] = "localhost"\n'
            '    os.environ["MASTER_PORT"] = "29500"\n'
            '    dist.init_process_group("gloo", rank=rank, world_size=world_size)\n\n\n'
            "def cleanup():\n    dist.destroy_process_group()\n\n\ndef train(",
        )
        .replace("    dist.destroy_process_group()\nif", "    cleanup()\nif"),
        ['strategy="ddp"'],
        ["def setup(", "def cleanup(", "MASTER_PORT", "cleanup()"],
    ),
    "spawn_through_a_helper_given_the_worker": (
        worker(
            launch="run(train, 2)",
        ).replace(
            'if __name__ == "__main__":',
            "def run(fn, world_size):\n"
            "    mp.spawn(fn, args=(world_size,), nprocs=world_size, join=True)\n\n\n"
            'if __name__ == "__main__":',
        ),
        ["    fn(world_size)", "devices=world_size"],
        ["mp.spawn"],
    ),
    "loader_without_sampler_keeps_whole_data_per_rank": (
        worker(
            sampler="None",
            loader="DataLoader(data, batch_size=4, shuffle=True)",
            set_epoch="pass",
        ).replace("    sampler = None\n", ""),
        ["use_distributed_sampler=False"],
        ["mp.spawn"],
    ),
    # the script's own DistributedSampler, which Lightning's would not reproduce, is kept in
    # its loader (own_sampler.py): `use_distributed_sampler=False`, its rank the Trainer's
    "sampler_with_its_own_seed_kept": (
        worker(sampler="DistributedSampler(data, num_replicas=world_size, rank=rank, seed=3)"),
        [
            "use_distributed_sampler=False",
            "DistributedSampler(data, num_replicas=world_size, rank=trainer.global_rank, seed=3)",
            "loader = DataLoader(data, batch_size=4, sampler=sampler)",
        ],
        ["set_epoch", "mp.spawn", "rank=rank"],
    ),
    "sampler_without_ranks_given_the_trainers": (
        worker(sampler="DistributedSampler(data, seed=3, drop_last=True)"),
        [
            "trainer = L.Trainer(",
            "use_distributed_sampler=False",
            "DistributedSampler(data, seed=3, drop_last=True, num_replicas=trainer.world_size, "
            "rank=trainer.global_rank)",
        ],
        ["set_epoch", "init_process_group"],
    ),
    "sampler_with_a_seed_per_rank_kept": (
        worker(sampler="DistributedSampler(data, world_size, rank, seed=10 + rank)"),
        ["DistributedSampler(data, world_size, trainer.global_rank, seed=10 + trainer.global_rank)"],
        ["set_epoch"],
    ),
    # Lightning's training sampler always shuffles (is_shuffled = True for training): the
    # script's, in order, is kept (set_epoch changes nothing then)
    "training_sampler_keeping_its_order_kept": (
        worker(sampler="DistributedSampler(data, shuffle=False)", set_epoch="pass"),
        [
            "use_distributed_sampler=False",
            "DistributedSampler(data, shuffle=False, num_replicas=trainer.world_size, "
            "rank=trainer.global_rank)",
        ],
        ["shuffle=True"],
    ),
    "rank_zero_save_after_training_and_module_unwrapped": (
        worker(after="    if rank == 0:\n        torch.save(ddp_net.module.state_dict(), 'n.pt')"),
        ["if trainer.global_rank == 0:", "torch.save(net.state_dict(), 'n.pt')"],
        [".module"],
    ),
    "print_of_the_rank_before_the_loop_moves_after_the_trainer": (
        worker(before='    print(f"rank {rank} ready")'),
        ["trainer = L.Trainer(\n", 'print(f"rank {trainer.global_rank} ready")'],
        ["mp.spawn"],
    ),
    "per_rank_seed_after_the_process_group_builds_the_trainer_there": (
        worker(before="    torch.manual_seed(rank)"),
        ["trainer = L.Trainer(", "torch.manual_seed(trainer.global_rank)"],
        ["manual_seed(rank)", "mp.spawn"],
    ),
    "ddp_of_a_construction": (
        worker(net="DDP(nn.Linear(4, 2))").replace("    net = nn.Linear(4, 2)\n", ""),
        ["ddp_net = nn.Linear(4, 2)"],
        ["DDP("],
    ),
    "torchrun_environment": (
        TORCHRUN.format(extra='ddp_world_size = int(os.environ["WORLD_SIZE"])'),
        [
            'devices=int(os.environ.get("LOCAL_WORLD_SIZE", 1))',
            'strategy="ddp" if ddp else "auto"',
            "if self.trainer.is_global_zero:",
            "if trainer.is_global_zero:",
            'torch.save(model.state_dict(), "model.pt")',
            "shuffle=True",
        ],
        [
            "init_process_group",
            "DistributedSampler",
            "ddp_rank",
            "set_epoch",
            ".module",
        ],
    ),
    "init_helper_starts_the_group": (
        init_helper(),
        [
            'accelerator="cpu"',
            'devices=int(os.environ.get("LOCAL_WORLD_SIZE", 1))',
            'strategy="ddp" if args.distributed else "auto"',
            "    init_distributed_mode(args)",
            "    args.distributed = True",
            "train_loader = DataLoader(data, batch_size=4, shuffle=True)",
            "net_without_ddp = net",
            "if not args.distributed or dist.get_rank() == 0:",
            'torch.save(net.state_dict(), "net.pt")',
        ],
        [
            "init_process_group",
            "dist.barrier",
            "DistributedSampler",
            "RandomSampler",
            "set_epoch",
            "DistributedDataParallel",
            ".module",
            "destroy_process_group",
        ],
    ),
    "init_helper_returning_early_when_not_under_torchrun": (
        init_helper(
            (
                _GATE,
                '    if not "RANK" in os.environ:\n'
                "        args.distributed = False\n"
                "        return\n"
                '    args.rank = int(os.environ["RANK"])\n'
                '    args.world_size = int(os.environ["WORLD_SIZE"])\n',
            )
        ),
        ['strategy="ddp" if args.distributed else "auto"'],
        ["init_process_group"],
    ),
    "init_helper_backend_following_cuda": (
        init_helper(
            (
                'args.dist_backend = "gloo"',
                'args.dist_backend = "nccl" if torch.cuda.is_available() else "gloo"',
            )
        ),
        ['accelerator="gpu" if torch.cuda.is_available() else "cpu"'],
        ["init_process_group"],
    ),
    "init_helper_validation_sharded_as_lightning_shards_it": (
        init_helper(*_VALIDATING_HELPER),
        [
            "val_loader = DataLoader(val, batch_size=4)",
            "def validation_step(self, batch, batch_idx):",
            "if self.args.distributed:\n            dist.all_reduce(self.total)",
            "trainer.fit(lit_model, train_loader, val_loader)",
        ],
        ["DistributedSampler", "SequentialSampler", "sampler="],
    ),
    "spawn_validation_sampler_with_its_ranks": (
        validating_worker(),
        [
            "val_loader = DataLoader(val, batch_size=4)",
            "dist.all_reduce(self.correct)",
            "if self.global_rank == 0:",
        ],
        ["DistributedSampler", "sampler="],
    ),
    "all_reduce_of_the_training_epoch_counters": (
        counting_worker(),
        [
            "def on_train_epoch_start(self):\n        self.total = torch.zeros(1)",
            "def on_train_epoch_end(self):\n"
            "        epoch = self.current_epoch\n"
            "        t = torch.tensor([self.total.item(), self.seen])\n"
            "        dist.all_reduce(t, op=dist.ReduceOp.SUM)\n"
            "        dist.all_reduce(self.total)\n"
            "        if self.global_rank == 0:",
        ],
        ["DistributedSampler", "mp.spawn"],
    ),
    "barrier_by_hand_at_the_epoch_end": (
        worker(epoch_end="        dist.barrier()"),
        ["def on_train_epoch_end(self):\n        dist.barrier()"],
        ["mp.spawn"],
    ),
    "collective_through_a_function_at_the_epoch_end": (
        reducing_helper_worker(),
        ["def on_train_epoch_end(self):", "reduce_mean(self.total.item(), self.world_size)"],
        ["mp.spawn"],
    ),
    "rank_zero_evaluates_the_module": (
        rank_zero_evaluating("ddp_net.module", "nn.Sequential(nn.Linear(4, 2), nn.BatchNorm1d(2))"),
        [
            "if self.global_rank == 0:",
            "evaluate(self.model, self.test_loader)",
            # Lightning would not put the model back in train mode for the next epoch
            "def on_train_epoch_start(self):\n        self.model.train()",
        ],
        ["DDP(", ".module"],
    ),
    "rank_zero_evaluates_the_module_of_a_batchnorm_model_every_step": (
        worker(
            before=_TEST_LOADER,
            net="DDP(nn.Sequential(net, nn.BatchNorm1d(2)))",
            after_step="            if rank == 0:\n"
            "                print(evaluate(ddp_net.module, test_loader))",
        ).replace("def train(", _EVALUATE, 1),
        [
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            "        if self.global_rank == 0:\n"
            "            self.print(evaluate(self.model, self.test_loader))"
        ],
        ["DDP(", ".module"],
    ),
    "rank_zero_evaluates_the_wrapper_of_a_model_without_buffers": (
        rank_zero_evaluating("ddp_net"),
        ["evaluate(self.model, self.test_loader)"],
        ["DDP("],
    ),
    "optimizer_on_the_model_the_wrapper_wraps": (
        worker().replace("ddp_net.parameters()", "net.parameters()"),
        ["lit_model = LitModel(net)"],
        ["DDP("],
    ),
    "loader_built_by_a_function_with_its_sampler": (
        loader_function_worker(),
        ["    return DataLoader(data, batch_size=4, shuffle=True)"],
        ["DistributedSampler", "set_epoch"],
    ),
    "function_handed_the_wrapper_reads_its_module": (
        saving_worker(),
        ['    torch.save(model.state_dict(), "net.pt")', "save(self.model)"],
        [".module", "DDP("],
    ),
    "torchrun_only_setup_helper": (
        torchrun_only(),
        _TORCHRUN_DEVICES,
        ["init_process_group", "ddp_setup", "DistributedSampler", "set_epoch", "DDP(", '"LOCAL_WORLD_SIZE", 1'],
    ),
    "torchrun_only_start_in_the_function": (
        torchrun_only(
            ('def ddp_setup():\n    init_process_group(backend="gloo")\n\n\n', ""),
            ("    ddp_setup()\n", '    init_process_group(backend="gloo")\n'),
        ),
        _TORCHRUN_DEVICES,
        ["init_process_group", "DistributedSampler", '"LOCAL_WORLD_SIZE", 1'],
    ),
    "loader_given_a_distributed_sampler_call_inline": (
        torchrun_only(
            _NO_LOADER_FUNCTION, ("    loader = prepare_dataloader(data, 4)", _INLINE_LOADER)
        ),
        ["    loader = DataLoader(data, batch_size=4, shuffle=True)"],
        ["DistributedSampler", "set_epoch", "sampler"],
    ),
    # Lightning's `sync_batchnorm=True` converts the layers in its DDP strategy as the script
    # did before wrapping (and DDP refuses them on CPU alike); the runtime does the same
    "sync_batchnorm_under_the_scripts_flag": (
        sync_bn_worker(),
        ["sync_batchnorm=sync_bn", "net = nn.Linear(4, 2)\n    lit_model = LitModel(net)"],
        ["convert_sync_batchnorm", "if sync_bn"],
    ),
    # with a process group of its own the layers stay as the script made them (DDP takes them)
    "sync_batchnorm_in_a_process_group_of_its_own_kept": (
        sync_bn_worker("    net = nn.SyncBatchNorm.convert_sync_batchnorm(net, None)\n"),
        ["net = nn.SyncBatchNorm.convert_sync_batchnorm(net, None)"],
        ["sync_batchnorm="],
    ),
    "sync_batchnorm_under_a_test_of_the_process_count": (
        sync_bn_worker("    if world_size > 4:\n        net = nn.SyncBatchNorm.convert_sync_batchnorm(net)\n"),
        ["sync_batchnorm=world_size > 4"],
        ["convert_sync_batchnorm"],
    ),
    # SyncBatchNorm for BatchNorm: a model without any holds no buffers after it either
    "sync_batchnorm_of_a_model_validated_without_buffers": (
        validating_worker(
            params="rank, world_size, sync_bn", launch="mp.spawn(train, args=(2, False), nprocs=2)"
        ).replace("    ddp_net = DDP(net)", _SYNC_BN + "    ddp_net = DDP(net)"),
        ["sync_batchnorm=sync_bn", "def validation_step(self, batch, batch_idx):"],
        ["convert_sync_batchnorm"],
    ),
    "sync_batchnorm_always": (
        sync_bn_worker("    net = nn.SyncBatchNorm.convert_sync_batchnorm(net)\n"),
        ["sync_batchnorm=True"],
        ["convert_sync_batchnorm"],
    ),
    # the port only the removed group start read; kept, each Trainer process would draw its own
    "parent_free_port_for_the_removed_group_start": (
        free_port_worker('os.environ["MASTER_PORT"] = str(find_free_port())'),
        ['if __name__ == "__main__":\n    train(2)'],
        ["MASTER_PORT", "mp.spawn"],
    ),
    "parent_pid_offset_port_for_the_removed_group_start": (
        worker(
            launch='os.environ["MASTER_ADDR"] = "localhost"\n'
            '    os.environ["MASTER_PORT"] = str(29500 + os.getpid() % 1000)' + _SPAWN
        ),
        ['if __name__ == "__main__":\n    os.environ["MASTER_ADDR"] = "localhost"\n    train(2)'],
        ["MASTER_PORT", "getpid"],
    ),
    # handed through `mp.spawn` to the removed setup alone: the port, argument and parameter go
    "parent_pid_offset_port_handed_to_the_removed_setup": (
        port_worker("29500 + os.getpid() % 2000"),
        ["def train(world_size):", 'if __name__ == "__main__":\n    train(2)'],
        ["getpid", "port =", ", port"],
    ),
    "parent_free_port_handed_to_the_removed_setup": (
        port_worker("find_free_port()"),
        ["def train(world_size):", 'if __name__ == "__main__":\n    train(2)'],
        ["port ="],
    ),
    "free_port_found_in_the_spawn_call": (
        port_worker("find_free_port()").replace(
            "port = find_free_port()\n    mp.spawn(train, args=(2, port)",
            "mp.spawn(train, args=(2, find_free_port())",
        ),
        ["def train(world_size):", 'if __name__ == "__main__":\n    train(2)'],
        ["find_free_port", ", port"],
    ),
    # the ranks wait for rank 0's save, then end: nothing after it to order
    "final_barrier_after_the_rank_zero_save": (
        worker(after=_SAVED),
        ['if trainer.global_rank == 0:\n        torch.save(net.state_dict(), "net.pt")'],
        ["barrier", "destroy_process_group"],
    ),
    # the same DDP option, given by the strategy's name
    "ddp_with_find_unused_parameters": (
        worker(net="DDP(net, device_ids=None, find_unused_parameters=True)"),
        ['strategy="ddp_find_unused_parameters_true"'],
        ["DDP(", "find_unused_parameters=True"],
    ),
    "ddp_with_find_unused_parameters_off": (
        worker(net="DDP(net, find_unused_parameters=False)"),
        ['strategy="ddp"'],
        ["DDP(", "find_unused_parameters"],
    ),
    # the default group's rank and size are the process's
    "sampler_of_the_group_rank_and_size": (
        worker(sampler="DistributedSampler(data, num_replicas=dist.get_world_size(), rank=dist.get_rank())"),
        ["loader = DataLoader(data, batch_size=4, shuffle=True)"],
        ["DistributedSampler", "get_rank"],
    ),
    # the loader read before `fit` (a scheduler sized by it): only the script's own sampler
    # shards it there, so it is kept (`use_distributed_sampler=False`), built with the
    # Trainer's rank
    "a_loader_read_before_fit_keeps_its_sampler": (
        worker(net="DDP(net)\n    steps_per_epoch = len(loader)", after_step=_SCHED_STEP).replace(
            "    for epoch in range(2):", _ONE_CYCLE + "    for epoch in range(2):"
        ),
        [
            "use_distributed_sampler=False",
            "rank=trainer.global_rank",
            "steps_per_epoch = len(loader)",
            "steps_per_epoch=self.steps_per_epoch",
        ],
        ["sampler.set_epoch(epoch)"],
    ),
    # its dataset and batch size are the same without the sampler
    "the_loader_dataset_read_before_fit_leaves_the_sampler_to_lightning": (
        worker(net="DDP(net)\n    print(len(loader.dataset))"),
        ["print(len(loader.dataset))", "DataLoader(data, batch_size=4, shuffle=True)"],
        ["use_distributed_sampler", "DistributedSampler("],
    ),
}

UNCHANGED = {
    "sync_batchnorm_flag_changed_before_the_loop": (
        sync_bn_worker(after="    sync_bn = not sync_bn\n"),
        "TL106",
    ),
    "sync_batchnorm_with_other_code_under_the_flag": (
        sync_bn_worker(_SYNC_BN + "        print(net)\n"),
        "TL106",
    ),
    "loader_sampler_given_inline_read_besides_set_epoch": (
        torchrun_only(
            _NO_LOADER_FUNCTION,
            ("    loader = prepare_dataloader(data, 4)", _INLINE_LOADER),
            ("            print(epoch, loss.item())", "            print(epoch, len(loader.sampler))"),
        ),
        "TL162",
    ),
    # a resumed run (`range(epochs_run, epochs)`, the start read from a snapshot): the
    # script's sampler shuffled by `set_epoch(epochs_run + k)`, Lightning's gets its own epoch k
    "set_epoch_of_epochs_counted_from_a_resumed_start": (
        torchrun_only(
            ("    for epoch in range(epochs):", "    for epoch in range(epochs_run, epochs):"),
            ("    ddp_setup()\n", "    ddp_setup()\n    epochs_run = int(open('start.txt').read())\n"),
        ),
        "TL162",
    ),
    # `for epoch in range(1, epochs + 1): sampler.set_epoch(epoch)` (diverged at step 1 on
    # main): the script's first epoch shuffles by seed + 1, Lightning's by seed + 0
    "set_epoch_of_epochs_counted_from_one": (
        worker().replace("for epoch in range(2):", "for epoch in range(1, 3):"),
        "TL162",
    ),
    "torchrun_only_setup_sets_torchruns_environment": (
        torchrun_only(("    ddp_setup()\n", '    os.environ.setdefault("RANK", "0")\n    ddp_setup()\n')),
        "TL168",
    ),
    "torchrun_only_setup_doing_more": (
        torchrun_only(('init_process_group(backend="gloo")\n', 'init_process_group(backend="gloo")\n    print("up")\n')),
        "TL161",
    ),
    "torchrun_only_group_at_a_tcp_address": (
        torchrun_only(('backend="gloo")', 'backend="gloo", init_method="tcp://127.0.0.1:23456")')),
        "TL161",
    ),
    "loader_function_sampler_drops_last": (loader_function_worker(", drop_last=True"), "TL162"),
    "loader_function_set_epoch_missing": (
        loader_function_worker().replace("loader.sampler.set_epoch(epoch)", "pass"),
        "TL162",
    ),
    "function_handed_the_wrapper_and_the_model": (
        saving_worker("        if rank == 0:\n            save(ddp_net)\n            save(net)"),
        "TL165",
    ),
    "wrapper_of_another_model": (
        worker(before="    other = nn.Linear(4, 2)\n    ddp_other = DDP(other)"),
        "TL165",
    ),
    "validation_sampler_shuffling": (validating_worker(shuffle=""), "TL162"),
    "validation_sampler_with_its_own_seed": (
        validating_worker(shuffle=", shuffle=False, seed=1"),
        "TL162",
    ),
    "validation_of_a_batchnorm_model": (
        validating_worker(net="DDP(nn.Sequential(net, nn.BatchNorm1d(2)))"),
        "TL167",
    ),
    "validation_of_a_model_from_layers_with_batchnorm": (
        validating_worker().replace(
            "    net = nn.Linear(4, 2)",
            "    layers = [nn.Linear(4, 2), nn.BatchNorm1d(2)]\n    net = nn.Sequential(*layers)",
        ),
        "TL167",
    ),
    "validation_of_a_model_given_batchnorm_after_it_is_built": (
        validating_worker().replace(
            "    ddp_net = DDP(net)",
            '    net.add_module("bn", nn.BatchNorm1d(2))\n    ddp_net = DDP(net)',
        ),
        "TL167",
    ),
    "validation_of_a_model_built_elsewhere": (
        validating_worker(net="DDP(make_model())"),
        "TL167",
    ),
    "all_reduce_of_the_training_loss_after_validation": (
        validating_worker(
            epoch_end=_VALIDATION.replace("dist.all_reduce(correct)", "dist.all_reduce(loss)")
        ),
        "TL163",
    ),
    "all_reduce_at_epoch_end_without_validation": (
        worker(epoch_end="        dist.all_reduce(loss)"),
        "TL163",
    ),
    "all_reduce_of_the_epoch_counters_on_rank_zero_only": (
        counting_worker(
            epoch_end="        if rank == 0:\n            dist.all_reduce(total)\n"
            "            print(total.item())"
        ),
        "TL163",
    ),
    "all_reduce_of_the_epoch_counter_in_the_step": (
        counting_worker(epoch_end="", after_step=_COUNTED + "\n            dist.all_reduce(total)"),
        "TL163",
    ),
    "all_reduce_of_an_alias_of_the_step_loss": (
        counting_worker(epoch_end="        last = loss\n        dist.all_reduce(last)"),
        "TL163",
    ),
    "all_reduce_of_a_counter_the_step_rebinds": (
        counting_worker(after_step=_COUNTED + "\n            total = loss.detach()"),
        "TL163",
    ),
    "all_reduce_of_the_counters_after_the_epochs": (
        counting_worker(epoch_end="", after="    dist.all_reduce(total)"),
        "TL163",
    ),
    "collective_through_a_function_in_the_step": (reducing_helper_worker("step"), "TL163"),
    "collective_through_a_function_on_rank_zero": (
        reducing_helper_worker("rank_zero"),
        "TL163",
    ),
    "collective_through_a_function_before_the_batch_loop": (
        reducing_helper_worker("epoch_start"),
        "TL163",
    ),
    "collective_through_a_function_calling_it_in_a_loop": (
        reducing_helper_worker(
            helper=_REDUCE_MEAN.replace(
                "    dist.all_reduce(t)\n", "    for _ in range(world_size):\n        dist.all_reduce(t)\n"
            )
        ),
        "TL163",
    ),
    "all_reduce_of_the_counter_without_waiting": (
        validating_worker(
            epoch_end=_VALIDATION.replace(
                "dist.all_reduce(correct)", "dist.all_reduce(correct, async_op=True)"
            )
        ),
        "TL163",
    ),
    "rank_zero_evaluates_the_wrapper_of_a_batchnorm_model_every_step": (
        worker(
            before=_TEST_LOADER,
            net="DDP(nn.Sequential(net, nn.BatchNorm1d(2)))",
            after_step="            if rank == 0:\n                print(evaluate(ddp_net, test_loader))",
        ).replace("def train(", _EVALUATE, 1),
        "TL167",
    ),
    "rank_zero_evaluates_the_wrapper_of_a_batchnorm_model": (
        rank_zero_evaluating("ddp_net", "nn.Sequential(nn.Linear(4, 2), nn.BatchNorm1d(2))"),
        "TL167",
    ),
    "training_sampler_keeping_its_order": (
        init_helper(
            ("DistributedSampler(data)", "DistributedSampler(data, shuffle=False)"),
            ("RandomSampler(data)", "SequentialSampler(data)"),
            ("            sampler.set_epoch(epoch)\n", "            print(epoch)\n"),
        ),
        "TL162",
    ),
    "init_helper_with_a_slurm_branch": (
        init_helper(
            (
                "    else:\n        args.distributed = False",
                '    elif "SLURM_PROCID" in os.environ:\n'
                '        args.rank = int(os.environ["SLURM_PROCID"])\n'
                "    else:\n        args.distributed = False",
            )
        ),
        "TL168",
    ),
    "init_helper_gate_other_than_torchrun": (
        init_helper(('"RANK" in os.environ and "WORLD_SIZE" in os.environ', "args.world_size > 1")),
        "TL168",
    ),
    "init_helper_meeting_at_a_tcp_address": (
        init_helper(("world_size=args.world_size,", 'init_method="tcp://10.0.0.1:23456",')),
        "TL161",
    ),
    "init_helper_rank_other_than_torchrun": (
        init_helper(("rank=args.rank", "rank=0")),
        "TL161",
    ),
    "init_helper_result_used": (
        init_helper((_START, "    ok = init_distributed_mode(args)\n")),
        "TL168",
    ),
    "init_helper_flag_changed_before_the_loop": (
        init_helper((_START, _START + "    args.distributed = False\n")),
        "TL168",
    ),
    "init_helper_group_read_before_the_loop": (
        init_helper((_START, _START + "    print(dist.get_world_size())\n")),
        "TL164",
    ),
    "init_helper_plain_sampler_not_what_shuffle_makes": (
        init_helper(("RandomSampler(data)", "SequentialSampler(data)")),
        "TL162",
    ),
    "spawn_without_join": (
        worker(launch="mp.spawn(train, args=(2,), nprocs=2, join=False)"),
        "TL160",
    ),
    "spawn_of_another_function": (
        worker(launch="mp.spawn(print, args=(2,), nprocs=2)"),
        "TL160",
    ),
    "process_count_not_given_to_the_worker": (
        worker(launch="n = 2\n    mp.spawn(train, args=(3,), nprocs=n)"),
        "TL160",
    ),
    "no_launcher": (worker(launch="train(0, 1)"), "TL160"),
    # the tutorial series' prepare_dataloader(): a DistributedSampler inside a function of the
    # script is not read (taken for a loader without one, it was kept and built before the
    # Trainer's process group: a crash at step 0)
    "loader_from_a_function_of_the_script": (
        worker(
            sampler="None", loader="prepare_dataloader(data)", set_epoch="pass"
        ).replace(
            "def train(rank, world_size):",
            "def prepare_dataloader(data):\n"
            "    return DataLoader(data, batch_size=4, sampler=DistributedSampler(data))\n\n\n"
            "def train(rank, world_size):",
        ),
        "TL162",
    ),
    # the parent's code after the spawn (a reload, a test) ran once; under the Trainer's DDP
    # every process runs the script, so it would run once per rank
    # values the parent computed once and handed to the worker, recomputed in every process
    "parent_draws_a_python_random_value_for_the_worker": (
        worker(
            params="rank, world_size, seed",
            launch="import random\n    seed = random.randint(0, 1000)\n"
            "    mp.spawn(train, args=(2, seed), nprocs=2)",
        ),
        "TL160",
    ),
    "parent_reads_the_clock_for_the_worker": (
        worker(
            params="rank, world_size, stamp",
            before='    print("run", stamp)',  # (unread, it would go: port_argument.py)
            launch="import time\n    stamp = int(time.time())\n"
            "    mp.spawn(train, args=(2, stamp), nprocs=2)",
        ),
        "TL160",
    ),
    # the spawned worker began with torch's generator fresh; converted, it follows this seed
    "parent_seeds_torch_before_the_spawn": (
        worker(launch="torch.manual_seed(0)\n    mp.spawn(train, args=(2,), nprocs=2)"),
        "TL160",
    ),
    "parent_downloads_data_for_the_worker": (
        worker(
            params="rank, world_size, path",
            launch="import urllib.request\n"
            '    path, _ = urllib.request.urlretrieve("https://example.com/d.csv", "d.csv")\n'
            "    mp.spawn(train, args=(2, path), nprocs=2)",
        ),
        "TL160",
    ),
    "code_after_the_spawn": (
        worker(launch='mp.spawn(train, args=(2,), nprocs=2)\n    print("done")'),
        "TL160",
    ),
    "code_after_the_call_of_the_function_spawning": (
        worker(launch="main()\n    print('done')").replace(
            'if __name__ == "__main__":',
            'def main():\n    mp.spawn(train, args=(2,), nprocs=2)\n\n\nif __name__ == "__main__":',
        ),
        "TL160",
    ),
    "nccl_backend": (
        worker(init='dist.init_process_group("nccl", rank=rank, world_size=world_size)'),
        "TL161",
    ),
    "process_group_started_twice": (
        worker(before='    dist.init_process_group("gloo", rank=rank, world_size=world_size)'),
        "TL161",
    ),
    "shuffling_sampler_without_set_epoch": (worker(set_epoch="pass"), "TL162"),
    # the script's own sampler kept (own_sampler.py) only where it gives the same batches
    "own_seed_sampler_without_set_epoch": (
        worker(sampler="DistributedSampler(data, seed=3)", set_epoch="pass"),
        "TL162",
    ),
    "own_seed_sampler_set_epoch_with_another_number": (
        worker(sampler="DistributedSampler(data, seed=3)", set_epoch="sampler.set_epoch(epoch + 1)"),
        "TL162",
    ),
    "own_seed_sampler_set_epoch_after_the_batches": (
        worker(
            sampler="DistributedSampler(data, seed=3)",
            set_epoch="pass",
            epoch_end="        sampler.set_epoch(epoch)",
        ),
        "TL162",
    ),
    "own_seed_sampler_used_besides_its_loader": (
        worker(
            sampler="DistributedSampler(data, seed=3)",
            after="    print(len(sampler))",
        ),
        "TL162",
    ),
    "own_seed_sampler_of_a_validating_worker": (
        validating_worker(sampler="DistributedSampler(data, seed=3)"),
        "TL162",
    ),
    "own_seed_sampler_of_a_torchrun_script": (
        TORCHRUN.format(extra='ddp_world_size = int(os.environ["WORLD_SIZE"])').replace(
            "DistributedSampler(data) if", "DistributedSampler(data, seed=3) if"
        ),
        "TL162",
    ),
    "own_seed_sampler_of_a_subclass": (
        worker(sampler="MySampler(data, seed=3)").replace(
            "def train(", "class MySampler(DistributedSampler):\n    pass\n\n\ndef train("
        ),
        "TL162",
    ),
    # Lightning's sampler set at the start of each epoch: a call after the batches sets the
    # next epoch's order (epoch 1 would repeat epoch 0's)
    "set_epoch_after_the_batches": (
        worker(set_epoch="pass", epoch_end="        sampler.set_epoch(epoch)"),
        "TL162",
    ),
    "set_epoch_with_another_number": (
        worker(set_epoch="sampler.set_epoch(0)"),
        "TL162",
    ),
    "sampler_over_another_dataset": (
        worker(sampler="DistributedSampler(TensorDataset(torch.randn(16, 4)))"),
        "TL162",
    ),
    "barrier_on_rank_zero_only": (
        worker(epoch_end="        if rank == 0:\n            dist.barrier()"),
        "TL163",
    ),
    "barrier_with_a_timeout": (
        worker(epoch_end="        dist.barrier(timeout=datetime.timedelta(seconds=5))"),
        "TL163",
    ),
    "all_reduce_before_the_batch_loop": (
        counting_worker(set_epoch=_COUNTERS + "\n        dist.all_reduce(total)", epoch_end=""),
        "TL163",
    ),
    "per_rank_seed_before_the_process_group": (
        worker(
            init="torch.manual_seed(rank)\n"
            '    dist.init_process_group("gloo", rank=rank, world_size=world_size)'
        ),
        "TL164",
    ),
    "trainer_built_early_would_read_a_later_name": (
        worker(before="    torch.manual_seed(rank)\n    epochs = 2").replace(
            "range(2)", "range(epochs)"
        ),
        "TL164",
    ),
    # an option the Trainer's strategy is not given (the message names it)
    "ddp_with_broadcast_buffers_off": (
        worker(net="DDP(net, device_ids=None, broadcast_buffers=False)"),
        "TL165",
    ),
    # the wrapper's keys carry `module.`: read as the model, the file would have other keys
    "rank_zero_saves_the_wrappers_state_dict_after_training": (
        worker(after="    if rank == 0:\n        torch.save(ddp_net.state_dict(), 'n.pt')"),
        "TL165",
    ),
    "rank_zero_saves_the_wrappers_state_dict_each_epoch": (
        worker(epoch_end="        if rank == 0:\n            torch.save(ddp_net.state_dict(), 'n.pt')"),
        "TL165",
    ),
    # the spawn would stay as written (plan edits reach the bodies of top-level blocks only)
    # and start the worker that lost its rank parameter: a TypeError
    "spawn_nested_in_an_if_of_main": (
        worker(launch="main()").replace(
            'if __name__ == "__main__":',
            "def main():\n    if torch.get_num_threads() > 0:\n"
            "        mp.spawn(train, args=(2,), nprocs=2)\n\n\n"
            'if __name__ == "__main__":',
        ),
        "TL160",
    ),
    "worker_also_called_without_spawn": (
        worker(
            launch="if torch.get_num_threads() > 1:\n        mp.spawn(train, args=(2,), nprocs=2)\n"
            "    else:\n        train(0, 1)"
        ),
        "TL160",
    ),
    # each rank trained its own copy: the Trainer's DDP would average the gradients
    "step_loop_model_never_wrapped": (step_worker(wrap="ddp_net = net"), "TL169"),
    "epoch_loop_model_never_wrapped": (worker(net="net"), "TL169"),
    # the tutorial's `demo_checkpoint`: rank 0 saves the wrapper, a barrier, every rank loads
    "step_loop_wrapper_saved_and_loaded_before_the_loop": (
        step_worker(before=_CHECKPOINT_BEFORE),
        "TL165",
    ),
    "step_loop_barrier_before_the_loop": (step_worker(before=_CHECKPOINT_BEFORE), "TL164"),
    # the tutorial's `run_demo(demo_basic, n)` then `run_demo(demo_checkpoint, n)`
    "two_launches_through_one_helper": (
        step_worker(launch="run(train, 2)\n    run(train, 2)").replace(
            'if __name__ == "__main__":',
            "def run(fn, world_size):\n"
            "    mp.spawn(fn, args=(world_size,), nprocs=world_size, join=True)\n\n\n"
            'if __name__ == "__main__":',
        ),
        "TL160",
    ),
    "step_loop_reading_a_distributed_loader": (
        step_worker(
            before="    data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))\n"
            "    batches = iter(DataLoader(data, batch_size=4, sampler=DistributedSampler(data)))"
        ).replace(
            "x, y = torch.randn(4, 4), torch.randint(0, 2, (4,))", "x, y = next(batches)"
        ),
        "TL162",
    ),
    "step_loop_under_ddp": (
        """
        import os
        from torch.distributed import init_process_group
        from torch.nn.parallel import DistributedDataParallel as DDP

        init_process_group("gloo")
        rank = int(os.environ["RANK"])
        model = DDP(model)
        for it in range(10):
            x, y = torch.randn(4, 4), torch.randint(0, 2, (4,))
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        """,
        "TL166",
    ),
    "validation_under_ddp": (
        worker(
            before="    val_loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4)",
            epoch_end="        with torch.no_grad():\n"
            "            for (v,) in val_loader:\n"
            "                val = ddp_net(v).sum()",
        ),
        "TL167",
    ),
    "torchrun_setup_doing_more": (
        TORCHRUN.format(extra='print("hello from", ddp_rank)'),
        "TL168",
    ),
    "ddp_without_a_process_group": (
        """
        from torch.nn.parallel import DistributedDataParallel

        model = DistributedDataParallel(model)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL115",
    ),
    "started_by_torch_distributed_launch": (  # the old Hugging Face examples' launcher
        IMPORTS
        + """
import argparse


def train(args, model, loader):
    if args.local_rank != -1:
        model = DDP(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()


parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
args = parser.parse_args()
if args.local_rank != -1:
    dist.init_process_group(backend="gloo")
train(args, model, loader)
""",
        "TL160",
    ),
    # the script reads the port back: the Trainer's children would each print their own
    "parent_free_port_read_back_by_the_script": (
        free_port_worker(
            'os.environ["MASTER_PORT"] = str(find_free_port())\n'
            '    print("port", os.environ["MASTER_PORT"])'
        ),
        "TL160",
    ),
    "parent_free_port_handed_on_with_the_whole_environment": (
        free_port_worker(
            'os.environ["MASTER_PORT"] = str(find_free_port())\n    env = dict(os.environ)'
        ),
        "TL160",
    ),
    # every rank reads what rank 0 wrote: the barrier orders that read
    "barrier_before_every_rank_reloads_the_save": (
        worker(after=_SAVED + '\n    net.load_state_dict(torch.load("net.pt"))'),
        "TL163",
    ),
    "sampler_of_a_subgroup_rank": (
        worker(sampler="DistributedSampler(data, num_replicas=world_size, rank=dist.get_rank(group))"),
        "TL162",
    ),
    # the worker prints the port it was handed: each Trainer process would show its own
    "parent_pid_offset_port_read_by_the_worker": (
        port_worker("29500 + os.getpid() % 2000", before='    print("port", port)'),
        "TL160",
    ),
    # the parent's draw seeds nothing, but its file is output the conversion would lose
    "parent_port_from_a_function_writing_a_file": (
        port_worker("save_port()").replace(
            "def train(",
            'def save_port():\n    open("port.txt", "w").write("1")\n    return 29500\n\n\n'
            "def train(",
            1,
        ),
        "TL160",
    ),
    # drawn once for both workers by `mp.spawn`'s call; converted, each process would draw its own
    "seed_drawn_in_the_spawn_call": (
        worker(
            params="rank, world_size, seed",
            before="    torch.manual_seed(seed)",
            launch="import random\n    mp.spawn(train, args=(2, random.randint(0, 99)), nprocs=2)",
        ),
        "TL160",
    ),
    "a_sharded_validation_loader_read_before_fit": (
        validating_worker(net="DDP(net)\n    print(len(val_loader))"),
        "TL153",
    ),
    "a_loader_read_before_fit_by_a_validating_worker": (
        validating_worker(net="DDP(net)\n    print(len(loader))"),
        "TL153",
    ),
}

# torchrun's group ended under the flag after a barrier (wait for rank 0's save): nothing runs
# after it on any rank, so the barrier goes with the end
CONVERTS["torchrun_barrier_before_the_group_end"] = (
    TORCHRUN.format(extra="").replace(
        "if ddp:\n    destroy_process_group()\n",
        "if ddp:\n    dist.barrier()\n    destroy_process_group()\n",
    ).replace("import os\n", "import os\n\nimport torch.distributed as dist\n", 1),
    ['strategy="ddp" if ddp else "auto"', 'torch.save(model.state_dict(), "model.pt")'],
    ["barrier", "destroy_process_group"],
)
_BARRIER_THEN_CODE = (
    TORCHRUN.format(extra="")
    .replace(
        "if ddp:\n    destroy_process_group()\n",
        "if ddp:\n    dist.barrier()\n    destroy_process_group()\n"
        'print(open("model.pt", "rb").read(4))\n',
    )
    .replace("import os\n", "import os\n\nimport torch.distributed as dist\n", 1)
)
# code after the group's end still runs on every rank, ordered by the barrier after rank 0's
# save: the barrier stays, as the Trainer's; the group's end goes
CONVERTS["torchrun_barrier_before_the_group_end_then_more_code"] = (
    _BARRIER_THEN_CODE,
    ["if ddp:\n    trainer.strategy.barrier()\nprint(open("],
    ["dist.barrier()", "destroy_process_group"],
)
UNCHANGED.update(
    {
        # the code after the end reads the group: gone there, alive under the Trainer
        "torchrun_barrier_before_the_group_end_then_reads_the_group": (
            _BARRIER_THEN_CODE + "print(dist.is_initialized())\n",
            "TL161",
        ),
    }
)

# the epoch's loss averaged over the ranks under the flag: the reduce, then code of its own in
# the same block (every rank runs `on_train_epoch_end`, as every rank ran the script's epoch)
_TORCHRUN_AVERAGED = (
    TORCHRUN.format(extra='ddp_world_size = int(os.environ["WORLD_SIZE"])')
    .replace("import os\n", "import os\n\nimport torch.distributed as dist\n", 1)
    .replace(
        "    for x, y in train_loader:\n",
        "    total = torch.zeros(1)\n    for x, y in train_loader:\n",
    )
    .replace("        opt.step()\n", "        opt.step()\n        total += loss.detach()\n")
    .replace(
        "    if master:\n        print(epoch, loss.item())\n",
        "    total /= len(train_loader)\n"
        "    if ddp:\n        dist.all_reduce(total)\n{tail}"
        "    if master:\n        print(epoch, total.item())\n",
    )
)
CONVERTS["torchrun_reduce_then_average_under_the_flag"] = (
    _TORCHRUN_AVERAGED.format(tail="        total /= ddp_world_size\n"),
    [
        "def on_train_epoch_end(self):",
        "if self.ddp:\n            dist.all_reduce(self.total)\n"
        "            self.total /= self.trainer.world_size",
    ],
    ["init_process_group"],
)
UNCHANGED.update(
    {
        # a second collective after other code of the block: not the leading reduces
        "torchrun_reduce_code_then_another_collective": (
            _TORCHRUN_AVERAGED.format(
                tail="        total /= ddp_world_size\n        dist.broadcast(total, 0)\n"
            ),
            "TL163",
        ),
    }
)


def _loader_branches(ddp_loader: str, plain_loader: str, plain_sampler: str = "None") -> str:
    """TORCHRUN with its loader built in both branches of `if ddp:`."""
    return TORCHRUN.format(extra="").replace(
        "sampler = DistributedSampler(data) if ddp else None\n"
        "train_loader = DataLoader(data, batch_size=4, shuffle=(sampler is None), "
        "sampler=sampler)\n",
        "if ddp:\n    sampler = DistributedSampler(data)\n"
        f"    train_loader = {ddp_loader}\n"
        f"else:\n    sampler = {plain_sampler}\n"
        f"    train_loader = {plain_loader}\n",
    )


# the same loaders written as an `if / else` of two `DataLoader(...)`s: the one-line form
# (source/flag_branch_loaders.py), then Lightning's shuffling loader
CONVERTS["torchrun_loaders_in_both_branches_of_the_flag"] = (
    _loader_branches(
        "DataLoader(data, batch_size=4, sampler=sampler)",
        "DataLoader(data, batch_size=4, shuffle=True)",
    ),
    ["train_loader = DataLoader(data, batch_size=4, shuffle=True)\n"],
    ["if ddp:\n    sampler", "DistributedSampler", "else:\n    sampler = None"],
)
UNCHANGED.update(
    {
        # each rank's batch is the global one divided by the process count: the two loaders
        # differ beyond their sampler
        "torchrun_loader_branches_batch_per_rank": (
            _loader_branches(
                "DataLoader(data, batch_size=8 // int(os.environ['WORLD_SIZE']), "
                "sampler=sampler)",
                "DataLoader(data, batch_size=8, shuffle=True)",
            ),
            "TL162",
        ),
        # one process keeps the order, the sampler shuffles under DDP: joined, then refused
        # as the one-line form without `shuffle=`
        "torchrun_loader_branches_plain_run_keeps_order": (
            _loader_branches(
                "DataLoader(data, batch_size=4, sampler=sampler)",
                "DataLoader(data, batch_size=4)",
            ),
            "TL162",
        ),
        # without DDP a sampler of its own: not the loader's plain `shuffle=`
        "torchrun_loader_branches_plain_run_own_sampler": (
            _loader_branches(
                "DataLoader(data, batch_size=4, sampler=sampler)",
                "DataLoader(data, batch_size=4, shuffle=True)",
                plain_sampler="torch.utils.data.SequentialSampler(data)",
            ),
            "TL162",
        ),
    }
)

# the same in the function `__main__` calls last: nothing runs after it returns
_TORCHRUN_MAIN = """
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def main():
    ddp = "RANK" in os.environ
    if ddp:
        dist.init_process_group(backend="gloo")
    data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    sampler = DistributedSampler(data) if ddp else None
    loader = DataLoader(data, batch_size=4, sampler=sampler, shuffle=sampler is None)
    model = nn.Linear(4, 2)
    if ddp:
        model = DDP(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        if ddp:
            sampler.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    if ddp:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
"""
CONVERTS["torchrun_main_barrier_before_the_group_end"] = (
    _TORCHRUN_MAIN,
    ['strategy="ddp" if ddp else "auto"'],
    ["barrier", "destroy_process_group"],
)
# module code after the call runs on every rank after the barrier: kept, as the Trainer's
CONVERTS["torchrun_main_barrier_then_module_code"] = (
    _TORCHRUN_MAIN + 'print(open("log.txt").read())\n',
    ["trainer.fit(lit_model, loader)\n    if ddp:\n        trainer.strategy.barrier()\n"],
    ["dist.barrier()", "destroy_process_group"],
)
UNCHANGED.update(
    {
        # `sampler=s` with `s = DistributedSampler(...) if ddp else None` and no `shuffle=`:
        # one process keeps the order, the sampler shuffles under DDP; the converted loader
        # (`shuffle=True`) would shuffle in both runs
        "torchrun_one_line_sampler_plain_run_keeps_order": (
            TORCHRUN.format(extra="").replace("shuffle=(sampler is None), ", ""),
            "TL162",
        ),
    }
)
