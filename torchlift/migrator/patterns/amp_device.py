"""Pattern: an autocast for one device type -> mixed precision only where the model trains on it.

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    scaler = torch.cuda.amp.GradScaler()
    with torch.cuda.amp.autocast():            -> Trainer(
        loss = criterion(model(x), y)                 accelerator="cuda" if torch.cuda.is_available() else "cpu",
                                                      precision="16-mixed" if torch.cuda.is_available() else "32-true")

A `torch.autocast("cuda")` region leaves the ops of a model on the CPU in full precision, and
a CUDA GradScaler turns itself off without CUDA: on a CPU run the script trains in float32.
Lightning's `precision=` applies on every accelerator ("16-mixed" on the CPU autocasts to
bfloat16), so the precision is the script's only where the Trainer's accelerator is the
autocast's device type: under the accelerator's own condition (`"cuda" if c else "cpu"` ->
`c`), or comparing it (`torch.device(args.device).type == "cuda"`). A scaler read after fit
or by a hook is the Trainer's under that condition, and the script's (turned off) otherwise.

Refused (TL113): an autocast for a device type the script never trains on (a literal
accelerator of another type), or for the CPU under an accelerator Lightning picks itself.
An autocast whose device type is an expression (`device.type`, nanoGPT's `device_type`)
follows the script's device already and is left as patterns/amp.py writes it (a float16 one
that may run on the CPU trains with the script's scaler: patterns/amp_handed_scaler.py).
"""

from __future__ import annotations

import libcst as cst

from ..rule import Unsupported
from ..source.code_text import code_of
from .amp import MIXED_PRECISION

RULES = ()


def read(ctx, plan, steps) -> None:
    autocast = ctx.found.get("autocast")
    precision = ctx.found.get("precision")
    args = dict(plan.trainer_args)
    if autocast is None or precision is None or autocast[0] is None:
        return
    if "precision" not in args or "accelerator" not in args:
        return
    device, stmt = autocast
    condition = _applies(args["accelerator"], device)
    if condition is False:
        raise Unsupported(
            MIXED_PRECISION,
            f'autocast for "{device}" in a script whose model trains on '
            f"{args['accelerator']}: the region never applied",
            stmt,
        )
    if condition is True:
        return
    flag = _flag(ctx, precision[1])
    if flag is not None and flag.strip() == condition:
        return  # `"cuda" if use_amp else "cpu"` beside `autocast(enabled=use_amp)`
    name = precision[0]
    both = condition if flag is None else f"{_paren(flag)} and {_paren(condition)}"
    plan.trainer_args = [
        (k, f'{name} if {both} else "32-true"' if k == "precision" else code)
        for k, code in plan.trainer_args
    ]
    _scaler_under(ctx, plan, condition)
    plan.notes.append(
        f'mixed precision -> `precision=` only when the Trainer\'s accelerator is "{device}": '
        "the script's autocast region applied only there"
    )


def _applies(accelerator: str, device: str) -> bool | str:
    """True when the Trainer always runs on `device`'s type, False when never, else the code
    of the condition under which it does."""
    node = cst.parse_expression(accelerator)
    if isinstance(node, cst.SimpleString):
        if node.evaluated_value == "auto":
            if device != "cuda":
                return False
            return "torch.cuda.is_available()"  # what Lightning's "auto" picks CUDA on
        return node.evaluated_value == device
    if isinstance(node, cst.IfExp) and all(
        isinstance(b, cst.SimpleString) for b in (node.body, node.orelse)
    ):
        body, orelse = node.body.evaluated_value == device, node.orelse.evaluated_value == device
        if body == orelse:
            return body
        test = code_of(node.test).strip()
        return test if body else f"not {_paren(test)}"
    return f'{_paren(accelerator)} == "{device}"'


def _flag(ctx, enabled) -> str | None:
    """The code of the test turning the autocast on (patterns/amp.py's `enabled`), if any."""
    if enabled is None:
        return None
    if isinstance(enabled, cst.UnaryOperation):  # `nullcontext() if flag else autocast(...)`
        return f"not {_paren(ctx.module.code_for_node(enabled.expression))}"
    return ctx.module.code_for_node(enabled)


def _scaler_under(ctx, plan, condition: str) -> None:
    """Code after fit (or a hook) reading the scaler: the Trainer's only where it trained
    with mixed precision; the script's own scaler elsewhere (off, as the script's was)."""
    if plan.scaler is None or plan.scaler_after is None:
        return
    flag, when_off = plan.scaler_after
    if not flag:
        binding, _ = ctx.binding(plan.scaler)
        if binding is None:
            raise Unsupported(
                MIXED_PRECISION,
                f"`{plan.scaler}`, read after training, is not built in this scope: off the "
                "autocast's device there is no scaler of the script's to read instead",
                ctx.loop,
            )
        flag, when_off = condition, ctx.module.code_for_node(binding[1])
    else:
        flag = f"{_paren(flag)} and {_paren(condition)}"
    plan.scaler_after = (flag, when_off)


def _paren(code: str) -> str:
    node = cst.parse_expression(code)
    simple = (cst.Name, cst.Attribute, cst.Call, cst.Comparison, cst.Subscript)
    return code if isinstance(node, simple) else f"({code})"
