"""Pattern: device placement, which the Trainer now owns.

    device = torch.device("cuda" if ... else "cpu")   -> a device name (`self.device` inside)
    x, y = x.to(device), y.to(device)                 -> removed (trivial once stripped)
    model = Net().to(device)                          -> `model = Net()`

Removes `.to(device)`, `.cuda()`, `model.cpu()` from the code moved into the class, except
on tensors that code creates itself (`torch.randn(n).to(device)` -> `.to(self.device)`): the
Trainer moves the model and the batches, nothing else.

A move that also sets a memory format keeps it (`.to(device, memory_format=torch.channels_last)`
-> `.to(memory_format=torch.channels_last)`): the Trainer's `.to(device)` preserves a layout,
it does not choose one, and the layout changes the convolutions' results.

Leaves alone: `.to(dtype)` and `.to(other_tensor)` (not placement), `.cpu()` inside
expressions (it is usually needed for `.numpy()` / `.tolist()`), and any `device=` keyword:
those are renamed to `self.device` by the caller instead.
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..analysis.statements import single_assign
from ..source.code_text import code_of
from .batch_flow import batch_names_of, is_tensor_view
from .device_intent import device_value, note_device_value

RULES = ()

_DEVICE_STRING = re.compile(r"^[rbu]*['\"](cuda|cpu|mps|xpu)(:\d+)?['\"]$", re.I)
_PLACEMENT_KEYWORDS = {"non_blocking", "copy", "device", "memory_format"}
_LAYOUT = "memory_format"  # kept when the device goes


def is_device_expr(node: cst.BaseExpression, device_names: set[str]) -> bool:
    if isinstance(node, cst.Name):
        return node.value in device_names
    if isinstance(node, cst.SimpleString):
        return bool(_DEVICE_STRING.match(node.value))
    if m.matches(node, m.Call(func=m.Attribute(value=m.Name("torch"), attr=m.Name("device")))):
        return True
    if isinstance(node, cst.Attribute) and node.attr.value == "device":
        return True  # `x.to(other.device)`
    return False


def is_device_move(call: cst.Call, device_names: set[str]) -> bool:
    """True for `x.to(device, non_blocking=True)`, `x.to(device=d)`, `x.cuda()`."""
    if not isinstance(call.func, cst.Attribute):
        return False
    method = call.func.attr.value
    if method == "cuda":
        return True
    if method != "to" or not any(
        arg.keyword is None or arg.keyword.value == "device" for arg in call.args
    ):
        return False  # `.to(memory_format=...)` alone places nothing
    for arg in call.args:
        if arg.keyword is None:
            if arg.star or not is_device_expr(arg.value, device_names):
                return False
        elif arg.keyword.value not in _PLACEMENT_KEYWORDS:
            return False
        elif arg.keyword.value == "device" and not is_device_expr(arg.value, device_names):
            return False
    return True


class StripDeviceMoves(cst.CSTTransformer):
    """`keep(receiver)`: a move to keep (as `.to(device)`, renamed `self.device` in the
    class), because what it moves is a tensor the code creates, not the model or a batch.
    """

    def __init__(self, device_names: set[str], keep=None) -> None:
        super().__init__()
        self.device_names = device_names
        self.keep = keep

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if is_device_move(updated_node, self.device_names):
            receiver = updated_node.func.value  # type: ignore[union-attr]
            if self.keep is not None and self.keep(receiver):
                if updated_node.func.attr.value == "cuda":  # type: ignore[union-attr]
                    return cst.parse_expression(f"_.to({_DEVICE_ATTR})").with_changes(
                        func=cst.Attribute(value=receiver, attr=cst.Name("to"))
                    )
                return updated_node
            layout = [
                arg for arg in updated_node.args if arg.keyword and arg.keyword.value == _LAYOUT
            ]
            if layout:  # the device goes, the layout stays
                return updated_node.with_changes(
                    args=[layout[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
                )
            return receiver.with_changes(
                lpar=[*updated_node.lpar, *getattr(receiver, "lpar", [])],
                rpar=[*getattr(receiver, "rpar", []), *updated_node.rpar],
            )
        return updated_node

    def leave_IfExp(self, original_node: cst.IfExp, updated_node: cst.IfExp):
        # `x.cuda() if args.cuda else x` once the move is gone: `x` either way
        same_now = updated_node.body.deep_equals(updated_node.orelse)
        if same_now and not original_node.body.deep_equals(original_node.orelse):
            return updated_node.body.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        return updated_node


def strip_device_moves(node: cst.CSTNode, device_names: set[str], keep=None) -> cst.CSTNode:
    """`node` without its moves to the devices; `node` itself when it has none, so a refusal
    about it later still names its line (a transformer pass copies every node)."""
    new = node.visit(StripDeviceMoves(device_names, keep))
    return node if new.deep_equals(node) else new


_DEVICE_ATTR = "self.device"
# torch functions creating a tensor from nothing on the CPU: the Trainer moves the model and
# the batches, not these, so their `.to(device)` stays (`self.device` in the class)
_FACTORIES = frozenset(
    "torch." + name
    for name in (
        "tensor as_tensor from_numpy zeros ones empty full eye arange linspace logspace "
        "rand randn randint randperm normal bernoulli multinomial"
    ).split()
)


def _creates_tensor(ctx, value: cst.BaseExpression) -> bool:
    """A torch factory call, possibly followed by method calls (`torch.zeros(n).long()`),
    arithmetic (`0.1 * torch.randn(...)`) or a comparison (`torch.rand(n) > p`)."""
    if isinstance(value, cst.Call):
        if ctx.call_qualnames(value) & _FACTORIES:
            return True
        if isinstance(value.func, cst.Attribute):
            return _creates_tensor(ctx, value.func.value)
    if isinstance(value, cst.BinaryOperation):
        return _creates_tensor(ctx, value.left) or _creates_tensor(ctx, value.right)
    if isinstance(value, cst.Comparison):  # `(torch.rand(n) > p).float()`: a mask
        sides = (value.left, *(c.comparator for c in value.comparisons))
        return any(_creates_tensor(ctx, side) for side in sides)
    if isinstance(value, cst.UnaryOperation):
        return _creates_tensor(ctx, value.expression)
    return False


def _created_tensor_keeper(ctx, stmts, batch_names=None, models=frozenset(), upto=None):
    """keep(receiver) for the moves of one hook: tensors its code creates (a factory call, or
    a name the hook binds to one), and tensors that are not the batch the Trainer moves,
    in statement `upto` of `stmts` (as bound by the statements before it).

    `batch_names`: the names the hook's batch unpacks into; None when the batches are
    numbers (a generated loader of iteration numbers), so no tensor came with them. A move
    is kept when what it moves is read from a name the hook does not bind and that is not
    its batch or a model -- `ids[:, i : i + n].to(device)` slices data kept on the CPU -- or
    that the hook binds from anything but its batch (patterns/batch_flow.py): a second
    loader's `next(target_iter)`. The Trainer moves nothing but the model and the batch.
    Keeping a move is at worst a no-op."""
    created = set()
    for stmt in stmts:
        for inner in _simple_statements(stmt):
            assign = single_assign(inner)
            if assign and _creates_tensor(ctx, assign[1]):
                created.add(assign[0])
    # names holding the batch: bound from it only (a second loader's `next(target_iter)`
    # bound in the step is not, and keeps its move)
    the_batch = (
        None
        if batch_names is None
        else batch_names_of(
            ctx,
            stmts[:upto],
            batch_names,
            models,
            lambda call: _creates_tensor(ctx, call),
            None if upto is None else stmts[upto],
        )
    )

    def not_the_batch(receiver) -> bool:
        root = _root_name(receiver)
        if root is None or root in models:
            return False
        if the_batch is None:  # the batch is a number: every tensor came from elsewhere
            return True
        # `batch.src`: a batch object's attribute, which the Trainer may leave where it is
        return root not in the_batch or _through_attribute(receiver)

    def keep(receiver) -> bool:
        if isinstance(receiver, cst.Name) and receiver.value in created:
            return True
        if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name):
            # what a function of the script returns (`square_mask(n)`): a tensor it made,
            # which the Trainer does not move; a model's output is on its device already
            return receiver.func.value not in models
        return _creates_tensor(ctx, receiver) or not_the_batch(receiver)

    return keep


def _root_name(node) -> str | None:
    """The name an expression reads its data from: `ids` of `ids[:, i].long()`."""
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return None


def _through_attribute(node) -> bool:
    """`batch.src[0].long()`: the data is read through an object's attribute (not a tensor
    view like `x.T`, nor a method called on it)."""
    while True:
        if isinstance(node, cst.Attribute):
            if not is_tensor_view(node):
                return True
            node = node.value
        elif isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return False


def _simple_statements(stmt):
    found = []

    class Visitor(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node) -> None:
            found.append(node)

    stmt.visit(Visitor())
    return found


def is_trivial_statement(stmt: cst.BaseStatement) -> bool:
    """A statement left doing nothing once device moves are gone (`x, y = x, y`, `model`)."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if isinstance(small, cst.Expr):
        return isinstance(small.value, (cst.Name, cst.Attribute))
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return False
    target = small.targets[0].target
    value = small.value
    if code_of(target).strip("() ") == code_of(value).strip("() "):
        return True
    # batch = {k: v for k, v in batch.items()}
    if m.matches(
        value,
        m.DictComp(
            key=m.Name(),
            value=m.Name(),
            for_in=m.CompFor(
                target=m.Tuple(elements=[m.Element(m.Name()), m.Element(m.Name())]),
                iter=m.Call(func=m.Attribute(attr=m.Name("items")), args=[]),
                ifs=[],
                inner_for_in=None,
            ),
        ),
    ):
        comp = value.for_in
        key, val = (e.value.value for e in comp.target.elements)
        return (
            value.key.value == key
            and value.value.value == val
            and code_of(comp.iter.func.value) == code_of(target)
        )
    # batch = [t for t in batch]
    if m.matches(value, m.ListComp(elt=m.Name(), for_in=m.CompFor(target=m.Name(), ifs=[]))):
        comp = value.for_in
        return (
            comp.inner_for_in is None
            and value.elt.value == comp.target.value
            and code_of(comp.iter) == code_of(target)
        )
    return False


def bind(ctx, plan, steps) -> None:
    """Names bound before the loop to a device: `torch.device(...)`, a device string, a
    conditional choosing between them."""
    for stmt in ctx.scope_before:
        assign = single_assign(stmt)
        value = device_value(ctx, assign[1]) if assign else None
        if value is not None:
            plan.device_names.add(assign[0])
            note_device_value(ctx, plan, assign[0], value)


def clean(ctx, plan) -> None:
    """Device moves stripped from everything moved into the class; statements left doing
    nothing (and `if`s holding only such statements) dropped."""
    devices = plan.device_names
    models = frozenset(n for model in plan.models for n in (model.name, *model.aliases))
    numbers = plan.loader_stmt is not None  # a generated loader: its batches are numbers

    def batch_of(target):
        return None if numbers or target is None else collect_names(target).all()

    def strip(stmts, batch_names=None):  # None: code of a hook given no batch
        out = []
        for i, stmt in enumerate(stmts):  # the bindings before each statement decide
            keep = _created_tensor_keeper(ctx, stmts, batch_names, models, i)
            new = strip_device_moves(stmt, devices, keep)
            if isinstance(new, cst.If) and new.orelse is None:
                if all(is_trivial_statement(s) for s in new.body.body):
                    continue
            if not is_trivial_statement(new):
                out.append(new)
        return out

    plan.pre_train = strip(plan.pre_train)
    plan.post_train = strip(plan.post_train)
    plan.train_body = strip(plan.train_body, batch_of(plan.train_target))
    for v in (plan.validation, plan.test):
        if v is not None:
            v.before, v.after = strip(v.before), strip(v.after)
            v.body = strip(v.body, collect_names(v.target).all())
