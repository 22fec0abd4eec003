"""A loop whose model the script never places on a device trains on the CPU.

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net().to(device)          # the first loop's model: on `device`
    ...
    clf = nn.Linear(64, 10)           # a linear probe: never moved
    for it in range(100):
        loss = F.cross_entropy(clf(feats), ys)        -> Trainer(accelerator="cpu"), and no
                                                         `clf.to(device)` after fit

The script's device is a choice for the loops that use it: a second loop whose model and
data it never moves ran on the CPU, and code after it (`clf(feats)` on CPU features) expects
the model there. Given `accelerator=device.type`, a GPU machine would train `clf` on the GPU
and put it back there after fit, breaking that code.

Decided only when nothing can have placed the model: no statement before the loop that
reads it reads a device, calls `.to()` / `.cuda()` or a function or class of the script
that does; its bindings wrap or copy no other object of the script (`nn.Sequential(backbone,
head)`); it is not given to the function by a caller; no default device is set; and the
loop's own code reads no device and calls no `.to()` / `.cuda()`.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..analysis.statements import single_assign

_PLACING = frozenset({"to", "cuda"})
_CONSTANTS = frozenset({"True", "False", "None"})  # `nn.ReLU(inplace=True)` holds no module
_DEFAULT_DEVICE = frozenset({"torch.set_default_device", "torch.set_default_tensor_type"})


def trains_on_cpu(ctx, plan, training_code) -> bool:
    if not plan.models or not plan.device_names or ctx.found.get("data_parallel_conditions"):
        return False
    if "callers_model_device" in ctx.found:  # patterns/passed_in.py: a caller placed it
        return False
    names = {n for model in plan.models for n in (model.name, *model.aliases)}
    if names & ctx.params:
        return False
    devices = plan.device_names
    if any(_places(node, devices) for node in training_code):
        return False
    return left_on_cpu(ctx, [*ctx.module_before, *ctx.scope_before], names, devices)


def left_on_cpu(ctx, stmts, names: set[str], devices: set[str]) -> bool:
    """`stmts` bind the model (`names`) and nothing of them can have placed it: it is on
    the CPU after them (also where a chain of branches leaves it: placement_chain.py)."""
    seen = set()
    bound = set()
    for stmt in stmts:
        if id(stmt) in seen:
            continue
        seen.add(id(stmt))
        use = collect_names(stmt)
        if not (use.all() & names):
            continue
        if _places(stmt, devices) or _calls_placing_definition(ctx, stmt, devices):
            return False  # `clf.to(device)`, `clf.cuda()`, `place(clf, device)`, `place(clf)`
        assign = single_assign(stmt)
        if assign is not None and assign[0] in names:
            if _may_hold_a_module(ctx, assign[1]):
                return False  # `nn.Sequential(backbone, head)`, `copy.deepcopy(encoder)`
            bound.add(assign[0])
    return bool(bound) and not _sets_a_default_device(ctx)


def _may_hold_a_module(ctx, value) -> bool:
    """A call given a name (or an attribute, an item of one) of the script: a module it
    wraps or copies, which may be placed. A call's result (`feats.size(1)`) and literals are
    numbers here; module-level imports and definitions are not data."""
    calls = [c for c in m.findall(value, m.Call()) if isinstance(c, cst.Call)]
    for arg in (a for call in calls for a in call.args):
        node = arg.value
        while isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        if isinstance(node, cst.Name) and node.value not in ctx.module_defs | _CONSTANTS:
            return True
    return False


def _sets_a_default_device(ctx) -> bool:
    """`torch.set_default_device(...)`, `with torch.device(...):`: modules built without a
    device may be built on the GPU."""
    for call in m.findall(ctx.module, m.Call()):
        if ctx.call_qualnames(call) & _DEFAULT_DEVICE:
            return True
    for item in m.findall(ctx.module, m.WithItem()):
        if isinstance(item.item, cst.Call) and "torch.device" in ctx.call_qualnames(item.item):
            return True
    return False


def _places(node, devices) -> bool:
    """Reads a device name, or calls `.to(...)` / `.cuda()` (of anything: conservative)."""
    if collect_names(node).reads & devices:
        return True
    calls = m.findall(node, m.Call(func=m.Attribute(attr=m.OneOf(*map(m.Name, _PLACING)))))
    return bool(calls)


def _calls_placing_definition(ctx, value, devices) -> bool:
    """`clf = make_probe(64)`, `place(clf)` where the script's function (or class) moves
    something or reads the device."""
    called = {
        c.func.value for c in m.findall(value, m.Call(func=m.Name())) if isinstance(c, cst.Call)
    }
    for stmt in ctx.module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and stmt.name.value in called:
            if _places(stmt, devices):
                return True
    return False
