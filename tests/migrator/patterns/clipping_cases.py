"""Cases of patterns/clipping.py: clip_grad_norm_ / clip_grad_value_ between backward and step."""

_LOOP = """
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        {clip}
        optimizer.step()
"""

_SCALED_IF = """
import sys

grad_clip = {limit}
scaler = torch.amp.GradScaler(enabled=False)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cpu", enabled=False):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        if {test}:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(optimizer)
        scaler.update()
"""

_SCALED_NORM = """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
use_amp = device.type == "cuda"
model.to(device)
opt = {optimizer}
scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
for epoch in range(2):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        with torch.autocast(device.type, dtype=torch.float16, enabled=use_amp):
            loss = criterion(model(x), y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        print(norm.item())
"""

# nanoGPT: the optimizer built by the model's own method, `fused=` on CUDA, under a scaler
_METHOD_FUSED = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

    def configure_optimizers(self, lr, device_type):
        use_fused = device_type == "cuda"
        return torch.optim.AdamW(self.parameters(), lr=lr, fused={fused})


device = "cuda" if torch.cuda.is_available() else "cpu"
device_type = "cuda" if "cuda" in device else "cpu"
use_amp = device_type == "cuda"
net = Net()
net.to(device)
opt = net.configure_optimizers(1e-3, device_type)
scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
for epoch in range(2):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        with torch.autocast(device_type, dtype=torch.float16, enabled=use_amp):
            loss = criterion(net(x), y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
"""

# a function of the script picking the optimizer by name, `fused=` on one of its alternatives
_FUNCTION_FUSED = """
def build_optimizer(name, model, device_type):
    if name == "sgd":
        return torch.optim.SGD(model.parameters(), lr=0.1)
    return torch.optim.AdamW(model.parameters(), lr=1e-3, fused={fused})


device = "cuda" if torch.cuda.is_available() else "cpu"
device_type = "cuda" if "cuda" in device else "cpu"
use_amp = device_type == "cuda"
net = nn.Linear(4, 2)
net.to(device)
opt = build_optimizer("adamw", net, device_type)
scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
for epoch in range(2):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        with torch.autocast(device_type, dtype=torch.float16, enabled=use_amp):
            loss = criterion(net(x), y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
"""

# a fused AdamW on the CPU under an enabled GradScaler (float16 autocast there: the scaler
# handed to the Trainer's plugin), nanoGPT's clipping when the limit is set
_FUSED_IF = """
grad_clip = 1.0
gradient_clip_val = 1.0
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused={fused})
scaler = torch.amp.GradScaler("cpu")
for epoch in range(2):
    for x, y in loader:
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        if {limit} != 0.0:
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), {limit})
        scaler.step(opt)
        scaler.update()
"""

# the hook's unscale of a fused optimizer (the Trainer's scaler, the unwrapped optimizer)
_HOOK_UNSCALE = "self.trainer.precision_plugin.scaler.unscale_("

CONVERTS = {
    # the deprecated alias without the underscore (torch still runs it, with a FutureWarning)
    # is the same function: read by qualified name, through any import spelling
    "deprecated_norm_alias": (
        _LOOP.format(clip="nn.utils.clip_grad_norm(model.parameters(), 0.5)"),
        ["gradient_clip_val=0.5"],
        ["clip_grad_norm("],
    ),
    "deprecated_norm_alias_imported": (
        "from torch.nn.utils import clip_grad_norm\n"
        + _LOOP.format(clip="clip_grad_norm(model.parameters(), max_norm=0.5)"),
        ["gradient_clip_val=0.5"],
        ["clip_grad_norm(model"],
    ),
    # parameter groups ordering the parameters otherwise than model.parameters(), under a
    # scaler: the script's clipping in configure_gradient_clipping (Lightning's would sum the
    # norm in the groups' order), without its unscale_ (Lightning unscales before the hook)
    "norm_over_parameter_groups_under_a_scaler": (
        "groups = [\n"
        '    {"params": [p for n, p in model.named_parameters() if p.dim() < 2]},\n'
        '    {"params": [p for n, p in model.named_parameters() if p.dim() >= 2]},\n'
        "]\n"
        "opt = torch.optim.AdamW(groups, lr=0.1)\n" + _SCALED_IF.format(limit="0.05", test="grad_clip != 0.0").replace("optimizer", "opt"),
        [
            "def configure_gradient_clipping(",
            "if self.hparams.grad_clip != 0.0:\n"
            "            torch.nn.utils.clip_grad_norm_(\n"
            "                self.model.parameters(), self.hparams.grad_clip\n"
            "            )",
        ],
        ["gradient_clip_val=grad_clip", "unscale_"],
    ),
    # ... never fused there: Lightning unscales before clipping (in configure_gradient_clipping:
    # the method's groups are not seen to order the parameters as model.parameters() does)
    "clipping_under_a_scaler_with_the_model_method_optimizer_not_fused": (
        _METHOD_FUSED.format(fused="False"),
        [
            "torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)",
            "self.model.configure_optimizers(1e-3, self.device.type)",
        ],
        ["unscale_"],
    ),
    # the optimizer picked by a function of the script, none of its alternatives fused: its
    # arguments are read there
    "clipping_under_a_scaler_with_a_function_optimizer_not_fused": (
        _FUNCTION_FUSED.format(fused="False"),
        ['opt = build_optimizer("adamw", self.model, self.device.type)'],
        ["unscale_"],
    ),
    # nanoGPT: a limit known >= 0 tested `!= 0.0` (Lightning clips nothing for 0 either),
    # the scaler's unscale_ first in the block (Lightning unscales before clipping)
    "limit_not_zero_after_unscale": (
        _SCALED_IF.format(limit="1.0", test="grad_clip != 0.0"),
        ["gradient_clip_val=grad_clip"],
        ["unscale_", "clip_grad_norm_", "precision=", "GradScaler"],
    ),
    "limit_above_zero_any_limit": (
        _SCALED_IF.format(limit="float(sys.argv[1])", test="grad_clip > 0"),
        ["gradient_clip_val=grad_clip"],
        ["unscale_", "clip_grad_norm_"],
    ),
    "norm": (
        _LOOP.format(clip="torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"),
        ['L.Trainer(accelerator="cpu", devices=1, max_epochs=2, gradient_clip_val=1.0)'],
        ["clip_grad_norm_"],
    ),
    "value": (
        _LOOP.format(clip="torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)"),
        ['gradient_clip_val=0.5,\n    gradient_clip_algorithm="value",'],
        ["clip_grad_value_"],
    ),
    # course notebooks: clip when a limit is set (`grad_clip=None` by default); the Trainer
    # clips nothing for None or 0 either
    "value_if_the_limit_is_set": (
        "grad_clip = 0.1\n"
        + _LOOP.format(
            clip="if grad_clip:\n            nn.utils.clip_grad_value_(model.parameters(), grad_clip)"
        ),
        ["gradient_clip_val=grad_clip", 'gradient_clip_algorithm="value"'],
        ["clip_grad_value_", "if grad_clip"],
    ),
    # the norm the script reads: its own statement in configure_gradient_clipping, which
    # Lightning calls after backward() and before optimizer.step(); the reader after the step
    # goes to on_train_batch_end
    "returned_norm_printed_after_the_step": (
        _LOOP.format(clip="norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)")
        + "        print(loss.item(), norm.item())\n",
        [
            "def configure_gradient_clipping(\n"
            "        self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None\n"
            "    ):\n"
            "        self.norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)",
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            '        self.print(outputs["loss"].item(), self.norm.item())',
            'L.Trainer(accelerator="cpu", devices=1, max_epochs=2)',
        ],
        ["gradient_clip_val=1.0"],
    ),
    "returned_norm_never_read": (
        _LOOP.format(clip="norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"),
        [
            "        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)",
        ],
        ["gradient_clip_val=1.0", "on_train_batch_end"],
    ),
    # under manual optimization (a micro-batch clipping) the statement stays as written
    "returned_norm_kept_in_a_manual_step": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                print(norm)
        """,
        [
            "self.manual_backward(loss)\n"
            "        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)",
        ],
        ["clip_gradients", "configure_gradient_clipping"],
    ),
    # parameter groups order the parameters otherwise than model.parameters(): Lightning's
    # clipping would sum the norm in the groups' order; the script's call is kept in the hook
    "norm_clipping_over_reordering_parameter_groups": (
        """
        decay = [p for n, p in model.named_parameters() if not n.endswith("bias")]
        no_decay = [p for n, p in model.named_parameters() if n.endswith("bias")]
        opt = torch.optim.AdamW([{"params": no_decay, "weight_decay": 0.0}, {"params": decay}])
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                opt.step()
        """,
        [
            "def configure_gradient_clipping(",
            "torch.nn.utils.clip_grad_norm_(self.model.parameters(), 0.5)",
        ],
        ["gradient_clip_val=0.5"],
    ),
    # min-char-rnn's clamping loop: clip_grad_value_ clamps every gradient to the same
    # [-v, v], elementwise the same numbers
    "clamp_loop_over_the_model_parameters": (
        _LOOP.format(
            clip="for p in model.parameters():\n            p.grad.data.clamp_(-5, 5)"
        ),
        ['gradient_clip_val=5,\n    gradient_clip_algorithm="value",'],
        ["clamp_", "for p in"],
    ),
    "clamp_loop_keywords_under_grad_not_none": (
        "limit = 0.5\n"
        + _LOOP.format(
            clip="for param in model.parameters():\n"
            "            if param.grad is not None:\n"
            "                param.grad.clamp_(min=-limit, max=limit)"
        ),
        ['gradient_clip_val=limit,\n    gradient_clip_algorithm="value",'],
        ["clamp_", "is not None"],
    ),
    # the optimizer and the loop share one list of the model's parameters
    "clamp_loop_over_the_optimizer_list": (
        """
        params = list(model.parameters())
        opt = torch.optim.Adagrad(params, lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                for p in params:
                    p.grad.clamp_(-1.0, 1.0)
                opt.step()
        """,
        ["gradient_clip_val=1.0", 'gradient_clip_algorithm="value"'],
        ["clamp_", "for p in"],
    ),
    # clamped on every micro batch (manual optimization): the module's own clip_gradients
    "clamp_loop_in_a_manual_step": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                for p in model.parameters():
                    p.grad.clamp_(-0.3, 0.3)
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [
            "self.manual_backward(loss)\n"
            "        self.clip_gradients(\n"
            '            optimizer, gradient_clip_val=0.3, gradient_clip_algorithm="value"\n'
            "        )",
        ],
        ["clamp_"],
    ),
    # Lightning unscales a non-fused optimizer's gradients before configure_gradient_clipping,
    # as the script's `scaler.unscale_(optimizer)` did
    "returned_norm_under_a_scaler_non_fused_optimizer": (
        _SCALED_NORM.format(optimizer="torch.optim.AdamW(model.parameters(), lr=1e-3)"),
        [
            "self.norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)",
            'precision="16-mixed" if use_amp else "32-true"',
        ],
        ["unscale_", "GradScaler"],
    ),
    # a fused optimizer unscales in its own step: Lightning neither unscales its gradients
    # before configure_gradient_clipping nor lets gradient_clip_val clip them (a RuntimeError).
    # The script's clipping in the hook, its unscale_ there the Trainer's scaler's
    "returned_norm_under_a_scaler_fused_optimizer": (
        _SCALED_NORM.format(
            optimizer="torch.optim.AdamW(model.parameters(), lr=1e-3, fused=use_amp)"
        ),
        [
            '"_step_supports_amp_scaling",',
            _HOOK_UNSCALE,
            "self.norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)",
        ],
        ["gradient_clip_val=1", "gradient_clip_val=grad_clip", "gradient_clip_val=0.5", "GradScaler"],
    ),
    "norm_under_a_scaler_fused_optimizer": (
        _SCALED_NORM.format(
            optimizer="torch.optim.AdamW(model.parameters(), lr=1e-3, fused=use_amp)"
        ).replace("norm = torch", "torch").replace("        print(norm.item())\n", ""),
        [_HOOK_UNSCALE, "torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)"],
        ["gradient_clip_val=1", "gradient_clip_val=grad_clip", "gradient_clip_val=0.5", "GradScaler"],
    ),
    # nanoGPT: the model's method builds it fused on CUDA (seen through the method)
    "clipping_under_a_scaler_with_the_model_method_fused_optimizer": (
        _METHOD_FUSED.format(fused="use_fused"),
        [_HOOK_UNSCALE, "torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)"],
        ["gradient_clip_val=1", "gradient_clip_val=grad_clip"],
    ),
    # one alternative of the script's optimizer function fused on CUDA
    "clipping_under_a_scaler_with_a_function_optimizer_maybe_fused": (
        _FUNCTION_FUSED.format(fused='device_type == "cuda"'),
        [_HOOK_UNSCALE, "torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)"],
        ["gradient_clip_val=1", "gradient_clip_val=grad_clip"],
    ),
    # nanoGPT's `if grad_clip != 0.0: scaler.unscale_(optimizer); clip...`: the unscale where
    # the script's was, inside the test (no unscale when the limit is 0, as the script)
    "limit_not_zero_after_unscale_fused_optimizer": (
        _FUSED_IF.format(limit="grad_clip", fused="True"),
        [
            "if self.hparams.grad_clip != 0.0:\n"
            "            # a fused optimizer unscales in its own step: Lightning left its gradients scaled\n"
            "            if getattr(",
            "torch.nn.utils.clip_grad_norm_(\n"
            "                self.model.parameters(), self.hparams.grad_clip\n"
            "            )",
        ],
        ["gradient_clip_val=1", "gradient_clip_val=grad_clip", "gradient_clip_val=0.5", "scaler.unscale_(opt)"],
    ),
    # bf16 (no scaler): Lightning's mixed precision refuses gradient_clip_val for a fused
    # optimizer all the same; nothing to unscale (the script had no scaler)
    "clipping_under_bf16_with_a_fused_optimizer": (
        """
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = criterion(model(x), y)
                loss.backward()
                torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)
                opt.step()
        """,
        [
            "def configure_gradient_clipping(",
            "torch.nn.utils.clip_grad_value_(self.model.parameters(), 0.5)",
            'precision="bf16-mixed"',
        ],
        ["gradient_clip_val=1", "gradient_clip_val=grad_clip", "gradient_clip_val=0.5", "_step_supports_amp_scaling"],
    ),
    # a disabled scaler changes nothing: the plain step, the norm kept in the hook
    "returned_norm_with_a_disabled_grad_scaler": (
        """
        scaler = torch.cuda.amp.GradScaler(enabled=False)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
                print(norm)
        """,
        ["self.norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)"],
        ["scaler", "precision="],
    ),
    # DeiT's `model_without_ddp = model`: the optimizer built on one name, clipping the other;
    # compiled after that, `model` still holds the same parameters in the same order
    "clipping_the_parameters_of_an_alias_of_the_model": (
        """
        use_compile = False
        model_without_ddp = model
        if use_compile:
            model = torch.compile(model)
        opt = torch.optim.SGD(model_without_ddp.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
        """,
        ["gradient_clip_val=1.0"],
        ["clip_grad_norm_"],
    ),
}

_CLAMP = "for p in {params}:\n            p.grad.clamp_({bounds})"

UNCHANGED = {
    # the step's own code reading the model (TL105): bounds Lightning's value clipping has not
    "clamp_loop_asymmetric": (
        _LOOP.format(clip=_CLAMP.format(params="model.parameters()", bounds="-1, 5")),
        "TL105",
    ),
    # Lightning clips nothing for a limit of 0, the loop zeroes every gradient
    "clamp_loop_limit_zero": (
        _LOOP.format(clip=_CLAMP.format(params="model.parameters()", bounds="-0, 0")),
        "TL105",
    ),
    "clamp_loop_limit_unknown": (
        "import sys\nlimit = float(sys.argv[1])\n"
        + _LOOP.format(clip=_CLAMP.format(params="model.parameters()", bounds="-limit, limit")),
        "TL105",
    ),
    # a generator bound to a name is used up by the optimizer: the loop clamps nothing
    "clamp_loop_over_a_used_up_generator": (
        """
        params = model.parameters()
        opt = torch.optim.SGD(params, lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                for p in params:
                    p.grad.clamp_(-1, 1)
                opt.step()
        """,
        "TL105",
    ),
    # the optimizer trains the last layer only: Lightning would clamp only its gradients
    "clamp_loop_over_more_than_the_optimizer": (
        """
        net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
        opt = torch.optim.SGD(net[1].parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                for p in net.parameters():
                    p.grad.clamp_(-1, 1)
                opt.step()
        """,
        "TL105",
    ),
    "clamp_loop_variable_read_after": (
        _LOOP.format(clip=_CLAMP.format(params="model.parameters()", bounds="-1, 1"))
        + "        print(p.grad)\n",
        "TL105",
    ),
    # a negative limit: the script clips (flipping the gradients), Lightning would not
    "limit_not_zero_maybe_negative": (
        _SCALED_IF.format(limit="float(sys.argv[1])", test="grad_clip != 0.0"),
        "TL105",
    ),
    "norm_type": (
        _LOOP.format(clip="torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, 1.0)"),
        "TL105",
    ),
    "returned_norm_read_before_the_step": (
        _LOOP.format(
            clip="norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
            "        print(norm)"
        ),
        "TL105",
    ),
    "returned_value_of_clip_grad_value": (
        _LOOP.format(clip="out = torch.nn.utils.clip_grad_value_(model.parameters(), 1.0)"),
        "TL105",
    ),
    "returned_norm_reading_a_hook_parameter": (
        """
        gradient_clip_val = 1.0
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                norm = torch.nn.utils.clip_grad_norm_(model.parameters(), gradient_clip_val)
                optimizer.step()
                print(norm)
        """,
        "TL105",
    ),
    # `is not None`: a limit of 0 zeroes every gradient here, the Trainer would not clip
    "clip_under_another_condition": (
        "grad_clip = 0.1\n"
        + _LOOP.format(
            clip="if grad_clip is not None:\n"
            "            nn.utils.clip_grad_value_(model.parameters(), grad_clip)"
        ),
        "TL105",
    ),
    "other_parameters": (
        _LOOP.format(clip="torch.nn.utils.clip_grad_norm_(criterion.parameters(), 1.0)"),
        "TL105",
    ),
    # the alias is bound to another model afterwards: it clips other parameters
    "clipping_the_parameters_of_a_rebound_alias": (
        """
        model_without_ddp = model
        model = nn.Linear(4, 2)
        opt = torch.optim.SGD(model_without_ddp.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(model_without_ddp(x), y)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
        """,
        "TL105",
    ),
    # the script's clipping read in configure_gradient_clipping must not read a name the
    # hook's parameters shadow there
    "fused_clipping_reading_a_hook_parameter_name": (
        _FUSED_IF.format(limit="gradient_clip_val", fused="True"),
        "TL105",
    ),
}

# manual optimization (every micro-batch clipped, accumulation.py) under bf16 with a fused
# optimizer: Lightning's `clip_gradients` raises for it (bf16 too), the script's call is kept
# (no scaler: nothing to unscale); without `fused=` the module's own call as before
_MICRO_BATCH_CLIP = """
opt = torch.optim.AdamW(model.parameters(), lr=1e-3{fused})
for epoch in range(2):
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = criterion(model(x), y) / 2
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        if (i + 1) % 2 == 0:
            opt.step()
            opt.zero_grad()
"""
CONVERTS["micro_batch_clipping_under_bf16_with_a_fused_optimizer"] = (
    _MICRO_BATCH_CLIP.format(fused=", fused=True"),
    [
        "self.automatic_optimization = False",
        "torch.nn.utils.clip_grad_norm_(self.model.parameters(), 0.5)",
        'precision="bf16-mixed"',
    ],
    ["self.clip_gradients", "gradient_clip_val="],
)
CONVERTS["micro_batch_clipping_under_bf16_not_fused"] = (
    _MICRO_BATCH_CLIP.format(fused=""),
    ["self.clip_gradients(", 'precision="bf16-mixed"'],
    ["clip_grad_norm_"],
)
