"""Pattern: what an evaluation pass computed, logged and printed at the pass's own epoch end.

    val_loss = 0.0                                    -> on_validation_epoch_start
    with torch.no_grad():
        for x, y in val_loader:                       -> validation_step
            val_loss += criterion(model(x), y).item()
    val_loss /= len(val_loader)                       -> on_validation_epoch_end:
    print(f"val loss {val_loss:.4f}")                      self.val_loss /= ...
                                                           self.print(f"val loss ...")
                                                           self.log("val_loss", self.val_loss)

The code after the pass that reads what the pass computed (and the code inside its `with`
after the loop) runs in `on_validation_epoch_end` rather than `on_train_epoch_end`: Lightning
calls it right after the pass, before `on_train_epoch_end`, so the script's order holds, and
it runs with the pass (`check_val_every_n_epoch`, `trainer.validate()`). The first statement
after the pass that does not read its results, and everything after it, stays in
`on_train_epoch_end`; so does the whole section when it reads what training computed (the
last loss), or when the script ran other epoch code between training and the pass (that code
lands in `on_train_epoch_end`, after the pass: what the pass printed must still follow it). The test pass's epoch-end code (`on_test_epoch_end`) is
treated alike.

The metrics the pass leaves at its epoch end are `self.log`-ged under the script's own names,
so `ModelCheckpoint(monitor="val_acc")`, `EarlyStopping` and loggers find them: a value the
epoch end computes from what the pass accumulated (`acc = correct / total`, `val_loss /= n`)
under its name; a value printed as an expression (`f"val acc {correct / total:.3f}"`) right
after its print, under the label printed before it (`val_acc`, analysis/printed_values.py);
an accumulator printed as it is under its name. Counters the epoch end only computes with
(`correct`, `total`, `count`) are intermediate sums, not metrics, and are not logged; nor is a
count of samples printed beside a metric (`n_samples += labels.size(0)`). A value
is logged only when it is provably a number (a literal, `.item()`, `float()` / `int()` /
`len()` / `math.sqrt()`, arithmetic on numbers); tensors and lists are not (`self.log` would
reject them). `print(...)` there becomes `self.print(...)`
(rank zero, written through the progress bar) when it has no `file=` / `flush=` arguments.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import bound_names, collect_names
from ..analysis.printed_values import shown_values
from ..analysis.statements import FLOW, LOOP, call_method, contains, single_assign, statements
from .early_break import mutated_roots

RULES = ()

_NUMBER_CALLS = frozenset(
    {"builtins.float", "builtins.int", "builtins.len", "builtins.bool"}
    | {f"math.{f}" for f in ("sqrt", "exp", "log", "log2", "log10")}
)
_OF_NUMBERS = frozenset({"builtins.round", "builtins.abs", "builtins.min", "builtins.max"})
_SELF_PRINT_KEYWORDS = frozenset({"sep", "end"})


def read(ctx, plan, steps) -> None:
    training = [*plan.pre_train, *plan.before_step, *plan.train_body, *plan.after_step]
    validation = plan.validation
    if validation is not None:
        section = _epoch_end_section(plan, validation)
        at = len(plan.post_train)
        if section:
            at = next(i for i, s in enumerate(plan.post_train) if s is section[0])
        before, after = plan.post_train[:at], plan.post_train[at + len(section) :]
        models = {plan.model.name, *plan.model.aliases}
        others = [*training, *before, *after]
        if any(not _mode_call(s, models) for s in before) or (
            collect_names(*section).reads & collect_names(*training).writes
        ):
            # epoch code the script ran between training and the pass stays in
            # on_train_epoch_end, which runs after the pass: what follows the pass must too;
            # and code reading what training computed is not validation's (trainer.validate).
            # Its prints stay prints there, like the rest of that hook's.
            reported = _reported(ctx, validation, section, others, self_print=False)
            plan.post_train = before + reported + after
            validation.after = []
        else:
            plan.post_train = before + after
            validation.after = _reported(ctx, validation, section, others)
    if plan.test is not None:
        training += plan.post_train
        plan.test.after = _reported(ctx, plan.test, plan.test.after, training)


def _pass_setup(evaluation) -> list:
    """The pass's own epoch-start code: not the epoch's prints run before it."""
    return [s for s in evaluation.before if not any(s is p for p in evaluation.printed_before)]


def _mode_call(stmt, models: set[str]) -> bool:
    """`<model>.train()` / `<model>.eval()`: the Trainer's business, removed."""
    for method in ("train", "eval"):
        receiver = call_method(stmt, method)
        if isinstance(receiver, cst.Name) and receiver.value in models:
            return True
    return False


def _epoch_end_section(plan, validation) -> list:
    """The run of epoch statements right after the pass that belong to it (see the
    docstring): contiguous in `post_train`, so the hooks keep the script's order."""
    inside = {id(s) for s in validation.after}
    tail = {id(s) for s in [*validation.after, *validation.following]}
    computed = collect_names(*_pass_setup(validation), *validation.body).writes
    start = next((i for i, s in enumerate(plan.post_train) if id(s) in tail), None)
    section = []
    for stmt in plan.post_train[start:] if start is not None else []:
        if id(stmt) not in tail or contains(stmt, FLOW):  # rewritten by another pattern
            break
        if id(stmt) not in inside and (
            contains(stmt, LOOP) or not collect_names(stmt).reads & computed
        ):
            break
        section.append(stmt)
        computed |= collect_names(stmt).writes
    return section


def _reported(ctx, evaluation, epoch_end: list, training: list, self_print=True) -> list:
    """`epoch_end` with its prints as `self.print` and a `self.log` per metric it leaves:
    each printed value computed from the pass, logged right after its print under the label
    the script printed, and each name holding a metric (computed at the epoch end from what
    the pass accumulated, or an accumulator printed as it is), logged at the end. Counters
    the epoch end only computes with (`correct`, `total`, `count`) are not metrics."""
    trained = collect_names(*training).writes if training else set()
    numbers = numbers_of(ctx, [*evaluation.before, *evaluation.body, *epoch_end])
    derived = collect_names(*_pass_setup(evaluation), *evaluation.body).writes
    for stmt in epoch_end:
        if collect_names(stmt).reads & derived:
            derived |= collect_names(stmt).writes
    at_end = collect_names(*epoch_end).writes if epoch_end else set()
    # bound only under a condition (`if rank == 0:`), and not before (`best_acc`, state the
    # module keeps): not there to log on every path
    sometimes = at_end - (collect_names(*epoch_end).definite if epoch_end else set())
    sometimes -= collect_names(*evaluation.before).writes if evaluation.before else set()
    for stmt in ctx.scope_before:
        sometimes -= bound_names(stmt)
    printed = {
        value.value
        for stmt in epoch_end
        for call in _print_calls(ctx, stmt)
        for _, value in shown_values(call)
        if isinstance(value, cst.Name)
    }
    candidates = []
    for stmt in [*_pass_setup(evaluation), *epoch_end]:
        writes = collect_names(stmt).writes
        in_order = [n.value for n in m.findall(stmt, m.Name()) if n.value in writes]
        for name in in_order:
            if name not in candidates:
                candidates.append(name)
    logged = _logged_keys(epoch_end)
    counts = _sample_counts([*evaluation.before, *evaluation.body])
    metrics = [
        name
        for name in candidates
        if name in numbers
        and name not in trained
        and name not in logged
        and name not in counts
        and name not in sometimes
        and (name in derived if name in at_end else name in printed)
    ]
    taken = logged | set(metrics) | {"train_loss", "epoch", "step"}
    known = dict.fromkeys(numbers, True)
    reported = []
    for stmt in epoch_end:
        reported.append(stmt.visit(SelfPrint(ctx)) if self_print else stmt)
        if _is_print_statement(ctx, stmt):
            shown = [(label, value, None) for label, value in shown_values(stmt.body[0].value)]
        else:  # a print under a condition: its values are not always there to log
            shown = _dict_entries(stmt)
        for label, value, read_as in shown:
            if (
                label is None
                or label in taken
                or isinstance(value, cst.Name)
                or not collect_names(value).reads & derived
                or not is_number(ctx, value, known)
                or (read_as is None and not _evaluates_again_alike(ctx, value))
            ):
                continue
            taken.add(label)
            code = read_as or ctx.module.code_for_node(value)
            reported.append(cst.parse_statement(f'self.log("{label}", {code})\n'))
    logs = [cst.parse_statement(f'self.log("{name}", {name})\n') for name in metrics]
    return reported + logs


_SIZE = (
    m.Call(func=m.Attribute(attr=m.Name("size") | m.Name("numel") | m.Name("nelement")))
    | m.Subscript(value=m.Attribute(attr=m.Name("shape")))
    | m.Call(func=m.Name("len"))
    | m.Integer()
)


def _sample_counts(stmts: list) -> set[str]:
    """Names the pass only adds sizes to (`total += labels.size(0)`, `n += len(x)`,
    `count += 1`): how many samples it saw, printed beside a metric but not one."""
    sized, other = set(), set()
    for stmt in stmts:
        for aug in m.findall(stmt, m.AugAssign(target=m.Name(), operator=m.AddAssign())):
            (sized if m.matches(aug.value, _SIZE) else other).add(aug.target.value)
    return sized - other


def _evaluates_again_alike(ctx, value) -> bool:
    """Evaluating `value` a second time (the log after the print) gives the same number and
    changes nothing: its only calls are number functions and `.item()` / `.size()` /
    `.numel()` of a name or attribute (never a model or loss call run again)."""
    for call in m.findall(value, m.Call()):
        if ctx.call_qualnames(call) & (_NUMBER_CALLS | _OF_NUMBERS):
            continue
        func = call.func
        if not m.matches(func, m.Attribute(attr=m.Name("item") | m.Name("size") | m.Name("numel"))):
            return False
        receiver = func.value
        while isinstance(receiver, cst.Attribute):
            receiver = receiver.value
        if not isinstance(receiver, cst.Name):
            return False
    return True


def _dict_entries(stmt) -> list[tuple[str, cst.BaseExpression, str]]:
    """(key, value) of `metrics = {"val_loss": ..., "val_acc": ...}` (string keys that are
    names), the values read as `metrics["val_loss"]`: metrics the script named itself."""
    assign = single_assign(stmt)
    if assign is None or not isinstance(assign[1], cst.Dict):
        return []
    entries = []
    for element in assign[1].elements:
        if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
            key = element.key.evaluated_value
            if isinstance(key, str) and key.isidentifier():
                entries.append((key, element.value, f'{assign[0]}["{key}"]'))
    return entries


def _print_calls(ctx, stmt) -> list[cst.Call]:
    return [c for c in m.findall(stmt, m.Call()) if "builtins.print" in ctx.call_qualnames(c)]


def _is_print_statement(ctx, stmt) -> bool:
    """`print(...)` as a statement of its own at the epoch end's top level."""
    return m.matches(
        stmt, m.SimpleStatementLine([m.Expr(m.Call())])
    ) and "builtins.print" in ctx.call_qualnames(stmt.body[0].value)


def numbers_of(ctx, stmts: list) -> set[str]:
    """Names every assignment of which (in `stmts`, in order) is provably a Python number."""
    number: dict[str, bool] = {}
    for stmt in stmts:
        for found in statements(stmt):
            if isinstance(found, cst.For):  # a loop target is whatever the loop yields
                for name in collect_names(cst.AssignTarget(found.target)).writes:
                    number[name] = False
            if not isinstance(found, cst.SimpleStatementLine):
                continue
            for small in found.body:
                _note_assignment(ctx, small, number)
    return {name for name, is_number in number.items() if is_number}


def _note_assignment(ctx, small, number: dict[str, bool]) -> None:
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target, value = small.targets[0].target, small.value
        pairs = [(target, value)]
        if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
            if len(target.elements) == len(value.elements):  # a, b = 0.0, 0
                pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
        if all(isinstance(t, cst.Name) for t, _ in pairs):
            known = dict(number)  # the right-hand sides are evaluated before any binding
            for t, v in pairs:
                number[t.value] = number.get(t.value, True) and is_number(ctx, v, known)
            return
    elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
        name = small.target.value
        number[name] = number.get(name, False) and is_number(ctx, small.value, number)
        return
    for name in collect_names(small).writes:  # any other binding: not known to be a number
        number[name] = False


def is_number(ctx, expr, number: dict[str, bool]) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.Name):
        return number.get(expr.value, False)
    if isinstance(expr, cst.UnaryOperation):
        return is_number(ctx, expr.expression, number)
    if isinstance(expr, cst.BinaryOperation):
        return is_number(ctx, expr.left, number) and is_number(ctx, expr.right, number)
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name):
        return _numbers_container(ctx, expr.value.value)
    if isinstance(expr, cst.IfExp):
        return is_number(ctx, expr.body, number) and is_number(ctx, expr.orelse, number)
    if isinstance(expr, cst.Call):
        if m.matches(
            expr, m.Call(func=m.Attribute(attr=m.Name("item") | m.Name("numel")), args=[])
        ):
            return True
        if m.matches(expr, m.Call(func=m.Attribute(attr=m.Name("size")), args=[m.Arg()])):
            return True  # tensor.size(dim) is an int (without the dim, a torch.Size)
        called = ctx.call_qualnames(expr)
        if called & _OF_NUMBERS:  # a number when every argument is one
            return all(
                a.keyword is None and not a.star and is_number(ctx, a.value, number)
                for a in expr.args
            )
        return bool(called & _NUMBER_CALLS)
    return False


def _numbers_container(ctx, name: str) -> bool:
    """`name` is bound once before the loop to a dict or list of numbers only (`sizes =
    {x: len(datasets[x]) for x in ...}`, `[0.5, 0.25]`) that nothing there changes."""
    binding, count = ctx.binding(name)
    if count != 1 or binding is None or name in mutated_roots(ctx.scope_before):
        return False
    value = binding[1]
    if isinstance(value, cst.DictComp):
        return is_number(ctx, value.value, {})
    if isinstance(value, cst.ListComp):
        return is_number(ctx, value.elt, {})
    if isinstance(value, cst.Dict):
        return all(
            isinstance(e, cst.DictElement) and is_number(ctx, e.value, {}) for e in value.elements
        )
    if isinstance(value, (cst.List, cst.Tuple)):
        return all(
            isinstance(e, cst.Element) and is_number(ctx, e.value, {}) for e in value.elements
        )
    return False


def _logged_keys(stmts: list) -> set[str]:
    keys = set()
    log_call = m.Call(func=m.Attribute(value=m.Name("self"), attr=m.Name("log")))
    for stmt in stmts:
        for call in m.findall(stmt, log_call):
            if call.args and isinstance(call.args[0].value, cst.SimpleString):
                keys.add(call.args[0].value.evaluated_value)
    return keys


class SelfPrint(cst.CSTTransformer):
    """`print(...)` -> `self.print(...)` (Lightning's rank-zero print through the bar)."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if "builtins.print" not in self.ctx.call_qualnames(original_node):
            return updated_node
        keywords = {a.keyword.value for a in updated_node.args if a.keyword is not None}
        if keywords - _SELF_PRINT_KEYWORDS or any(a.star for a in updated_node.args):
            return updated_node
        return updated_node.with_changes(func=cst.parse_expression("self.print"))
