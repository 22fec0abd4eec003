"""Cases of patterns/amp.py: autocast + GradScaler -> Trainer(precision=...)."""

_AMP = """
scaler = torch.amp.GradScaler()
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast({args}):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
"""

_CTX = """
from contextlib import nullcontext

use_cpu = not torch.cuda.is_available()
device = "cpu" if use_cpu else "cuda"
model.to(device)
{dtype}ctx = nullcontext() if use_cpu else torch.autocast("cuda", dtype={ptdtype})
scaler = torch.amp.GradScaler(enabled=not use_cpu)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        with ctx:
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
"""

# a GPU script: the model on CUDA, where a "cuda" autocast applies (patterns/amp_device.py)
_GPU = "model.cuda()\n"

_LOOKUP = 'ptdtype = {{"float16": torch.float16, "bfloat16": torch.bfloat16, {more}}}["float16"]\n'

# a device chosen at run time, mixed precision by a flag: `{flag}` binds `use_amp` (or
# `ctx`), `{ctx}` is the region's context manager, `{scaler}` and `{step}` the scaler and
# the update
_RUN_TIME_DEVICE = """
import sys
from contextlib import nullcontext

device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
device_type = "cuda" if "cuda" in device else "cpu"
model.to(device)
{flag}
{scaler}for epoch in range(2):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with {ctx}:
            loss = criterion(model(x), y)
        {step}
"""
_FLOAT16 = "torch.autocast(device_type, dtype=torch.float16, enabled=use_amp)"
_SCALER_FLAG = "scaler = torch.amp.GradScaler(device_type, enabled=use_amp)\n"
_PLAIN_STEP = "loss.backward()\n        optimizer.step()"
_SCALED_STEP = (
    "scaler.scale(loss).backward()\n        scaler.step(optimizer)\n        scaler.update()"
)


def _run_time_device(flag='use_amp = "--amp" in sys.argv', ctx=_FLOAT16, scaler="", step=""):
    if not step:
        step = _SCALED_STEP if scaler else _PLAIN_STEP
    return _RUN_TIME_DEVICE.format(flag=flag, ctx=ctx, scaler=scaler, step=step)


_TABLE = (
    'dtype = "float16"\nptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, '
    '"float16": torch.float16}[dtype]\n'
)

CONVERTS = {
    # float16 on a device type chosen at run time, a flag allowing the CPU: on a CPU run
    # "16-mixed" would be bfloat16 without a scaler; the plugin autocasts float16 there with
    # the script's scaler (patterns/amp_handed_scaler.py)
    "float16_run_time_device_flag_allowing_the_cpu": (
        _run_time_device(scaler=_SCALER_FLAG),
        [
            'L.plugins.MixedPrecision("16-mixed", device_type, scaler=scaler)]\n'
            "        if use_amp\n        else None",
        ],
        ["precision="],
    ),
    # the flag requires CUDA: float16 only where "16-mixed" is float16 too
    "float16_run_time_device_flag_requiring_cuda": (
        _run_time_device(
            flag='use_amp = "--amp" in sys.argv and device_type == "cuda"', scaler=_SCALER_FLAG
        ),
        ['precision="16-mixed" if use_amp else "32-true"'],
        ["plugins="],
    ),
    "float16_run_time_device_off_the_cpu_by_nullcontext": (
        _run_time_device(
            flag='ctx = nullcontext() if device_type == "cpu" else '
            "torch.autocast(device_type, dtype=torch.float16)",
            ctx="ctx",
        ),
        ['precision="32-true" if device_type == "cpu" else "16-mixed"'],
        ["plugins="],
    ),
    # nanoGPT's: a dtype table, nullcontext on the CPU
    "dtype_table_off_the_cpu_by_nullcontext": (
        _run_time_device(
            flag=_TABLE
            + 'ctx = nullcontext() if device_type == "cpu" else '
            "torch.amp.autocast(device_type=device_type, dtype=ptdtype)",
            ctx="ctx",
            scaler='scaler = torch.amp.GradScaler(enabled=(dtype == "float16"))\n',
        ),
        ['"32-true"\n        if device_type == "cpu"\n        else {\n'],
        ["plugins="],
    ),
    # a Kaggle `train_fn` building its scaler each epoch, off for sure (`CFG.apex` False):
    # its calls do nothing, the step is the plain one
    "kaggle_scaler_built_per_epoch_off": (
        """
        class CFG:
            apex = False
        def train_fn(loader, model, optimizer):
            scaler = torch.cuda.amp.GradScaler(enabled=CFG.apex)
            for x, y in loader:
                with torch.cuda.amp.autocast(enabled=CFG.apex):
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
        for epoch in range(2):
            train_fn(loader, model, optimizer)
        """,
        ["return loss"],
        ["precision", "scaler.step"],
    ),
    # the notebook's `config = dict(...)` (shown in its own cell) read by the function holding
    # a fold's epochs: a setting, as `class CFG`'s; the scaler off carries nothing across runs
    "kaggle_config_dict_global_scaler_off_per_fold": (
        """
        config = dict(apex=False, epochs=2)
        config
        def train_fn(loader, model, optimizer):
            scaler = torch.cuda.amp.GradScaler(enabled=config["apex"])
            for x, y in loader:
                with torch.cuda.amp.autocast(enabled=config["apex"]):
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
        def run_fold(fold):
            model = nn.Linear(4, 2)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(config["epochs"]):
                train_fn(loader, model, optimizer)
        for fold in range(2):
            run_fold(fold)
        """,
        ["return loss", 'max_epochs=config["epochs"]'],
        ["precision", "scaler.step"],
    ),
    # `CustomModel(CFG)` keeping it as `self.cfg`, read only by attribute: still a setting
    "kaggle_cfg_kept_by_the_model_scaler_off": (
        """
        class CFG:
            apex = False
            hidden = 4
        class CustomModel(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.cfg = cfg
                self.fc = nn.Linear(4, cfg.hidden)
            def forward(self, x):
                return self.fc(x)[:, : self.cfg.hidden // 2]
        net = CustomModel(CFG)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        def train_fn(loader, model, optimizer):
            scaler = torch.cuda.amp.GradScaler(enabled=CFG.apex)
            for x, y in loader:
                with torch.cuda.amp.autocast(enabled=CFG.apex):
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
        for epoch in range(2):
            train_fn(loader, net, opt)
        """,
        ["return loss"],
        ["precision", "scaler.step"],
    ),
    # nanoGPT's ctx: autocast only when the test does not pick nullcontext()
    "nullcontext_or_autocast": (
        _CTX.format(dtype="", ptdtype="torch.float16"),
        ['precision="32-true" if use_cpu else "16-mixed"'],
        ["with ctx", "scaler.scale"],
    ),
    # the dtype looked up from a string: the same lookup of precisions (float32 autocast is
    # autocast disabled)
    "autocast_dtype_lookup": (
        _CTX.format(dtype=_LOOKUP.format(more='"float32": torch.float32'), ptdtype="ptdtype"),
        [
            '"32-true"\n        if use_cpu\n        else {\n',
            'torch.float16: "16-mixed",',
            'torch.bfloat16: "bf16-mixed",',
            'torch.float32: "32-true",',
            "}[ptdtype]",
        ],
        ["with ctx"],
    ),
    "fp16": (
        _GPU + _AMP.format(args='"cuda"'),
        [
            'L.Trainer(accelerator="cuda", devices=1, max_epochs=2, precision="16-mixed")',
            "loss = self.criterion(self(x), y)",
        ],
        ["scaler", "autocast"],
    ),
    "bf16_enabled_flag": (
        _AMP.format(args='"cpu", dtype=torch.bfloat16, enabled=True'),
        ['precision="bf16-mixed")'],
        ["GradScaler"],
    ),
    # a checkpoint after training saves the scaler: the one Lightning trained with
    "scaler_saved_after_training": (
        _GPU + _AMP.format(args='"cuda"') + 'torch.save({"scaler": scaler.state_dict()}, "last.pt")\n',
        [
            "trainer.fit(lit_model, loader)\nscaler = trainer.precision_plugin.scaler\n",
            'torch.save({"scaler": scaler.state_dict()}, "last.pt")',
        ],
        ["GradScaler"],
    ),
    # off with the flag, the script's scaler was a disabled one that never changed
    "scaler_saved_after_training_enabled_flag": (
        _GPU + _AMP.replace("GradScaler()", "GradScaler(enabled=use_amp)").format(
            args='"cuda", enabled=use_amp'
        )
        + 'torch.save({"scaler": scaler.state_dict()}, "last.pt")\n',
        [
            "scaler = (\n    trainer.precision_plugin.scaler\n    if use_amp\n"
            "    else torch.amp.GradScaler(enabled=use_amp)\n)",
        ],
        [],
    ),
    # read by a hook (a checkpoint each epoch): the Trainer's scaler, or with the flag off a
    # disabled one built as the script's (it never changes)
    "scaler_saved_each_epoch_enabled_flag": (
        _GPU + _AMP.replace("GradScaler()", "GradScaler(enabled=use_amp)").format(
            args='"cuda", enabled=use_amp'
        )
        + '    torch.save({"scaler": scaler.state_dict()}, "epoch.pt")\n',
        [
            "def on_train_epoch_end(self):",
            "self.trainer.precision_plugin.scaler\n",
            "else torch.amp.GradScaler(enabled=use_amp)\n                ).state_dict()",
        ],
        [],
    ),
    "scaler_saved_each_epoch": (
        _GPU + _AMP.format(args='"cuda"')
        + '    torch.save({"scaler": scaler.state_dict()}, "epoch.pt")\n',
        ['{"scaler": self.trainer.precision_plugin.scaler.state_dict()}'],
        ["GradScaler"],
    ),
    # Lightning autocasts the validation step under a mixed precision; the script evaluated
    # in full precision, so the step's body runs with autocast turned off
    "validation_without_autocast_stays_full_precision": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
        for epoch in range(2):
            for x, y in loader:
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = criterion(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            with torch.no_grad():
                for x, y in val_loader:
                    print(criterion(model(x), y).item())
        """,
        [
            'precision="bf16-mixed"',
            "def validation_step(self, batch, batch_idx):\n"
            "        # the script evaluated in full precision: Lightning would autocast this step\n"
            "        with torch.autocast(self.device.type, enabled=False):",
        ],
        [],
    ),
    # the helper's parameter is another scope's name: no use of the scaler before the loop
    "scaler_handed_to_a_helper_defined_before_the_loop": (
        """
        def train_fn(model, loader, optimizer, scaler):
            for x, y in loader:
                with torch.autocast("cpu", enabled=False):
                    loss = criterion(model(x), y)
                optimizer.zero_grad()
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()


        scaler = torch.amp.GradScaler(enabled=False)
        for epoch in range(2):
            train_fn(model, loader, optimizer, scaler)
        """,
        ["def training_step"],
        ["scaler"],
    ),
    # the same with the scaler on (the `enabled=False` one above is dropped before the check)
    "enabled_scaler_handed_to_a_helper_defined_before_the_loop": (
        _GPU
        + """
def train_fn(model, loader, optimizer, scaler):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


scaler = torch.amp.GradScaler("cuda")
for epoch in range(2):
    train_fn(model, loader, optimizer, scaler)
""",
        ['precision="16-mixed"'],
        ["scaler"],
    ),
}

UNCHANGED = {
    # float16 on a device chosen at run time, the flag allowing the CPU, no scaler: Lightning's
    # "16-mixed" there is bfloat16, and its float16 plugin scales the loss
    "float16_run_time_device_flag_allowing_the_cpu_without_scaler": (
        _run_time_device(),
        "TL113",
    ),
    # a dtype table holding float16, the flag allowing the CPU
    "dtype_table_under_a_flag_allowing_the_cpu": (
        _run_time_device(
            flag=_TABLE
            + 'use_amp = "--amp" in sys.argv\n'
            + "ctx = nullcontext() if not use_amp else "
            "torch.amp.autocast(device_type=device_type, dtype=ptdtype)",
            ctx="ctx",
            scaler='scaler = torch.amp.GradScaler(enabled=(dtype == "float16"))\n',
        ),
        "TL113",
    ),
    "dtype_table_always_on": (
        _run_time_device(
            flag=_TABLE,
            ctx="torch.amp.autocast(device_type=device_type, dtype=ptdtype)",
        ),
        "TL113",
    ),
    # a scaler only under the flag (amp_choice.py's form): the plugin would need one
    "float16_run_time_device_scaler_only_with_the_flag": (
        _run_time_device(
            ctx="torch.autocast(device_type, dtype=torch.float16, enabled=scaler is not None)",
            scaler="scaler = torch.amp.GradScaler(device_type) if use_amp else None\n",
            step="if scaler is not None:\n            scaler.scale(loss).backward()\n"
            "            scaler.step(optimizer)\n            scaler.update()\n"
            "        else:\n            loss.backward()\n            optimizer.step()",
        ),
        "TL113",
    ),
    # the model kept `CFG` and turns apex on through it: not a setting any more
    "kaggle_cfg_kept_by_the_model_and_changed": (
        """
        class CFG:
            apex = False
        class CustomModel(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.cfg = cfg
                self.fc = nn.Linear(4, 2)
            def forward(self, x):
                self.cfg.apex = True
                return self.fc(x)
        net = CustomModel(CFG)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        def train_fn(loader, model, optimizer):
            scaler = torch.cuda.amp.GradScaler(enabled=CFG.apex)
            for x, y in loader:
                with torch.cuda.amp.autocast(enabled=CFG.apex):
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
        for epoch in range(2):
            train_fn(loader, net, opt)
        """,
        "TL113",
    ),
    # a scaler built each epoch that may be on restarts its scale every epoch
    "kaggle_scaler_built_per_epoch_on": (
        """
        def train_fn(loader, model, optimizer):
            scaler = torch.amp.GradScaler("cuda")
            for x, y in loader:
                with torch.autocast("cuda"):
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
        for epoch in range(2):
            train_fn(loader, model, optimizer)
        """,
        "TL113",
    ),
    "autocast_dtype_lookup_float64": (
        _CTX.format(dtype=_LOOKUP.format(more='"float64": torch.float64'), ptdtype="ptdtype"),
        "TL113",
    ),
    # the script clips the scaled gradients; Lightning unscales before its clipping
    "clipping_without_unscale": (
        """
        scaler = torch.amp.GradScaler()
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                with torch.autocast("cuda"):
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
        """,
        "TL113",
    ),
    # on with the flag off: no scaler of Lightning's is what the script's became
    "scaler_enabled_differently_saved_after_training": (
        _AMP.format(args='"cuda", enabled=use_amp')
        + 'torch.save({"scaler": scaler.state_dict()}, "last.pt")\n',
        "TL113",
    ),
    "scaler_enabled_differently_saved_each_epoch": (
        _AMP.format(args='"cuda", enabled=use_amp')
        + '    torch.save({"scaler": scaler.state_dict()}, "epoch.pt")\n',
        "TL113",
    ),
    "scaler_read_before_training": (
        'scaler = torch.amp.GradScaler()\nscaler.load_state_dict(torch.load("last.pt"))\n'
        + _AMP.replace("scaler = torch.amp.GradScaler()\n", "").format(args='"cuda"'),
        "TL113",
    ),
    "scaler_without_autocast": (
        """
        scaler = torch.amp.GradScaler()
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
        """,
        "TL113",
    ),
    "autocast_cache_argument": (
        _AMP.format(args='"cuda", cache_enabled=False'),
        "TL113",
    ),
}

# an autocast context bound once before the loop and entered by name (`with ctx:`): the same
# region as `with torch.autocast(...)` (was TL113 "GradScaler without autocast" with a scaler,
# the context kept as module state without one)
_NAMED = """
device_type = "cuda" if torch.cuda.is_available() else "cpu"
{scaler}ctx = {autocast}
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        with ctx:
            loss = criterion(model(x), y)
        {backward}
"""
_SCALED = "scaler.scale(loss).backward()\n        scaler.step(optimizer)\n        scaler.update()"
_PLAIN = "loss.backward()\n        optimizer.step()"
CONVERTS["autocast_bound_to_a_name_bf16"] = (
    _NAMED.format(
        scaler="",
        autocast="torch.amp.autocast(device_type=device_type, dtype=torch.bfloat16)",
        backward=_PLAIN,
    ),
    ['precision="bf16-mixed"'],
    ["with self.ctx", "self.ctx = ctx"],
)
# read as the direct form is: "cuda" for a model that trains on the CPU never applied (TL113)
UNCHANGED["autocast_bound_to_a_name_for_cuda_on_a_cpu_model"] = (
    _NAMED.format(
        scaler='scaler = torch.amp.GradScaler("cuda")\n',
        autocast='torch.autocast("cuda", dtype=torch.float16)',
        backward=_SCALED,
    ),
    "TL113",
)
CONVERTS["autocast_bound_to_a_name_float16_run_time_device_scaler"] = (
    _NAMED.format(
        scaler="scaler = torch.amp.GradScaler(device_type)\n",
        autocast="torch.autocast(device_type, dtype=torch.float16)",
        backward=_SCALED,
    ),
    ['plugins=[L.plugins.MixedPrecision("16-mixed", device_type, scaler=scaler)]'],
    ["with self.ctx", "scaler.scale"],
)
# no scaler, and float16 on a device that may be the CPU ("16-mixed" is bfloat16 there): the
# step enters the script's own context, as before (the direct form is refused, TL113)
CONVERTS["autocast_bound_to_a_name_float16_without_scaler_kept"] = (
    _NAMED.format(
        scaler="",
        autocast="torch.autocast(device_type, dtype=torch.float16)",
        backward=_PLAIN,
    ),
    ["with self.ctx:"],
    ["precision="],
)
# bound twice (`nullcontext()` then autocast under a flag) around a scaled step: TL113 at the
# `with`, naming the binding (not "GradScaler without autocast")
UNCHANGED["autocast_name_bound_twice_with_a_scaler"] = (
    _NAMED.replace("{scaler}ctx = {autocast}\n", "{scaler}ctx = nullcontext()\nif use_amp:\n    ctx = {autocast}\n").format(
        scaler='from contextlib import nullcontext\nuse_amp = torch.cuda.is_available()\nscaler = torch.amp.GradScaler("cuda", enabled=use_amp)\n',
        autocast='torch.autocast("cuda", dtype=torch.float16)',
        backward=_SCALED,
    ),
    "TL113",
)
