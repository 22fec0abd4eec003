"""Where the script put its modules before training: the device code each was moved to.

    model = Net().to(device)                          model  -> device
    ema = copy.deepcopy(model).eval()                 ema    -> device  (a copy, after the move)
    swa = AveragedModel(model)                        swa    -> device
    criterion = nn.CrossEntropyLoss(weight=w.to(device))   criterion -> device (its buffer)
    probe.cuda()                                      probe  -> "cuda"
    probe.cuda(args.gpu)                              probe  -> None   (not known here)

Lightning's `fit` (its strategy's teardown, and the runtime's alike) hands the LightningModule
back on the CPU, with every module it holds; code after `fit` that uses one of them expects it
where the script had it. The statements are read in order: a copy made before its source was
moved stays where it was made (not listed). Only top-level statements of the scope bind: a
move inside an `if` or a loop is not known to have run (not listed).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .model_handoff import STATE_METHODS
from .statements import move_calls

_COPIES = {"copy.deepcopy", "torch.optim.swa_utils.AveragedModel"}
# methods of a module returning the module itself
_SELF_METHODS = frozenset("eval train requires_grad_ float double half".split())


def module_devices(ctx, stmts) -> dict[str, str | None]:
    """name -> the code of the device the statements moved it to (None: `.cuda(index)`, or
    no argument naming a device), for the modules placed, copied from a placed one, or
    built by a `torch.nn` class from tensors moved to a device."""
    placed: dict[str, str | None] = {}
    for stmt in stmts:
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            continue
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            receiver = _moved_receiver(small.value)
            if receiver is not None:  # `model.to(device)`
                placed[receiver] = _device_code(ctx, small.value)
            continue
        if not (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            continue
        name, value = small.targets[0].target.value, small.value
        device = _placed_value(ctx, value, placed)
        if device is not False:
            placed[name] = device
        else:
            placed.pop(name, None)  # bound again to something else
    return placed


def module_aliases(stmts, modules: set[str]) -> set[str]:
    """Other names the top-level `stmts` bind to one of `modules` itself: `m = model`,
    `m = model.to(device)`, `net = model.cuda().train()` (a module's `to` / `cuda` and mode
    methods return the module). Over-counting is harmless here: the model is put back where
    the script had it whichever name later code uses."""
    found: set[str] = set()
    for stmt in stmts:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            continue
        small = stmt.body[0]
        # every name of `m = net = model.to(device)`, and `m: nn.Module = model.to(device)`
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            targets = [small.target]
        else:
            continue
        value = small.value
        while _self_method(value) or (isinstance(value, cst.Call) and _moves_itself(value)):
            value = value.func.value
        if isinstance(value, cst.Name) and value.value in modules | found:
            found |= {t.value for t in targets if isinstance(t, cst.Name)}
    return found - modules


def _placed_value(ctx, value, placed):
    """The device code of a module value, None when unknown, False when not a placed module."""
    base = value
    while _self_method(base):  # `copy.deepcopy(model).eval().requires_grad_(False)`
        base = base.func.value
    if isinstance(base, cst.Call):
        receiver = _moved_receiver(base)
        if receiver is not None or _moves_itself(base):  # `Net().to(device)`
            return _device_code(ctx, base)
        names = ctx.call_qualnames(base)
        if names & _COPIES and base.args and isinstance(base.args[0].value, cst.Name):
            return placed.get(base.args[0].value.value, False)
        if _torch_module_class(names):
            moves = move_calls(base)
            if moves:  # `nn.CrossEntropyLoss(weight=w.to(device))`
                return _device_code(ctx, moves[0])
    return False


def _self_method(node) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in _SELF_METHODS
    )


def _moved_receiver(call: cst.Call) -> str | None:
    """`name` of `name.to(...)` / `name.cuda(...)`."""
    if _moves_itself(call) and isinstance(call.func.value, cst.Name):
        return call.func.value.value
    return None


def _moves_itself(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in ("to", "cuda")


def _device_code(ctx, call: cst.Call) -> str | None:
    """The device argument of `x.to(device)` (also `device=`), "cuda" for `.cuda()`; None for
    `.cuda(index)` or a call naming no device (a dtype)."""
    if call.func.attr.value != "to":
        return None if call.args else '"cuda"'
    for arg in call.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword in (None, "device") and not ctx.qualnames(arg.value) & _DTYPES:
            return ctx.module.code_for_node(arg.value)
    return None


_DTYPES = {f"torch.{t}" for t in "float float32 float16 half bfloat16 double float64".split()}


def _torch_module_class(names: set[str]) -> bool:
    """A class of torch.nn (`torch.nn.CrossEntropyLoss`), not a function or a Parameter."""
    for name in names:
        head, _, last = name.rpartition(".")
        if (
            head in ("torch.nn", "torch.nn.modules.loss", "torch.nn.modules.module")
            and last[:1].isupper()
        ):
            return last not in ("Parameter", "ParameterList", "ParameterDict")
    return False


def module_names(ctx, stmts) -> set[str]:
    """Names the statements (at any depth) bind to a new module: a `torch.nn` class or a
    class of the file deriving from one (`Net()`, `Net().eval()`), or a copy of a module."""
    classes = {
        c.name.value
        for c in ctx.module.body
        if isinstance(c, cst.ClassDef)
        and any(_torch_module_class(ctx.qualnames(base.value)) for base in c.bases)
    }
    found: set[str] = set()
    for node in stmts:
        for assign in m.findall(node, m.Assign(targets=[m.AssignTarget(target=m.Name())])):
            value = assign.value
            while _self_method(value) or (isinstance(value, cst.Call) and _moves_itself(value)):
                value = value.func.value
            if not isinstance(value, cst.Call):
                continue
            names = ctx.call_qualnames(value)
            callee = value.func.value if isinstance(value.func, cst.Name) else None
            if _torch_module_class(names) or callee in classes or names & _COPIES:
                found.add(assign.targets[0].target.value)
    return found


# methods reading a module's state, not running it on tensors (analysis/model_handoff.py's,
# and moves, which put it somewhere themselves)
_NOT_RUNS = STATE_METHODS | {"to", "cpu", "cuda", "eval", "train", "requires_grad_"}


def modules_run(stmts) -> set[str]:
    """Names the statements call (`probe(x)`), call a method of other than reading its
    state (`model.encode(x)`, not `model.state_dict()`) or hand to a call: modules run on
    tensors, which must be on the module's device. Not a module the statements first move themselves
    (`net.to(eval_device)` before evaluating)."""
    found: set[str] = set()
    moved_first: set[str] = set()
    for node in stmts:
        if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1:
            small = node.body[0]
            value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
            if isinstance(value, cst.Call) and (receiver := _moved_receiver(value)) is not None:
                if isinstance(small, cst.Expr) or m.matches(
                    small, m.Assign(targets=[m.AssignTarget(target=m.Name(receiver))])
                ):
                    if receiver not in found:
                        moved_first.add(receiver)
                    continue
        for call in m.findall(node, m.Call()):
            func = call.func
            # handed to a function (`evaluate(teacher, loader)`), which may run it or pickle
            # it with its device
            found |= {arg.value.value for arg in call.args if isinstance(arg.value, cst.Name)}
            if isinstance(func, cst.Name):
                found.add(func.value)
            elif (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.attr.value not in _NOT_RUNS
            ):
                found.add(func.value.value)
    return found - moved_first
