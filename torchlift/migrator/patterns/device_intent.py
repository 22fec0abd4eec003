"""Pattern: the script's device choice -> the Trainer's `accelerator=` and `devices=1`.

    device = torch.device("cuda" if use_cuda else "cpu")   -> accelerator="cuda" if use_cuda else "cpu"
    if torch.cuda.is_available():                           -> accelerator="cuda" if torch.cuda.is_available()
        device = torch.device("cuda")                                    else "cpu"
        print("GPU is available")                              (the `if` stays, with its prints)
    else:
        device = torch.device("cpu")
    device = torch.accelerator.current_accelerator()        -> accelerator="auto" (the same choice)
    no device at all (or only `.cuda()` calls)              -> accelerator="cpu" (or "cuda")

The script's own flags (`--no-cuda`, `use_cuda = False`, `args.no_accel`) keep working because
the condition that chose the device is the condition that chooses the accelerator. A
single-device script asks for `devices=1` explicitly: Lightning's default ("auto") would spread
it over every visible GPU, changing its batches and duplicating its prints.

When code outside the loop still reads the device, the Trainer reads the same name
(`accelerator=device`, or `device.type` for a `torch.device`).

A device known only at run time (`torch.device(args.device)`, `x.to(args.device)`, a parameter
whose callers do not spell it out) keeps its GPU index: `accelerator=torch.device(d).type,
devices=[torch.device(d).index] if torch.device(d).index else 1` (`--device cuda:1` trains on
GPU 1, as the script did). A device name bound to a field of a config (`device = args.device`,
minGPT's `if config.device == "auto": ... else: device = config.device`, patterns/
config_device.py) is such a device: the Trainer reads the name, whose binding stays.

DataParallel (found by bindings / data_parallel) becomes DDP over the GPUs it used:
`devices=torch.cuda.device_count() if <on CUDA> else 1`, `strategy="ddp" if <on CUDA> and
torch.cuda.device_count() > 1 else "auto"`; on one device nothing changes. The report says how
the global batch changes (DataParallel split a batch, DDP gives each GPU a whole one).

Refused: TL140, a device with an index other than 0 (`"cuda:1"`), which `devices=1` would
not honour; TL141, DataParallel when the condition that put the model on CUDA cannot be read.
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m

from ..analysis.loader_length import config_field, config_item
from ..analysis.names import bound_names, collect_names, scope_reads
from ..analysis.statements import move_calls, single_assign
from ..rule import Rule, Unsupported
from ..source.code_text import code_of
from .config_device import config_device_read
from .device_helpers import choice_problem, device_choice
from .unplaced_model import trains_on_cpu

DEVICE_INDEX = Rule(
    "TL140",
    "the script trains on a device index other than 0",
    """`torch.device("cuda:1")` picks one GPU of several; the converted Trainer asks for one
    device (`devices=1`, the first), which is not the same GPU.""",
    """Select the GPU with `CUDA_VISIBLE_DEVICES=1` and write `torch.device("cuda")`, or pass
    `devices=[1]` to the Trainer by hand after converting.""",
    """
    device = torch.device("cuda:1" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
    for epoch in range(2):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

DATA_PARALLEL_DEVICES = Rule(
    "TL141",
    "DataParallel script whose GPU count cannot be written as Trainer arguments",
    """A DataParallel script becomes a DDP one on the GPUs DataParallel used: `devices=` counts
    them under the condition that put the model on CUDA. When that condition cannot be read
    from the script (a device from `torch.accelerator`, a device name from a config) or the
    wrap happens under several conditions, the count cannot be stated.""",
    """Choose the device with `torch.device("cuda" if use_cuda else "cpu")` and wrap the model
    once (`if torch.cuda.device_count() > 1: model = nn.DataParallel(model)`).""",
    """
    device = torch.accelerator.current_accelerator()
    model = nn.DataParallel(model)
    model.to(device)
    for epoch in range(2):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

RULES = (DEVICE_INDEX, DATA_PARALLEL_DEVICES)

_DEVICE = re.compile(r"^[rbu]*(['\"])(cuda|cpu|mps|xpu|gpu)(?::(\d+))?['\"]$", re.I)
_CURRENT_ACCELERATOR = "torch.accelerator.current_accelerator"


def device_if_binding(ctx, stmt, complete: bool = True) -> str | None:
    """The name an `if/elif/else` statement binds to a device in every branch, e.g. `if
    use_cuda: device = torch.device("cuda") else: ...`; with `complete=False` also an `if`
    without `else` (rebinding a device chosen before it). A branch may also report what it
    chose (`print("GPU is available")`, see `_branch_device`)."""
    if not isinstance(stmt, cst.If) or (complete and not _has_else(stmt)):
        return None
    names = set()
    for body in _branches(stmt):
        binding = _branch_device(ctx, body)
        if binding is None:
            return None
        names.add(binding[0])
    return names.pop() if len(names) == 1 else None


def _branches(stmt: cst.If) -> list[cst.BaseSuite]:
    """The bodies of an `if`, its `elif`s and its `else`, in order."""
    found: list[cst.BaseSuite] = []
    branch: cst.If | cst.Else | None = stmt
    while branch is not None:
        found.append(branch.body)
        branch = branch.orelse if isinstance(branch, cst.If) else None
    return found


# calls a branch of the idiom may make besides binding the device: output only, which
# neither changes what the condition reads nor which GPU `torch.device("cuda")` means (a
# `torch.cuda.set_device(1)` there would: the Trainer's `devices=1` is the first GPU)
_REPORTS = ("builtins.print", "warnings.warn", "logging.")


def _branch_device(ctx, body: cst.BaseSuite) -> tuple[str, cst.BaseExpression] | None:
    """(name, device value) of a branch of the if/else idiom: one `name = <device>`, and
    otherwise only statements reporting the choice (`print("GPU not available, CPU used")`),
    which stay where they are when the binding goes (emit/transform.py keeps such an `if`)."""
    found = None
    for stmt in body.body:
        assign = single_assign(stmt)
        if assign is not None and found is None and is_bound_device(ctx, assign[1]):
            found = assign
        elif not _reports(ctx, stmt):
            return None
    return found


def _reports(ctx, stmt) -> bool:
    """`print(...)`, `logging.info(...)` (a call of the logging module), `warnings.warn(...)`
    as a statement of its own, binding nothing (no `:=` in its arguments)."""
    if not m.matches(stmt, m.SimpleStatementLine([m.Expr(m.Call())])) or bound_names(stmt):
        return False
    return any(q.startswith(_REPORTS) for q in ctx.call_qualnames(stmt.body[0].value))


def reports_choice(ctx, stmt) -> bool:
    """`stmt` only reports a device choice (`print(f"Using device: {device}")`)."""
    return _reports(ctx, stmt)


def device_if_extra(ctx, stmt, name: str):
    """The statement that keeps an `if` chain binding `name` to a device in every branch
    from being the idiom: the first one neither that binding nor a report (a branch's
    `torch.cuda.set_device(1)`), for the refusal to name; None for anything else."""
    if not isinstance(stmt, cst.If) or not _has_else(stmt):
        return None
    extra = None
    for body in _branches(stmt):
        binds = False
        for inner in body.body:
            assign = single_assign(inner)
            if assign is not None and assign[0] == name and is_bound_device(ctx, assign[1]):
                binds = True
            elif extra is None and not _reports(ctx, inner):
                extra = inner
        if not binds:
            return None
    return extra


def device_if_reports(stmt: cst.If) -> bool:
    """The if/else idiom `stmt` also reports its choice: it is kept whole, prints included."""
    return any(len(body.body) > 1 for body in _branches(stmt))


def _has_else(stmt: cst.If) -> bool:
    while isinstance(stmt.orelse, cst.If):
        stmt = stmt.orelse
    return isinstance(stmt.orelse, cst.Else)


def is_device_value(ctx, value: cst.BaseExpression) -> bool:
    """`torch.device(...)`, a device string, `torch.accelerator.current_accelerator()` (or
    its `.type`), or a conditional choosing between them -- also as the call of a function
    of the file returning them (`get_default_device()`, patterns/device_helpers.py)."""
    value = _chosen(ctx, value)
    if isinstance(value, cst.IfExp):
        return is_device_value(ctx, value.body) and is_device_value(ctx, value.orelse)
    if isinstance(value, cst.Attribute) and value.attr.value == "type":
        return _CURRENT_ACCELERATOR in ctx.call_qualnames(value.value)
    if isinstance(value, cst.Call):
        return bool(ctx.call_qualnames(value) & {"torch.device", _CURRENT_ACCELERATOR})
    return isinstance(value, cst.SimpleString) and bool(_DEVICE.match(value.value))


def is_bound_device(ctx, value: cst.BaseExpression) -> bool:
    """What a device name may be bound to: a device value, a field of a config naming a
    device at run time (patterns/config_device.py), or a conditional choosing between them
    (`("cuda" if ... else "cpu") if cfg.device == "auto" else cfg.device`)."""
    if isinstance(value, cst.IfExp):
        return is_bound_device(ctx, value.body) and is_bound_device(ctx, value.orelse)
    return is_device_value(ctx, value) or config_device_read(ctx, value)


def reads_config_device(ctx, value: cst.BaseExpression) -> bool:
    """Some branch of `value` is a field of a config, known only at run time."""
    if isinstance(value, cst.IfExp):
        return reads_config_device(ctx, value.body) or reads_config_device(ctx, value.orelse)
    return not is_device_value(ctx, value) and config_device_read(ctx, value)


def _chosen(ctx, value: cst.BaseExpression) -> cst.BaseExpression:
    """`value`, or what it returns when it calls a device-choosing function of the file whose
    every returned value is a device value."""
    choice = device_choice(ctx, value)
    if choice is None:
        return value
    parts = _leaves(choice)
    if all(device_choice(ctx, part) is None and is_device_value(ctx, part) for part in parts):
        return choice
    return value


def _leaves(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The values a conditional may give (`a if c else b if d else e` -> a, b, e)."""
    if isinstance(value, cst.IfExp):
        return [*_leaves(value.body), *_leaves(value.orelse)]
    return [value]


def helper_device_problem(ctx, call: cst.Call) -> str | None:
    """Why the call of a function of the script is not read as a device choice: what its
    body does more (patterns/device_helpers.py), or the first value it returns that is not a
    device (`return 0`, a GPU index); None for a call of anything else."""
    problem = choice_problem(ctx, call)
    choice = device_choice(ctx, call)
    if problem is not None or choice is None:
        return problem
    shown = f"`{call.func.value}()`"
    while isinstance(choice, cst.IfExp) and is_device_value(ctx, choice.body):
        choice = choice.orelse
    part = choice.body if isinstance(choice, cst.IfExp) else choice
    if device_choice(ctx, part) is not None:
        return f"{shown} returns what a function of the script chooses"
    if is_device_value(ctx, part):
        return None
    return f"{shown} returns `{ctx.module.code_for_node(part).strip()}`, not a device"


def device_value(ctx, value: cst.BaseExpression) -> cst.BaseExpression | None:
    """The device value a binding's right-hand side holds: itself, or the entry of a config
    dict the file only reads by key (`cfg["device"]` with `cfg = {"device": "cuda" if
    torch.cuda.is_available() else "cpu", ...}` bound once in the same scope: what a
    research Trainer class's `self.device = cfg["device"]` reads); a config's field the source
    does not show, as itself (read at run time: patterns/config_device.py); None for anything
    else."""
    if isinstance(value, cst.Subscript):
        value = config_item(ctx, value) or value
    elif isinstance(value, cst.Attribute):  # `cfg.device` of a dataclass, or `x.type`
        value = config_field(ctx, value) or value
    return value if is_bound_device(ctx, value) else None


# what a device name reads as in the LightningModule, by what the script bound it to: the
# same Python type, since a string is not a torch.device (`torch.amp.autocast(device_type=)`
# takes only a str, and `"cuda" == torch.device("cuda")` is False); a value read from a config
# at run time has no such form: the module is handed the script's own value (`_AS_SCRIPT`)
_AS_DEVICE, _AS_TYPE, _AS_STRING = "self.device", "self.device.type", "str(self.device)"
AS_SCRIPT = "script"


def device_value_expr(ctx, value: cst.BaseExpression) -> str:
    """`self.device` for a torch.device, `self.device.type` for a device type string
    ("cuda", `current_accelerator().type`), `str(self.device)` for a string naming an index
    ("cuda:0" -- Lightning's device for it prints the same)."""
    value = _chosen(ctx, value)
    if reads_config_device(ctx, value):  # a string or a torch.device, as the config holds
        return AS_SCRIPT
    if isinstance(value, cst.IfExp):
        kinds = {device_value_expr(ctx, value.body), device_value_expr(ctx, value.orelse)}
        if kinds <= {_AS_TYPE, _AS_STRING}:  # "cuda:0" if ... else "cpu"
            return _AS_STRING if _AS_STRING in kinds else _AS_TYPE
        return _AS_DEVICE if kinds == {_AS_DEVICE} else "mixed"
    if isinstance(value, cst.Attribute):  # current_accelerator().type
        return _AS_TYPE
    if isinstance(value, cst.SimpleString):
        return _AS_STRING if ":" in value.value else _AS_TYPE
    return _AS_DEVICE


def note_device_value(ctx, plan, name: str, value: cst.BaseExpression) -> None:
    """Record what `name`, bound to the device value `value`, reads as in the class."""
    plan.device_exprs.setdefault(name, set()).add(device_value_expr(ctx, value))


def note_device_values(ctx, plan, name: str, stmt: cst.BaseStatement) -> None:
    """The same for the statement binding `name`: an assignment, or the if/else idiom (one
    value per branch)."""
    if isinstance(stmt, cst.If):
        for body in _branches(stmt):
            binding = _branch_device(ctx, body)
            if binding is not None and binding[0] == name:
                note_device_value(ctx, plan, name, binding[1])
        return
    assign = single_assign(stmt)
    if assign is not None and assign[0] == name:
        note_device_value(ctx, plan, name, assign[1])


def bind(ctx, plan, steps) -> None:
    """The if/else device idiom binds a device name like an assignment does."""
    for stmt in ctx.scope_before:
        name = device_if_binding(ctx, stmt)
        if name is not None:
            plan.device_names.add(name)
            note_device_values(ctx, plan, name, stmt)


_SINGLE_NOTE = (
    "device choice -> `accelerator=` of the Trainer, under the script's own condition, and "
    "`devices=1`: one device, as the script trained"
)


_RUN_TIME_NOTE = (
    "device choice -> `accelerator=` and `devices=` of the Trainer, read from the device the "
    "script names at run time: its type, and its GPU index (`cuda:1` -> `devices=[1]`)"
)


_CPU_NOTE = (
    "device choice -> `accelerator=` the CPU: the script never places this loop's model on a "
    "device, so it trained on the CPU (and stays there after fit)"
)


DATA_PARALLEL_NOTE = (
    "DataParallel -> DDP on the same GPUs: DataParallel split each batch across them, DDP "
    "gives every GPU a whole batch (global batch = batch_size x GPUs); divide the loader's "
    "batch_size by the GPU count to keep the global batch; each GPU's share comes from "
    "a DistributedSampler (Lightning's shuffles the training loader, seed 0 + epoch, even "
    "when the script's did not)"
)
MODULE_PREFIX_NOTE = (
    "; the model's `state_dict()` keys have no DataParallel `module.` prefix: a "
    "checkpoint the original wrote on several GPUs does not load into it, nor the "
    "other way round"
)


def read(ctx, plan, steps) -> None:
    if "placement_chain" in ctx.found:  # the model placed per branch: placement_chain.py
        return
    if trains_on_cpu(ctx, plan, _training_code(plan)):  # patterns/unplaced_model.py
        plan.model_on_cpu = True
        plan.device_note = _CPU_NOTE
        plan.trainer_args[:0] = [("accelerator", '"cpu"'), ("devices", "1")]
        return
    accelerator = _accelerator(ctx, plan)
    one_device = "1" if ctx.found.get("device_index_known") else _one_device(accelerator)
    binding = _last_device_binding(ctx, plan)
    plan.device_stmt = binding[0] if binding else None
    plan.device_note = _SINGLE_NOTE if one_device == "1" else _RUN_TIME_NOTE
    wraps = ctx.found.get("data_parallel_conditions")
    if not wraps:
        plan.trainer_args[:0] = [
            ("accelerator", accelerator),
            ("devices", one_device),
        ]
        return
    multi = _data_parallel_args(ctx, plan, wraps)
    if multi is None:
        plan.trainer_args[:0] = [
            ("accelerator", accelerator),
            ("devices", one_device),
        ]
        plan.notes.append("DataParallel removed: the model ran on the CPU, where it does nothing")
        return
    devices, strategy = multi
    # several processes from here on: whole_eval_loaders.py and rank_zero_effects.py
    ctx.found["data_parallel_ddp"] = True
    plan.trainer_args[:0] = [
        ("accelerator", accelerator),
        ("devices", devices),
        ("strategy", strategy),
    ]
    note = DATA_PARALLEL_NOTE
    if _saves_model_state(ctx, plan):
        note += MODULE_PREFIX_NOTE
    plan.notes.append(note)
    plan.device_note = f"device choice -> `accelerator=`, `devices=`, `strategy=`: {note}"


def _saves_model_state(ctx, plan) -> bool:
    """The script reads the `state_dict()` of the model (or of its DataParallel wrapper)."""
    names = {n for model in plan.models for n in (model.name, *model.aliases)}
    return any(
        isinstance(call.func.value, cst.Name) and call.func.value.value in names
        for call in m.findall(ctx.module, m.Call(func=m.Attribute(attr=m.Name("state_dict"))))
    )


def _one_device(accelerator: str) -> str:
    """`devices=` for one device: 1, or, for a device known only at run time
    (`torch.device(args.device)`, a parameter), the GPU index it names (`--device cuda:1`),
    which `devices=1` would replace by the first GPU."""
    node = cst.parse_expression(accelerator)
    if not (isinstance(node, cst.Attribute) and node.attr.value == "type"):
        return "1"
    device = code_of(node.value)
    return f"[{device}.index] if {device}.index else 1"


def prefer_kept_device_name(ctx, plan) -> None:
    """When the script keeps its device binding (code outside the loop still reads it), the
    Trainer reads the same name (`accelerator=device` / `device.type`) instead of repeating
    its condition. Called once the plan is complete (the test pass placed)."""
    stmt = plan.device_stmt
    if plan.model_on_cpu:  # not the device the script chose for its other loops
        return
    assign = single_assign(stmt) if stmt is not None else None
    if assign is None or not plan.trainer_args or plan.trainer_args[0][0] != "accelerator":
        return
    name, value = assign
    gone = {
        id(s)
        for s in (
            stmt,
            plan.epoch_loop,
            *plan.remove_stmts,
            *plan.strip_stmts,
            *plan.test_stmts,
            *(o.stmt for o in plan.optimizers),
            *(o.scheduler_stmt for o in plan.optimizers),
        )
        if s is not None
    }
    kept = [s for s in [*ctx.scope_before, *ctx.scope_after] if id(s) not in gone]
    if not any(name in scope_reads(s) for s in kept):
        return
    if _is_string_device(value):
        plan.trainer_args[0] = ("accelerator", name)
    elif isinstance(value, cst.Call) and "torch.device" in ctx.call_qualnames(value):
        devices = plan.trainer_args[1][1]
        if devices != "1" and devices == _one_device(plan.trainer_args[0][1]):  # run-time index
            plan.trainer_args[1] = ("devices", _one_device(f"{name}.type"))
        plan.trainer_args[0] = ("accelerator", f"{name}.type")


def _is_string_device(value) -> bool:
    """A device name without an index: a valid `accelerator=` as it is."""
    if isinstance(value, cst.IfExp):
        return _is_string_device(value.body) and _is_string_device(value.orelse)
    if isinstance(value, cst.SimpleString):
        match = _DEVICE.match(value.value)
        return match.group(3) is None and match.group(2).lower() in ("cuda", "cpu", "mps", "gpu")
    return False


class _Unknown(Exception):
    """The device choice has no condition under which it is CUDA that can be written down."""


_ALWAYS, _NEVER = "always", "never"


def _data_parallel_args(ctx, plan, wraps) -> tuple[str, str] | None:
    """(devices, strategy) codes for a DataParallel script: every GPU when the script is on
    CUDA (and its wrap condition holds), else one device; None when it never is."""
    code = ctx.module.code_for_node
    try:
        on_cuda = _cuda_condition(ctx, plan)
    except _Unknown:
        raise Unsupported(
            DATA_PARALLEL_DEVICES,
            "DataParallel with a device choice whose GPU count cannot be written down",
            ctx.loop,
        ) from None
    if on_cuda == _NEVER:
        return None
    # the wrap's own `torch.cuda.device_count() > 1` is what `devices` says; others stay
    extra = {code(c).strip() for c in wraps if c is not None and not _counts_devices(c)}
    if len(extra) > 1 or (extra and None in wraps):
        raise Unsupported(
            DATA_PARALLEL_DEVICES,
            "the model is wrapped in DataParallel under several conditions",
            ctx.loop,
        )
    torch = ctx.names.alias("torch")
    if torch is None:
        raise Unsupported(
            DATA_PARALLEL_DEVICES, "`torch` is not imported as a module to count the GPUs", ctx.loop
        )
    count = f"{torch}.cuda.device_count()"
    # the same condition once, when the wrap and the device choice test one flag
    parts = list(dict.fromkeys(_paren(p) for p in (on_cuda, *sorted(extra)) if p != _ALWAYS))
    condition = " and ".join(parts)
    if not condition:
        return count, f'"ddp" if {count} > 1 else "auto"'
    return f"{count} if {condition} else 1", f'"ddp" if {condition} and {count} > 1 else "auto"'


def _counts_devices(test: cst.BaseExpression) -> bool:
    found = []

    class Visitor(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            if node.attr.value == "device_count":
                found.append(node)

    test.visit(Visitor())
    return bool(found)


def _paren(code: str) -> str:
    try:
        node = cst.parse_expression(code)
    except cst.ParserSyntaxError:  # pragma: no cover - codes come from parsed source
        return f"({code})"
    simple = (cst.Name, cst.Attribute, cst.Call, cst.Comparison, cst.UnaryOperation)
    if isinstance(node, simple) or (
        isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And)
    ):
        return code
    return f"({code})"


def _cuda_condition(ctx, plan) -> str:
    """When the script trains on CUDA: _ALWAYS, _NEVER or a condition's code (or _Unknown)."""
    binding = _last_device_binding(ctx, plan)
    if binding is None:
        finder = _CudaCalls()
        for stmt in [*ctx.scope_before, *_training_code(plan)]:
            stmt.visit(finder)
        if not finder.conditions:
            return _NEVER
        first = finder.conditions[0]
        return _ALWAYS if first is None else ctx.module.code_for_node(first).strip()
    if binding[1] is None:
        raise _Unknown
    return _cuda_condition_of(ctx, binding[1])


def _cuda_condition_of(ctx, value) -> str:
    value = _chosen(ctx, value)
    if isinstance(value, cst.SimpleString):
        name = _DEVICE.match(value.value).group(2).lower()
        return _ALWAYS if name in ("cuda", "gpu") else _NEVER
    if isinstance(value, cst.IfExp):
        body, orelse = _cuda_condition_of(ctx, value.body), _cuda_condition_of(ctx, value.orelse)
        test = ctx.module.code_for_node(value.test).strip()
        if body == orelse and body in (_ALWAYS, _NEVER):
            return body
        if body == _ALWAYS and orelse == _NEVER:
            return test
        if body == _NEVER and orelse == _ALWAYS:
            return f"not {_paren(test)}"
        raise _Unknown
    if isinstance(value, cst.Call) and "torch.device" in ctx.call_qualnames(value):
        if len(value.args) == 1 and value.args[0].keyword is None:
            return _cuda_condition_of(ctx, value.args[0].value)
    raise _Unknown


def _accelerator(ctx, plan) -> str:
    binding = _last_device_binding(ctx, plan)
    given = sorted(plan.device_names & set(ctx.params))
    if binding is None and given:  # `def train(..., device)`: the caller chose it
        if all(_without_index(ctx, v) for v in ctx.found.get("passed_devices", {})[given[0]]):
            ctx.found["device_index_known"] = True  # devices=1 is the device each call chose
        return f"torch.device({given[0]}).type"
    callers = ctx.found.get("callers_model_device")  # patterns/passed_in.py
    if binding is None and callers is not None and not isinstance(callers, Unsupported):
        accelerator, index_known = callers
        ctx.found["device_index_known"] = index_known
        return accelerator
    if binding is None and isinstance(callers, Unsupported) and not _own_moves(ctx, plan):
        # a caller placed the model where the function cannot say, or only under a
        # condition, and the function's own moves do not say it either
        raise callers
    if binding is None:
        moved_to = _attribute_devices(ctx, _training_code(plan))
        if len(moved_to) == 1:  # `x.to(args.device)`: the Trainer asks the same device
            return f"torch.device({moved_to.pop()}).type"
        chosen = _accelerator_of_cuda_calls(ctx, [*ctx.scope_before, *_training_code(plan)])
        if chosen != '"cpu"':  # where code after fit expects the model (resolve_names)
            plan.cuda_placement = chosen
        return chosen
    stmt, value, name = binding
    if value is None:  # rebound in a way not read here: the Trainer asks the device itself
        return f"torch.device({name}).type"
    if reads_config_device(ctx, value):  # the device the script computed from its config
        return f"torch.device({name}).type"
    return _accelerator_of(ctx, value, stmt)


def _own_moves(ctx, plan) -> bool:
    """The function's own code names the device: its batches moved to `args.device`, or
    `.cuda()` under its own condition (`if params.cuda: x = x.cuda()`), which holds for
    the model its caller placed under that same flag."""
    from .passed_in import ConditionalPlacement  # (passed_in imports this module's)

    if not isinstance(ctx.found.get("callers_model_device"), ConditionalPlacement):
        return False
    code = [*ctx.scope_before, *_training_code(plan)]
    if len(_attribute_devices(ctx, _training_code(plan))) == 1:
        return True
    return _accelerator_of_cuda_calls(ctx, code) != '"cpu"'


def accelerator_of_value(ctx, value, node) -> str:
    """`accelerator=` for the device value `value` (TL140 for an index other than 0)."""
    return _accelerator_of(ctx, value, node)


def _without_index(ctx, value) -> bool:
    """A device a caller passes that names no GPU index but 0 (TL140 for another one), as the
    source spells it; False when the index is only known at run time."""
    return ".type" not in _accelerator_of(ctx, value, value)


def _training_code(plan) -> list[cst.CSTNode]:
    """The loop and the statements the plan read into it: a per-epoch helper's body
    (patterns/helpers.py inlines `train_one_epoch(model, loader, cfg.device)`) is there,
    not in the loop's own code, and so are its moves to the device it was given."""
    return [plan.epoch_loop, *plan.pre_train, *plan.train_body, *plan.post_train]


def _attribute_devices(ctx, code) -> set[str]:
    """The devices the code moves tensors to by an attribute of something bound outside it
    (`x.to(args.device)`, `x.to(cfg.train.device)`), as code."""
    written = set().union(*(collect_names(node).writes for node in code))
    found = set()
    for call in (
        c for node in code for c in m.findall(node, m.Call(func=m.Attribute(attr=m.Name("to"))))
    ):
        for arg in call.args:
            value = arg.value
            if arg.keyword is not None and arg.keyword.value != "device":
                continue
            if not (isinstance(value, cst.Attribute) and value.attr.value == "device"):
                continue
            root = value.value
            while isinstance(root, cst.Attribute):
                root = root.value
            if isinstance(root, cst.Name) and root.value not in written:
                found.add(ctx.module.code_for_node(value).strip())
    return found


def _accelerator_of_cuda_calls(ctx, stmts) -> str:
    """No device name: the script places with `.cuda()` (on the GPU, or on it under the
    condition of the `if` around the first such call), or nowhere (the CPU)."""
    finder = _CudaCalls()
    for stmt in stmts:
        stmt.visit(finder)
    if not finder.conditions:
        return '"cpu"'
    first = finder.conditions[0]
    if first is None:
        return '"cuda"'
    return f'"cuda" if {ctx.module.code_for_node(first).strip()} else "cpu"'


class _CudaCalls(cst.CSTVisitor):
    """The condition of the `if` (statement or expression) directly around each `x.cuda()`
    call (None: unconditional)."""

    def __init__(self) -> None:
        super().__init__()
        self.conditions: list = []
        self.tests: list = []

    def visit_If(self, node: cst.If) -> bool:
        node.test.visit(self)
        self.tests.append(node.test)
        node.body.visit(self)
        self.tests[-1] = None  # the else branch is not under the condition
        if node.orelse is not None:
            node.orelse.visit(self)
        self.tests.pop()
        return False

    def visit_IfExp(self, node: cst.IfExp) -> bool:  # `x.cuda() if args.cuda else x`
        node.test.visit(self)
        self.tests.append(node.test)
        node.body.visit(self)
        self.tests[-1] = None
        node.orelse.visit(self)
        self.tests.pop()
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "cuda" and not node.args:
            self.conditions.append(self.tests[-1] if self.tests else None)


def _last_device_binding(ctx, plan):
    """(statement, device value, name) of the last binding of a device name before the loop;
    the value is None when a statement rebinds the name in a way not read here."""
    found = None
    names = _placing_names(ctx, plan)
    # module globals the function reads (patterns/device_scope.py), wherever the module
    # binds them: their one binding is what the loop sees when the function runs
    globals_ = ctx.found.get("global_devices", {})
    before = {id(s) for s in ctx.module_before}
    unreadable = {id(stmt) for stmt, readable in globals_.values() if not readable}
    extra = [stmt for stmt, _ in globals_.values() if id(stmt) not in before]
    for stmt in [*extra, *ctx.module_before, *ctx.scope_before]:
        if id(stmt) in unreadable:  # its condition reads a name the function rebinds
            found = stmt, None, sorted(names & bound_names(stmt))[0]
            continue
        assign = single_assign(stmt)
        partial = device_if_binding(ctx, stmt, complete=False)
        value = device_value(ctx, assign[1]) if assign and assign[0] in names else None
        if value is not None:
            found = stmt, value, assign[0]
        elif partial in names:
            before = found[1] if found is not None and found[2] == partial else None
            if _has_else(stmt) or before is not None:
                found = stmt, as_conditional(ctx, stmt, before), partial
            else:
                found = stmt, None, partial
        elif names & bound_names(stmt):
            found = stmt, None, sorted(names & bound_names(stmt))[0]
    return found


def _placing_names(ctx, plan) -> set[str]:
    """The device names the script moves things to (`model.to(device)`, `x.to(device)`),
    when some are: a name only telling autocast its device type (nanoGPT's `device_type =
    "cuda" if "cuda" in device else "cpu"`) says nothing of where the model trains, and
    taking it would put an Apple-silicon run on the CPU."""
    targets = set()
    for node in [*ctx.module_before, *ctx.scope_before, *_training_code(plan)]:
        for move in move_calls(node):
            for arg in move.args:
                keyword = arg.keyword.value if arg.keyword is not None else None
                if isinstance(arg.value, cst.Name) and keyword in (None, "device"):
                    targets.add(arg.value.value)
    return (plan.device_names & targets) or plan.device_names


def as_conditional(ctx, stmt: cst.If, otherwise=None) -> cst.BaseExpression:
    """`if c: d = a elif e: d = b else: d = f` as the expression `a if c else b if e else f`
    (`otherwise` for an `if` without `else`: the value bound before it)."""
    value = _branch_device(ctx, stmt.body)[1]
    if isinstance(stmt.orelse, cst.If):
        orelse = as_conditional(ctx, stmt.orelse, otherwise)
    elif stmt.orelse is None:
        orelse = otherwise
    else:
        orelse = _branch_device(ctx, stmt.orelse.body)[1]
    return cst.IfExp(test=stmt.test, body=value, orelse=orelse)


def _accelerator_of(ctx, value: cst.BaseExpression, stmt) -> str:
    code = ctx.module.code_for_node
    value = _chosen(ctx, value)
    if isinstance(value, cst.IfExp):
        body = _accelerator_of(ctx, value.body, stmt)
        orelse = _accelerator_of(ctx, value.orelse, stmt)
        if body == orelse:
            return body
        test = code(value.test).strip()
        if isinstance(value.test, (cst.IfExp, cst.Lambda)):
            test = f"({test})"
        if isinstance(cst.parse_expression(body), (cst.IfExp, cst.Lambda)):
            body = f"({body})"  # `a if b else c if t else d` would test `b` first
        return f"{body} if {test} else {orelse}"
    if isinstance(value, cst.SimpleString):
        return _accelerator_of_string(value, stmt)
    if reads_config_device(ctx, value):  # known at run time only
        return f"torch.device({code(value).strip()}).type"
    if isinstance(value, cst.Attribute) or _CURRENT_ACCELERATOR in ctx.call_qualnames(value):
        return '"auto"'  # Lightning picks the same accelerator torch.accelerator reports
    # torch.device(...)
    args = value.args
    if len(args) > 1 or (args and args[0].keyword is not None):
        raise Unsupported(DEVICE_INDEX, "torch.device(...) with an index or keywords", stmt)
    if args and is_device_value(ctx, args[0].value):
        return _accelerator_of(ctx, args[0].value, stmt)
    if args and isinstance(args[0].value, cst.Name):
        named = _named_device_type(ctx, args[0].value.value, stmt)
        if named is not None:
            return named
    return f"{code(value).strip()}.type"


def _named_device_type(ctx, name: str, stmt) -> str | None:
    """`torch.device(device_type)` where the scope binds `device_type` once, before, to a
    device string (`"cuda" if torch.cuda.is_available() else "cpu"`): the accelerator is
    known from the source -- the name itself when it holds a bare type, with no GPU index
    to read at run time."""
    binding, count = ctx.binding(name)
    if count != 1 or binding is None or not is_device_value(ctx, binding[1]):
        return None
    accelerator = _accelerator_of(ctx, binding[1], stmt)
    if ".type" in accelerator or '"auto"' in accelerator:
        return None
    return name if device_value_expr(ctx, binding[1]) == _AS_TYPE else accelerator


def _accelerator_of_string(value: cst.SimpleString, stmt) -> str:
    match = _DEVICE.match(value.value)
    quote, name, index = match.groups()
    if index is not None and int(index) != 0:
        raise Unsupported(DEVICE_INDEX, f"the script trains on {value.value}", stmt)
    return f"{quote}{name.lower()}{quote}"
