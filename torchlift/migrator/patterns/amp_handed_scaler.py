"""Pattern: a GradScaler the script uses before the loop -> the Trainer trains with that scaler.

    scaler = torch.amp.GradScaler(enabled=use_amp)         (kept)
    if args.resume and os.path.isfile(path):
        ckpt = torch.load(path)
        ...
        scaler.load_state_dict(ckpt["scaler"])             (kept: the resumed scale)
    ...
    with torch.autocast("cuda", enabled=use_amp):      -> Trainer(plugins=[L.plugins.MixedPrecision(
                                                              "16-mixed", "cuda", scaler=scaler)]
                                                              if use_amp else None)

`Trainer(precision="16-mixed")` builds a GradScaler of its own in `fit`, fresh: the state a
resume loaded into the script's would not train. Lightning's `MixedPrecision(precision,
device, scaler=...)`, given as `plugins=` instead of `precision=`, trains with the object it
is given (scale, growth tracker, `init_scale` and growth settings as the script built and
loaded them); code reading the scaler (a checkpoint's `scaler.state_dict()`, in the hooks or
after fit) reads the one that trained. Where `precision=` would be "32-true" the plugin is
`None` (the Trainer's default, "32-true"), which needs the script's scaler off there too (its
`enabled=` the autocast's own flag: a disabled scaler's calls, `load_state_dict` included,
do nothing).

The plugin autocasts to float16 on its device: exact when the script's autocast does the
same, on the same device type -- `dtype=torch.float16` given, or the device type "cuda"
(whose default is float16): a literal, or an expression the flag turning autocast on
compares to "cuda" (`use_amp = args.amp and device.type == "cuda"`). Refused (TL113, at the
statement using the scaler before the loop, inside the helper when one does): bf16 or a
dtype chosen at run time (Lightning's bf16 precision takes no scaler), a device type not
known to autocast in float16, a scaler not turned off with the autocast.

A float16 autocast whose device type is not the literal "cuda" hands its scaler too, used
before the loop or not (patterns/amp.py), unless what turns it on keeps it off the CPU
(patterns/amp_off_cpu.py): on the CPU, `precision="16-mixed"` is bfloat16 without a scaler
(Lightning's accelerator connector), the plugin float16 with the script's.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..plan import LIGHTNING
from ..rule import Unsupported
from ..source.code_text import code_of
from .amp import (
    MIXED_PRECISION,
    _dtype_precision,
    _scaler_after_fit,
    autocast_device_expression,
)

RULES = ()


def read(ctx, plan, steps) -> None:
    handed = ctx.found.get("scaler_handed")
    if handed is None:
        return
    scaler, (use, why) = handed
    name = scaler[0]

    def refuse(reason: str) -> None:
        raise Unsupported(
            MIXED_PRECISION, f"{why}: the Trainer cannot train with it, {reason}", use
        )

    device = _plugin_device(ctx, refuse)
    enabled = ctx.found["precision"][1]
    if _scaler_after_fit(ctx, scaler, enabled) is None:
        refuse("the scaler is not turned off with the autocast (its `enabled=` differs)")
    plugin = f'[{LIGHTNING}.plugins.MixedPrecision("16-mixed", {device}, scaler={name})]'
    args = dict(plan.trainer_args)
    chosen = _plugins_for(cst.parse_expression(args["precision"]), plugin)
    if chosen is None:
        refuse(f"`precision={args['precision']}` is not float16 mixed precision")
    plan.trainer_args = [
        ("plugins", chosen) if k == "precision" else (k, code) for k, code in plan.trainer_args
    ]
    used = "used before the loop" if use is not scaler[1] else why  # amp.py's float16 off CUDA
    plan.notes.append(
        f"`{name}`, {used}, is the GradScaler the Trainer trains with "
        "(`plugins=[MixedPrecision(..., scaler=...)]`), as the script's did"
    )


def clean(ctx, plan) -> None:
    """The Trainer built early, where the script starts its process group (patterns/ddp/,
    after this pattern's `read`): the scaler it is handed may not be built yet there."""
    handed = ctx.found.get("scaler_handed")
    if handed is not None and plan.trainer_at is not None:
        scaler, (use, why) = handed
        raise Unsupported(
            MIXED_PRECISION,
            f"{why}: the Trainer cannot train with it, the Trainer is built where the script "
            "starts its process group, before the scaler may exist",
            use,
        )


def _plugin_device(ctx, refuse) -> str:
    """The code of the plugin's device: the script's autocast device type, where the plugin's
    float16 autocast is the script's (see the docstring)."""
    call, dtype = ctx.found["autocast_call"]
    device, _ = ctx.found["autocast"]
    float16 = dtype is not None and _dtype_precision(ctx, dtype) == "16-mixed"
    if dtype is not None and not float16:
        refuse("its autocast is not float16 (Lightning's bf16 mixed precision takes no scaler)")
    if device is not None:
        if not float16 and device != "cuda":
            refuse(f'autocast for "{device}" without `dtype=torch.float16` is not float16')
        return f'"{device}"'
    given = autocast_device_expression(call)
    if given is None or collect_names(given).reads & collect_names(ctx.loop).writes:
        refuse("the autocast's device type is not known before the loop")
    if float16:
        return code_of(given).strip()
    if not _enabled_only_on_cuda(ctx, given):
        refuse(
            f"autocast for `{code_of(given).strip()}` without `dtype=torch.float16` is float16 "
            "only on CUDA, which its flag does not check"
        )
    return '"cuda"'


def _enabled_only_on_cuda(ctx, device) -> bool:
    """The autocast's flag is a name bound once before the loop to a conjunction holding
    `<device> == "cuda"`."""
    enabled = ctx.found["precision"][1]
    if not isinstance(enabled, cst.Name) or enabled.value in collect_names(ctx.loop).writes:
        return False
    found, count = ctx.binding(enabled.value)
    if found is None or count != 1:
        return False
    wanted = code_of(device).strip()
    return any(
        m.matches(c, m.Comparison(comparisons=[m.ComparisonTarget(m.Equal())]))
        and {code_of(c.left).strip(), code_of(c.comparisons[0].comparator).strip()}
        == {wanted, '"cuda"'}
        for c in _conjuncts(found[1])
    )


def _conjuncts(node) -> list:
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And):
        return [*_conjuncts(node.left), *_conjuncts(node.right)]
    return [node]


def _plugins_for(precision, plugin: str) -> str | None:
    """`plugins=` for `precision=`: the plugin where it is "16-mixed", None where "32-true",
    through conditional expressions; None when another precision appears."""
    if isinstance(precision, cst.SimpleString):
        return {"16-mixed": plugin, "32-true": "None"}.get(precision.evaluated_value)
    if isinstance(precision, cst.IfExp):
        body = _plugins_for(precision.body, plugin)
        orelse = _plugins_for(precision.orelse, plugin)
        if body is None or orelse is None:
            return None
        return f"{body} if {code_of(precision.test).strip()} else {orelse}"
    return None
