"""Pattern: mixed precision -> `Trainer(precision="16-mixed" | "bf16-mixed")`.

    scaler = torch.amp.GradScaler()          -> removed
    with torch.autocast("cuda"):             -> its body, in training_step
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()            -> the step sequence's backward of `loss`
    scaler.unscale_(optimizer)               -> removed: Lightning unscales before clipping
    scaler.step(optimizer)                   -> the step sequence's optimizer step
    scaler.update()                          -> removed

`autocast(enabled=flag)` becomes `precision="16-mixed" if flag else "32-true"`; nanoGPT's
`ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(..., dtype=ptdtype)` (used
as `with ctx:`) `precision="32-true" if device_type == "cpu" else <ptdtype's>`, a dtype looked
up from a dict of torch dtypes the same lookup of precisions. Lightning autocasts the
validation and test steps too: an evaluation the script ran in full precision (no autocast of
its own) gets its step's body under `torch.autocast(self.device.type, enabled=False)` (its
metrics, and code mixing its outputs with float tensors, as the script ran them). Refused (TL113):
a scaler without autocast, a scaler used outside the batch loop, scaling an expression,
autocast arguments other than device_type/dtype/enabled, autocast regions that disagree.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.function_reads import functions_doing
from ..analysis.names import bound_names, collect_names, definition_reads
from ..analysis.statements import call_method, single_assign, statements
from ..rule import Rule, Unsupported
from ..source.code_text import code_of
from ..upgrade.edits import keyword_value
from . import step_sequence
from .amp_off_cpu import keeps_off_cpu

MIXED_PRECISION = Rule(
    "TL113",
    "mixed precision / gradient scaling pattern not understood",
    """`with torch.autocast(...)` around the forward pass and a `GradScaler` used as
    `scaler.scale(loss).backward()`, `scaler.step(optimizer)`, `scaler.update()` become
    `Trainer(precision="16-mixed")` (or "bf16-mixed"). Other uses of the scaler or autocast
    arguments have no Trainer equivalent.""",
    """Use the standard autocast + GradScaler recipe of the PyTorch AMP docs, with the scaler
    used only inside the batch loop.""",
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
)

RULES = (MIXED_PRECISION,)

_AUTOCAST = {
    "torch.autocast",
    "torch.amp.autocast",
    "torch.cuda.amp.autocast",
    "torch.cpu.amp.autocast",
    "torch.amp.autocast_mode.autocast",
}
SCALERS = {
    "torch.amp.GradScaler",
    "torch.cuda.amp.GradScaler",
    "torch.amp.grad_scaler.GradScaler",
}


def batch_statements(ctx, stmts):
    """`with torch.autocast(...):` around forward and loss: its body, the precision noted.
    Also `with ctx:`, `ctx` bound once before the loop to `nullcontext() if flag else
    torch.autocast(...)` (either way round, nanoGPT's): autocast only when the flag says so."""
    out = []
    for stmt in stmts:
        if (
            isinstance(stmt, cst.With)
            and len(stmt.items) == 1
            and stmt.items[0].asname is None
            and isinstance(stmt.body, cst.IndentedBlock)
            and (found := _autocast_of(ctx, stmt.items[0].item)) is not None
        ):
            call, when = found
            _read_autocast(ctx, call, stmt, when)
            body = list(stmt.body.body)
            if body:
                body[0] = body[0].with_changes(
                    leading_lines=[*stmt.leading_lines, *body[0].leading_lines]
                )
            # the region's statements, for patterns/amp_partial.py to put back under it
            ctx.found.setdefault("autocast_regions", []).append((stmt, body))
            out.extend(body)
        else:
            out.append(stmt)
    return out


def is_autocast(ctx, stmt) -> bool:
    """`with torch.autocast(...):` (by qualified name) holding a block, with no `as`."""
    return (
        isinstance(stmt, cst.With)
        and len(stmt.items) == 1
        and isinstance(stmt.items[0].item, cst.Call)
        and bool(ctx.call_qualnames(stmt.items[0].item) & _AUTOCAST)
        and stmt.items[0].asname is None
        and isinstance(stmt.body, cst.IndentedBlock)
    )


def _autocast_of(ctx, item):
    """(the autocast call, None) of `torch.autocast(...)`, or of a name bound once before the
    loop, and never in it, to that call; (the call, its condition) of such a name bound to a
    conditional expression choosing between it and `contextlib.nullcontext()`; None otherwise. The condition is the test,
    or `not test` (a cst.UnaryOperation) when the test picks nullcontext."""
    if isinstance(item, cst.Call):
        return (item, None) if ctx.call_qualnames(item) & _AUTOCAST else None
    if not isinstance(item, cst.Name) or item.value in collect_names(ctx.loop).writes:
        return None
    found, count = ctx.binding(item.value)
    if found is None or count != 1:
        return None
    if isinstance(found[1], cst.Call) and ctx.call_qualnames(found[1]) & _AUTOCAST:
        # `ctx = torch.autocast(...)`: the same region, entered by name -- unless no scaler
        # needs Lightning's precision and it has no Trainer form: the step enters the
        # script's own object then, as written (nothing autocasts under "32-true")
        if not _scaled_loop(ctx) and not _trainer_form(ctx, found[1]):
            return None
        return found[1], None
    if not isinstance(found[1], cst.IfExp):
        return None
    choice = found[1]
    branches = [choice.body, choice.orelse]
    if not all(isinstance(b, cst.Call) for b in branches):
        return None
    null = [b for b in branches if ctx.call_qualnames(b) & _NULL_CONTEXT and not b.args]
    autocast = [b for b in branches if ctx.call_qualnames(b) & _AUTOCAST]
    if len(null) != 1 or len(autocast) != 1:
        return None
    test = choice.test
    if autocast[0] is choice.orelse:
        test = cst.UnaryOperation(operator=cst.Not(), expression=test)
    return autocast[0], test


_NULL_CONTEXT = {"contextlib.nullcontext"}


def _refuse_unread_named_region(ctx) -> None:
    """A scaled step under `with <name>:` whose name is not read as an autocast (bound more
    than once, `ctx = nullcontext()` then `if amp: ctx = torch.autocast(...)`; rebound in the
    loop): the refusal names it, not a GradScaler "without autocast"."""
    for stmt in m.findall(ctx.loop, m.With(items=[m.WithItem(item=m.Name(), asname=None)])):
        name = stmt.items[0].item.value
        _, count = ctx.binding(name)
        if name in collect_names(ctx.loop).writes:
            why = "bound again in the loop"
        elif count > 1:
            why = f"bound {count} times"
        else:
            continue
        raise Unsupported(
            MIXED_PRECISION,
            f"GradScaler with the step under `with {name}:`, {why}: only a name bound once "
            "before the loop to `torch.autocast(...)` (or `nullcontext() if ... else "
            "torch.autocast(...)`) is read as the autocast region",
            stmt,
        )


def _scaled_loop(ctx) -> bool:
    """The loop calls `<name>.scale(...)` on a name bound to a GradScaler."""
    for call in m.findall(ctx.loop, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("scale")))):
        binding, _ = ctx.binding(call.func.value.value)
        if binding and isinstance(binding[1], cst.Call) and ctx.call_qualnames(binding[1]) & SCALERS:
            return True
    return False


def _trainer_form(ctx, call: cst.Call) -> bool:
    """`precision=` expresses the autocast call without a scaler: its arguments are the ones
    read (device type, dtype, enabled), its dtype a known one, and float16 only on CUDA
    (Lightning's "16-mixed" elsewhere is bfloat16)."""
    dtype = None
    for arg in call.args:
        key = arg.keyword.value if arg.keyword is not None else None
        if key not in (None, "device_type", "dtype", "enabled"):
            return False
        dtype = arg.value if key == "dtype" else dtype
    precision = '"16-mixed"' if dtype is None else _precision(ctx, dtype)
    if precision is None:
        return False
    return precision != '"16-mixed"' or autocast_device_type(ctx, call) == "cuda"


def _read_autocast(ctx, call: cst.Call, stmt, when=None) -> None:
    dtype, enabled = None, when
    for arg in call.args:
        key = arg.keyword.value if arg.keyword is not None else None
        if key == "dtype":
            dtype = arg.value
        elif key == "enabled":
            if when is not None:
                raise Unsupported(
                    MIXED_PRECISION,
                    "autocast(enabled=...) chosen under a condition of its own",
                    stmt,
                )
            enabled = arg.value
        elif key in (None, "device_type"):
            continue
        else:
            raise Unsupported(MIXED_PRECISION, f"autocast({key}=...) is not converted", stmt)
    precision = '"16-mixed"' if dtype is None else _precision(ctx, dtype)
    if precision is None:
        raise Unsupported(MIXED_PRECISION, "autocast dtype not understood", stmt)
    device = autocast_device_type(ctx, call)
    seen = (precision, None if enabled is None else ctx.module.code_for_node(enabled), device)
    if ctx.found.get("precision_seen") not in (None, seen):
        raise Unsupported(MIXED_PRECISION, "several autocast regions disagree", stmt)
    ctx.found["precision_seen"] = seen
    ctx.found["precision"] = (precision, enabled)
    ctx.found["autocast"] = (device, stmt)  # patterns/amp_device.py
    ctx.found["autocast_call"] = (call, dtype)  # patterns/amp_handed_scaler.py


def autocast_device_type(ctx, call: cst.Call) -> str | None:
    """The device type an autocast region applies to when the source spells it: "cuda" for
    `torch.cuda.amp.autocast()`, "cpu" for `torch.cpu.amp.autocast()`, the string given to
    `torch.autocast` / `torch.amp.autocast`; None for an expression (`device.type`)."""
    names = ctx.call_qualnames(call)
    if "torch.cuda.amp.autocast" in names:
        return "cuda"
    if "torch.cpu.amp.autocast" in names:
        return "cpu"
    given = autocast_device_expression(call)
    if isinstance(given, cst.SimpleString) and given.evaluated_value in ("cuda", "cpu"):
        return given.evaluated_value
    return None


def autocast_device_expression(call: cst.Call):
    """What `torch.autocast(...)` is given as its device type (first or `device_type=`)."""
    return next(
        (a.value for a in call.args if a.keyword is None or a.keyword.value == "device_type"),
        None,
    )


def _precision(ctx, dtype) -> str | None:
    """The code of the Trainer's precision for autocast(dtype=...): a torch dtype, or a name
    bound once before the loop to a lookup of them (nanoGPT's `ptdtype = {"float32":
    torch.float32, ...}[dtype]`) -> the same lookup of precisions, keyed by the dtypes.
    float32 autocast is autocast disabled (torch warns and runs in float32): "32-true"."""
    known = _dtype_precision(ctx, dtype)
    if known is not None:
        return None if known == "32-true" else f'"{known}"'
    if not isinstance(dtype, cst.Name) or dtype.value in collect_names(ctx.loop).writes:
        return None
    found, count = ctx.binding(dtype.value)
    if found is None or count != 1:
        return None
    lookup = found[1]
    if not (isinstance(lookup, cst.Subscript) and isinstance(lookup.value, cst.Dict)):
        return None
    entries = {}
    for element in lookup.value.elements:
        if not isinstance(element, cst.DictElement):
            return None
        precision = _dtype_precision(ctx, element.value)
        if precision is None:
            return None
        entries.setdefault(ctx.module.code_for_node(element.value), precision)
    pairs = ", ".join(f'{key}: "{value}"' for key, value in entries.items())
    return f"{{{pairs}}}[{dtype.value}]"


def _dtype_precision(ctx, node) -> str | None:
    names = ctx.qualnames(node)
    if any(q in ("torch.bfloat16",) for q in names):
        return "bf16-mixed"
    if any(q in ("torch.float16", "torch.half") for q in names):
        return "16-mixed"
    if any(q in ("torch.float32", "torch.float") for q in names):
        return "32-true"
    return None


def claim(ctx, steps, stmt, position) -> bool:
    """The scaler's calls: `scaler.scale(loss).backward()` and `scaler.step(optimizer)` are
    the step sequence's backward and step; `unscale_` and `update` are the Trainer's."""
    receiver = call_method(stmt, "backward")
    if receiver is not None and _scaler_call(ctx, receiver, "scale"):
        # `scaler.scale(loss / N)`: accumulation's own division (step_sequence reads it)
        if len(receiver.args) != 1 or not (
            isinstance(receiver.args[0].value, cst.Name)
            or step_sequence.divided(receiver.args[0].value)
        ):
            raise Unsupported(MIXED_PRECISION, "scaler.scale(...) of an expression", stmt)
        step_sequence.record_backward(ctx, steps, stmt, position, receiver.args[0].value)
        return True
    if scaler_statement(ctx, stmt, ("unscale_",)):
        steps.setdefault("unscaled_at", []).append(position)  # read: before the clipping?
        return True  # Lightning's mixed precision unscales before clipping
    if scaler_statement(ctx, stmt, ("update",)):
        return True  # and updates the scale after the step
    if scaler_statement(ctx, stmt, ("step",)):
        args = stmt.body[0].value.args
        if len(args) != 1 or not isinstance(args[0].value, cst.Name):
            raise Unsupported(MIXED_PRECISION, "scaler.step(...) of an expression", stmt)
        steps["step"].append((position, args[0].value.value, stmt))
        return True
    return False


def _scaler_call(ctx, node, method: str) -> bool:
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return False
    if node.func.attr.value != method or not isinstance(node.func.value, cst.Name):
        return False
    binding, count = ctx.binding(node.func.value.value)
    if node.func.value.value == ctx.found.get("conditional_scaler"):  # amp_choice.py's
        ctx.found["scaler"] = (node.func.value.value, binding[0] if binding else None)
        return True
    if binding is None and not count:
        binding = _per_epoch_scaler(ctx, node.func.value.value)
    if binding is None or not isinstance(binding[1], cst.Call):
        return False
    if ctx.call_qualnames(binding[1]) & SCALERS:
        ctx.found["scaler"] = (node.func.value.value, binding[0])
        return True
    return False


def _per_epoch_scaler(ctx, name: str):
    """(statement, call) of the one `name = GradScaler(...)` of the epoch before its batch
    loop (a Kaggle `train_fn` building its scaler there, helpers inlined), else None. Only a scaler that is
    off (`enabled=` false for sure, known_branches.py) is read as the scaler: its calls do
    nothing, whichever epoch built it. One that may be on restarts its scale every epoch,
    where Lightning keeps one scaler for the whole fit: refused."""
    pre = ctx.found.get("epoch_pre", [])
    bindings = [s for s in pre if name in bound_names(s)]
    if len(bindings) != 1 or name in collect_names(ctx.found["batch_loop"]).writes:
        return None
    assign = single_assign(bindings[0])
    if not assign or assign[0] != name or not isinstance(assign[1], cst.Call):
        return None
    if not ctx.call_qualnames(assign[1]) & SCALERS:
        return None
    if not _off(ctx, assign[1]):
        raise Unsupported(
            MIXED_PRECISION,
            f"`{name}` is a GradScaler built anew each epoch, not known to be off (`enabled=` "
            "false for sure): its scale would restart every epoch, where Lightning keeps one "
            "scaler for the whole fit",
            bindings[0],
        )
    return bindings[0], assign[1]


def _off(ctx, call: cst.Call) -> bool:
    """`GradScaler(..., enabled=<false for sure>)`: a scaler doing nothing."""
    from .known_branches import known_test

    enabled = keyword_value(call, "enabled")
    return enabled is not None and known_test(ctx, enabled) is False


def unscales(ctx, stmt) -> bool:
    """`stmt` is `scaler.unscale_(...)` of a GradScaler."""
    return scaler_statement(ctx, stmt, ("unscale_",))


# the scaler's calls of an optimizer step (accumulation.py's group holds them too)
GROUP_METHODS = ("unscale_", "step", "update")


def scaler_statement(ctx, stmt, methods) -> bool:
    """`stmt` is exactly `scaler.<one of methods>(...)` of a GradScaler."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if not isinstance(small, cst.Expr):
        return False
    return any(_scaler_call(ctx, small.value, method) for method in methods)


def read(ctx, plan, steps) -> None:
    precision = ctx.found.get("precision")
    if precision is not None:
        name, enabled = precision  # the code of a precision
        if isinstance(enabled, cst.UnaryOperation):  # `nullcontext() if flag else autocast`
            code = ctx.module.code_for_node(enabled.expression)
            plan.add_trainer_arg("precision", f'"32-true" if {code} else {name}')
        elif enabled is not None:
            code = ctx.module.code_for_node(enabled)
            plan.add_trainer_arg("precision", f'{name} if {code} else "32-true"')
        else:
            plan.add_trainer_arg("precision", name)
    if _float16_looked_up_off_cuda(ctx):
        raise Unsupported(
            MIXED_PRECISION,
            f"autocast dtype `{code_of(ctx.found['autocast_call'][1]).strip()}` is looked up "
            "at run time and may be float16 on the CPU, where Lightning's \"16-mixed\" is "
            "bfloat16 without a scaler",
            ctx.found["autocast"][1],
        )
    scaler = ctx.found.get("scaler")
    if scaler is None and _float16_off_cuda(ctx):
        raise Unsupported(
            MIXED_PRECISION,
            "float16 autocast without a GradScaler on a device that may not be CUDA: Lightning's "
            '"16-mixed" there is bfloat16 (on the CPU), or scales the loss',
            ctx.found["autocast"][1],
        )
    if scaler is not None and precision is None and _disabled(ctx, scaler[0]):
        # `GradScaler(enabled=False)` (its autocast turned off too, known_branches.py): its
        # calls change nothing, the step is Lightning's plain one; later code keeps it
        plan.scaler = scaler[0]
        ctx.found["scaler_off"] = scaler[0]  # no scale to carry across runs (shapes/runs.py)
        if any(s is scaler[1] for s in plan.pre_train):  # built per epoch: nothing to keep
            plan.pre_train = [s for s in plan.pre_train if s is not scaler[1]]
        others = [*plan.pre_train, *plan.post_train, *ctx.scope_after]
        if not any(scaler[0] in collect_names(s).reads for s in others):
            plan.remove_stmts.append(scaler[1])
        return
    if scaler is not None:
        if precision is None:
            _refuse_unread_named_region(ctx)
            raise Unsupported(MIXED_PRECISION, "GradScaler without autocast", scaler[1])
        use = use_before_the_loop(ctx, scaler)
        if use is not None and ctx.found.get("conditional_scaler") == scaler[0]:
            raise Unsupported(
                MIXED_PRECISION,
                f"{use[1]}: a scaler the script may not have has no Trainer form "
                "(the Trainer's mixed precision builds its own, with a fresh scale)",
                use[0],
            )
        clip = steps.get("clip")
        unscaled = steps.get("unscaled_at", [])
        if clip is not None and not any(steps["backward"] < p < clip[0] for p in unscaled):
            raise Unsupported(
                MIXED_PRECISION,
                "clipping the scaled gradients (no `scaler.unscale_(optimizer)` before it): "
                "Lightning's mixed precision clips them unscaled",
                clip[2],
            )
        plan.scaler = scaler[0]
        if ctx.found.get("conditional_scaler") == scaler[0]:
            if _float16_off_cuda(ctx):
                raise Unsupported(
                    MIXED_PRECISION,
                    "float16 autocast on a device that may be the CPU, turned on with a scaler "
                    "the script may not have: Lightning's \"16-mixed\" there is bfloat16 "
                    "without a scaler, and its float16 plugin would need the script's scaler",
                    ctx.found["autocast"][1],
                )
            # kept: `precision=` reads it; after fit, the Trainer's scaler if there is one
            plan.scaler_after = (ctx.module.code_for_node(precision[1]), scaler[0])
            return
        if use is None and _float16_off_cuda(ctx):
            # Lightning turns "16-mixed" on the CPU into bf16 without a scaler: the plugin
            # handed the script's scaler autocasts float16 on the script's device and scales
            use = (scaler[1], "the GradScaler of a float16 autocast that may run on the CPU")
        if use is not None:
            # patterns/amp_handed_scaler.py gives the Trainer the script's own scaler, kept
            # where it is built: the code reading it (before, in the hooks, after) reads it
            ctx.found["scaler_handed"] = (scaler, use)
            plan.scaler = None
            return
        plan.remove_stmts.append(scaler[1])
        plan.scaler_after = _scaler_after_fit(ctx, scaler, precision[1])


def _float16_off_cuda(ctx) -> bool:
    """An autocast given `dtype=torch.float16` for "cpu", or unconditionally for a device type
    chosen at run time: where it runs on the CPU, `Trainer(precision="16-mixed")` autocasts to bfloat16 and
    drops the scaler (Lightning's accelerator connector), which the script did not do."""
    if "autocast_call" not in ctx.found:
        return False
    _, dtype = ctx.found["autocast_call"]
    device, _ = ctx.found["autocast"]
    if dtype is None or _dtype_precision(ctx, dtype) != "16-mixed":
        return False
    return _may_run_on_cpu(ctx)


def _may_run_on_cpu(ctx) -> bool:
    """The autocast region may run on the CPU: its device type is not "cuda", and nothing
    turning it on keeps it off the CPU (nanoGPT's `nullcontext() if device_type == "cpu" else
    autocast(...)` does; `enabled=use_amp` for a run-time `device.type` does not: a CPU run
    with the flag on autocasts there)."""
    call, _ = ctx.found["autocast_call"]
    device, _ = ctx.found["autocast"]
    if device is not None:
        return device != "cuda"
    enabled = ctx.found["precision"][1]
    given = autocast_device_expression(call)
    return enabled is None or given is None or not keeps_off_cpu(ctx, enabled, given)


def _float16_looked_up_off_cuda(ctx) -> bool:
    """An autocast dtype looked up at run time from a table holding float16 (nanoGPT's
    `ptdtype = {..., "float16": torch.float16}[dtype]`), where the region may run on the CPU."""
    if "autocast_call" not in ctx.found:
        return False
    _, dtype = ctx.found["autocast_call"]
    if dtype is None or _dtype_precision(ctx, dtype) is not None:
        return False
    return '"16-mixed"' in ctx.found["precision"][0] and _may_run_on_cpu(ctx)


def use_before_the_loop(ctx, scaler) -> tuple[cst.CSTNode, str] | None:
    """(the statement, what it does) of the script's first use of its scaler before the loop --
    a resume's `scaler.load_state_dict(checkpoint["scaler"])`, also in a helper of the script
    the code before the loop calls (the statement inside the helper) -- or None. The
    Trainer's `precision=` trains with a GradScaler of its own, built in `fit`: such a state
    would not reach it."""
    name, binding = scaler
    defs = _definitions(ctx)
    helpers = _definitions_reaching(ctx, name)
    for top in ctx.scope_before:
        # a function or class defined here is a scope of its own (`train_fn(..., scaler)`):
        # its body runs where it is called, which reads its name (`helpers`)
        nested = {
            id(inner)
            for scope in statements(top)
            if isinstance(scope, (cst.FunctionDef, cst.ClassDef))
            for inner in statements(scope)
        }
        for stmt in statements(top):
            if id(stmt) in nested or stmt is binding:
                continue
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            reads = collect_names(stmt).reads
            through = sorted(reads & helpers)
            if name in reads or through:
                via = ""
                if name not in reads:  # the helper's own statement reading the scaler
                    stmt = _read_in(defs, through[0], name, helpers) or stmt
                    via = f" (in `{through[0]}`, called before the loop)"
                elif (passed := _passed_to(defs, stmt, name)) is not None:
                    stmt, helper = passed  # `resume(..., scaler)`: the helper's statement
                    via = f" (in `{helper}`, called before the loop)"
                loads = call_method(stmt, "load_state_dict")
                what = "loads a saved state into" if m.matches(loads, m.Name(name)) else "uses"
                return stmt, f"the script {what} `{name}`{via} before the loop (a resume)"
    return None


def _read_in(defs, helper: str, name: str, helpers: set[str], seen=()) -> cst.CSTNode | None:
    """The first simple statement of the definition `helper` reading `name` (or calling
    another helper that does, then that one's statement)."""
    found = next((d for d in defs if d.name.value == helper), None)
    if found is None or helper in seen:
        return None
    for stmt in m.findall(found, m.SimpleStatementLine()):
        reads = collect_names(stmt).reads
        if name in reads:
            return stmt
        inner = sorted((reads & helpers) - {helper})
        if inner:
            return _read_in(defs, inner[0], name, helpers, (*seen, helper)) or stmt
    return None


def _passed_to(defs, stmt, name: str) -> tuple[cst.CSTNode, str] | None:
    """(the statement reading it, the function's name) when `stmt` passes `name` to one of
    the script's functions (by position or keyword) whose body reads that parameter."""
    functions = {d.name.value: d for d in defs if isinstance(d, cst.FunctionDef)}
    for call in m.findall(stmt, m.Call(func=m.Name())):
        found = functions.get(call.func.value)
        if found is None or found.params.star_arg is not cst.MaybeSentinel.DEFAULT:
            continue
        params = [p.name.value for p in (*found.params.posonly_params, *found.params.params)]
        for k, arg in enumerate(call.args):
            if not m.matches(arg.value, m.Name(name)) or arg.star:
                continue
            param = arg.keyword.value if arg.keyword is not None else None
            if param is None:
                param = params[k] if k < len(params) else None
            inner = next(
                (
                    s
                    for s in m.findall(found, m.SimpleStatementLine())
                    if param is not None and param in collect_names(s).reads
                ),
                None,
            )
            if inner is not None:
                return inner, found.name.value
    return None


def _definitions(ctx) -> list:
    """The script's functions and classes, at module level or defined before the loop in its
    scope (under an `if` too)."""
    kinds = (cst.FunctionDef, cst.ClassDef)
    defs = [s for s in ctx.module.body if isinstance(s, kinds)]
    return defs + [s for top in ctx.scope_before for s in statements(top) if isinstance(s, kinds)]


def _definitions_reaching(ctx, name: str) -> set[str]:
    """Names of the script's definitions (`_definitions`) whose code reads `name` from around
    it (not a parameter or a local of theirs: the symbol tables say), directly or through
    another."""
    defs = _definitions(ctx)
    free = {id(d): definition_reads(d) for d in defs}
    return functions_doing(defs, lambda d, found: bool(free[id(d)] & (found | {name})))


def _autocasts(ctx, stmts) -> bool:
    """Whether the code calls autocast itself (an evaluation the script ran mixed too), or
    enters a name bound to it (`with ctx:`) as the training step's region is read."""
    named = m.With(items=[m.WithItem(item=m.Name(), asname=None)])
    return any(
        ctx.call_qualnames(call) & _AUTOCAST for stmt in stmts for call in m.findall(stmt, m.Call())
    ) or any(
        _autocast_of(ctx, found.items[0].item) is not None
        for stmt in stmts
        for found in m.findall(stmt, named)
    )


def _disabled(ctx, name: str) -> bool:
    """`name` is bound once before the loop to a GradScaler built with `enabled=False`."""
    binding, count = ctx.binding(name)
    if binding is None and not count:
        binding, count = _per_epoch_scaler(ctx, name), 1
    if binding is None or count != 1 or not isinstance(binding[1], cst.Call):
        return False
    return _off(ctx, binding[1])


def _scaler_after_fit(ctx, scaler, enabled) -> tuple[str, str] | None:
    """(flag, the script's scaler call) for code after fit that reads the scaler: it becomes
    the scaler Lightning's mixed precision trained with -- or, when the flag turned mixed
    precision off, the script's own scaler, disabled as the script's was (it never changed).
    ("", "") when mixed precision is always on; None when there is no faithful form."""
    if enabled is None:
        return "", ""
    _, call = ctx.binding(scaler[0])[0]
    flag = ctx.module.code_for_node(enabled)
    own = keyword_value(call, "enabled")
    if own is None or ctx.module.code_for_node(own) != flag:
        return None  # the script's scaler is not turned off with mixed precision
    return flag, ctx.module.code_for_node(call)


# the scaler Lightning's mixed precision trains with, None under "32-true" (Lightning's plain
# Precision has no `scaler`; the runtime's is None)
_TRAINER_SCALER = 'getattr(self.trainer.precision_plugin, "scaler", None)'


def clean(ctx, plan) -> None:
    """A scaler that exists only with mixed precision (amp_choice.py), read by code the hooks
    run (`if scaler: checkpoint["scaler"] = scaler.state_dict()` at the epoch's end): the
    Trainer's scaler, which takes the same steps, or None as the script's was. And the
    evaluation steps the script ran in full precision (eval_passes.py reads them after this
    pattern's `read`)."""
    if ctx.found.get("precision") is not None:
        plan.full_precision_passes = {
            step
            for step, evaluation in (("validation_step", plan.validation), ("test_step", plan.test))
            if evaluation is not None and not _autocasts(ctx, evaluation.body)
        }
    name = plan.scaler
    if name is None:
        return
    from ..resolve_names import pieces_of
    from .trainer_values import rename_moved_code

    pieces = pieces_of(plan)
    pieces.pop("configure_optimizers")
    moved = [n for piece in pieces.values() for n in piece if isinstance(n, cst.CSTNode)]
    used = collect_names(*moved) if moved else None
    if used is None or name not in used.reads or name in used.writes:
        return
    if ctx.found.get("conditional_scaler") == name:
        rename_moved_code(plan, {name: cst.parse_expression(_TRAINER_SCALER)})
        plan.notes.append(
            f"`{name}` read in the hooks is the Trainer's GradScaler "
            "(`trainer.precision_plugin.scaler`) under mixed precision, None otherwise"
        )
    elif plan.scaler_after is not None:
        # `GradScaler(enabled=flag)` read by a hook (saved in a checkpoint): the Trainer's
        # scaler under mixed precision, else one built as the script's (disabled: it never
        # changes), the same expression as after fit (emit/trainer_call.py)
        flag, when_off = plan.scaler_after
        trained = "self.trainer.precision_plugin.scaler"
        code = f"({trained} if {flag} else {when_off})" if flag else trained
        rename_moved_code(plan, {name: cst.parse_expression(code)})
        plan.notes.append(
            f"`{name}` read in the hooks is the Trainer's GradScaler "
            "(`trainer.precision_plugin.scaler`) under mixed precision"
            + (f", a disabled one built as the script's otherwise ({when_off})" if flag else "")
        )
