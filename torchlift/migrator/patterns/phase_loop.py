"""Pattern: the train/val phase loop (the transfer-learning tutorial's shape), unrolled.

    for epoch in range(N):
        for phase in ["train", "val"]:                 one copy of the body per phase, with
            model.train(phase == "train")              every `phase` test resolved:
            running_loss = 0.0
            for x, y in dataloaders[phase]:            train: the batch loop over
                optimizer.zero_grad()                         dataloaders["train"]
                with torch.set_grad_enabled(phase == "train"):
                    loss = criterion(model(x), y)      val:   `with torch.no_grad():` around
                    if phase == "train":                      the loop over dataloaders["val"]
                        loss.backward()                       (no zero_grad, no backward)
                        optimizer.step()
                running_loss += loss.item()
            print(f"{phase} {running_loss:.4f}")
            if phase == "val" and running_loss < best:
                best = running_loss

The phase loop runs over a literal list or tuple of strings (or a name bound once to one). Each
phase's copy of the body is partially evaluated: `phase` becomes its value, comparisons of it
fold to True/False, and so do `if`, `x if c else y`, `model.train(c)` and
`with torch.set_grad_enabled(c):` (unwrapped: grad mode is on in training, and the evaluation
pass runs under no_grad as a whole). The result is a training pass followed by an evaluation
pass, which the epoch x batch shape converts like any other (validation_step, epoch hooks,
metrics logged, best weights carried back). The loaders `dataloaders["train"]` /
`dataloaders["val"]` are handed to `fit` as written, when the dict is certain (keyed_loaders.py,
the resolver a batch loop over `dataloaders["train"]` without a phase loop goes through too).

Lightning runs the code after the training batch loop in `on_train_epoch_end`, after the
validation pass. So names a phase sets up for itself at epoch level (accumulators, epoch
metrics) get the phase's name as prefix (`train_running_loss`, `val_running_loss`): both
phases' values then exist side by side, as they did in the script at each moment. A loader
chosen per phase before the batch loop (`loader = dataloaders[phase]`, `train_dl if phase ==
"train" else val_dl`) is inlined into the loop. Refused: an evaluation phase before the
training phase, more than two phases (TL175); a phase value that cannot be resolved, a batch
loop not over `<loaders>[phase]` or a loader name (TL176); training-phase epoch code whose
result the evaluation pass could change, or that calls the script's functions or draws random
numbers (TL177); an evaluation phase that calls backward() or steps an optimizer (TL178).

The same order question exists without a phase loop: epoch code between the batch loop and
the validation pass (not the pass's own setup) lands in `on_train_epoch_end`, after the pass.
The evaluation section (the pass's setup, the pass, the epoch code after it) renames the
epoch-level names it shares with training (`val_running_loss`) when no other code could see
the difference (pass_names.py). Code that still reads what the pass changes (an accumulator
both reuse, read again after the epoch loop) or changes what the pass reads is refused TL177
for every epoch loop.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.fstrings import formatted_text
from ..analysis.loader_iteration import loader_iterations
from ..analysis.names import collect_names, file_identifiers, rename, spelled_names
from ..analysis.statements import (
    BACKWARD,
    FLOW,
    OPTIMIZER_CALL,
    call_method,
    contains,
    single_assign,
)
from ..rule import Rule, Unsupported
from ..shapes.context import CONTROL_FLOW
from .eval_passes import _is_no_grad, eval_loop_of
from .eval_shapes import GRADIENTS_IN_EVALUATION, _torch_name, _uses_gradients
from .keyed_loaders import CONSTANT_KEY, ReplaceExpression, keyed_loader
from .pass_names import PREFIX, pass_private, spelled_outside_loops

PHASE_ORDER = Rule(
    "TL175",
    "a train/val phase loop whose phases Lightning cannot run in that order",
    """A phase loop (`for phase in ["train", "val"]:`) is converted as a training pass followed
    by an evaluation pass, the order in which Lightning runs an epoch. An evaluation phase
    before training, several training phases, or more than two phases have no such order.""",
    """Put the training phase first (`["train", "val"]`), and evaluate a test set after the
    epoch loop.""",
    """
    val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
    loaders = {"train": loader, "val": val_loader}
    for epoch in range(2):
        for phase in ["val", "train"]:
            model.train(phase == "train")
            for x, y in loaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    loss = criterion(model(x), y)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
    """,
)

PHASE_UNRESOLVED = Rule(
    "TL176",
    "a train/val phase loop whose phase-dependent code cannot be resolved per phase",
    """Each phase's copy of the body must resolve every use of the phase: the phase variable
    is not rebound, `torch.set_grad_enabled(...)` gets a value known per phase, the batch loop
    iterates `<loaders>[phase]` (or one loader name per phase) and the loaders are not changed
    by the epoch loop, and nothing after the phase loop reads the phase variable.""",
    """Write the grad-mode switch as `torch.set_grad_enabled(phase == "train")`, iterate
    `dataloaders[phase]`, and keep the loaders fixed during training.""",
    """
    loaders = {"train": loader, "val": loader}
    for epoch in range(2):
        for phase in ["train", "val"]:
            for x, y in loaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(epoch > 0):
                    loss = criterion(model(x), y)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
    """,
)

PHASES_SHARE_STATE = Rule(
    "TL177",
    "epoch code after training reads state the validation pass changes",
    """Lightning runs the epoch code that follows the training batch loop (a phase loop's
    training-phase code, or any code between the batch loop and the validation pass) in
    `on_train_epoch_end`, after the validation pass. That is faithful only when the pass
    neither changes what that code reads nor reads what it writes (accumulators shared by
    training and validation), when that code draws nothing from torch's generator while the
    pass does (a peek `next(iter(val_loader))` makes a DataLoader iterator, which draws a
    seed, as the pass's own iterator does), and, for a phase loop, the code draws no random
    numbers and calls no function of the script (either could see the other order).""",
    """Compute the training phase's epoch metrics from names of its own, and keep helper calls
    and random draws out of the code after the training batch loop.""",
    """
    val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
    loaders = {"train": loader, "val": val_loader}
    history = []
    for epoch in range(2):
        for phase in ["train", "val"]:
            model.train(phase == "train")
            for x, y in loaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    loss = criterion(model(x), y)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                history.append(loss.item())
            print(phase, sum(history) / len(history))
    """,
)

EVALUATION_PHASE_STEPS = Rule(
    "TL178",
    "the evaluation phase of a train/val phase loop calls backward() or steps an optimizer",
    """The phase that does not train becomes `validation_step`, which Lightning runs under
    inference mode without optimizer: it may only evaluate. (Its `optimizer.zero_grad()` is
    dropped when the training phase zeroes the gradients before every backward itself.)""",
    """Put `loss.backward()` and `optimizer.step()` under `if phase == "train":`.""",
    """
    val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
    loaders = {"train": loader, "val": val_loader}
    for epoch in range(2):
        for phase in ["train", "val"]:
            for x, y in loaders[phase]:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                if phase == "train":
                    optimizer.step()
    """,
)

RULES = (PHASE_ORDER, PHASE_UNRESOLVED, PHASES_SHARE_STATE, EVALUATION_PHASE_STEPS)

_SET_GRAD_ENABLED = frozenset(
    {
        "torch.set_grad_enabled",
        "torch.autograd.set_grad_enabled",
        "torch.autograd.grad_mode.set_grad_enabled",
    }
)
# torch functions that draw from the global RNG (code that may not move past a loader's iter)
_RANDOM = frozenset(
    {
        "rand",
        "randn",
        "randint",
        "randperm",
        "rand_like",
        "randn_like",
        "randint_like",
        "normal",
        "bernoulli",
        "multinomial",
        "poisson",
        "dropout",
    }
)
_TRUE, _FALSE = "True", "False"


def epoch_body(ctx, stmts):
    """The epoch body with its phase loop (if any) replaced by one copy per phase; either
    way, the epoch code between training and validation checked against the pass."""
    for at, stmt in enumerate(stmts):
        if not (isinstance(stmt, cst.For) and contains(stmt, BACKWARD)):
            continue
        phases = _phase_values(ctx, stmt)
        if phases is not None:
            unrolled = _unroll(ctx, stmt, phases, stmts[at + 1 :])
            stmts = [*stmts[:at], *unrolled, *stmts[at + 1 :]]
        elif _tests_phase_names(stmt):
            raise _phases_not_known(ctx, stmt)
        return _check_code_before_the_pass(ctx, stmts)
    return stmts


def _check_code_before_the_pass(ctx, stmts) -> list:
    """`stmts` with the evaluation section's own copies of the names it shares with the
    training section renamed (pass_names.py). Epoch code between the batch loop and the
    validation pass (not its setup) runs in `on_train_epoch_end`, after the pass: refused
    (TL177) when the pass still changes what that code reads or reads what it changes. The
    pass's enumerate index is its step's own (resolve_names keeps a training index apart)."""
    from ..shapes.epoch_batch import maybe_changed

    at = next(i for i, s in enumerate(stmts) if contains(s, BACKWARD))
    found = next(
        ((j, hit) for j in range(at + 1, len(stmts)) if (hit := eval_loop_of(ctx, stmts[j]))),
        None,
    )
    if found is None:
        return stmts
    j, (_, pass_loop) = found
    names = collect_names(pass_loop).all()
    between = [s for s in stmts[at + 1 : j] if not _mode_call(s)]
    setup = [s for s in between if collect_names(s).writes & names]
    kept = [s for s in between if not any(s is t for t in setup)]
    if not kept:
        return stmts
    stmts, j, setup = _evaluation_names(ctx, stmts, j, setup, kept)
    # mode switches are eval_mode's to judge (TL147), not state shared with the pass
    early = cst.IndentedBlock(body=[*setup, stmts[j]]).visit(_WithoutModeCalls())
    later = cst.IndentedBlock(body=kept).visit(_WithoutModeCalls())
    _check_draws_before_the_pass(ctx, kept, early)
    index = ctx.unwrap_iter(pass_loop)[1]
    read_by_pass = maybe_changed(ctx, later, collect_names(early).all()) - {index}
    shared = maybe_changed(ctx, early, collect_names(later).all()) - {index}
    shared |= read_by_pass
    if shared:
        modules = {n for n in shared if n in ctx.names.imports}
        if read_by_pass - modules:  # the pass would read it before that code changed it
            why = f"changes `{sorted(read_by_pass - modules)[0]}`, which the validation pass reads"
        elif shared - modules:
            why = f"reads `{sorted(shared - modules)[0]}`, which the validation pass changes"
        else:  # `torch.no_grad()` in the pass, `torch.nn.Module` after: no variable is shared
            why = (
                f"uses `{sorted(modules)[0]}` as the validation pass does (its global state, "
                "such as the random generator, may be read in another order)"
            )
        raise Unsupported(
            PHASES_SHARE_STATE,
            f"epoch code after the training loop {why}: Lightning runs that code after the "
            "pass (on_train_epoch_end)",
            kept[0],
        )
    return stmts


def _check_draws_before_the_pass(ctx, kept: list, early) -> None:
    """TL177 when epoch code between the batch loop and the pass draws from torch's
    generator -- a peek `next(iter(val_loader))`, `torch.randn(...)` -- and so does the pass
    (its loader's iterator, its setup): once after the pass, each would get the other's
    numbers (same count, other order: the training after them is the same, what they show
    is not; with workers or a shuffled loader the batches differ)."""
    from ..analysis.torch_draws import draws, functions_drawing

    drawing = functions_drawing(ctx)
    drawn = next((s for s in kept if draws(ctx, s, drawing)), None)
    if drawn is None or not draws(ctx, early, drawing):
        return
    sites = loader_iterations(ctx, drawn)
    if sites:
        what = f"`{ctx.module.code_for_node(sites[0]).strip()}` iterates a loader"
    else:
        what = "it draws random numbers"
    raise Unsupported(
        PHASES_SHARE_STATE,
        f"epoch code after the training loop draws from torch's generator ({what}), as the "
        "validation pass does (its loader's iterator): Lightning runs that code after the "
        "pass (on_train_epoch_end), so each would draw the other's numbers",
        drawn,
    )


def _evaluation_names(ctx, stmts, j: int, setup: list, kept: list):
    """(stmts, the pass's index, its setup) with the evaluation section (the pass's setup, the
    pass, the epoch code after it) renaming what it keeps for itself, when no training epoch
    code is interleaved with that section."""
    start = next(i for i, s in enumerate(stmts) if any(s is t for t in [*setup, stmts[j]]))
    if any(s is k for s in stmts[start:] for k in kept):
        return stmts, j, setup
    training, evaluation = stmts[:start], stmts[start:]
    taken = file_identifiers(ctx.module.code, "<split pass>")
    # a name whose prefixed form the file uses stays shared (refused below, TL177)
    private = {n for n in pass_private(ctx, training, evaluation) if f"{PREFIX}_{n}" not in taken}
    if not private:
        return stmts, j, setup
    renamed = _prefixed(evaluation, private, PREFIX, taken, evaluation[0])
    setup = [new for new, old in zip(renamed, evaluation) if any(old is t for t in setup)]
    return [*training, *renamed], j, setup


def read(ctx, plan, steps) -> None:
    plan.phase_loop = ctx.found.get("phase_loop")
    binding = ctx.found.get("phase_binding")
    if binding is not None:  # `phases = ("train", "val")`, read by the phase loop alone
        plan.remove_stmts.append(binding)


# -- recognising the phase loop -----------------------------------------------------------
def _phase_values(ctx, loop: cst.For) -> list[cst.SimpleString] | None:
    """The phases (string literals) of `for <name> in <phases>:`, or None if not a phase
    loop: a literal list/tuple of strings, or a name bound once to one."""
    if not isinstance(loop.target, cst.Name):
        return None
    phases = loop.iter
    name = phases.value if isinstance(phases, cst.Name) else None
    if name is not None:
        phases = _bound_once(ctx, name)
    if not isinstance(phases, (cst.List, cst.Tuple)) or not phases.elements:
        return None
    if not all(
        isinstance(element, cst.Element) and isinstance(element.value, cst.SimpleString)
        for element in phases.elements
    ):
        return None
    binding = ctx.binding(name)[0] if name is not None else None
    if binding is not None and any(binding[0] is s for s in ctx.before):
        if _names_outside(ctx.module, loop, counted=True).count(name) == 1:
            ctx.found["phase_binding"] = binding[0]  # read by the phase loop alone
    return [element.value for element in phases.elements]


def _tests_phase_names(loop: cst.For) -> bool:
    """`loop` has the phase loop's shape without a list of phases `_phase_values` can read:
    its variable is compared to a string (`if split == "train":`) and the loop over the
    batches, the one calling backward(), is inside it."""
    if not isinstance(loop.target, cst.Name):
        return False
    var = m.Name(loop.target.value)
    compared = m.Comparison(
        left=var, comparisons=[m.ComparisonTarget(comparator=m.SimpleString())]
    ) | m.Comparison(left=m.SimpleString(), comparisons=[m.ComparisonTarget(comparator=var)])
    inner = [s for s in m.findall(loop.body, m.For()) if contains(s, BACKWARD)]
    return bool(inner) and bool(m.findall(loop.body, compared))


def _phases_not_known(ctx, loop: cst.For) -> Unsupported:
    """The refusal of a phase loop over phases not known before training, at the statement
    binding them when there is one."""
    var, code = loop.target.value, ctx.module.code_for_node(loop.iter)
    head = f"`for {var} in {code}:` is a train/val phase loop (`{var}` is compared to a phase name)"
    if isinstance(loop.iter, cst.Name):
        found, count = ctx.binding(loop.iter.value)
        if found is not None and count == 1:
            value = ctx.module.code_for_node(found[1])
            return Unsupported(
                PHASE_UNRESOLVED,
                f"{head}, but `{code}` is bound to `{value}`, not a literal list of phase "
                "names: which phases run is not known before training",
                found[0],
            )
        return Unsupported(
            PHASE_UNRESOLVED,
            f"{head}, but `{code}` is not bound once, before the loop, to a literal list of "
            "phase names",
            loop,
        )
    return Unsupported(
        PHASE_UNRESOLVED, f"{head}, but `{code}` is not a literal list of phase names", loop
    )


def _bound_once(ctx, name: str):
    """The literal `name` is bound to before the loop, when nothing else binds it."""
    if name in collect_names(ctx.loop).writes:
        return None
    from ..shapes.epoch_batch import maybe_changed

    found, count = ctx.binding(name)
    value = found[1] if found is not None and count == 1 else None
    if found is None and ctx.in_function and name not in ctx.params:  # a module constant
        module = [s for s in ctx.module.body if name in collect_names(s).writes]
        if len(module) == 1 and m.matches(
            module[0], m.SimpleStatementLine([m.Assign([m.AssignTarget(m.Name())])])
        ):
            value = module[0].body[0].value
    if value is None or maybe_changed(ctx, ctx.loop.body, {name}):
        return None
    return value


# -- unrolling ----------------------------------------------------------------------------
def _unroll(ctx, loop: cst.For, phases: list[cst.SimpleString], following) -> list:
    """The statements replacing the phase loop: the training phase's copy of its body, then
    the evaluation phase's, with the evaluation pass in its canonical form; Unsupported when
    the two cannot run in Lightning's order faithfully."""
    var = loop.target.value
    body = list(loop.body.body)
    if loop.orelse is not None or contains(loop.body, FLOW):
        raise Unsupported(CONTROL_FLOW, "the phase loop uses break/continue/return/else", loop)
    if var in collect_names(*body).writes:
        raise Unsupported(PHASE_UNRESOLVED, f"the phase loop rebinds `{var}`", loop)
    if var in collect_names(*following).reads or var in _reads_after(ctx):
        raise Unsupported(
            PHASE_UNRESOLVED, f"code after the phase loop reads `{var}` (its last value)", loop
        )
    names = [phase.evaluated_value for phase in phases]
    outside = _names_outside(ctx.module, loop)
    specialized = [_specialize(ctx, body, var, phase, outside) for phase in phases]
    copies = [stmts for stmts, _ in specialized]
    training = [i for i, copy in enumerate(copies) if contains(_block(copy), BACKWARD)]
    if len(phases) == 2 and training == [0, 1]:
        raise Unsupported(
            EVALUATION_PHASE_STEPS, "every phase calls backward(): none only evaluates", loop
        )
    if len(phases) != 2 or training != [0]:
        why = (
            "the evaluation phase comes before the training phase (Lightning validates after "
            "training in each epoch)"
            if training == [1] and len(phases) == 2
            else f"phases {names}: exactly a training phase then an evaluation phase convert"
        )
        raise Unsupported(PHASE_ORDER, why, loop)
    if specialized[0][1]:
        raise Unsupported(
            PHASE_UNRESOLVED,
            "the training phase disables gradients around code",
            specialized[0][1][0],
        )
    if not all(name.isidentifier() for name in names) or names[0] == names[1]:
        raise Unsupported(PHASE_UNRESOLVED, f"phase names {names} are not distinct words", loop)
    taken = file_identifiers(ctx.module.code, "<phases>")
    train, evaluation = copies
    train, train_loop = _with_loader(ctx, train, names[0], taken, outside, loop)
    evaluation, eval_loop = _with_loader(ctx, evaluation, names[1], taken, outside, loop)
    evaluation = _evaluation_pass(ctx, evaluation, eval_loop, train_loop, loop)
    private = _phase_private(body, var, outside)
    train = _prefixed(train, private, names[0], taken, loop)
    evaluation = _prefixed(evaluation, private, names[1], taken, loop)
    _check_shared_state(ctx, train, evaluation, loop)
    ctx.found["phase_loop"] = loop
    evaluation = [stmt.deep_clone() for stmt in evaluation]  # nodes of its own
    out = [*train, *evaluation]
    out[0] = out[0].with_changes(leading_lines=[*loop.leading_lines, *out[0].leading_lines])
    return out


def _reads_after(ctx) -> set[str]:
    return collect_names(*ctx.scope_after).reads if ctx.scope_after else set()


def _block(stmts) -> cst.IndentedBlock:
    return cst.IndentedBlock(body=stmts)


def _specialize(ctx, body, var: str, phase: cst.SimpleString, outside) -> tuple[list, list]:
    """The phase loop's body with `var` = `phase`, every test of it resolved, and the
    `with torch.set_grad_enabled(False):` statements unwrapped in it. A flag the phase sets
    (`is_train = phase == "train"`) is resolved too, when only this body uses it."""
    mapping: dict[str, cst.BaseExpression] = {var: cst.SimpleString(phase.value)}
    stmts = list(body)
    while mapping:
        stmts = [rename(stmt, mapping).visit(_Fold()) for stmt in stmts]
        stmts, mapping = _without_flag(stmts, outside)
    disabled: list = []  # `with torch.set_grad_enabled(False):` blocks unwrapped
    return _flatten(ctx, stmts, disabled), disabled


def _without_flag(stmts, outside: set[str]):
    """(stmts without `flag = True|False`, {flag: its value}) for the first such flag bound
    once at the top of the phase's body and used nowhere outside the phase loop."""
    for at, stmt in enumerate(stmts):
        assign = single_assign(stmt)
        if assign is None or _known(assign[1]) is None or assign[0] in outside:
            continue
        rest = [*stmts[:at], *stmts[at + 1 :]]
        earlier = collect_names(*stmts[:at]).reads if at else set()
        if assign[0] not in collect_names(*rest).writes and assign[0] not in earlier:
            return rest, {assign[0]: assign[1]}
    return stmts, {}


class _Fold(cst.CSTTransformer):
    """Constant folding of what the phase's value decides: comparisons of string literals,
    `not`, `and`/`or` with a known left side, `x if c else y`, f-string parts, and
    `m.train(c)` with c known (from the phase: a literal `m.train(True)` is left as written)."""

    def leave_Comparison(self, original_node, updated_node):
        if len(updated_node.comparisons) != 1:
            return updated_node
        left = _string(updated_node.left)
        comparison = updated_node.comparisons[0]
        op, right = comparison.operator, comparison.comparator
        if left is None:
            return updated_node
        if isinstance(op, (cst.Equal, cst.NotEqual)) and _string(right) is not None:
            return _bool((left == _string(right)) == isinstance(op, cst.Equal))
        if isinstance(op, (cst.In, cst.NotIn)) and isinstance(right, (cst.List, cst.Tuple)):
            values = [_string(e.value) for e in right.elements]
            if None not in values:
                return _bool((left in values) == isinstance(op, cst.In))
        return updated_node

    def leave_UnaryOperation(self, original_node, updated_node):
        value = _known(updated_node.expression)
        if isinstance(updated_node.operator, cst.Not) and value is not None:
            return _bool(not value)
        return updated_node

    def leave_BooleanOperation(self, original_node, updated_node):
        left = _known(updated_node.left)
        if left is None:
            return updated_node
        if isinstance(updated_node.operator, cst.And):
            return updated_node.right if left else _bool(False)
        return _bool(True) if left else updated_node.right

    def leave_IfExp(self, original_node, updated_node):
        test = _known(updated_node.test)
        if test is None:
            return updated_node
        return updated_node.body if test else updated_node.orelse

    def leave_FormattedStringExpression(self, original_node, updated_node):
        # `{phase:5s}` -> the text it formats to (a literal inside an f-string could clash
        # with the f-string's own quotes before Python 3.12)
        text = formatted_text(updated_node)
        if text is None:
            return updated_node
        return cst.FormattedStringText(text.replace("{", "{{").replace("}", "}}"))

    def leave_Call(self, original_node, updated_node):
        # m.train(True) -> m.train(); m.train(False) -> m.eval()
        func = updated_node.func
        if not (
            m.matches(func, m.Attribute(attr=m.Name("train")))
            and len(updated_node.args) == 1
            and (
                updated_node.args[0].keyword is None or updated_node.args[0].keyword.value == "mode"
            )
        ):
            return updated_node
        mode = _known(updated_node.args[0].value)
        if mode is None or _known(original_node.args[0].value) is not None:
            return updated_node
        name = "train" if mode else "eval"
        return updated_node.with_changes(func=func.with_changes(attr=cst.Name(name)), args=[])


def _string(node) -> str | None:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    return None


def _known(node) -> bool | None:
    if isinstance(node, cst.Name) and node.value in (_TRUE, _FALSE):
        return node.value == _TRUE
    return None


def _bool(value: bool) -> cst.Name:
    return cst.Name(_TRUE if value else _FALSE)


def _flatten(ctx, stmts, disabled: list) -> list:
    """Statements with `if <known>:` resolved and `with torch.set_grad_enabled(<known>):`
    unwrapped; a leading comment moves to the first statement taking the block's place."""
    out = []
    for stmt in stmts:
        out.extend(_flatten_one(ctx, stmt, disabled))
    return out


def _flatten_one(ctx, stmt, disabled: list) -> list:
    if isinstance(stmt, cst.If):
        test = _known(stmt.test)
        if test is None:
            return [_with_blocks(ctx, stmt, disabled)]
        if test:
            chosen = list(stmt.body.body)
        elif isinstance(stmt.orelse, cst.If):
            chosen = [stmt.orelse.with_changes(leading_lines=[])]
        elif stmt.orelse is not None:
            chosen = list(stmt.orelse.body.body)
        else:
            chosen = []
        return _lead(stmt, _flatten(ctx, chosen, disabled))
    if isinstance(stmt, cst.With) and any(_is_set_grad(ctx, item) for item in stmt.items):
        if len(stmt.items) != 1:
            raise Unsupported(
                PHASE_UNRESOLVED, "`torch.set_grad_enabled(...)` beside other managers", stmt
            )
        call = stmt.items[0].item
        enabled = _known(call.args[0].value) if len(call.args) == 1 else None
        if enabled is None or stmt.items[0].asname is not None:
            raise Unsupported(
                PHASE_UNRESOLVED,
                "`torch.set_grad_enabled(...)` of a value the phase does not decide",
                stmt,
            )
        if not enabled:
            disabled.append(stmt)
        # training: grad mode is on anyway; evaluation: the whole pass runs under no_grad.
        # A comment above the `with` was about it: it goes with it.
        blank = [line for line in stmt.leading_lines if line.comment is None]
        return _lead(
            stmt.with_changes(leading_lines=blank), _flatten(ctx, list(stmt.body.body), disabled)
        )
    return [_with_blocks(ctx, stmt, disabled)]


def _with_blocks(ctx, stmt, disabled: list):
    """`stmt` with the blocks it holds flattened too (an empty block gets `pass`)."""
    if isinstance(stmt, (cst.For, cst.While, cst.With)):
        inner = _flatten(ctx, list(stmt.body.body), disabled) or [cst.parse_statement("pass")]
        return stmt.with_changes(body=stmt.body.with_changes(body=inner))
    if isinstance(stmt, cst.If):
        inner = _flatten(ctx, list(stmt.body.body), disabled) or [cst.parse_statement("pass")]
        orelse = stmt.orelse
        if isinstance(orelse, cst.Else):
            rest = _flatten(ctx, list(orelse.body.body), disabled)
            orelse = orelse.with_changes(body=orelse.body.with_changes(body=rest)) if rest else None
        elif isinstance(orelse, cst.If):
            flat = _flatten_one(ctx, orelse, disabled)
            if not flat:
                orelse = None
            elif len(flat) == 1 and isinstance(flat[0], cst.If):
                orelse = flat[0]
            else:
                orelse = cst.Else(body=cst.IndentedBlock(body=flat))
        return stmt.with_changes(body=stmt.body.with_changes(body=inner), orelse=orelse)
    return stmt


def _lead(stmt, replacement: list) -> list:
    if replacement and stmt.leading_lines:
        first = replacement[0]
        replacement[0] = first.with_changes(
            leading_lines=[*stmt.leading_lines, *first.leading_lines]
        )
    return replacement


def _is_set_grad(ctx, item: cst.WithItem) -> bool:
    return bool(
        isinstance(item.item, cst.Call) and ctx.call_qualnames(item.item) & _SET_GRAD_ENABLED
    )


# -- the phases' loaders ------------------------------------------------------------------
def _with_loader(ctx, stmts, phase: str, taken: set[str], outside: set[str], loop):
    """(statements, the phase's batch loop). The batch loop iterates `<loaders>["<phase>"]`
    (renamed to a generated name standing for the loader the Trainer is given:
    keyed_loaders.py) or a loader name, possibly through a name the phase binds to it first
    (`loader = train_loader if phase == "train" else val_loader`)."""
    stmts = _without_loader_alias(ctx, stmts, outside)
    loops = [
        s
        for s in stmts
        if isinstance(s, cst.For) and isinstance(_loader_of(ctx, s), (cst.Name, cst.Subscript))
    ]
    if len(loops) != 1:
        raise Unsupported(
            PHASE_UNRESOLVED,
            f"the `{phase}` phase has no single batch loop over `<loaders>[phase]` or a loader",
            loop,
        )
    batch_loop = loops[0]
    loader = _loader_of(ctx, batch_loop)
    if isinstance(loader, cst.Name):
        return stmts, batch_loop
    if not m.matches(loader, CONSTANT_KEY):
        raise Unsupported(
            PHASE_UNRESOLVED,
            f"the `{phase}` phase's batch loop iterates "
            f"`{ctx.module.code_for_node(loader)}`, not `<loaders>[phase]`",
            batch_loop,
        )
    name = keyed_loader(ctx, loader, PHASE_UNRESOLVED, loop, f"{loader.value.value}_{phase}", taken)
    renamed = [s.visit(ReplaceExpression(loader, cst.Name(name))) for s in stmts]
    new_loop = next(s for s, old in zip(renamed, stmts) if old is batch_loop)
    return renamed, new_loop


def _without_loader_alias(ctx, stmts, outside: set[str]) -> list:
    """`stmts` with `loader = <loader>` (a name or `<loaders>["<phase>"]`, bound once, before
    the loop iterating it, used nowhere outside the phase loop) inlined into its reads and
    dropped: the step iterates the loader."""
    for at, stmt in enumerate(stmts):
        assign = single_assign(stmt)
        if assign is None or not isinstance(assign[1], (cst.Name, cst.Subscript)):
            continue
        name, value = assign
        if isinstance(value, cst.Subscript) and not m.matches(
            value,
            m.Subscript(value=m.Name(), slice=[m.SubscriptElement(m.Index(m.SimpleString()))]),
        ):
            continue
        iterated = any(
            isinstance(s, cst.For) and m.matches(_loader_of(ctx, s), m.Name(name))
            for s in stmts[at + 1 :]
        )
        rest = [*stmts[:at], *stmts[at + 1 :]]
        if iterated and name not in outside and name not in collect_names(*rest).writes:
            return [rename(s, {name: value}) for s in rest]
    return stmts


def _loader_of(ctx, loop: cst.For):
    return ctx.unwrap_iter(loop)[0]


# -- the evaluation phase -----------------------------------------------------------------
def _evaluation_pass(ctx, stmts, eval_loop, train_loop, loop) -> list:
    """The evaluation phase with its batch loop as the `with torch.no_grad(): for ...` pass
    eval_passes reads: its own no_grad blocks flattened, its `optimizer.zero_grad()` dropped
    (the training phase zeroes the gradients before each of its backward() calls)."""
    zeroed = {
        ctx.module.code_for_node(receiver)
        for s in train_loop.body.body
        if (receiver := call_method(s, "zero_grad")) is not None
    }
    inner = []
    for stmt in eval_loop.body.body:
        receiver = call_method(stmt, "zero_grad")
        if receiver is not None and ctx.module.code_for_node(receiver) in zeroed:
            continue
        if isinstance(stmt, cst.With) and _is_no_grad(ctx, stmt):
            inner.extend(stmt.body.body)
            continue
        inner.append(stmt)
    for stmt in stmts:
        if stmt is eval_loop:
            stmt = cst.For(target=stmt.target, iter=stmt.iter, body=_block(inner))
        if contains(stmt, BACKWARD | OPTIMIZER_CALL):
            raise Unsupported(
                EVALUATION_PHASE_STEPS,
                "the evaluation phase calls backward() or an optimizer (not only the "
                "zero_grad() of the training phase)",
                loop,
            )
    pass_loop = eval_loop.with_changes(body=eval_loop.body.with_changes(body=inner))
    rest = [s for s in stmts if s is not eval_loop]
    if _uses_gradients(ctx, _block([pass_loop, *rest])):  # a `.grad` after its zero_grad too
        raise Unsupported(
            GRADIENTS_IN_EVALUATION,
            "the evaluation phase uses gradients (Lightning evaluates under inference mode)",
            eval_loop,
        )
    torch_name = _torch_name(ctx)
    if torch_name is None:
        raise Unsupported(PHASE_UNRESOLVED, "the file does not `import torch`", loop)
    header = cst.parse_statement(f"with {torch_name}.no_grad():\n    pass\n")
    wrapped = header.with_changes(
        body=header.body.with_changes(body=[pass_loop.with_changes(leading_lines=[])]),
        leading_lines=eval_loop.leading_lines,
    )
    return [wrapped if s is eval_loop else s for s in stmts]


# -- names each phase keeps for itself ------------------------------------------------------
def _phase_private(body, var: str, outside: set[str]) -> set[str]:
    """Names the phase body binds afresh in each phase at epoch level (outside its batch
    loop) or carries across it, that nothing outside the phase loop reads or writes."""
    use = collect_names(*body)
    return (use.writes - use.read_first - outside - {var}) & spelled_outside_loops(body)


def _names_outside(module: cst.Module, loop: cst.For, counted: bool = False):
    """Every name spelled in the module outside `loop` (a superset of its variables; not
    attribute or keyword names), as a set, or `counted`: a list with one entry per spelling."""
    names = spelled_names([module], enters=lambda node: node is not loop)
    return names if counted else set(names)


def _prefixed(stmts, private: set[str], phase: str, taken: set[str], loop) -> list:
    if not private:
        return stmts
    mapping = {}
    for name in sorted(private):
        new = f"{phase}_{name}"
        if new in taken:
            raise Unsupported(
                PHASE_UNRESOLVED,
                f"`{name}` of the `{phase}` phase would become `{new}`, a name the file uses",
                loop,
            )
        mapping[name] = cst.Name(new)
    return [rename(stmt, mapping) for stmt in stmts]


class _WithoutModeCalls(cst.CSTTransformer):
    def leave_SimpleStatementLine(self, original_node, updated_node):
        if _mode_call(updated_node):
            return updated_node.with_changes(body=[cst.Pass()])
        return updated_node


def _mode_call(stmt) -> bool:
    return call_method(stmt, "eval") is not None or call_method(stmt, "train") is not None


def _check_shared_state(ctx, train, evaluation, loop) -> None:
    """The training phase's code after its batch loop runs after the evaluation pass once
    converted: the pass must not change what it reads, nor read what it writes."""
    from ..shapes.epoch_batch import maybe_changed

    at = next(i for i, s in enumerate(train) if contains(s, BACKWARD))
    after = train[at + 1 :]
    if not after:
        return
    at = next(
        i for i, s in enumerate(evaluation) if isinstance(s, cst.With) and _is_no_grad(ctx, s)
    )
    # the mode switch is Lightning's (it restores the train mode before that code runs)
    early = [s for s in evaluation[: at + 1] if not _mode_call(s)]
    early_names = collect_names(*early).all()
    after_names = collect_names(*after).all()
    shared = maybe_changed(ctx, cst.IndentedBlock(body=early), after_names)
    shared |= maybe_changed(ctx, cst.IndentedBlock(body=after), early_names)
    if shared:
        raise Unsupported(
            PHASES_SHARE_STATE,
            f"`{sorted(shared)[0]}` is shared by the training phase's epoch code and the "
            "evaluation pass, which Lightning runs before that code",
            loop,
        )
    defined = {
        s.name.value for s in ctx.module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))
    }
    iterating = loader_iterations(ctx, cst.IndentedBlock(body=after))
    if iterating:  # a loader's iterator draws from torch's generator, as the pass's does
        raise Unsupported(
            PHASES_SHARE_STATE,
            f"the training phase's epoch code iterates a loader "
            f"(`{ctx.module.code_for_node(iterating[0]).strip()}`), which Lightning would do "
            "after the evaluation pass (each loader iterator draws from torch's generator)",
            loop,
        )
    for call in m.findall(cst.IndentedBlock(body=after), m.Call()):
        qualnames = ctx.call_qualnames(call)
        random = any(q.startswith("torch.") and q.rsplit(".", 1)[1] in _RANDOM for q in qualnames)
        script = isinstance(call.func, cst.Name) and call.func.value in defined
        if random or script:
            raise Unsupported(
                PHASES_SHARE_STATE,
                f"the training phase's epoch code calls `{ctx.module.code_for_node(call.func)}`, "
                "which Lightning would run after the evaluation pass",
                loop,
            )
