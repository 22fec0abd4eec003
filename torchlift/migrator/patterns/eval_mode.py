"""Pattern: the model's mode during evaluation, kept as the script had it.

Lightning puts the module in eval mode before validation and test (`on_validation_model_eval`
/ `on_test_model_eval`) and restores the modes afterwards. A script that evaluates without
ever calling `model.eval()` evaluates in train mode: its Dropout draws masks and its
BatchNorm uses (and updates) batch statistics. The conversion keeps that:

    def on_validation_model_eval(self):
        # the script evaluated in train mode (it never called model.eval())
        self.train()

The hook exists with that meaning on both targets (Lightning 2.6 and the runtime call it
after capturing the modes, and restore them after the pass).

A pass runs in eval mode when `model.eval()` is called, unconditionally, after the batch loop
and before the pass (or, for a test pass, before it after training); in train mode when the
loop and the code around the pass never call `model.eval()`. Anything else (eval() under a
condition, inside the pass, or only in some epochs) is refused (TL147). Epoch code after an
eval-mode pass that runs the model (a forward, `model.decode(z)`, the model handed to a
function) finds it back in train mode in Lightning, where BatchNorm would update its statistics
and Dropout draw masks: the script's `model.eval()` runs again before that code in
`on_train_epoch_end`, and its `model.train()` at the next epoch's start stays (refused, TL147,
when the epoch does not start with one). Without a validation
loop (an evaluation on whole tensors at the epoch's end), the script's own `model.eval()` /
`model.train()` calls stay where they were: Lightning switches no mode around those hooks.
After `fit` (and `test`), a model the script's last pass left in eval mode is put back in
eval mode when later code runs it.

Lightning switches the whole LightningModule, every module handed to it at once, and restores
each one's mode after the pass. A pass that runs another module besides the model (an EMA
copy, `AveragedModel(model)`, a module the script builds) runs it in the mode the script gave
it: `on_validation_model_eval` sets that mode when it is not Lightning's eval, and the
script's own `ema.eval()` runs in on_train_epoch_end after the pass, so the mode Lightning
restores is the script's again from there on (other_module_modes.py). Refused (TL147) when
that mode is not certain: the module switched inside other code (a step, a condition, the
pass itself), only after the pass, handed to a function of the script that switches modes,
or never switched while not built in train mode right before the loop.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.function_reads import names_reading
from ..analysis.model_handoff import only_reads_state
from ..analysis.model_modes import mode_set
from ..analysis.names import bound_names, collect_names
from ..analysis.statements import call_method
from ..rule import Rule
from .mode_calls import _may_be_in_eval_mode
from .other_module_modes import constructs_module, dotted, mode_at_pass

EVAL_MODE_UNKNOWN = Rule(
    "TL147",
    "the model's mode during evaluation cannot be determined",
    """Lightning switches the model to eval mode for validation and test, and the conversion
    keeps a script's train-mode evaluation by overriding `on_validation_model_eval`. That needs
    the mode at the pass to be certain: `model.eval()` called unconditionally between the batch
    loop and the pass, or never at all.""",
    """Call `model.eval()` right before the evaluation loop (and `model.train()` before the
    batch loop), unconditionally.""",
    """
    for epoch in range(2):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        if epoch > 0:
            model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                print(criterion(model(x), y).item())
    """,
)

RULES = (EVAL_MODE_UNKNOWN,)


def read(ctx, plan, steps) -> None:
    from .bindings import parameter_aliases  # the same module (or its compiled wrapper)

    models = {plan.model.name, *plan.model.aliases, *parameter_aliases(ctx, plan.model.name)}
    validation, test = plan.validation, plan.test
    epoch = [*plan.pre_train, *plan.train_body, *plan.post_train]
    if validation is not None:
        epoch += [*validation.before, *validation.body, *validation.after]
    epoch_calls = [stmt for stmt in epoch if _mode_calls(stmt, models, "eval")]
    # train mode at the pass unless something set eval mode: code before the loop may have,
    # unless each epoch starts with model.train()
    evaluated_before = _may_be_in_eval_mode(ctx, plan.model.name) and not _switches(
        plan.pre_train, models, "train"
    )
    in_eval_mode = False  # the mode the epoch loop leaves the model in
    if validation is not None:
        between = [s for s in plan.post_train if not any(s is t for t in validation.following)]
        _other_modes(ctx, plan, validation, models, between)
        if _switches_to_eval([*between, *validation.before], models):
            after = [*validation.after, *validation.following]
            in_eval_mode = not any(_mode_calls(s, models, "train") for s in after)
            helpers = _helpers_reading(ctx.module, models)
            runs = (
                [s for s in after if _runs_model(ctx, s, models, helpers)] if in_eval_mode else []
            )
            if runs and not _eval_again_after_pass(plan, validation, between, runs, models):
                ctx.block(
                    EVAL_MODE_UNKNOWN,
                    "code after the evaluation runs the model, which the script left in eval "
                    "mode and Lightning puts back in train mode before it",
                    runs[0],
                )
        elif not epoch_calls and not evaluated_before:
            validation.keeps_train_mode = True
        else:
            ctx.block(
                EVAL_MODE_UNKNOWN,
                "model.eval() is called, but not unconditionally between the batch loop and "
                "the validation loop",
                epoch_calls[0] if epoch_calls else validation.anchor,
            )
    else:
        _keep_epoch_end_modes(ctx, plan, models)
    if in_eval_mode and _model_runs_after(ctx, models):
        plan.eval_after.add("fit")
    if test is not None:
        _check_other_modules(ctx, test.before, test, models, [*epoch, *plan.test_stmts])
        section_calls = [s for s in plan.test_stmts if _mode_calls(s, models, "eval")]
        if _switches_to_eval(test.before, models) or (in_eval_mode and not section_calls):
            if _model_runs_after(ctx, models):
                plan.eval_after.add("test")
            return
        if not epoch_calls and not section_calls and not evaluated_before:
            test.keeps_train_mode = True
            return
        ctx.block(
            EVAL_MODE_UNKNOWN,
            "model.eval() is called, but not unconditionally before the test loop",
            test.anchor,
        )


# a copy of the model has its own train/eval mode, which Lightning does not track apart
_MODEL_COPIES = frozenset({"copy.deepcopy", "torch.optim.swa_utils.AveragedModel"})


def _other_modes(ctx, plan, validation, models: set[str], between) -> None:
    """The mode the script ran each module besides the model in during the validation pass
    (other_module_modes), recorded for `on_validation_model_eval`; TL147 when it is not
    certain or Lightning's restoring of modes after the pass would not follow the script."""
    in_pass_after = {id(s) for s in validation.after}

    def runs(stmt, name: str) -> bool:
        root = name.split(".")[0]  # what runs `averaged` may run `averaged.module`
        return _runs_model(ctx, stmt, {root}, _helpers_reading(ctx.module, {root}))

    epoch = [*plan.pre_train, *between, *validation.before, *validation.following]
    for name, node in _other_modules(ctx, validation.body, models, epoch):
        mode, refusal = mode_at_pass(
            ctx,
            name,
            epoch_start=plan.pre_train,
            before_pass=[s for s in between if id(s) not in in_pass_after],
            after_pass=validation.following,
            pass_setup=validation.before,
            others=[
                *plan.before_step,
                *plan.train_body,
                *plan.after_step,
                *validation.body,
                *validation.after,
            ],
            runs=runs,
        )
        if refusal is not None:
            why, at = refusal
            ctx.block(
                EVAL_MODE_UNKNOWN,
                f"the evaluation pass runs `{name}` besides the model, a module with a "
                f"train/eval mode of its own, and {why}",
                at if at is not None else node,
            )
            return
        validation.other_modes[name] = mode


def _check_other_modules(ctx, before, evaluation, models: set[str], epoch) -> None:
    """Refuse (TL147) a pass running a module besides the model whose mode Lightning would not
    keep: the pass runs it in the mode of the whole LightningModule (eval, or train when the
    script never called model.eval()), the script in the mode it last gave that module."""
    model_to_eval = _switches_to_eval(before, models)
    for name, node in _other_modules(ctx, evaluation.body, models, epoch):
        own_switches = [s for s in epoch if _mode_calls(s, {name}, "eval")]
        own_switches += [s for s in epoch if _mode_calls(s, {name}, "train")]
        if model_to_eval and _switches_to_eval(before, {name}) and len(own_switches) == 1:
            continue  # switched to eval with the model, and only there: Lightning's own order
        why = (
            f"the script's own `{name}.eval()` / `.train()` would run after the pass"
            if own_switches
            else f"the script never switches `{name}`, Lightning would"
        )
        ctx.block(
            EVAL_MODE_UNKNOWN,
            f"the evaluation pass runs `{name}` besides the model, a module with a train/eval "
            "mode of its own: Lightning switches every module of the LightningModule together "
            f"for the pass ({why})",
            own_switches[0] if own_switches else node,
        )
        return


def _other_modules(ctx, body, models: set[str], epoch=()) -> list[tuple[str, cst.CSTNode]]:
    """Names besides the model that the pass runs (`ema(x)`, `ema.module(x)`) and the script
    treats as modules with a mode: it calls their `.eval()` / `.train()`, binds them to a
    copy of a model (`copy.deepcopy(model)`, `AveragedModel(model)`) or to a module it builds
    (`teacher = nn.Sequential(...)`, `Net()` of a module class of the file). A submodule the
    pass runs and the script switches by itself (an AveragedModel's `averaged.module`, run as
    `averaged.module(x)` after `averaged.module.eval()`, also in an inlined helper's copy in
    the epoch's statements `epoch`) is named as such."""
    switched = {
        name
        for node in [ctx.module, *epoch]
        for call in m.findall(node, m.Call(func=m.Attribute(attr=m.Name()), args=[]))
        if call.func.attr.value in ("eval", "train")
        and (name := dotted(call.func.value)) is not None
    }
    copies = {
        target.target.value
        for assign in m.findall(ctx.module, m.Assign())
        if ctx.call_qualnames(_made_by(assign.value)) & _MODEL_COPIES
        or constructs_module(ctx, _made_by(assign.value))
        for target in assign.targets
        if isinstance(target.target, cst.Name)
    }
    found: dict[str, cst.CSTNode] = {}
    for stmt in body:
        for call in m.findall(stmt, m.Call()):
            root = call.func
            if isinstance(root, cst.Attribute) and root.attr.value in _MODE_FREE_METHODS:
                continue
            run = dotted(root)
            while isinstance(root, (cst.Attribute, cst.Subscript)):
                root = root.value
            if not isinstance(root, cst.Name) or root.value in models:
                continue
            own = [
                part
                for part in _prefixes(run)
                if part in switched and part != root.value
            ]
            if own:
                found.setdefault(own[0], call)
            elif root.value in switched | copies:
                found.setdefault(root.value, call)
    return list(found.items())


def _prefixes(name: str | None) -> list[str]:
    """`a.b.c`, `a.b`, `a`: the modules a dotted call may run, the longest first."""
    if name is None:
        return []
    parts = name.split(".")
    return [".".join(parts[:k]) for k in range(len(parts), 0, -1)]


def _made_by(value: cst.BaseExpression) -> cst.BaseExpression:
    """The call that makes the object of a method chain: `copy.deepcopy(model)` of
    `copy.deepcopy(model).eval().requires_grad_(False)`."""
    while m.matches(value, m.Call(func=m.Attribute(value=m.Call()))):
        value = value.func.value
    return value


def _model_runs_after(ctx, models: set[str]) -> bool:
    """Code after the loop runs the model (a prediction, BatchNorm's statistics updated by a
    forward before a save) or returns it to a caller who may: left in eval mode by the
    script's last evaluation pass, it must be in eval mode there too, and Lightning puts it
    back in train mode after each of its passes."""
    helpers = _helpers_reading(ctx.module, models)
    for stmt in ctx.scope_after:
        if _runs_model(ctx, stmt, models, helpers):
            return True
        for returned in m.findall(stmt, m.Return()):
            if returned.value is not None and collect_names(returned.value).reads & models:
                return True
        if bound_names(stmt) & models:  # a new model (the next fold's): this one is done
            return False
    return False


def _eval_again_after_pass(plan, validation, between, runs, models: set[str]) -> bool:
    """Epoch code after an eval-mode pass that runs the model (pytorch/examples' VAE decoding
    samples after `test(epoch)`): the script's `model.eval()` runs again in
    `on_train_epoch_end`, right before that code (where Lightning has restored train mode),
    and its `model.train()` at the next epoch's start stays (mode_calls), so the model runs in
    each mode where the script ran it. Only when the epoch starts with `model.train()` and
    the runs are in the epoch's code after the pass (its `on_validation_epoch_end` part runs
    in Lightning's eval mode already); False otherwise (TL147)."""
    following = {id(s) for s in validation.following}
    if not _switches(plan.pre_train, models, "train") or not following:
        return False
    if any(id(s) not in following for s in runs):
        return False
    switch = [s for s in [*between, *validation.before] if _switches_to_eval([s], models)][-1]
    plan.epoch_end_modes = True  # every mode call of the epoch's end stays where it is
    plan.kept_mode_calls.append(switch)  # (the change log reads the script's own statement)
    commented = switch.with_changes(leading_lines=[*switch.leading_lines, _EVAL_AGAIN])
    at = next((i for i, s in enumerate(plan.post_train) if s is switch), None)
    if at is not None:  # between the batch loop and the pass: on_train_epoch_end already
        plan.post_train[at] = commented
    else:
        first = next(i for i, s in enumerate(plan.post_train) if id(s) in following)
        plan.post_train.insert(first, commented)
    return True


_EVAL_AGAIN = cst.EmptyLine(
    comment=cst.Comment(
        "# the script's evaluation left the model in eval mode here (Lightning's: train)"
    )
)


def _keep_epoch_end_modes(ctx, plan, models: set[str]) -> None:
    """Epoch code after the batch loop with no validation pass Lightning could run in eval
    mode (an evaluation over `range(...)` or whole tensors) that runs the model after
    `model.eval()`: the script's own mode calls there stay in `on_train_epoch_end`, in their
    order, and so does its `model.train()` at the next epoch's start (mode_calls): Lightning
    switches no mode around that hook, so the model runs there in the mode the script gave it,
    and trains in the next epoch in the mode the script gave it then."""
    helpers = _helpers_reading(ctx.module, models)
    in_eval_mode = False
    for stmt in plan.post_train:
        if _switches_to_eval([stmt], models):
            in_eval_mode = True
        elif _switches([stmt], models, "train"):
            in_eval_mode = False
        elif in_eval_mode and _runs_model(ctx, stmt, models, helpers):
            plan.epoch_end_modes = True
            return


def _switches_to_eval(stmts, models: set[str]) -> bool:
    return _switches(stmts, models, "eval")


def _switches(stmts, models: set[str], method: str) -> bool:
    """Some top-level statement of `stmts` is `<model>.<method>()` (`<model>.train(False)`
    is `<model>.eval()`, `<model>.train(True)` is `<model>.train()`)."""
    for stmt in stmts:
        for name in ("train", "eval"):
            receiver = call_method(stmt, name)
            if isinstance(receiver, cst.Name) and receiver.value in models:
                if mode_set(stmt.body[0].value) == method:
                    return True
    return False


def _mode_calls(node, models: set[str], method: str) -> list[cst.Call]:
    """`<model>.eval()` / `<model>.train()` calls anywhere in `node` (`.train(False)` /
    `.train(True)` alike)."""
    return [
        call
        for call in m.findall(node, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name())))
        if call.func.value.value in models and mode_set(call) == method
    ]


# methods whose result does not depend on the module's train/eval mode
_MODE_FREE_METHODS = frozenset(
    {
        "state_dict",
        "load_state_dict",
        "parameters",
        "named_parameters",
        "buffers",
        "named_buffers",
        "modules",
        "named_modules",
        "children",
        "named_children",
        "train",
        "eval",
        "to",
        "cpu",
        "cuda",
        "zero_grad",
    }
)


def _helpers_reading(module: cst.Module, models: set[str]) -> set[str]:
    """Names of the functions of the script (methods and nested ones included) that read a
    model name (a global, or a parameter spelled the same: either way the call may run the
    model), directly or through another."""
    return names_reading(m.findall(module, m.FunctionDef()), models)


def _runs_model(ctx, node, models: set[str], helpers: set[str]) -> bool:
    """`node` calls the model or one of its (sub)modules' mode-dependent methods, hands the
    model itself to a function, or calls a function of the script that reads the model: a run
    whose result may depend on the train/eval mode. Not a callee of the script that only
    takes the model's state (`early_stopping(val_loss, model)` saving its state_dict)."""
    return any(_call_runs_model(ctx, call, models, helpers) for call in m.findall(node, m.Call()))


def _call_runs_model(ctx, call: cst.Call, models: set[str], helpers: set[str]) -> bool:
    """_runs_model of one call itself (the calls in its arguments aside)."""
    func = call.func
    hands_model = any(isinstance(a.value, cst.Name) and a.value.value in models for a in call.args)
    if hands_model and only_reads_state(ctx, call, models):
        return False
    if isinstance(func, cst.Name) and func.value in helpers:
        return True
    if isinstance(func, cst.Attribute) and func.attr.value in _MODE_FREE_METHODS:
        return False
    root = func
    while isinstance(root, (cst.Attribute, cst.Subscript)):
        root = root.value
    return (isinstance(root, cst.Name) and root.value in models) or hands_model
