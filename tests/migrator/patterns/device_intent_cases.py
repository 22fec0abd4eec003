"""Cases of patterns/device_intent.py: the script's device choice becomes `accelerator=` and
`devices=1` (or DDP over the GPUs DataParallel used); a device index other than 0 and
DataParallel GPU counts that cannot be written down are refused."""

_LOOP = """
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
"""

_PICK_DEVICE = """
        def get_default_device():
            \"\"\"Pick GPU if available, else CPU\"\"\"
            if torch.cuda.is_available():
                return torch.device("cuda")
            else:
                return torch.device("cpu")


        device = get_default_device()
"""

_CHAIN_DEVICE = """
        def get_device():
            if torch.cuda.is_available():
                return torch.device("cuda")
            if torch.backends.mps.is_available():
                return torch.device("mps")
            return torch.device("cpu")


        device = get_device()
"""

_PROBE = """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        encoder = nn.Linear(4, 8).to(device)
        head = nn.Linear(8, 2).to(device)
        enc_opt = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)


        def make_probe():
            return nn.Linear(8, 2).to(device)


        def features(loader):
            with torch.no_grad():
                feats = [encoder(x.to(device)).cpu() for x, _ in loader]
            return torch.cat(feats), torch.cat([y for _, y in loader])


        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                enc_opt.zero_grad()
                loss = criterion(head(encoder(x)), y)
                loss.backward()
                enc_opt.step()
        feats, ys = features(loader)
        clf = {probe}
        clf_opt = torch.optim.Adam(clf.parameters(), lr=1e-2)
        for it in range(50):
            clf_opt.zero_grad()
            probe_loss = F.cross_entropy(clf(feats), ys)
            probe_loss.backward()
            clf_opt.step()
        print(clf(feats).argmax(1))
"""

CONVERTS = {
    # course notebooks: the choice made by a function of the file, read through its returns
    "device_chosen_by_a_function_of_the_file": (
        _PICK_DEVICE + _LOOP,
        ['accelerator="cuda" if torch.cuda.is_available() else "cpu", devices=1'],
        [".to(device)", "device = get_default_device()"],
    ),
    # d2l's try_gpu(i=0): a parameter the call leaves to its literal default
    "device_chosen_by_a_function_with_a_defaulted_parameter": (
        """
        def try_gpu(i=0):
            if torch.cuda.device_count() >= i + 1:
                return torch.device(f"cuda:{i}")
            return torch.device("cpu")


        device = try_gpu()
        """
        + _LOOP,
        ['accelerator="cuda" if torch.cuda.device_count() >= 0 + 1 else "cpu",', "devices=1,"],
        [".to(device)", "device = try_gpu()"],
    ),
    # a tutorial's helper preferring cuda, then mps, then the cpu: one `if` per device
    "device_chosen_by_a_function_trying_each_accelerator": (
        _CHAIN_DEVICE + _LOOP,
        ['else "mps" if torch.backends.mps.is_available() else "cpu"', "devices=1,"],
        [".to(device)", "device = get_device()"],
    ),
    # the same as an if/elif chain, mps guarded for old torch builds
    "device_chosen_by_a_function_with_an_elif_chain": (
        _CHAIN_DEVICE.replace("    if torch.backends", "    elif torch.backends").replace(
            "torch.backends.mps.is_available()",
            'getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()',
        )
        + _LOOP,
        [
            'if getattr(torch.backends, "mps", None) is not None',
            "and torch.backends.mps.is_available()",
            "devices=1,",
        ],
        [".to(device)", "device = get_device()"],
    ),
    # the script's `--no-cuda` flag given to the helper as a constant at its one call
    "device_chosen_by_a_function_given_a_constant": (
        """
        def get_device(use_cuda):
            if use_cuda and torch.cuda.is_available():
                return torch.device("cuda")
            return torch.device("cpu")


        device = get_device(False)
        """
        + _LOOP,
        ['accelerator="cuda" if False and torch.cuda.is_available() else "cpu"'],
        [".to(device)", "device = get_device(False)"],
    ),
    # the helper reports its choice: its call stays, so the line prints where it did
    "device_function_printing_its_choice": (
        _CHAIN_DEVICE.replace(
            '        return torch.device("mps")',
            '        print("Using device: mps")\n                return torch.device("mps")',
        )
        + _LOOP,
        ["device = get_device()\n", 'else "mps" if torch.backends.mps.is_available() else "cpu"'],
        [".to(device)"],
    ),
    "no_device_is_the_cpu": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ['L.Trainer(accelerator="cpu", devices=1, max_epochs=2)'],
        [],
    ),
    "flag_in_the_device_expression": (
        """
        use_cuda = not args.no_cuda and torch.cuda.is_available()
        device = torch.device("cuda" if use_cuda else "cpu")
        """ + _LOOP,
        ['accelerator="cuda" if use_cuda else "cpu", devices=1'],
        ["device = torch.device", ".to(device)"],
    ),
    # the type string is named first, then made a device: the Trainer reads the name
    "device_of_a_named_type_string": (
        """
        device_type = "cuda" if torch.cuda.is_available() else "cpu"
        device = torch.device(device_type)
        """ + _LOOP,
        ["accelerator=device_type, devices=1"],
        ["device = torch.device", ".index"],
    ),
    "device_of_a_named_indexed_string": (
        """
        name = "cuda:0" if torch.cuda.is_available() else "cpu"
        device = torch.device(name)
        """ + _LOOP,
        ['accelerator="cuda" if torch.cuda.is_available() else "cpu", devices=1'],
        [".index"],
    ),
    # bound twice: which one the loop sees is not read here; the device is asked at run time
    "device_of_a_type_string_bound_twice": (
        """
        device_type = "cpu"
        if torch.cuda.is_available():
            device_type = "cuda"
        device = torch.device(device_type)
        """ + _LOOP,
        ["accelerator=torch.device(device_type).type"],
        [],
    ),
    "if_else_statement": (
        """
        # Device configuration
        if torch.cuda.is_available():
            device = torch.device("cuda:0")
        else:
            device = "cpu"

        """ + _LOOP,
        ['accelerator="cuda" if torch.cuda.is_available() else "cpu"', "devices=1"],
        ["# Device configuration", "device ="],
    ),
    "default_then_if_without_else": (
        """
        device = "cpu"
        if torch.cuda.is_available():
            device = "cuda"
        """ + _LOOP,
        ['accelerator="cuda" if torch.cuda.is_available() else "cpu", devices=1'],
        ["device ="],
    ),
    "device_rebound_by_a_helper": (
        """
        device = torch.device("cpu")
        device = pick_device(device)
        """ + _LOOP,
        [
            "accelerator=torch.device(device).type",
            "devices=[torch.device(device).index] if torch.device(device).index else 1",
            "device = pick_device(device)",
        ],
        [".to(device)"],
    ),
    "torch_accelerator_idiom": (
        """
        device = (
            torch.accelerator.current_accelerator().type
            if torch.accelerator.is_available()
            else "cpu"
        )
        """ + _LOOP,
        ['accelerator="auto" if torch.accelerator.is_available() else "cpu"'],
        ["device_", "current_accelerator"],
    ),
    "conditional_cuda_calls": (
        """
        use_gpu = torch.cuda.is_available()
        if use_gpu:
            model = model.cuda()
        for epoch in range(2):
            for x, y in loader:
                if use_gpu:
                    x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ['accelerator="cuda" if use_gpu else "cpu"'],
        [".cuda()"],
    ),
    "created_tensor_keeps_its_move": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                mask = torch.ones(x.shape[0]).to(device)
                optimizer.zero_grad()
                loss = criterion(model(x) * mask[:, None], y)
                loss.backward()
                optimizer.step()
        """,
        ["mask = torch.ones(x.shape[0]).to(self.device)", "x, y = batch"],
        ["x.to("],
    ),
    "device_the_script_still_reads": (
        """
        device = "cuda" if torch.cuda.is_available() else "cpu"
        print(f"Using {device} device")
        """ + _LOOP,
        [
            "L.Trainer(accelerator=device, devices=1, max_epochs=2)",
            'print(f"Using {device} device")',
        ],
        [".to(device)"],
    ),
    "torch_device_the_script_still_reads": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        """
        + _LOOP
        + """
        torch.save(model.to(device).state_dict(), "model.pt")
        """,
        ["L.Trainer(accelerator=device.type, devices=1, max_epochs=2)"],
        [],
    ),
    "device_a_module_global_the_function_reads": (
        """
        device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


        def train(net, opt, epochs):
            for epoch in range(epochs):
                for x, y in loader:
                    x, y = x.to(device), y.to(device)
                    mask = (torch.rand(x.shape[1]) > 0.1).float().to(device)
                    opt.zero_grad()
                    loss = criterion(net(x * mask), y)
                    loss.backward()
                    opt.step()


        train(model, optimizer, 2)
        """,
        [
            'accelerator="cuda" if torch.cuda.is_available() else "cpu"',
            "mask = (torch.rand(x.shape[1]) > 0.1).float().to(self.device)",
        ],
        ["x.to(device)", 'accelerator="cpu"'],
    ),
    "run_time_device_keeps_its_index": (
        """
        parser = argparse.ArgumentParser()
        parser.add_argument("--device", default="cpu")  # e.g. --device cuda:1
        args = parser.parse_args()
        device = torch.device(args.device)
        """ + _LOOP,
        [
            "accelerator=torch.device(args.device).type",
            "devices=[torch.device(args.device).index] if torch.device(args.device).index else 1",
        ],
        [".to(device)"],
    ),
    "moves_to_an_argument_attribute": (
        """
        args = parser.parse_args()
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(args.device), y.to(args.device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        [
            "accelerator=torch.device(args.device).type",
            "devices=[torch.device(args.device).index] if torch.device(args.device).index else 1",
        ],
        [".to(args.device)", 'accelerator="cpu"'],
    ),
    # a Kaggle notebook's per-epoch helper given `CFG.device`: inlined, its moves name the
    # device (the Trainer stayed on the CPU when only the loop's own code was read)
    "helper_given_a_config_attribute_device": (
        """
        class CFG:
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


        def train_one_epoch(model, optimizer, dataloader, device):
            model.train()
            for x, y in dataloader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


        for epoch in range(2):
            train_one_epoch(model, optimizer, loader, CFG.device)
        """,
        ["accelerator=torch.device(CFG.device).type"],
        [".to(CFG.device)", 'accelerator="cpu"'],
    ),
    "data_parallel_becomes_ddp": (
        """
        use_cuda = torch.cuda.is_available()
        device = torch.device("cuda" if use_cuda else "cpu")
        if torch.cuda.device_count() > 1:
            print("GPUs:", torch.cuda.device_count())
            model = nn.DataParallel(model)
        model.to(device)
        """ + _LOOP,
        [
            "devices=torch.cuda.device_count() if use_cuda else 1",
            'strategy="ddp" if use_cuda and torch.cuda.device_count() > 1 else "auto"',
            'print("GPUs:", torch.cuda.device_count())',
        ],
        ["DataParallel("],
    ),
    "data_parallel_on_the_cpu_is_dropped": (
        """
        model = nn.DataParallel(model)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ['accelerator="cpu", devices=1'],
        ["DataParallel(", "strategy="],
    ),
    # research code moving each batch under a flag, in one expression: the flag chooses the
    # accelerator (it was "cuda" whatever the flag said), and `x if flag else x` is not left
    "cuda_call_under_a_conditional_expression": (
        """
        use_cuda = torch.cuda.is_available()
        if use_cuda:
            model.cuda()
        for epoch in range(2):
            for x, y in loader:
                x, y = x.cuda() if use_cuda else x, y.cuda() if use_cuda else y
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ['accelerator="cuda" if use_cuda else "cpu", devices=1'],
        ["if use_cuda else x", "if use_cuda else y"],
    ),
    "cuda_call_under_a_conditional_expression_only": (
        """
        use_cuda = torch.cuda.is_available()
        for epoch in range(2):
            for x, y in loader:
                x = x.cuda() if use_cuda else x
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ['accelerator="cuda" if use_cuda else "cpu", devices=1'],
        ["if use_cuda else x"],
    ),
    # Udacity style: `if train_on_gpu: model.cuda()`, then a test after training moving its
    # batches with .cuda(): Lightning's fit hands the model back on the CPU, so it is put
    # back where the script placed it
    "cuda_placed_model_put_back_after_fit": (
        """
        train_on_gpu = torch.cuda.is_available()
        if train_on_gpu:
            model.cuda()
        for epoch in range(2):
            for x, y in loader:
                if train_on_gpu:
                    x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        x_test = torch.randn(3, 4)
        if train_on_gpu:
            x_test = x_test.cuda()
        print(model(x_test))
        """,
        ['trainer.fit(lit_model, loader)\nmodel.to("cuda" if train_on_gpu else "cpu")'],
        [],
    ),
    # a training function returning the model it placed on the global DEVICE: its callers
    # use it there (Lightning's fit hands it back on the CPU)
    "returned_model_put_back_on_the_global_device": (
        """
        DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


        def train_model(net, data, epochs=2):
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(epochs):
                for x, y in data:
                    x, y = x.to(DEVICE), y.to(DEVICE)
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
            return net


        teacher = train_model(nn.Linear(4, 2).to(DEVICE), loader)
        print(teacher(torch.randn(2, 4).to(DEVICE)))
        """,
        ["trainer.fit(lit_model, data)\n    net.to(DEVICE)\n    return net"],
        [],
    ),
    # a second loop (a linear probe) whose model the script never moves trained on the CPU,
    # on CPU features: its Trainer runs there, and the probe is not moved after fit (the
    # line after it runs it on those CPU features); the first loop keeps the script's device
    "loop_whose_model_is_never_placed_trains_on_the_cpu": (
        _PROBE.format(probe="nn.Linear(8, 2)"),
        [
            'accelerator="cuda" if torch.cuda.is_available() else "cpu", devices=1, max_epochs=2',
            "trainer.fit(lit_model, loader)\nencoder.to(device)\nhead.to(device)",
            'trainer2 = L.Trainer(accelerator="cpu", devices=1, max_epochs=1)',
            "trainer2.fit(lit_model2, iterations)\nprint(clf(feats).argmax(1))",
        ],
        ["trainer2 = L.Trainer(accelerator=device.type", "clf.to(device)"],
    ),
    # the probe moved, or built by a function of the script that places it: the device stays
    "probe_placed_by_the_script_keeps_the_device": (
        _PROBE.format(probe="nn.Linear(8, 2).to(device)"),
        [
            "trainer2 = L.Trainer(accelerator=device.type",
            "trainer2.fit(lit_model2, iterations)\nclf.to(device)",
        ],
        ['trainer2 = L.Trainer(accelerator="cpu"'],
    ),
    "probe_built_by_a_placing_function_keeps_the_device": (
        _PROBE.format(probe="make_probe()"),
        [
            "trainer2 = L.Trainer(accelerator=device.type",
            "trainer2.fit(lit_model2, iterations)\nclf.to(device)",
        ],
        ['trainer2 = L.Trainer(accelerator="cpu"'],
    ),
    # a probe wrapping the placed encoder, or built under a default device the script sets:
    # its parameters may be on the GPU, so the script's device stays
    "probe_wrapping_a_placed_module_keeps_the_device": (
        _PROBE.format(probe="nn.Sequential(encoder, nn.Linear(8, 2))"),
        ["trainer2 = L.Trainer(accelerator=device.type"],
        ['trainer2 = L.Trainer(accelerator="cpu"'],
    ),
    "probe_under_a_default_device_keeps_the_device": (
        _PROBE.replace(
            "        encoder =", "        torch.set_default_device(device)\n        encoder ="
        ).format(probe="nn.Linear(8, 2)"),
        ["trainer2 = L.Trainer(accelerator=device.type"],
        ['trainer2 = L.Trainer(accelerator="cpu"'],
    ),
}

UNCHANGED = {
    # the call gives the index: the script trains on "cuda:1", which `devices=1` is not
    "device_function_given_another_gpu": (
        """
        def try_gpu(i=0):
            if torch.cuda.device_count() >= i + 1:
                return torch.device(f"cuda:{i}")
            return torch.device("cpu")


        device = try_gpu(1)
        """
        + _LOOP,
        "TL140",
    ),
    # its condition reads a global of the script: not a choice the Trainer call can repeat
    "device_function_reading_a_global": (
        _PICK_DEVICE.replace("torch.cuda.is_available()", "use_gpu") + _LOOP,
        "TL142",
    ),
    # the helper also selects a GPU for the process: more than a choice
    "device_function_setting_the_cuda_device": (
        _CHAIN_DEVICE.replace(
            '        return torch.device("cuda")',
            '        torch.cuda.set_device(0)\n                return torch.device("cuda")',
        )
        + _LOOP,
        "TL142",
    ),
    # the helper reads the process's rank to pick a GPU: more than a choice
    "device_function_reading_the_local_rank": (
        """
        import os


        def get_device():
            if torch.cuda.is_available():
                local_rank = int(os.environ.get("LOCAL_RANK", 0))
                return torch.device("cuda", local_rank)
            return torch.device("cpu")


        device = get_device()
        """
        + _LOOP,
        "TL142",
    ),
    # a branch returning a GPU index, not a device
    "device_function_returning_an_index": (
        _CHAIN_DEVICE.replace('return torch.device("cuda")', "return 0") + _LOOP,
        "TL142",
    ),
    # an `if` falling through to no return: the call may give None
    "device_function_without_a_last_return": (
        _CHAIN_DEVICE.replace('    return torch.device("cpu")\n', "") + _LOOP,
        "TL142",
    ),
    "second_gpu": (
        """
        device = torch.device("cuda:1" if torch.cuda.is_available() else "cpu")
        """ + _LOOP,
        "TL140",
    ),
    "data_parallel_on_torch_accelerator": (
        """
        device = torch.accelerator.current_accelerator()
        model = nn.DataParallel(model)
        model.to(device)
        """ + _LOOP,
        "TL141",
    ),
}

# a config dict literal bound once, read only by key (also by the file's own functions it is
# handed to): its device entry is the device choice (a research Trainer class's
# `self.device = cfg["device"]`, once inlined)
_CONFIG = """
        def make_loader(cfg):
            return DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=cfg["bs"])


        def main():
            cfg = {"device": "cuda" if torch.cuda.is_available() else "cpu", "bs": 4, "epochs": 2}
            loader = make_loader(cfg)
            {change}
            device = cfg["device"]
            net = nn.Linear(4, 2).to(device)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(cfg["epochs"]):
                for x, y in loader:
                    x, y = x.to(device), y.to(device)
                    opt.zero_grad()
                    loss = nn.functional.cross_entropy(net(x), y)
                    loss.backward()
                    opt.step()


        main()
"""

CONVERTS["config_dict_entry_is_the_device_choice"] = (
    _CONFIG.replace("{change}", "pass"),
    ['accelerator="cuda" if torch.cuda.is_available() else "cpu",'],
    [".to(device)"],
)
# set by the script, or handed to a function changing the dict: the entry is not read from the
# literal; the Trainer reads the device the script bound from it at run time
_RUN_TIME_DEVICE = [
    "accelerator=torch.device(device).type",
    "devices=[torch.device(device).index] if torch.device(device).index else 1",
]
CONVERTS["config_dict_entry_set_by_the_script"] = (
    _CONFIG.replace("{change}", 'cfg["device"] = "cpu"'),
    [*_RUN_TIME_DEVICE, 'cfg["device"] = "cpu"\n    device = cfg["device"]'],
    [".to(device)", 'accelerator="cpu"'],
)
CONVERTS["config_dict_handed_to_a_function_changing_it"] = (
    _CONFIG.replace('batch_size=cfg["bs"])', 'batch_size=cfg.pop("bs"))'),
    _RUN_TIME_DEVICE,
    [".to(device)"],
)

# the same as a @dataclass config (a research GAN trainer's `Config()`): its field's default
# is the device choice when the instance is made with no argument and only read by attribute,
# here also by a function under `@torch.no_grad()` it is handed to
_DATACLASS = (
    """
        from dataclasses import dataclass


        @dataclass
        class Config:
            bs: int = 4
            epochs: int = 2
            device: str = "cuda" if torch.cuda.is_available() else "cpu"


        @torch.no_grad()"""
    + _CONFIG.replace('cfg["bs"]', "cfg.bs")
    .replace('cfg["epochs"]', "cfg.epochs")
    .replace('cfg["device"]', "cfg.device")
    .replace(
        'cfg = {"device": "cuda" if torch.cuda.is_available() else "cpu", "bs": 4, "epochs": 2}',
        "cfg = Config({given})",
    )
)

CONVERTS["dataclass_config_field_is_the_device_choice"] = (
    _DATACLASS.replace("{given}", "").replace("{change}", "pass"),
    ['accelerator="cuda" if torch.cuda.is_available() else "cpu",'],
    [".to(device)"],
)
CONVERTS["dataclass_config_field_set_by_the_script"] = (
    _DATACLASS.replace("{given}", "").replace("{change}", 'cfg.device = "cpu"'),
    _RUN_TIME_DEVICE,
    [".to(device)"],
)
CONVERTS["dataclass_config_given_the_device"] = (
    _DATACLASS.replace("{given}", 'device="cpu"').replace("{change}", "pass"),
    _RUN_TIME_DEVICE,
    [".to(device)"],
)

# Kaggle / Udacity notebooks: the if/else idiom also says which device it chose; the prints
# stay where they are (the `if` is kept whole), only the binding is what the Trainer reads
_REPORTED_CHOICE = """
        is_cuda = torch.cuda.is_available()
        if is_cuda:
            device = torch.device("cuda")
            print("GPU is available")
        else:
            {other}
            device = torch.device("cpu")
"""
CONVERTS["if_else_idiom_reporting_its_choice"] = (
    _REPORTED_CHOICE.replace("{other}", 'print("GPU not available, CPU used")') + _LOOP,
    [
        'accelerator="cuda" if is_cuda else "cpu", devices=1',
        '    print("GPU is available")\nelse:\n    print("GPU not available, CPU used")\n'
        '    device = torch.device("cpu")',
    ],
    [".to(device)"],
)
CONVERTS["if_else_idiom_logging_its_choice"] = (
    "\n        import logging\n"
    + _REPORTED_CHOICE.replace("{other}", 'logging.warning("no GPU")')
    + _LOOP,
    ['accelerator="cuda" if is_cuda else "cpu", devices=1', 'logging.warning("no GPU")'],
    [".to(device)"],
)
# a branch doing more than report: `set_device(1)` makes "cuda" the second GPU, not the
# Trainer's first; a flag bound in a branch is not a report either
UNCHANGED["if_else_idiom_selecting_a_gpu"] = (
    _REPORTED_CHOICE.replace("{other}", "pass").replace(
        'print("GPU is available")', "torch.cuda.set_device(1)"
    )
    + _LOOP,
    "TL142",
)
UNCHANGED["if_else_idiom_binding_another_name"] = (
    _REPORTED_CHOICE.replace("{other}", "use_amp = False") + _LOOP,
    "TL142",
)

# the device-choosing function in the assign-then-return form (also an elif chain)
_ASSIGNED_CHOICE = """
        def get_device():
            if torch.cuda.is_available():
                device = "cuda:0"
            {branch}
            else:
                device = "cpu"
            return device


        device = get_device()
"""
CONVERTS["device_function_binding_then_returning"] = (
    _ASSIGNED_CHOICE.replace("{branch}", "") + _LOOP,
    ['accelerator="cuda" if torch.cuda.is_available() else "cpu", devices=1'],
    [".to(device)", "device = get_device()"],
)
CONVERTS["device_function_binding_by_an_elif_chain"] = (
    _ASSIGNED_CHOICE.replace(
        "{branch}", 'elif torch.backends.mps.is_available():\n                device = "mps"'
    )
    + _LOOP,
    ['if torch.cuda.is_available()\n', 'else "mps" if torch.backends.mps.is_available() else "cpu"'],
    [".to(device)", "device = get_device()"],
)
# a print in the function reports the choice: the call stays, so the line prints where it did
# (in a branch, or after the chain naming the device chosen)
CONVERTS["device_function_binding_and_printing"] = (
    _ASSIGNED_CHOICE.replace("{branch}", "").replace(
        'device = "cuda:0"', 'device = "cuda:0"\n                print("GPU")'
    )
    + _LOOP,
    ["device = get_device()\n", 'accelerator="cuda" if torch.cuda.is_available() else "cpu"'],
    [".to(device)"],
)
CONVERTS["device_function_binding_by_an_elif_chain_then_printing"] = (
    _ASSIGNED_CHOICE.replace(
        "{branch}", 'elif torch.backends.mps.is_available():\n                device = "mps"'
    ).replace(
        "            return device",
        '            print(f"Using device: {device}")\n            return device',
    )
    + _LOOP,
    ["device = get_device()\n", 'else "mps" if torch.backends.mps.is_available() else "cpu"'],
    [".to(device)"],
)
# the name bound by one `if` chain only, reports beside it: anything else the function runs
# keeps it from being a choice the Trainer makes, and the refusal names it
UNCHANGED["device_function_binding_then_setting_cudnn"] = (
    _ASSIGNED_CHOICE.replace("{branch}", "").replace(
        'device = "cuda:0"', 'device = "cuda:0"\n                torch.backends.cudnn.benchmark = True'
    )
    + _LOOP,
    "TL142",
)
UNCHANGED["device_function_binding_then_running_more"] = (
    _ASSIGNED_CHOICE.replace("{branch}", "").replace(
        "            return device", "            torch.cuda.empty_cache()\n            return device"
    )
    + _LOOP,
    "TL142",
)
UNCHANGED["device_function_rebinding_the_device_after_the_chain"] = (
    _ASSIGNED_CHOICE.replace("{branch}", "").replace(
        "            return device", '            device = torch.device(device)\n            return device'
    )
    + _LOOP,
    "TL142",
)
# a condition reading a global of the script is not one the Trainer call can repeat; another
# index
UNCHANGED["device_function_binding_on_a_global_flag"] = (
    _ASSIGNED_CHOICE.replace("{branch}", "").replace("torch.cuda.is_available()", "use_gpu")
    + _LOOP,
    "TL142",
)
UNCHANGED["device_function_binding_another_gpu"] = (
    _ASSIGNED_CHOICE.replace("{branch}", "").replace("cuda:0", "cuda:1") + _LOOP,
    "TL140",
)

# nanoGPT's `device_type`, bound after the device and read only by autocast, says nothing of
# where the model trains: the accelerator follows `device`, which may be "mps"
CONVERTS["autocast_device_type_after_the_device"] = (
    """
    device = "cpu"
    if torch.cuda.is_available():
        device = "cuda"
    elif torch.backends.mps.is_available():
        device = "mps"
    device_type = "cuda" if device.startswith("cuda") else "cpu"
    model.to(device)
    for epoch in range(2):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
                loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
    ['else "mps" if torch.backends.mps.is_available() else "cpu"'],
    ['accelerator="cuda" if device.startswith("cuda") else "cpu"'],
)

# a device read from a config object (argparse, a CfgNode of the script, SimpleNamespace, a
# dict, a dataclass given a value): what it holds is known only at run time, so the Trainer
# reads the device the script computed from it (`torch.device(device).type`, its GPU index)
# and the binding stays; minGPT's `'auto'` idiom keeps its own branch
_RUN_TIME = _RUN_TIME_DEVICE
# a module global the function reads, bound to a config's entry
CONVERTS["device_global_read_from_a_config"] = (
    """
        device = config["device"]


        def train(net, opt, epochs):
            for epoch in range(epochs):
                for x, y in loader:
                    x, y = x.to(device), y.to(device)
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        train(model, optimizer, 2)
        """,
    [*_RUN_TIME, 'device = config["device"]'],
    ["x.to(device)"],
)
CONVERTS["device_read_from_an_argparse_attribute"] = (
    """
        parser = argparse.ArgumentParser()
        parser.add_argument("--device", default="cpu")
        args = parser.parse_args()
        device = args.device
        """ + _LOOP,
    [*_RUN_TIME, "device = args.device"],
    [".to(device)", 'accelerator="cpu"'],
)
_AUTO_DEVICE = """
        class CfgNode:
            def __init__(self, **kwargs):
                self.__dict__.update(kwargs)


        config = CfgNode(system=CfgNode(device="auto"))
        {change}
        if config.system.device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        else:
            device = config.system.device
        model = model.to(device)
"""
CONVERTS["config_device_auto_or_named"] = (
    _AUTO_DEVICE.replace("{change}", "") + _LOOP,
    [*_RUN_TIME, 'if config.system.device == "auto":\n    device = "cuda" if'],
    [".to(device)", 'accelerator="cpu"'],
)
# set from the command line (minGPT's `merge_from_args(sys.argv[1:])`): the same
CONVERTS["config_device_set_from_the_command_line"] = (
    _AUTO_DEVICE.replace("{change}", "config.merge_from_args(sys.argv[1:])") + _LOOP,
    _RUN_TIME,
    [".to(device)"],
)
CONVERTS["namespace_device_as_a_conditional_expression"] = (
    """
        from types import SimpleNamespace

        cfg = SimpleNamespace(device="auto", epochs=2)
        device = ("cuda" if torch.cuda.is_available() else "cpu") if cfg.device == "auto" else cfg.device
        """ + _LOOP,
    _RUN_TIME,
    [".to(device)"],
)
CONVERTS["dict_device_read_with_get"] = (
    """
        cfg = json.loads(text)
        device = cfg.get("device", "cpu")
        """ + _LOOP,
    _RUN_TIME,
    [".to(device)"],
)
# not read as a device: a call of an unknown function, a field not named as a device; the
# refusal names the statement binding it, where the cause is
UNCHANGED["device_from_a_function_of_the_config"] = (
    _AUTO_DEVICE.replace("{change}", "").replace(
        "device = config.system.device", "device = pick_device(config)"
    )
    + _LOOP,
    "TL142",
)
UNCHANGED["device_from_a_config_field_not_naming_a_device"] = (
    """
        device = args.gpu
        """ + _LOOP,
    "TL142",
)

# a conditional inside a conditional keeps its parentheses: `"cuda" if a else "cpu" if b
# else "cpu"` would read `a` first, and put a run with `use_gpu = False` on the GPU
CONVERTS["nested_conditional_device_keeps_its_order"] = (
    """
        use_gpu = False
        device = ("cuda" if torch.cuda.is_available() else "cpu") if use_gpu else "cpu"
        """ + _LOOP,
    ['accelerator=("cuda" if torch.cuda.is_available() else "cpu") if use_gpu else "cpu"'],
    [".to(device)"],
)
# read in the step other than by a move (compared, printed): the class is handed the script's
# own value -- `self.device == "cpu"` would be False for the string "cpu"
CONVERTS["config_device_compared_in_the_step"] = (
    """
        device = args.device
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                noise = torch.randn(x.shape, device=device)
                optimizer.zero_grad()
                loss = criterion(model(x + noise), y)
                loss.backward()
                optimizer.step()
            print(epoch, device == "cpu")
        """,
    [
        "self.device_ = device",
        'print(epoch, self.device_ == "cpu")',
        "noise = torch.randn(x.shape, device=self.device_)",
        "accelerator=torch.device(device).type",
    ],
    ["x.to(", "self.device =="],
)
# Karpathy's lecture: `m = model.to(device)`, then `m.generate(context)` after training on a
# tensor made on the device: the model is put back whatever name later code uses
CONVERTS["model_alias_used_after_fit_is_put_back"] = (
    """
        device = "cuda" if torch.cuda.is_available() else "cpu"
        m = model.to(device)
"""
    + _LOOP
    + """
        context = torch.zeros((1, 4), device=device)
        print(m(context))
""",
    ["trainer.fit(lit_model, loader)\nmodel.to(device)\n"],
    [],
)
# ... also when the alias is bound with others (`m = net = model.to(device)`) or annotated
# (`m: nn.Module = model.to(device)`): before, no put-back -- a CUDA crash in `m(context)`
for _name, _binding in {
    "model_alias_of_a_chained_assignment_is_put_back": "m = net = model.to(device)",
    "model_alias_annotated_is_put_back": "m: nn.Module = model.to(device)",
}.items():
    CONVERTS[_name] = (
        CONVERTS["model_alias_used_after_fit_is_put_back"][0].replace(
            "m = model.to(device)", _binding
        ),
        ["trainer.fit(lit_model, loader)\nmodel.to(device)\n"],
        [],
    )
