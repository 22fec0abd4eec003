"""Pattern: averaged (EMA) weights swapped into the model for the validation pass, and back.

    for epoch in range(N):
        ...batch loop... ema.update(model.parameters())   -> on_train_batch_end
        train_loss /= len(loader)                         -> on_train_epoch_end
        ema.store(model.parameters())                     -> on_validation_epoch_start
        ema.copy_to(model.parameters())
        model.eval()
        with torch.no_grad():
            for x, y in val_loader: ...                   -> validation_step
        if val_loss < best:                               -> on_validation_epoch_end
            torch.save(model.state_dict(), "best.pt")        (the averaged weights, as saved)
        ema.restore(model.parameters())
        print(epoch, train_loss, val_loss)                -> on_train_epoch_end

Lightning runs the epoch code between the batch loop and the pass in `on_train_epoch_end`,
after the pass: a swap there would come too late (TL177). The swap -- the statements between the
batch loop and the pass that may change the model the pass runs: torch_ema's `store` /
`copy_to`, a hand-written class's `apply_shadow()` holding the model, `model.load_state_dict(
ema.state_dict())`, a loop copying into `model.parameters()` -- and the epoch code it needs
(`backup = copy.deepcopy(model.state_dict())`) move into the pass's own `with` block, before its
loop: `on_validation_epoch_start`. The swap back (the first statement after the pass that uses
what the swap used: `ema.restore(...)`, `model.load_state_dict(backup)`) and what runs while
the weights are swapped (a best checkpoint of them) move after the loop, in the same block:
`on_validation_epoch_end`, before Lightning's checkpoints. Without a swap back, the weights stay
swapped as in the script.

Lightning runs these hooks inside the pass, under `torch.inference_mode()`: a tensor the swap
creates there (a backup `param.data.clone()`) would be an inference tensor, which the next
optimizer step could not update in place. The Trainer gets `inference_mode=False` (the hooks
then run under `torch.no_grad()`, the values the same). Refused (TL137) where the hooks could
not do what the script did: moved code that draws random numbers (it would come after
Lightning's iterator of the validation loader), runs a module or iterates a loader (before the
pass the model is in Lightning's eval mode), calls what the conversion cannot read (a method of
an object of another library, a function of the script), uses gradients, leaves the epoch
(`break` while swapped), switches a mode; or epoch code left after the batch loop that reads
what the moved code changes, or changes what it reads (it runs after the pass now).
"""

from __future__ import annotations

import builtins

import libcst as cst
import libcst.matchers as m

from ..analysis.confined_effects import root_name
from ..analysis.function_reads import functions_reading
from ..analysis.model_holders import holders_of
from ..analysis.names import collect_names
from ..analysis.output_effects import console_call
from ..analysis.statements import BACKWARD, FLOW, LOOP, OPTIMIZER_CALL, call_method, contains
from ..analysis.torch_draws import draws, functions_drawing
from ..rule import Rule, Unsupported
from ..source.code_text import code_of
from .eval_passes import eval_loop_of
from .eval_shapes import _uses_gradients

WEIGHT_SWAP = Rule(
    "TL137",
    "weights swapped into the model for validation that the validation hooks cannot swap as "
    "the script did",
    """Weights swapped into the model for the validation pass (an EMA's `store` / `copy_to`
    before it, `restore` after it) become `on_validation_epoch_start` and
    `on_validation_epoch_end`, with the epoch code they need and what runs while the weights
    are swapped. Those hooks run inside the pass: after Lightning created the validation
    loader's iterator (a random draw) and put the model in eval mode, before the epoch code the
    script ran after its batch loop. So the moved code must draw no random numbers, run no
    module, iterate no loader, call only what the conversion can read (torch, builtins, the
    methods of the script's own classes), use no gradients, not leave the epoch and switch no
    mode; and the epoch code left after the batch loop must neither read what it changes nor
    change what it reads.""",
    """Swap the weights right around the validation loop, with nothing else between: e.g.
    `ema.store(model.parameters()); ema.copy_to(model.parameters())` before it and
    `ema.restore(model.parameters())` after what uses the averaged weights.""",
    """
    class EMA:
        def __init__(self, model):
            self.model = model
            self.shadow = [p.detach().clone() for p in model.parameters()]

        def apply_shadow(self):
            self.backup = [p.detach().clone() for p in self.model.parameters()]
            for p, s in zip(self.model.parameters(), self.shadow):
                p.data.copy_(s)

        def restore(self):
            for p, b in zip(self.model.parameters(), self.backup):
                p.data.copy_(b)


    val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
    ema = EMA(model)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        ema.apply_shadow()
        torch.optim.swa_utils.update_bn(loader, model)
        with torch.no_grad():
            for x, y in val_loader:
                print(criterion(model(x), y).item())
        ema.restore()
    """,
)

RULES = (WEIGHT_SWAP,)

_BUILTINS = frozenset(dir(builtins))
# the model's methods that read or load its state, running nothing
_STATE_METHODS = frozenset(
    {"state_dict", "load_state_dict", "parameters", "named_parameters", "buffers", "named_buffers"}
)
_MODES = frozenset({"eval", "train"})
# builtins that do not iterate what they are given (`len(loader)`)
_NOT_ITERATING = frozenset({"len", "print", "isinstance", "id", "type", "repr", "str"})
# functions that copy what they are given and run nothing of it
_COPIES = frozenset({"copy.deepcopy", "copy.copy"})
# the standard library's functions that compute paths and numbers, running nothing given
_PLAIN_MODULES = ("os.path.", "math.")
# torch_ema's ExponentialMovingAverage: methods that copy tensors, drawing nothing
_LIBRARY_METHODS = {
    "torch_ema.ExponentialMovingAverage": frozenset({"store", "copy_to", "restore", "update"}),
}


def epoch_body(ctx, stmts):
    """The epoch body with a swap around the validation pass moved into the pass's `with`
    block (before and after its loop), or unchanged when there is none."""
    at = next((i for i, s in enumerate(stmts) if contains(s, BACKWARD)), None)
    if at is None:
        return stmts
    found = next(
        ((j, hit) for j in range(at + 1, len(stmts)) if (hit := eval_loop_of(ctx, stmts[j]))),
        None,
    )
    if found is None or found[1][0] is None:
        return stmts
    j, (with_stmt, loop) = found
    models = _modules_run(ctx, loop)
    holders = holders_of(ctx, models)
    between, following = stmts[at + 1 : j], stmts[j + 1 :]
    pass_names = collect_names(loop).all()  # the pass's setup is eval_passes' own
    swap_in = [
        s
        for s in between
        if not collect_names(s).writes & pass_names and _swaps(ctx, s, models, holders)
    ]
    if not swap_in:
        return stmts
    back = _swap_back(ctx, following, swap_in, models, holders)
    during = following[: back + 1] if back is not None else []
    before = _with_needed(between, swap_in, during)
    for stmt in [*before, *during]:
        _check_movable(ctx, stmt, models, holders)
    kept = [s for s in between if not _in(s, before)]
    _check_kept(ctx, kept, [*before, *during], loop, models)
    _check_setup_order(kept, before, pass_names)
    inner = list(with_stmt.body.body)
    moved = with_stmt.with_changes(
        body=with_stmt.body.with_changes(body=[*_unspaced(before), *inner, *_unspaced(during)])
    )
    ctx.found["weight_swap"] = True
    return [*stmts[: at + 1], *kept, moved, *following[len(during) :]]


def _unspaced(stmts) -> list:
    """`stmts` without the blank lines that set the first apart in the epoch (its comments
    stay): they join the pass's hooks."""
    if not stmts:
        return []
    lines = list(stmts[0].leading_lines)
    while lines and lines[0].comment is None:
        lines.pop(0)
    return [stmts[0].with_changes(leading_lines=lines), *stmts[1:]]


def clean(ctx, plan) -> None:
    """(After every pattern read the loop: the validation pass is in the plan.)"""
    if ctx.found.get("weight_swap") and plan.validation is not None:
        plan.add_trainer_arg("inference_mode", "False")
        plan.notes.append(
            "the weights swapped in for validation are swapped in on_validation_epoch_start, "
            "and back right after what used them; inference_mode=False, so that tensors the "
            "swap creates inside the pass are ordinary tensors, as the script's were"
        )


# -- what the pass runs, and what holds it -------------------------------------------------
def _modules_run(ctx, loop: cst.For) -> set[str]:
    """Names the pass calls that are bound in the loop's scope (the model, `model(x)`), not
    the file's functions or classes, nor builtins."""
    called = {c.func.value for c in m.findall(loop, m.Call(func=m.Name()))}
    return {
        n
        for n in called
        if n not in _BUILTINS
        and n not in ctx.module_defs
        and (ctx.binding(n)[1] > 0 or n in ctx.params)
    }


# -- the swap ---------------------------------------------------------------------------
def _swaps(ctx, stmt, models: set[str], holders) -> bool:
    """`stmt` may change a model's weights: the model's `load_state_dict(...)` or an in-place
    method on it (`model.weight.data.copy_(...)`), a method of an object holding it
    (`ema.copy_to(...)`, `ema.apply_shadow()`), the model's parameters handed to a call that
    is not torch's, or a loop changing what it iterates of the model in place."""
    if _mode_switch(stmt):
        return False
    for call in m.findall(stmt, m.Call()):
        if console_call(ctx, call):
            continue
        func = call.func
        if isinstance(func, cst.Attribute):
            root = root_name(func.value)
            if root in models and _changes_in_place(func.attr.value):
                return True
            if root in holders:
                return True
        if any(_of_model(a.value, models) for a in call.args) and not _torch_call(ctx, call):
            return True
    if isinstance(stmt, cst.For) and _of_model(stmt.iter, models):
        from ..shapes.epoch_batch import maybe_changed  # shapes import the patterns

        targets = collect_names(cst.SimpleStatementLine([cst.Expr(stmt.target)])).reads
        return bool(maybe_changed(ctx, stmt.body, targets))
    return False


def _changes_in_place(method: str) -> bool:
    return method == "load_state_dict" or (method.endswith("_") and not method.startswith("_"))


def _of_model(node, models: set[str]) -> bool:
    """`node` is a model or reads its parameters / state (`model.parameters()`,
    `zip(model.parameters(), shadow)`)."""
    return bool(collect_names(cst.SimpleStatementLine([cst.Expr(node)])).reads & models)


def _torch_call(ctx, call: cst.Call) -> bool:
    return any(q.split(".")[0] in ("torch", "builtins") for q in ctx.call_qualnames(call))


def _mode_switch(stmt) -> bool:
    return any(call_method(stmt, mode) is not None for mode in _MODES)


def _swap_back(ctx, following, swap_in, models: set[str], holders) -> int | None:
    """Index in `following` of the first top-level statement that swaps the weights back:
    it changes a model and uses an object the swap used or a name it bound."""
    used = set()
    for stmt in swap_in:
        names = collect_names(stmt)
        used |= names.writes | (names.reads & set(holders))
    for i, stmt in enumerate(following):
        if _swaps(ctx, stmt, models, holders) and collect_names(stmt).reads & used:
            return i
    return None


def _with_needed(between, swap_in, during) -> list:
    """The swap and the epoch code before it that it (or the code run while swapped) reads,
    in the script's order: `backup = copy.deepcopy(model.state_dict())`, `train_loss /= n`."""
    chosen = {id(s) for s in swap_in}
    needed = set().union(*(collect_names(s).reads for s in [*swap_in, *during]))
    for stmt in reversed(between):
        if id(stmt) in chosen:
            needed |= collect_names(stmt).reads
        elif collect_names(stmt).writes & needed and not _mode_switch(stmt):
            chosen.add(id(stmt))
            needed |= collect_names(stmt).reads
    return [s for s in between if id(s) in chosen]


def _in(stmt, stmts) -> bool:
    return any(stmt is s for s in stmts)


# -- what may move ----------------------------------------------------------------------
def _check_movable(ctx, stmt, models: set[str], holders) -> None:
    """Unsupported (TL137) when `stmt` cannot run inside the validation hooks as it ran in
    the epoch."""

    def refuse(why: str):
        raise Unsupported(
            WEIGHT_SWAP,
            f"the weights swapped in for the validation pass would be swapped in its hooks, "
            f"where this statement {why}",
            stmt,
        )

    if contains(stmt, FLOW):
        refuse("would not leave the epoch (break / continue / return while swapped)")
    if contains(stmt, BACKWARD | OPTIMIZER_CALL) or _uses_gradients(ctx, stmt):
        refuse("would run without gradients")
    if _mode_switch(stmt) or any(
        isinstance(c.func, cst.Attribute) and c.func.attr.value in _MODES and not c.args
        for c in m.findall(stmt, m.Call())
    ):
        refuse("would switch a mode Lightning sets and restores around the pass")
    if draws(ctx, stmt, functions_drawing(ctx)):
        refuse("would draw random numbers after Lightning's iterator of the validation loader")
    if contains(stmt, LOOP) and not ctx.harmless_loop(stmt):
        refuse("would iterate a loader inside the validation pass")
    for call in m.findall(stmt, m.Call()):
        why = _unreadable_call(ctx, call, models, holders)
        if why:
            refuse(why)


def _unreadable_call(ctx, call: cst.Call, models: set[str], holders) -> str | None:
    """Why the conversion cannot tell what `call` does inside the hooks, or None."""
    if console_call(ctx, call):
        return None
    func = call.func
    qualnames = ctx.call_qualnames(call)
    name = code_of(func)
    if isinstance(func, cst.Name):
        if func.value in models or func.value in holders:
            return f"would run `{name}` in eval mode"
        if (
            qualnames & _COPIES
            or func.value in _BUILTINS
            and (func.value in _NOT_ITERATING or not _hands_loader(ctx, call))
        ):
            return None
        return f"calls `{name}(...)`, which the conversion cannot read"
    if qualnames:
        if any(q.startswith("torch.") for q in qualnames) and not _hands_loader(ctx, call):
            return None
        if qualnames & _COPIES or all(q.startswith(_PLAIN_MODULES) for q in qualnames):
            return None
        return f"calls `{name}(...)`, which the conversion cannot read"
    if not isinstance(func, cst.Attribute):
        return f"calls `{name}(...)`, which the conversion cannot read"
    root = root_name(func.value)
    method = func.attr.value
    if root in models:
        return None if method in _STATE_METHODS else f"would run `{name}(...)` in eval mode"
    if root in holders and isinstance(func.value, cst.Name):
        return _holder_method(ctx, holders[root], method, name)
    if root in holders:  # `ema.module.load_state_dict(...)`: a module the holder holds
        return None if method in _STATE_METHODS else f"calls `{name}(...)`"
    return None  # a tensor's method (`p.data.copy_(s)`), its random samplers found by draws


def _hands_loader(ctx, call: cst.Call) -> bool:
    return any(
        isinstance(a.value, cst.Name) and ctx.is_loader_name(a.value.value) for a in call.args
    )


def _holder_method(ctx, built: cst.Call, method: str, name: str) -> str | None:
    """A method of an object holding the model: one of torch_ema's known methods, or a method
    of a class of the script that draws nothing and calls nothing but its own methods, torch
    and builtins."""
    kinds = ctx.call_qualnames(built)
    for kind, methods in _LIBRARY_METHODS.items():
        if kind in kinds:
            return None if method in methods else f"calls `{name}(...)` of {kind}"
    cls = _script_class(ctx, built)
    methods = (
        {f.name.value: f for f in cls.body.body if isinstance(f, cst.FunctionDef)} if cls else {}
    )
    if method not in methods and method in _STATE_METHODS:
        return None  # a copy of the model's `ema_model.state_dict()`, not overridden
    if cls is None:
        return f"calls `{name}(...)`, a method of an object the conversion cannot read"
    seen, todo = set(), [method]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        fn = methods.get(current)
        if fn is None:
            return f"calls `{name}(...)`, which its class does not define"
        why = _method_body(ctx, fn, methods, todo)
        if why:
            return f"calls `{name}(...)`, which {why}"
    return None


def _method_body(ctx, fn: cst.FunctionDef, methods, todo: list) -> str | None:
    """Why method `fn` of a script class may do what the hooks could not, or None; its calls
    of the class's own methods are added to `todo`."""
    if draws(ctx, fn.body, functions_drawing(ctx)):
        return "draws random numbers"
    if contains(fn.body, BACKWARD | OPTIMIZER_CALL):
        return "uses gradients"
    for call in m.findall(fn.body, m.Call()):
        func = call.func
        if m.matches(func, m.Attribute(value=m.Name("self"), attr=m.Name())):
            if func.attr.value in methods:
                todo.append(func.attr.value)
                continue
            return f"calls `self.{func.attr.value}(...)`, which may run a module"
        if isinstance(func, cst.Attribute):
            if func.attr.value in _MODES and not call.args:
                return "switches a mode"
            continue  # a tensor's or the held model's method (`parameters()`, `copy_`)
        qualnames = ctx.call_qualnames(call)
        if isinstance(func, cst.Name) and func.value in _BUILTINS:
            continue
        if any(q.startswith("torch.") for q in qualnames) or qualnames & _COPIES:
            continue
        return f"calls `{code_of(func)}(...)`"
    return None


def _script_class(ctx, built: cst.Call) -> cst.ClassDef | None:
    if not isinstance(built.func, cst.Name):
        return None
    return next(
        (
            c
            for c in ctx.module.body
            if isinstance(c, cst.ClassDef) and c.name.value == built.func.value
        ),
        None,
    )


def _check_setup_order(kept, before, pass_names: set[str]) -> None:
    """Unsupported (TL137) when moved code reads what the pass's own setup binds (its
    accumulators, `hidden = model.init_hidden(n)`): the setup runs first in
    on_validation_epoch_start, whatever the script's order."""
    setup = [s for s in kept if collect_names(s).writes & pass_names]
    bound = set().union(*(collect_names(s).writes for s in setup)) if setup else set()
    for stmt in before:
        shared = collect_names(stmt).reads & bound
        if shared:
            raise Unsupported(
                WEIGHT_SWAP,
                "the weights swapped in for the validation pass would be swapped in "
                f"on_validation_epoch_start, after the pass's setup binds `{sorted(shared)[0]}`, "
                "which this statement reads",
                stmt,
            )


def _check_kept(ctx, kept, moved, loop, models: set[str]) -> None:
    """Unsupported (TL137) when epoch code left between the batch loop and the pass (run
    after the pass now) reads what the moved code changes or changes what it reads. The
    pass's own setup (its accumulators) and mode switches are not in question here."""
    from ..shapes.epoch_batch import maybe_changed  # shapes import the patterns

    pass_names = collect_names(loop).all()
    kept = [s for s in kept if not _mode_switch(s) and not collect_names(s).writes & pass_names]
    if not kept:
        return
    moved_block = cst.IndentedBlock(body=list(moved))
    moved_names = collect_names(moved_block).all()
    for stmt in kept:
        block = cst.IndentedBlock(body=[stmt])
        changed = maybe_changed(ctx, block, moved_names)
        if not changed:
            reads = collect_names(stmt).reads
            changed = maybe_changed(ctx, moved_block, reads) & reads
            # the swap changes the models in place: code reading them, directly or through
            # a function of the script reading them as globals, sees the difference
            readers = functions_reading(ctx.module, models)
            changed |= (models | readers) & reads
        if changed:
            raise Unsupported(
                WEIGHT_SWAP,
                "the weights swapped in for the validation pass would be swapped in "
                "on_validation_epoch_start, before this epoch code, which Lightning runs after "
                f"the pass (on_train_epoch_end) and which shares `{sorted(changed)[0]}` with "
                "the swap",
                stmt,
            )
