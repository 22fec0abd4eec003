"""Cases of patterns/amp_handed_scaler.py: a GradScaler used before the loop (a resume) ->
`Trainer(plugins=[MixedPrecision("16-mixed", device, scaler=<the script's>)])`."""

# a resume before the loop: the scaler's saved state loaded with the model's and optimizer's
_RESUME = """
import os

{setup}scaler = {scaler}
start_epoch = 0
if os.path.isfile("last.pt"):
    ckpt = torch.load("last.pt")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    scaler.load_state_dict(ckpt["scaler"])
    start_epoch = ckpt["epoch"] + 1
for epoch in range(start_epoch, 3):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast({autocast}):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    torch.save({{"model": model.state_dict(), "scaler": scaler.state_dict()}}, "last.pt")
"""

_CPU = 'device = "cpu"\nmodel.to(device)\n'
_CUDA = 'device = "cuda"\nmodel.to(device)\n'
# the flag turning mixed precision on compares the device type to "cuda"
_FLAG = (
    'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
    'use_amp = True and device.type == "cuda"\n'
    "model.to(device)\n"
)
# no resume: the scaler is used only in the loop
_PLAIN = """
{setup}{scaler}for epoch in range(3):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast({autocast}):
            loss = criterion(model(x), y)
        {backward}
"""
_SCALED = "scaler.scale(loss).backward()\n        scaler.step(optimizer)\n        scaler.update()"
_PLUGIN = '[L.plugins.MixedPrecision("16-mixed", {device}, scaler=scaler)]'

CONVERTS = {
    # float16 autocast on the CPU with a CPU scaler: the plugin autocasts as the script did
    "resume_cpu_float16": (
        _RESUME.format(
            setup=_CPU,
            scaler='torch.amp.GradScaler("cpu")',
            autocast='"cpu", dtype=torch.float16',
        ),
        [
            "plugins=" + _PLUGIN.format(device='"cpu"'),
            'scaler.load_state_dict(ckpt["scaler"])',
            'scaler = torch.amp.GradScaler("cpu")',
            '"scaler": self.scaler.state_dict()',
        ],
        ["precision=", "precision_plugin"],
    ),
    "resume_cuda": (
        _RESUME.format(setup=_CUDA, scaler="torch.amp.GradScaler()", autocast='"cuda"'),
        ["plugins=" + _PLUGIN.format(device='"cuda"')],
        ["precision="],
    ),
    # mixed precision by a flag: the plugin where the flag is on, None (32-true) where off
    "resume_flag_device_expression": (
        _RESUME.format(
            setup=_FLAG,
            scaler="torch.amp.GradScaler(device.type, enabled=use_amp)",
            autocast="device_type=device.type, enabled=use_amp",
        ),
        [
            "plugins=(\n        " + _PLUGIN.format(device='"cuda"') + "\n        if use_amp\n"
            "        else None\n    )",
        ],
        ["precision="],
    ),
    # float16 given: the plugin autocasts on the script's own device expression
    "resume_flag_float16_device_expression": (
        _RESUME.format(
            setup=_FLAG.replace('True and device.type == "cuda"', "torch.cuda.is_available()"),
            scaler="torch.amp.GradScaler(device.type, enabled=use_amp)",
            autocast="device_type=device.type, dtype=torch.float16, enabled=use_amp",
        ),
        [_PLUGIN.format(device="device.type")],
        ["precision="],
    ),
    # float16 on the CPU, no resume: Trainer(precision="16-mixed") would be bf16 without a
    # scaler there (Lightning's accelerator connector); the plugin keeps float16 and the scaler
    "cpu_float16_scaler_in_the_loop_only": (
        _PLAIN.format(
            setup=_CPU,
            scaler='scaler = torch.amp.GradScaler("cpu")\n',
            autocast='"cpu", dtype=torch.float16',
            backward=_SCALED,
        ),
        ["plugins=" + _PLUGIN.format(device='"cpu"'), 'scaler = torch.amp.GradScaler("cpu")'],
        ["precision="],
    ),
    # float16 on a device chosen at run time (the CPU without CUDA): the same, on that device
    "float16_device_expression_scaler_in_the_loop_only": (
        _PLAIN.format(
            setup='device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
            "model.to(device)\n",
            scaler="scaler = torch.amp.GradScaler(device.type)\n",
            autocast="device.type, dtype=torch.float16",
            backward=_SCALED,
        ),
        ["plugins=" + _PLUGIN.format(device="device.type")],
        ["precision="],
    ),
    # a helper of the script reading the global scaler runs where it is called: before it
    "scaler_loaded_by_a_helper_before_training": (
        "def resume(path):\n    scaler.load_state_dict(torch.load(path))\n\n\n"
        + _CUDA
        + """
scaler = torch.amp.GradScaler()
resume("last.pt")
for epoch in range(2):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
print(scaler.get_scale())
""",
        ["plugins=" + _PLUGIN.format(device='"cuda"'), "print(scaler.get_scale())"],
        ["precision_plugin"],
    ),
}

UNCHANGED = {
    # bf16: Lightning's bf16 mixed precision takes no scaler
    "resume_bfloat16": (
        _RESUME.format(
            setup=_CUDA,
            scaler="torch.amp.GradScaler()",
            autocast='"cuda", dtype=torch.bfloat16',
        ),
        "TL113",
    ),
    # float16 on the CPU without a scaler: Lightning's "16-mixed" is bf16 there, and its
    # float16 plugin scales the loss
    "cpu_float16_without_scaler": (
        _PLAIN.format(
            setup=_CPU,
            scaler="",
            autocast='"cpu", dtype=torch.float16',
            backward="loss.backward()\n        optimizer.step()",
        ),
        "TL113",
    ),
    # the CPU's autocast is bfloat16 unless float16 is given
    "resume_cpu_default_dtype": (
        _RESUME.format(setup=_CPU, scaler='torch.amp.GradScaler("cpu")', autocast='"cpu"'),
        "TL113",
    ),
    # float16 only on CUDA, and the flag does not say the device is CUDA
    "resume_flag_not_checking_cuda": (
        _RESUME.format(
            setup=_FLAG.replace('True and device.type == "cuda"', "torch.cuda.is_available()"),
            scaler="torch.amp.GradScaler(device.type, enabled=use_amp)",
            autocast="device_type=device.type, enabled=use_amp",
        ),
        "TL113",
    ),
    # the scaler stays on where the autocast is off: the script scales a float32 step
    "resume_scaler_on_without_autocast": (
        _RESUME.format(
            setup=_FLAG,
            scaler="torch.amp.GradScaler(device.type)",
            autocast="device_type=device.type, enabled=use_amp",
        ),
        "TL113",
    ),
}
