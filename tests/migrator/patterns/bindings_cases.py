"""Cases of patterns/bindings.py: the model and optimizer the loop trains, and their binding."""

CONVERTS = {
    # bound again right before the loop (a fine-tuning phase's fresh optimizer under the
    # pretraining's name): the loop steps the last one, the only one the module builds
    "optimizer_bound_again_before_the_loop": (
        """
        optimizer = torch.optim.Adam(model.parameters())
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["optimizer = torch.optim.Adam(self.model.parameters())"],
        ["optimizer.step()"],
    ),
    # the earlier optimizer read before the new one is built (its state saved): another
    # object, which the module never steps
    "earlier_optimizer_read_before_it_is_bound_again": (
        """
        torch.save(optimizer.state_dict(), "pretrain_opt.pt")
        optimizer = torch.optim.Adam(model.parameters())
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["optimizer = torch.optim.Adam(self.model.parameters())", 'torch.save(optimizer.state_dict(), "pretrain_opt.pt")'],
        ["optimizer.step()"],
    ),
    # the optimizer steps a list of the model's trainable parameters, bound before it
    "optimizer_over_a_bound_parameter_list": (
        """
        parameters = [p for p in model.parameters() if p.requires_grad]
        opt = torch.optim.SGD(parameters, lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                opt.step()
        """,
        ["torch.optim.SGD(self.parameters_, lr=0.1)", "LitModel(model, criterion, parameters)"],
        ["opt.step()"],
    ),
    "model_class_forward_signature": (
        """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x)


        net = Net()
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
        """,
        [
            "class LitNet(L.LightningModule):",
            "def forward(self, x):\n        return self.model(x)",
            "opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)\n        return opt",
        ],
        [],
    ),
    "one_optimizer_over_two_modules": (
        """
        import itertools

        encoder = nn.Linear(4, 3)
        decoder = nn.Linear(3, 2)
        opt = torch.optim.Adam(itertools.chain(encoder.parameters(), decoder.parameters()))
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(decoder(encoder(x)), y)
                loss.backward()
                opt.step()
        """,
        [
            "def __init__(self, encoder, decoder, criterion):",
            "self.encoder = encoder\n        self.decoder = decoder",
            "loss = self.criterion(self.decoder(self.encoder(x)), y)",
            "itertools.chain(self.encoder.parameters(), self.decoder.parameters())",
            "LitModel(encoder, decoder, criterion)",
        ],
        ["def forward", "self.model"],
    ),
    "several_parameter_groups": (
        """
        encoder = nn.Linear(4, 3)
        decoder = nn.Linear(3, 2)
        opt = torch.optim.SGD(
            [{"params": encoder.parameters()}, {"params": decoder.parameters(), "lr": 0.01}],
            lr=0.1,
        )
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(decoder(encoder(x)), y)
                loss.backward()
                opt.step()
        """,
        ['{"params": self.decoder.parameters(), "lr": 0.01}'],
        [],
    ),
    # the model runs before the loop on data the script moved: its move stays (on a GPU it
    # would still be on the CPU there; the Trainer moves it only in fit)
    "model_run_before_the_loop_keeps_its_move": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


        def accuracy(net, data):
            with torch.no_grad():
                return sum((net(x.to(device)).argmax(1) == y.to(device)).sum() for x, y in data)


        net = nn.Linear(4, 2).to(device)
        print("untrained", accuracy(net, loader))
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
        """,
        ["net = nn.Linear(4, 2).to(device)"],
        [],
    ),
    # the model's parameters cloned by an EMA object of the script before the loop: its
    # shadow tensors are made where the model is, so the move stays (without it, on a GPU the
    # EMA would hold CPU tensors that its update mixes with the model's)
    "parameters_cloned_by_an_object_before_the_loop_keep_the_move": (
        """
        class EMA:
            def __init__(self, parameters, decay):
                self.decay = decay
                self.shadow = [p.detach().clone() for p in parameters]

            @torch.no_grad()
            def update(self, parameters):
                for s, p in zip(self.shadow, parameters):
                    s.lerp_(p, 1 - self.decay)


        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        net = nn.Linear(4, 2).to(device)
        ema = EMA(net.parameters(), 0.9)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
                ema.update(net.parameters())
        """,
        ["net = nn.Linear(4, 2).to(device)"],
        [],
    ),
    # only read (parameters counted, printed): the Trainer places it
    "model_only_read_before_the_loop_loses_its_move": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        net = nn.Linear(4, 2).to(device)
        print(net, sum(p.numel() for p in net.parameters()))
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
        """,
        ["net = nn.Linear(4, 2)\n"],
        [".to(device)"],
    ),
    # the compiled module shares the model's parameters: the LightningModule holds it
    "model_compiled_under_a_flag": (
        """
        net = nn.Linear(4, 2)
        if use_compile:
            print("compiling")
            net = torch.compile(net, mode="reduce-overhead")
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
        """,
        [
            'if use_compile:\n    print("compiling")\n'
            '    net = torch.compile(net, mode="reduce-overhead")\nlit_model = LitModel(net, criterion)'
        ],
        [],
    ),
    # compiling may fail: the `try` keeps the model as it was, the `if` is kept as written
    "model_compiled_under_a_flag_in_a_try": (
        """
        net = nn.Linear(4, 2)
        if use_compile:
            try:
                net = torch.compile(net)
            except Exception as e:
                print(f"torch.compile failed ({e}), running eagerly")
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
        """,
        [
            "if use_compile:\n    try:\n        net = torch.compile(net)\n",
            "lit_model = LitModel(net, criterion)",
        ],
        [],
    ),
    # the script's own function builds the parameter groups from the model it is handed
    "parameter_groups_built_by_a_function_of_the_script": (
        """
        def param_groups(module, weight_decay):
            decay = [p for n, p in module.named_parameters() if not n.endswith("bias")]
            no_decay = [p for n, p in module.named_parameters() if n.endswith("bias")]
            return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay}]


        opt = torch.optim.AdamW(param_groups(model, 0.01), lr=1e-3)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                opt.step()
        """,
        [
            "def __init__(self, model, criterion):",
            "opt = torch.optim.AdamW(param_groups(self.model, 0.01), lr=1e-3)",
        ],
        [],
    ),
}

UNCHANGED = {
    # a function of the script that never reads its argument's parameters names no model
    "optimizer_over_a_function_not_reading_parameters": (
        """
        def frozen(module):
            return [torch.zeros(1, requires_grad=True)]


        opt = torch.optim.SGD(frozen(model), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                opt.step()
        """,
        "TL106",
    ),
    "model_replaced_under_a_flag": (  # not a wrapper of the same parameters
        """
        net = nn.Linear(4, 2)
        if pretrained:
            net = torch.compile(other_net)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
        """,
        "TL106",
    ),
    "no_optimizer_step_and_no_update_by_hand": (  # an update by hand: hand_update_cases.py
        """
        for epoch in range(2):
            for x, y in loader:
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
        """,
        "TL105",
    ),
    # bound again under an `if`: the loop may step the header's optimizer or this one
    "optimizer_bound_again_under_an_if_before_the_loop": (
        """
        if len(loader) > 1:
            optimizer = torch.optim.Adam(model.parameters())
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL106",
    ),
    "step_on_something_else": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                criterion.step()
        """,
        "TL106",
    ),
    "one_model_zeroed_of_two": (
        """
        encoder = nn.Linear(4, 3)
        decoder = nn.Linear(3, 2)
        opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()))
        for epoch in range(2):
            for x, y in loader:
                encoder.zero_grad()
                loss = criterion(decoder(encoder(x)), y)
                loss.backward()
                opt.step()
        """,
        "TL105",
    ),
}

# parameter groups built before the loop from the model's parameters, the optimizer given
# only the groups: the model is the one whose parameters filled them (nanoGPT's comprehensions)
CONVERTS["groups_from_comprehensions_over_named_parameters"] = (
    """
    params = {n: p for n, p in model.named_parameters() if p.requires_grad}
    groups = [
        {"params": [p for p in params.values() if p.dim() >= 2], "weight_decay": 0.1},
        {"params": [p for p in params.values() if p.dim() < 2], "weight_decay": 0.0},
    ]
    opt = torch.optim.AdamW(groups, lr=1e-3)
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
    """,
    ["torch.optim.AdamW(self.groups, lr=1e-3)", "self.model = model"],
    [],
)
# the list filled chosen per parameter by a conditional receiver (a research script's habit)
CONVERTS["groups_filled_through_a_conditional_receiver"] = (
    """
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.dim() < 2 else decay).append(p)
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
        lr=1e-3,
    )
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
    """,
    ['{"params": self.decay, "weight_decay": 0.1}', "LitModel(model, criterion, decay, no_decay)"],
    ["opt.step()"],
)
UNCHANGED["optimizer_over_tensors_of_no_model"] = (
    """
    w = torch.zeros(4, 2, requires_grad=True)
    weights = [w]
    opt = torch.optim.SGD(weights, lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(x @ w, y)
            loss.backward()
            opt.step()
    """,
    "TL106",
)

# the function holding the loop reads the module's model and optimizer as globals (symtable):
# they are the module's own objects; the optimizer stays in the script (any function may read
# it) and configure_optimizers returns it
CONVERTS["module_global_model_and_optimizer_read_by_the_training_function"] = (
    """
    def train():
        for epoch in range(2):
            for x, y in loader:
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


    train()
    """,
    ["lit_model = LitModel(model, optimizer", "return self.optimizer"],
    ["optimizer.step()"],
)
# encoder.linear.parameters(): the LightningModule holds all of `encoder`
CONVERTS["submodule_parameters_make_the_module_a_model"] = (
    """
    encoder = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    encoder.head = nn.Linear(4, 2)
    opt = torch.optim.SGD(encoder.head.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(encoder.head(encoder(x)), y)
            loss.backward()
            opt.step()
    """,
    ["self.model = encoder", "torch.optim.SGD(self.model.head.parameters(), lr=0.1)"],
    [],
)
UNCHANGED["module_global_optimizer_rebound_through_global"] = (
    """
    def reset():
        global optimizer
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


    def train():
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            reset()


    train()
    """,
    "TL106",
)
UNCHANGED["module_global_optimizer_a_local_of_the_function_after_the_loop"] = (
    """
    def train():
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        optimizer = None


    train()
    """,
    "TL106",
)

# Tuple assignments (source/tuple_bindings.py): one plain binding per name when no element
# reads a name bound before it; split in the output only where the conversion changes one.
_TWO_NETS_STEP = """
        for epoch in range(2):
            for x, y in loader:
                opt_d.zero_grad()
                loss_d = criterion(disc(gen(x).detach()), y)
                loss_d.backward()
                opt_d.step()
                opt_g.zero_grad()
                loss_g = -criterion(disc(gen(x)), y)
                loss_g.backward()
                opt_g.step()
"""
CONVERTS["models_and_optimizers_bound_by_tuple_assignments"] = (
    """
        device = torch.device("cpu")
        gen, disc = nn.Linear(4, 4).to(device), nn.Linear(4, 2).to(device)  # nets
        opt_g, opt_d = torch.optim.SGD(gen.parameters(), lr=0.1), torch.optim.SGD(disc.parameters(), lr=0.1)
"""
    + _TWO_NETS_STEP,
    [
        "gen = nn.Linear(4, 4)\ndisc = nn.Linear(4, 2)  # nets",
        "opt_d = torch.optim.SGD(self.disc.parameters(), lr=0.1)",
        "opt_g = torch.optim.SGD(self.gen.parameters(), lr=0.1)",
        "LitModel(gen, disc, criterion)",
    ],
    ["gen, disc =", "opt_g, opt_d = torch", ".to(device)"],
)
CONVERTS["tuple_binding_nothing_changes_stays_as_written"] = (
    """
        gen, disc = nn.Linear(4, 4), nn.Linear(4, 2)
        opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)
        opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
"""
    + _TWO_NETS_STEP,
    ["gen, disc = nn.Linear(4, 4), nn.Linear(4, 2)\n", "LitModel(gen, disc, criterion)"],
    ["gen = nn.Linear"],
)
CONVERTS["models_placed_under_a_flag_by_one_tuple_assignment"] = (
    """
        cuda = torch.cuda.is_available()
        gen, disc = nn.Linear(4, 4), nn.Linear(4, 2)
        if cuda:
            gen, disc = gen.cuda(), disc.cuda()
        opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)
        opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
"""
    + _TWO_NETS_STEP,
    ['accelerator="cuda" if cuda else "cpu"', "gen, disc = nn.Linear(4, 4), nn.Linear(4, 2)\n"],
    ["if cuda:", ".cuda()"],
)
CONVERTS["models_placed_under_a_flag_one_per_line"] = (
    """
        cuda = torch.cuda.is_available()
        gen, disc = nn.Linear(4, 4), nn.Linear(4, 2)
        if cuda:
            gen = gen.cuda()
            disc = disc.cuda()
        opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)
        opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
"""
    + _TWO_NETS_STEP,
    ['accelerator="cuda" if cuda else "cpu"'],
    ["if cuda:", ".cuda()"],
)
# the flag's block also moves the criteria (DANN): the model's move goes, theirs stay
CONVERTS["model_and_criteria_placed_under_a_flag"] = (
    """
        cuda = torch.cuda.is_available()
        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        loss_class = nn.CrossEntropyLoss()
        if cuda:
            net = net.cuda()
            loss_class = loss_class.cuda()
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = loss_class(net(x), y)
                loss.backward()
                opt.step()
""",
    [
        'accelerator="cuda" if cuda else "cpu"',
        "if cuda:\n    loss_class = loss_class.cuda()\n",
    ],
    ["net.cuda()"],
)
# ... the model's move stays when code before the loop runs it on what the block moved
CONVERTS["model_run_before_the_loop_on_data_the_flag_block_moved"] = (
    """
        cuda = torch.cuda.is_available()
        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        probe = torch.randn(2, 4)
        if cuda:
            net.cuda()
            probe = probe.cuda()
        print(net(probe))
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
""",
    ["if cuda:\n    net.cuda()\n    probe = probe.cuda()\n"],
    [],
)
# ... but not when the rest of the block reads the model (it would read it on the CPU)
UNCHANGED["flag_block_reading_the_model_after_its_move"] = (
    """
        cuda = torch.cuda.is_available()
        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        if cuda:
            net = net.cuda()
            print(next(net.parameters()).device)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
""",
    "TL106",
)
UNCHANGED["tuple_binding_element_reads_an_earlier_target"] = (
    """
        import copy

        gen = nn.Linear(4, 4)
        gen, gen_copy = nn.Linear(4, 4), copy.deepcopy(gen)
        disc = nn.Linear(4, 2)
        opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)
        opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
"""
    + _TWO_NETS_STEP,
    "TL106",
)
UNCHANGED["tuple_binding_element_calls_a_function_reading_an_earlier_target"] = (
    """
        def make_disc():
            return nn.Sequential(nn.Linear(4, 4), nn.Linear(gen.out_features, 2))


        gen = nn.Linear(4, 4)
        gen, disc = nn.Linear(4, 4), make_disc()
        opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)
        opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
"""
    + _TWO_NETS_STEP,
    "TL106",
)
UNCHANGED["starred_tuple_binding_of_the_models"] = (
    """
        gen, *rest = nn.Linear(4, 4), nn.Linear(4, 2)
        disc = rest[0]
        opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)
        opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
"""
    + _TWO_NETS_STEP,
    "TL106",
)


# -- the optimizer built by a method of the model (nanoGPT's `model.configure_optimizers`) --

_METHOD_MODEL = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

    def configure_optimizers(self, weight_decay, lr):
        decay = [p for n, p in self.named_parameters() if p.dim() >= 2]
        other = [p for n, p in self.named_parameters() if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay}, {"params": other}]
{returns}


net = Net()
weight_decay = 0.1
lr = 1e-3
opt = net.configure_optimizers({args})
for epoch in range(2):
    for x, y in loader:
        opt.zero_grad()
        loss = criterion(net(x), y)
        loss.backward()
        opt.step()
"""


def _method_model(returns: str, args: str = "weight_decay, lr") -> str:
    return _METHOD_MODEL.replace("{returns}", returns).replace("{args}", args)


_RETURNS_ADAMW = "        return torch.optim.AdamW(groups, lr=lr)"

CONVERTS["optimizer_from_a_method_of_the_model"] = (
    _method_model(_RETURNS_ADAMW),
    [
        "opt = self.model.configure_optimizers(\n"
        "            self.hparams.weight_decay, self.hparams.lr\n"
        "        )\n"
        "        return opt",
        "LitNet(net, criterion, lr, weight_decay)",
    ],
    ["opt = net.configure_optimizers("],
)
CONVERTS["optimizer_from_a_method_returning_a_local"] = (
    _method_model("        built = torch.optim.AdamW(groups, lr=lr)\n        return built"),
    ["self.model.configure_optimizers(", "self.hparams.weight_decay, self.hparams.lr"],
    ["opt = net.configure_optimizers("],
)
UNCHANGED["optimizer_method_returning_a_pair"] = (
    _method_model(
        "        built = torch.optim.AdamW(groups, lr=lr)\n"
        "        return built, torch.optim.lr_scheduler.StepLR(built, 1)"
    ),
    "TL106",
)
UNCHANGED["optimizer_method_training_a_global_model"] = (
    _method_model("        return torch.optim.AdamW(model.parameters(), lr=lr)"),
    "TL106",
)
# the method builds the optimizer on parameters of a model it is handed
UNCHANGED["optimizer_method_handed_another_model"] = (
    _method_model(
        "        return torch.optim.AdamW(list(lr.parameters()), lr=0.1)", args="weight_decay, model"
    ),
    "TL106",
)
# minGPT: a config object handed to the method, only read; the model moved in place first
CONVERTS["optimizer_method_given_a_config_object"] = (
    _method_model(
        "        return torch.optim.AdamW(groups, lr=lr.lr)", args="weight_decay, config"
    ).replace(
        "net = Net()\n",
        "class Config:\n    lr = 1e-3\n\n\nnet = Net()\nnet = net.to('cpu')\nconfig = Config()\n",
    ).replace("        loss.backward()", "        loss.backward()\n        print(config.lr)"),
    ["opt = self.model.configure_optimizers(self.hparams.weight_decay, self.config)"],
    ["opt = net.configure_optimizers("],
)
# `net.zero_grad()`: the method's optimizer holds only `net`'s own parameters, all reached
CONVERTS["optimizer_method_with_the_model_zeroing_its_gradients"] = (
    _method_model(_RETURNS_ADAMW).replace("        opt.zero_grad()", "        net.zero_grad()"),
    ["opt = self.model.configure_optimizers("],
    ["net.zero_grad()"],
)
# the method changes the config it is given: at fit start, after the script's reads of it
UNCHANGED["optimizer_method_changing_its_config"] = (
    _method_model(
        "        lr.lr = lr.lr * 2\n        return torch.optim.AdamW(groups, lr=lr.lr)",
        args="weight_decay, config",
    ).replace("net = Net()\n", "class Config:\n    lr = 1e-3\n\n\nnet = Net()\nconfig = Config()\n"),
    "TL106",
)
# ... changed between the call and the loop: the method would see it changed
UNCHANGED["optimizer_method_config_changed_before_the_loop"] = (
    _method_model(
        "        return torch.optim.AdamW(groups, lr=lr.lr)", args="weight_decay, config"
    ).replace("net = Net()\n", "class Config:\n    lr = 1e-3\n\n\nnet = Net()\nconfig = Config()\n")
    .replace("for epoch in range(2):\n", "config.lr = 0.5\nfor epoch in range(2):\n", 1),
    "TL106",
)
UNCHANGED["optimizer_method_replaced_on_the_instance"] = (
    _method_model(_RETURNS_ADAMW).replace(
        "net = Net()\n", "net = Net()\nnet.configure_optimizers = lambda *a: optimizer\n"
    ),
    "TL106",
)
UNCHANGED["optimizer_method_reading_a_global_model_in_a_comprehension"] = (
    _method_model("        return torch.optim.AdamW([p for p in model.parameters()], lr=lr)"),
    "TL106",
)
# minGPT's groups: names of each submodule's own parameters (`m.named_parameters()` of the
# modules `named_modules()` yields, in the class's method); the model is still `net`, whose
# parameters the script clips (a class definition before the loop fills no group)
CONVERTS["optimizer_method_grouping_by_submodule"] = (
    _method_model(
        '        decay, no_decay = set(), set()\n'
        '        for mn, m in self.named_modules():\n'
        '            for pn, p in m.named_parameters(recurse=False):\n'
        '                full = "%s.%s" % (mn, pn) if mn else pn\n'
        '                (decay if pn.endswith("weight") else no_decay).add(full)\n'
        '        params = dict(self.named_parameters())\n'
        '        groups = [\n'
        '            {"params": [params[n] for n in sorted(decay)], "weight_decay": weight_decay},\n'
        '            {"params": [params[n] for n in sorted(no_decay)], "weight_decay": 0.0},\n'
        '        ]\n'
        + _RETURNS_ADAMW
    ).replace(
        "        loss.backward()\n",
        "        loss.backward()\n        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)\n",
    ),
    ["torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)", "configure_optimizers("],
    ["m.parameters()"],
)

# -- the model bound under an `if` on constants (nanoGPT's `if init_from == 'scratch':`) --

_SCRATCH = (
    "init_from = 'scratch'\nif init_from == 'scratch':\n    print('a new model')\n    net = Net()\n"
)

CONVERTS["optimizer_method_of_a_model_built_under_a_constant_branch"] = (
    _method_model(_RETURNS_ADAMW).replace("net = Net()\n", _SCRATCH),
    [
        "opt = self.model.configure_optimizers(",
        "if init_from == 'scratch':\n    print('a new model')",
    ],
    ["opt = net.configure_optimizers("],
)
CONVERTS["model_built_under_a_constant_branch"] = (
    _method_model(_RETURNS_ADAMW)
    .replace(
        "net = Net()\n",
        "init_from = 'scratch'\nif init_from == 'resume':\n    net = torch.load('ckpt.pt')\n"
        "else:\n    net = Net()\n",
    )
    .replace(
        "opt = net.configure_optimizers(weight_decay, lr)",
        "opt = torch.optim.SGD(net.parameters(), lr=lr)",
    ),
    ["torch.optim.SGD(self.model.parameters(), lr=self.hparams.lr)"],
    ["opt.step()"],
)
# the constant may be rebound behind the assignment: a configurator's exec, a `global`
UNCHANGED["optimizer_method_of_a_model_under_a_branch_on_an_exec_overridden_global"] = (
    _method_model(_RETURNS_ADAMW).replace(
        "net = Net()\n", _SCRATCH.replace("\nif", "\nexec(open('configurator.py').read())\nif", 1)
    ),
    "TL106",
)
UNCHANGED["model_under_a_branch_on_a_global_a_function_rebinds"] = (
    _method_model(_RETURNS_ADAMW).replace(
        "net = Net()\n",
        "def resume():\n    global init_from\n    init_from = 'resume'\n\n\n" + _SCRATCH,
    ),
    "TL106",
)
# the method prints (its parameter counts) and so does a statement between the call and the
# loop: run when `fit` starts, its lines would come after that one's
UNCHANGED["optimizer_method_printing_with_a_print_before_the_loop"] = (
    _method_model("        print(len(decay))\n" + _RETURNS_ADAMW).replace(
        "for epoch in range(2):\n", "print('training')\nfor epoch in range(2):\n", 1
    ),
    "TL106",
)
CONVERTS["optimizer_method_printing_with_nothing_printed_before_the_loop"] = (
    _method_model("        print(len(decay))\n" + _RETURNS_ADAMW),
    ["opt = self.model.configure_optimizers("],
    ["opt = net.configure_optimizers("],
)

# the optimizer is built on `net`, then `net` names a new model: the loop trains the first
# one through `trained`, which the Trainer's optimizer over `net` would never step
UNCHANGED["model_rebound_after_the_optimizer_is_built_on_it"] = (
    """
    def main():
        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        trained = net
        net = nn.Linear(4, 2)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(trained(x), y)
                loss.backward()
                opt.step()
        print(trained.weight, net.weight)


    main()
    """,
    "TL106",
)
# minGPT's grouping written in the script's scope: the loop over named_modules() names each
# parameter; the groups take the model's parameters by those names (`m` is the loop's)
CONVERTS["groups_named_by_a_loop_over_named_modules"] = (
    """
    decay, no_decay = set(), set()
    for mn, m in model.named_modules():
        for pn, p in m.named_parameters(recurse=False):
            fpn = f"{mn}.{pn}" if mn else pn
            if pn.endswith("bias") or isinstance(m, nn.LayerNorm):
                no_decay.add(fpn)
            else:
                decay.add(fpn)
    param_dict = {pn: p for pn, p in model.named_parameters()}
    groups = [
        {"params": [param_dict[pn] for pn in sorted(decay)], "weight_decay": 0.1},
        {"params": [param_dict[pn] for pn in sorted(no_decay)], "weight_decay": 0.0},
    ]
    opt = torch.optim.AdamW(groups, lr=1e-3)
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
    """,
    ["torch.optim.AdamW(self.groups, lr=1e-3)", "LitModel(model, criterion, groups)"],
    ["opt.step()"],
)
# the lists filled from the state dict's tensors (buffers too): no model's parameters
UNCHANGED["group_lists_filled_from_a_state_dict"] = (
    """
    decay, no_decay = [], []
    for name, t in model.state_dict(keep_vars=True).items():
        (no_decay if t.dim() < 2 else decay).append(t)
    opt = torch.optim.AdamW([{"params": decay}, {"params": no_decay, "weight_decay": 0.0}])
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
    """,
    "TL106",
)
