"""Cases of patterns/placement_chain.py: an if/elif/else chain placing the model per branch
becomes Trainer arguments chosen by the same tests; a branch they cannot follow is TL144."""

_ARGS = """
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--gpu", default=None, type=int)
parser.add_argument("--distributed", action="store_true")
args = parser.parse_args()
"""

_LOOP = """
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
"""

_IMAGENET = """
if not torch.cuda.is_available():
    print("using CPU, this will be slow")
elif args.gpu is not None:
    torch.cuda.set_device(args.gpu)
    model = model.cuda(args.gpu)
else:
    model = torch.nn.DataParallel(model).cuda()
"""

CONVERTS = {
    "imagenet_cpu_one_gpu_or_data_parallel": (
        _ARGS + _IMAGENET + _LOOP,
        [
            'accelerator="cuda" if torch.cuda.is_available() else "cpu"',
            "else [args.gpu] if args.gpu is not None else torch.cuda.device_count()",
            "if not torch.cuda.is_available() or args.gpu is not None",
            'else "ddp" if torch.cuda.device_count() > 1 else "auto"',
            # the prints and the GPU selection stay; the placements go
            """
            if not torch.cuda.is_available():
                print("using CPU, this will be slow")
            elif args.gpu is not None:
                torch.cuda.set_device(args.gpu)

            lit_model""",
        ],
        ["DataParallel(", "model.cuda(", "else:\n"],
    ),
    "placements_kept_where_code_before_the_loop_runs_the_model": (
        _ARGS
        + _IMAGENET
        + """
def evaluate(net):
    with torch.no_grad():
        return net(torch.randn(2, 4, device=next(net.parameters()).device)).sum()


print(evaluate(model))
"""
        + _LOOP,
        ["model = model.cuda(args.gpu)", "else:\n    model = model.cuda()\n", "devices=("],
        ["DataParallel("],
    ),
    "model_put_back_after_fit_where_its_branch_placed_it": (
        _ARGS
        + _IMAGENET
        + _LOOP
        + """
with torch.no_grad():
    x = torch.randn(2, 4)
    if torch.cuda.is_available():
        x = x.cuda(args.gpu)
    print(model(x))
""",
        [
            # Lightning's fit hands the model back on the CPU
            """
            trainer.fit(lit_model, loader)
            model.to(
                "cpu"
                if not torch.cuda.is_available()
                else torch.device("cuda", args.gpu) if args.gpu is not None else "cuda"
            )
            """
        ],
        ["DataParallel("],
    ),
    "gpu_index_not_known_to_be_given": (
        _ARGS
        + """
if torch.cuda.is_available():
    model.cuda(args.gpu)
else:
    print("using CPU")
"""
        + _LOOP,
        [
            'accelerator="cuda" if torch.cuda.is_available() else "cpu"',
            # `.cuda(None)` is the current GPU: one device
            "([args.gpu] if args.gpu is not None else 1) if torch.cuda.is_available() else 1",
            'if not torch.cuda.is_available():\n    print("using CPU")\n',
        ],
        ["model.cuda(", 'accelerator="cpu"', "pass"],
    ),
    "set_device_then_bare_cuda_names_the_gpu": (
        _ARGS
        + """
if args.gpu is not None and torch.cuda.is_available():
    torch.cuda.set_device(args.gpu)
    model.cuda()
elif torch.cuda.is_available():
    model = nn.DataParallel(model).cuda()
"""
        + _LOOP,
        [
            # no `else`: the model stays on the CPU when neither test holds
            '"cuda"\n'
            "        if (args.gpu is not None and torch.cuda.is_available())\n"
            "        or torch.cuda.is_available()\n"
            '        else "cpu"',
            "[args.gpu]",
            "torch.cuda.device_count() if torch.cuda.is_available() else 1",
        ],
        ["DataParallel(", "model.cuda("],
    ),
    "chain_nested_under_a_cuda_check": (
        # the ImageNet example's older device block: the chain sits inside `if cuda:`
        _ARGS
        + """
if torch.cuda.is_available():
    if args.gpu is not None:
        torch.cuda.set_device(args.gpu)
        model.cuda(args.gpu)
    else:
        model = torch.nn.DataParallel(model).cuda()
"""
        + _LOOP,
        [
            # `(cuda and gpu given) or cuda` is `cuda`
            'accelerator="cuda" if torch.cuda.is_available() else "cpu"',
            "[args.gpu]\n        if torch.cuda.is_available() and args.gpu is not None\n",
            "torch.cuda.device_count() if torch.cuda.is_available() else 1",
            '"ddp" if torch.cuda.device_count() > 1 else "auto"',
            # the GPU selection stays; the placements and the empty `else` go
            """
            if torch.cuda.is_available():
                if args.gpu is not None:
                    torch.cuda.set_device(args.gpu)

            lit_model""",
        ],
        ["DataParallel(", "model.cuda(", "else:\n"],
    ),
    "another_field_of_the_tested_namespace_stored": (
        # `args.start_epoch = ...` (a resumed checkpoint) leaves `args.gpu` as the chain read it
        _ARGS + _IMAGENET + "\nargs.start_epoch = 3\n" + _LOOP,
        ["[args.gpu] if args.gpu is not None else torch.cuda.device_count()"],
        ["DataParallel("],
    ),
    "branch_a_known_flag_never_runs": (
        """
use_mps = False
if not torch.cuda.is_available():
    print("using CPU")
elif use_mps:
    model = model.to("mps")
else:
    model = model.cuda()
"""
        + _LOOP,
        [
            'accelerator="cuda" if torch.cuda.is_available() else "cpu"',
            "devices=1",
            # a branch that never runs stays as written
            'elif use_mps:\n    model = model.to("mps")\n',
        ],
        ["strategy=", "model = model.cuda()"],
    ),
}

UNCHANGED = {
    "branch_wrapping_in_ddp_under_a_command_line_flag": (
        _ARGS
        + """
if not torch.cuda.is_available():
    print("using CPU, this will be slow")
elif args.distributed:
    model.cuda()
    model = torch.nn.parallel.DistributedDataParallel(model)
else:
    model = torch.nn.DataParallel(model).cuda()
"""
        + _LOOP,
        "TL144",
    ),
    "branch_wrapping_a_submodule": (
        _ARGS
        + """
if not torch.cuda.is_available():
    print("using CPU")
else:
    if args.gpu is None:  # AlexNet / VGG in the ImageNet example
        model.features = torch.nn.DataParallel(model.features)
    model.cuda()
"""
        + _LOOP,
        "TL144",
    ),
    "branch_moving_with_to": (
        """
if torch.cuda.is_available():
    model = torch.nn.DataParallel(model).cuda()
else:
    model = model.to("mps")
"""
        + _LOOP,
        "TL144",
    ),
    "data_parallel_on_chosen_gpus": (
        """
if torch.cuda.is_available():
    model = torch.nn.DataParallel(model, device_ids=[0, 1]).cuda()
else:
    print("using CPU")
"""
        + _LOOP,
        "TL144",
    ),
    "selected_gpu_is_not_the_one_moved_to": (
        """
if torch.cuda.is_available():
    torch.cuda.set_device(0)
    model = model.cuda(1)
else:
    print("using CPU")
"""
        + _LOOP,
        "TL144",
    ),
    "test_name_changes_before_the_loop": (
        _ARGS
        + _IMAGENET
        + """
args.gpu = None
"""
        + _LOOP,
        "TL144",
    ),
    "nested_chain_branch_wrapping_in_ddp": (
        _ARGS
        + """
if torch.cuda.is_available():
    if args.distributed:
        model.cuda()
        model = torch.nn.parallel.DistributedDataParallel(model)
    else:
        model = torch.nn.DataParallel(model).cuda()
"""
        + _LOOP,
        "TL144",
    ),
    "tested_field_stored_through_the_namespace_handed_on": (
        _ARGS + _IMAGENET + "\nvars(args).update(gpu=None)\n" + _LOOP,
        "TL144",
    ),
    "model_placed_again_after_the_chain": (
        _ARGS
        + _IMAGENET
        + """
model.cpu()
model.to("cuda")
"""
        + _LOOP,
        "TL144",
    ),
    "branch_leaving_a_model_placed_before": (
        _ARGS
        + """
model = model.cuda()
if args.gpu is None:
    print("the current GPU")
else:
    model = model.cuda(args.gpu)
"""
        + _LOOP,
        "TL144",
    ),
}
