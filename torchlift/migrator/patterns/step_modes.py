"""Pattern: the model trains and evaluates in the mode the script gave it, at every step.

Lightning keeps the model's train/eval mode as it finds it, except around an evaluation pass:
it captures every module's mode, switches to eval (or to what `on_validation_model_eval` says),
runs the pass and restores the captured modes. The script's own mode calls are what mode_calls
and eval_mode leave of them in the hooks. So the conversion's mode at a step can differ from
the script's:

    model.train()
    for epoch in range(4):
        for x, y in loader:         <- the script: train mode in epoch 1, eval mode after;
            ...                        the conversion: train mode in every epoch
        evaluate(model, val_loader)    # calls model.eval(); nothing calls model.train() again

    def test(model, loader):
        model.eval()
        for x, y in loader:
            model.train()           <- the script evaluates in train mode (dropout draws from
            ...                        torch's generator, BatchNorm statistics update); the
                                       conversion's validation_step runs in eval mode

Both runs are traced (analysis/model_modes.py) from the mode the model has when the loop
starts: the script's epoch as it reads (the code before the batch loop, the batch loop's
statements, the epoch code around the pass, the pass itself), and the conversion's as Lightning
runs its hooks (on_train_epoch_start, the step and the hooks around it, the pass in
Lightning's mode with what stays of the script's calls in its hooks, on_train_epoch_end), for
the first epoch and the later ones (entered in the mode the one before left). Each statement
running the model must find it in the same mode in both: at the training steps and the epoch's
code before them (on_train_epoch_start, where Lightning switches no mode: TL148), in the
validation and test passes (TL147), and in code after training that runs the model (TL148;
around a test pass, the code before it from the mode training leaves, the code after it from
the mode the pass leaves: Lightning's `trainer.test` restores the mode it finds). A run is taken
where it happens: `print(accuracy(model))` runs the model in the mode `accuracy()` sets first.
A model whose modules behave alike in both modes is no exception: a module of the user's may
not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from ..analysis.function_reads import functions_doing, module_functions
from ..analysis.model_modes import (
    CALLED,
    EITHER,
    EVAL,
    INITIAL,
    MODE_KEEPING_METHODS,
    TRAIN,
    Mode,
    ModeTracer,
    Run,
    Via,
    join,
    settle,
)
from ..analysis.names import bound_names, only_module_binding
from ..rule import Rule, Unsupported
from ..source.code_text import first_line
from .eval_mode import (
    EVAL_MODE_UNKNOWN,
    _call_runs_model,
    _helpers_reading,
    _made_by,
)
from .factories import _local_value, _own_returns
from .mode_calls import _given_in_unknown_mode, _hands_model
from .other_module_modes import constructs_module

TRAINING_MODE = Rule(
    "TL148",
    "the script trains the model in a mode the conversion would not keep",
    """Lightning leaves the model's train/eval mode as it finds it, except that it puts the
    model in eval mode for a validation pass and restores the mode it had afterwards; the
    script's `model.train()` / `model.eval()` calls become those switches. A script whose
    training steps run in another mode -- an evaluation helper calls `model.eval()` and nothing
    calls `model.train()` again, so every epoch after the first trains in eval mode (Dropout
    off, BatchNorm on its running statistics) -- would train differently once converted. A
    model without Dropout or BatchNorm is no exception: a module of yours may behave
    differently in each mode.""",
    """If the later epochs were meant to train in train mode, call `model.train()` at the top
    of each epoch (or in the training helper); if not, keep the loop as it is.""",
    """
    val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


    def evaluate(net, data_loader):
        net.eval()
        with torch.no_grad():
            for x, y in data_loader:
                print(criterion(net(x), y).item())


    model.train()
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        evaluate(model, val_loader)
    """,
)

RULES = (TRAINING_MODE,)


@dataclass
class EpochTrace:
    start: list[Run] = field(default_factory=list)  # the runs of its code before the batch loop
    training: list[Run] = field(default_factory=list)  # the batch loop's runs (first, later steps)
    validation: list[Run] = field(default_factory=list)  # the pass's runs
    end: Mode | None = None  # the mode the epoch leaves the model in


@dataclass
class Trace:
    start: Mode
    first: EpochTrace
    later: EpochTrace  # every epoch after the first (entered in the mode the first left)
    test: list[Run] = field(default_factory=list)
    fitted: Mode | None = None  # after training
    final: Mode | None = None  # after training (and the test pass)


def read(ctx, plan, steps) -> None:
    script_trace(ctx, plan)  # before clean() drops the script's mode calls


def clean(ctx, plan) -> None:
    if ctx.blockers:
        return  # refused already: the hooks the conversion would have are not all known
    script = script_trace(ctx, plan)
    if script is None:
        return
    converted = _converted_trace(ctx, plan, script.start)
    checks = [
        (
            TRAINING_MODE,
            "the first epoch's code before its batch loop runs",
            script.first.start,
            converted.first.start,
        ),
        (TRAINING_MODE, "the first epoch trains", script.first.training, converted.first.training),
        (
            TRAINING_MODE,
            "the code before the batch loop of the epochs after the first runs",
            script.later.start,
            converted.later.start,
        ),
        (
            TRAINING_MODE,
            "the epochs after the first train",
            script.later.training,
            converted.later.training,
        ),
        (
            EVAL_MODE_UNKNOWN,
            "the validation pass runs",
            script.first.validation,
            converted.first.validation,
        ),
        (
            EVAL_MODE_UNKNOWN,
            "the validation passes after the first run",
            script.later.validation,
            converted.later.validation,
        ),
        (EVAL_MODE_UNKNOWN, "the test pass runs", script.test, converted.test),
    ]
    if _one_epoch(plan):  # no later epoch (a step loop is one epoch of its steps)
        checks = [c for c in checks if "after the first" not in c[1]]
    for rule, where, ours, theirs in checks:
        found = _first_difference(ours, theirs)
        if found is not None:
            run, other = found
            training = rule is TRAINING_MODE
            ctx.block(
                rule,
                f"{where} the model in {_describe(run.mode)}"
                f"{_set_by(ctx, plan, run.mode, training)}; a conversion would put it in "
                f"{_describe(other)}"
                f"{_lightning_note(run.mode, other, training)}",
                _cause(ctx, run.mode, run.stmt),
            )
            return
    found = _observed_after(ctx, plan, script, converted)
    if found is not None:
        run, ours, theirs = found
        ctx.block(
            TRAINING_MODE,
            f"code after training runs the model or reads its mode "
            f"(`{first_line(run.stmt, ctx.module)}`), "
            f"which the script leaves in {_describe(ours)}{_set_by(ctx, plan, ours, False)}; "
            f"a conversion would leave it in {_describe(theirs)}",
            _cause(ctx, ours, plan.epoch_loop),
        )


def _observed_after(ctx, plan, script: Trace, converted: Trace) -> tuple[Run, Mode, Mode] | None:
    """The first statement after training that observes the model's mode (runs it, reads a
    `.training` flag, hands the model object on or returns it) finding it in another mode in
    the script than once converted, with the modes the code before it leaves in each. The
    mode training leaves flows along that code as a value: a `train()` / `eval()` there sets
    it again before any observation (the script's own `model.eval()` before predicting), and
    then both runs observe the same mode. Around a test pass, the code before it starts from
    the mode training leaves, the code after it from the mode the pass leaves (Lightning's
    `trainer.test` restores the mode it found)."""
    parts = [(ctx.scope_after, script.final, converted.final)]
    if plan.test is not None:
        before = {id(s) for s in _until(ctx.after, plan.test_stmts)}
        parts = [
            ([s for s in ctx.scope_after if id(s) in before], script.fitted, converted.fitted),
            ([s for s in ctx.scope_after if id(s) not in before], script.final, converted.final),
        ]
    for stmts, ours, theirs in parts:
        if ours == theirs:
            continue  # the same mode, the same code: the same modes all along
        run = _first_observed(ctx, plan, stmts, ours, theirs)
        if run is not None:
            return run, ours, theirs
    return None


def _first_observed(ctx, plan, stmts, script_entry: Mode, converted_entry: Mode) -> Run | None:
    """The first run of `stmts` finding the model in another mode entered in `script_entry`
    than in `converted_entry`."""
    models = _models(plan)
    shared = _tracer(ctx, plan)

    def reads(node, names) -> bool:
        return bool(m.findall(node, m.Attribute(attr=m.Name("training")))) or (
            _model_object_used(node, names)
        )

    def runs_after(entry: Mode) -> list[Run]:
        tracer = ModeTracer(
            ctx,
            models,
            observes=shared.observes,
            reads=reads,
            harmless=shared.harmless,
            builds_module=shared.builds_module,
            model_class=shared.model_class,
            every_statement=True,
        )
        tracer.block(stmts, entry)
        return tracer.recorded

    ours, theirs = runs_after(script_entry), runs_after(converted_entry)
    if len(ours) != len(theirs):
        return ours[0] if ours else theirs[0]
    return next((run for run, other in zip(ours, theirs) if run.mode != other.mode), None)


def _model_object_used(node, models: set[str]) -> bool:
    """The model object itself goes somewhere a mode may be read later (`net = model`,
    `return model`, `[model]`, `model.fc` kept): a read of a model name other than a call of
    it or of its method, or an argument (_runs_model judges those), a name bound or deleted."""
    kept = set()
    for call in m.findall(node, m.Call()):
        kept.add(id(call.func))
        if isinstance(call.func, cst.Attribute):
            kept.add(id(call.func.value))
        kept |= {id(arg.value) for arg in call.args}
    for attribute in m.findall(node, m.Attribute()):
        kept.add(id(attribute.attr))
    for target in m.findall(node, m.AssignTarget() | m.AugAssign() | m.AnnAssign()):
        if not isinstance(target.target, (cst.Attribute, cst.Subscript)):  # names bound
            kept |= {id(name) for name in m.findall(target.target, m.Name())}
    for deleted in m.findall(node, m.Del()):  # `del model`: unbound, nothing read
        kept |= {id(name) for name in m.findall(deleted.target, m.Name())}
    for arg in m.findall(node, m.Arg()):
        if arg.keyword is not None:
            kept.add(id(arg.keyword))
    for param in m.findall(node, m.Param()):
        kept.add(id(param.name))
    names = m.findall(node, m.Name())
    return any(name.value in models and id(name) not in kept for name in names)


def _end_of_training(plan, trace: Trace) -> Mode:
    """The mode the last epoch leaves: the first's, or any later one's."""
    if _one_epoch(plan):
        return trace.first.end
    epochs = dict(plan.trainer_args).get("max_epochs", "")
    if epochs.isdigit():  # a number of epochs > 1: the last is a later one
        return trace.later.end
    return join(trace.first.end, trace.later.end)


def _one_epoch(plan) -> bool:
    return plan.step_loop or dict(plan.trainer_args).get("max_epochs") == "1"


# -- the script ---------------------------------------------------------------------------------
def script_trace(ctx, plan) -> Trace | None:
    """The modes the script's model runs in (computed once, while the plan still holds the
    script's own mode calls)."""
    if "script_modes" in ctx.found:
        return ctx.found["script_modes"]
    if not plan.models:
        return None
    tracer = _tracer(ctx, plan)
    start = start_mode(ctx, plan, tracer)
    v = plan.validation
    batch = [*plan.before_step, *plan.train_body, *plan.after_step]

    def epoch(entry: Mode) -> EpochTrace:
        trace = EpochTrace()
        tracer.recorded = []
        mode = tracer.block(plan.pre_train, entry)
        trace.start, tracer.recorded = tracer.recorded, []
        mode = tracer.loop(batch, mode, at_least_once=True)
        trace.training = tracer.recorded
        if v is None:
            tracer.recorded = []
            trace.end = tracer.block(plan.post_train, mode)
            return trace
        tracer.recorded = []
        mode = tracer.block(v.between, mode)
        tracer.recorded = []
        mode = tracer.statement(v.anchor, mode)
        trace.validation = tracer.recorded
        tracer.recorded = []
        trace.end = tracer.block(v.following, mode)
        return trace

    trace = _epochs(epoch, start)
    trace.final = trace.fitted = _end_of_training(plan, trace)
    if plan.test is not None:
        before_test = _until(ctx.after, plan.test_stmts)
        mode = tracer.block(before_test, trace.final)
        tracer.recorded = []
        trace.final = tracer.block(plan.test_stmts, mode)
        trace.test = tracer.recorded
    ctx.found["script_modes"] = trace
    return trace


def _epochs(epoch, start: Mode) -> Trace:
    """The first epoch, entered in `start`, and the later ones, entered in any mode an
    earlier one may leave (model_modes.settle())."""
    first = epoch(start)
    return Trace(start, first, epoch(settle(lambda entry: epoch(entry).end, first.end)))


def start_mode(ctx, plan, tracer: ModeTracer | None = None) -> Mode:
    """The mode the model has when the loop starts: TRAIN for a module the code before the
    loop builds (`model = Net()`), then what that code does to it; INITIAL when it comes from
    elsewhere (a caller, a global, a library's loader)."""
    if "start_mode" in ctx.found:
        return ctx.found["start_mode"]
    tracer = tracer or _tracer(ctx, plan)
    tracer = ModeTracer(  # the same, recording no runs
        ctx,
        tracer.models,
        harmless=tracer.harmless,
        builds_module=tracer.builds_module,
        model_class=tracer.model_class,
    )
    before = [s for s in ctx.scope_before if not m.matches(s, m.FunctionDef() | m.ClassDef())]
    start = Mode(INITIAL)
    if not any(bound_names(s) & tracer.models for s in before):
        if plan.model.name in ctx.params:
            start = _given_mode(ctx, plan.model.name, tracer)
        elif ctx.in_function:  # a module global: built by the module's code before the call
            before = [*_module_code_before_call(ctx), *before]
    ctx.found["start_mode"] = tracer.block(before, start)
    return ctx.found["start_mode"]


def _given_mode(ctx, name: str, tracer: ModeTracer) -> Mode:
    """A model the function holding the loop is given: the mode every caller's code before
    the call leaves the name it passes in (the same in each), when the callers can be read
    (patterns/passed_in.py) and none may switch it elsewhere; INITIAL otherwise."""
    from .passed_in import _argument, _call_sites, _scope_statements  # (it imports this one's)

    if _given_in_unknown_mode(ctx, name):
        return Mode(INITIAL)
    try:
        sites = [
            (caller, call, _argument(ctx, call, name))
            for caller, call in _call_sites(ctx, ctx.loop)
        ]
    except Unsupported:
        return Mode(INITIAL)
    modes = []
    for caller, call, argument in sites:
        if not isinstance(argument, cst.Name):
            return Mode(INITIAL)
        before = []
        for stmt in _scope_statements(caller):
            if any(c is call for c in m.findall(stmt, m.Call())):
                break
            before.append(stmt)
        caller_tracer = ModeTracer(
            ctx,
            {argument.value},
            harmless=tracer.harmless,
            builds_module=tracer.builds_module,
            model_class=tracer.model_class,
        )
        modes.append(caller_tracer.block(before, Mode(INITIAL)))
    if modes and all(mode.kind == TRAIN for mode in modes):
        return Mode(TRAIN)
    return Mode(INITIAL)


def builds_module(ctx, value, position: int | None = None, depth: int = 3) -> bool:
    """`value` (its element `position` when the caller unpacks it) is a new module, in train
    mode as every new module: `Net()`, `nn.Sequential(...)`, `Net().to(device)`, either of
    `a if c else b`, or a call of a factory of the file returning one -- the module itself or
    a local bound once to one (`model = Net(); return model, optim.SGD(...)`) -- that calls
    no `.eval()` / `.train()` / `.apply()`, nor a function of the file that may."""
    if isinstance(value, cst.IfExp):
        return builds_module(ctx, value.body, position, depth) and builds_module(
            ctx, value.orelse, position, depth
        )
    while m.matches(value, m.Call(func=m.Attribute(attr=m.Name()))) and (
        value.func.attr.value in MODE_KEEPING_METHODS
    ):
        value = value.func.value  # `.to(device)`, `.cuda()`, `.float()`: the same module
    if position is None and constructs_module(ctx, value):
        return True
    if depth == 0 or not m.matches(value, m.Call(func=m.Name())):
        return False
    factory = only_module_binding(ctx.module, value.func.value)
    if not isinstance(factory, cst.FunctionDef) or factory.decorators:
        return False
    if value.func.value in _mode_switching_functions(ctx):
        return False
    returns = _own_returns(factory)
    for returned in returns:
        element = returned.value
        if position is not None:
            if not isinstance(element, cst.Tuple) or len(element.elements) <= position:
                return False
            element = element.elements[position].value
        if isinstance(element, cst.Name):
            element = _local_value(factory, element.value)
        if element is None or not builds_module(ctx, element, None, depth - 1):
            return False
    return bool(returns)


def _mode_switching_functions(ctx) -> set[str]:
    """Module-level functions of the file calling `.eval()` / `.train()` / `.apply()` on
    anything, directly or through another of them."""
    found = ctx.found.get("mode_switching_functions")
    if found is None:
        switching = m.Call(
            func=m.Attribute(attr=m.Name("eval") | m.Name("train") | m.Name("apply"))
        )

        def does(function, known) -> bool:
            if m.findall(function.body, switching):
                return True
            return any(
                m.matches(c.func, m.Name()) and c.func.value in known
                for c in m.findall(function.body, m.Call())
            )

        found = functions_doing(module_functions(ctx.module).values(), does)
        ctx.found["mode_switching_functions"] = found
    return found


def _module_code_before_call(ctx) -> list:
    """Module-level statements that run before the first call of the function holding the
    loop (a global model built there)."""
    name = ctx.function.name.value if ctx.function is not None else None
    found = []
    for stmt in ctx.module.body:
        if m.matches(stmt, m.FunctionDef() | m.ClassDef()):
            continue
        if name is not None and m.findall(stmt, m.Call(func=m.Name(name))):
            break
        found.append(stmt)
    return found


def _until(stmts, section) -> list:
    ids = {id(s) for s in section}
    found = []
    for stmt in stmts:
        if id(stmt) in ids:
            break
        found.append(stmt)
    return found


# -- the conversion -----------------------------------------------------------------------------
def _converted_trace(ctx, plan, start: Mode) -> Trace:
    """The modes the converted model runs in, hook by hook as Lightning calls them."""
    tracer = _tracer(ctx, plan)
    v = plan.validation
    batch = [*plan.before_step, *plan.train_body, *plan.after_step]

    def epoch(entry: Mode) -> EpochTrace:
        trace = EpochTrace()
        tracer.recorded = []
        mode = tracer.block(plan.pre_train, entry)
        trace.start, tracer.recorded = tracer.recorded, []
        mode = tracer.loop(batch, mode, at_least_once=True)
        trace.training = tracer.recorded
        if v is not None:  # Lightning's mode for the pass, then restored
            trace.validation = _converted_pass(tracer, v)
        tracer.recorded = []
        trace.end = tracer.block(plan.post_train, mode)
        return trace

    trace = _epochs(epoch, start)
    fitted = _end_of_training(plan, trace)
    if "fit" in plan.eval_after and plan.test is None:  # (emit/trainer_call.py)
        fitted = Mode(EVAL)
    trace.final = trace.fitted = fitted
    if plan.test is not None:
        trace.test = _converted_pass(tracer, plan.test)
        # trainer.test restores the mode the code before it left
        before = tracer.quietly(_until(ctx.after, plan.test_stmts), fitted)
        trace.final = Mode(EVAL) if "test" in plan.eval_after else before
    return trace


def _converted_pass(tracer: ModeTracer, evaluation) -> list[Run]:
    """The runs of a pass in Lightning: its mode (eval, or train where the conversion keeps
    the script's), then the script's calls left in its hooks."""
    tracer.recorded = []
    mode = Mode(TRAIN if evaluation.keeps_train_mode else EVAL)
    mode = tracer.block(evaluation.before, mode)
    mode = tracer.loop(evaluation.body, mode, at_least_once=True)
    tracer.block(evaluation.after, mode)
    return tracer.recorded


# -- comparing and saying why -------------------------------------------------------------------
def _first_difference(ours: list[Run], theirs: list[Run]) -> tuple[Run, Mode] | None:
    """The first run of the script whose mode the conversion's run of it does not have:
    paired in order when both ran the same statements, else any mode of the script's the
    conversion never has (and the other way round)."""
    if not ours or not theirs:
        return None
    if len(ours) == len(theirs):
        for run, other in zip(ours, theirs):
            if run.mode != other.mode:
                return run, other.mode
        return None
    for run in ours:
        if not any(run.mode == other.mode for other in theirs):
            return run, theirs[0].mode
    for other in theirs:
        if not any(run.mode == other.mode for run in ours):
            return ours[0], other.mode
    return None


def _describe(mode: Mode) -> str:
    if mode.kind in (TRAIN, EVAL):
        return f"{mode.kind} mode"
    if mode.kind == INITIAL:
        return "the mode it had when the loop started"
    if mode.kind == CALLED:
        calls = list(dict.fromkeys(mode.calls or (mode.key,)))  # each call once, in order
        if len(calls) == 1 and not mode.key.endswith(")*"):
            return f"the mode `{calls[0]}` leaves it in"
        said = ", ".join(f"`{call}`" for call in calls[:3]) + (", ..." if len(calls) > 3 else "")
        return f"the mode the calls repeated at each step ({said}) leave it in"
    if mode.kind == EITHER:
        return "a mode that depends on a condition"
    return "a mode that cannot be followed"


def _set_by(ctx, plan, mode: Mode, training: bool) -> str:
    """`: `model.eval()` in `evaluate()` sets it and nothing calls `model.train()` again`."""
    origin = mode.origin
    if origin is None or mode.kind not in (TRAIN, EVAL):
        return ""
    caller = None
    while isinstance(origin, Via):
        caller = caller or origin.stmt
        function, origin = origin.function, origin.inner
    if caller is None:
        function = _function_holding(ctx, origin, plan)
    said = f": `{first_line(ctx.found.get('inlined_at', {}).get(id(origin), origin), ctx.module)}`"
    if function is not None:
        said += f" in `{function}()`"
    if caller is not None:
        said += f" (called by `{first_line(caller, ctx.module)}`)"
    if mode.kind == EVAL and training:
        return f"{said} sets it and nothing calls `{plan.model.name}.train()` again"
    return f"{said} sets it"


def _lightning_note(mode: Mode, converted: Mode, training: bool) -> str:
    if training:
        return " (Lightning leaves the model's mode as it finds it but for its validation passes)"
    if converted.kind == EVAL:
        return " (Lightning evaluates in eval mode)"
    return ""


def _function_holding(ctx, node, plan) -> str | None:
    """The helper of the file `node` comes from: inlined into the loop (helpers.py), or a
    function whose body holds it that is not the one holding the loop."""
    helper = ctx.found.get("inlined_from", {}).get(id(node))
    if helper is not None:
        return helper
    node = ctx.found.get("inlined_at", {}).get(id(node), node)
    for function in m.findall(ctx.module, m.FunctionDef()):
        if function is ctx.function:
            continue
        if any(s is node for s in m.findall(function.body, m.SimpleStatementLine())):
            return function.name.value
    return None


def _cause(ctx, mode: Mode | None, default) -> cst.CSTNode:
    """The node to name: the statement that set the script's mode, in the script's own text
    (a helper's statement where inlining kept it, else the call of the helper)."""
    origin = mode.origin if mode is not None else None
    candidates = []
    while isinstance(origin, Via):
        candidates.insert(0, origin.stmt)
        origin = origin.inner
    if origin is not None:
        candidates.insert(0, origin)
    for node in candidates:
        if _in_file(ctx, node):
            return node
    return candidates[-1] if candidates else default


def _in_file(ctx, node) -> bool:
    found = ctx.found.setdefault("file_statements", None)
    if found is None:
        found = {
            id(s)
            for s in m.findall(ctx.module, m.SimpleStatementLine() | m.BaseCompoundStatement())
        }
        ctx.found["file_statements"] = found
    return id(node) in found


# -- the tracer both runs share -----------------------------------------------------------------
def _models(plan) -> set[str]:
    return {plan.model.name, *plan.model.aliases}


def _model_class(ctx, plan) -> cst.ClassDef | None:
    """The model's class of the file, whose methods the tracer follows: the plan's, else the
    one every binding of the model (or every caller's argument for it) builds."""
    names = {plan.model.class_name} if plan.model.class_name is not None else set()
    if not names:
        name = plan.model.name
        binding, count = ctx.binding(name)
        values = [binding[1]] if binding is not None and count == 1 else []
        if name in ctx.params:
            from .passed_in import passed_values  # (passed_in imports this one's patterns)

            values += [value for _, value in passed_values(ctx, name) or [(None, None)]]
        for value in values:
            names.add(_class_built_by(ctx, value) if value is not None else None)
    if len(names) != 1 or None in names:
        return None
    found = only_module_binding(ctx.module, names.pop())
    return found if isinstance(found, cst.ClassDef) else None


def _class_built_by(ctx, value, depth: int = 3) -> str | None:
    """The name of the class `value` makes an object of: `Net(...)`, `Net(...).to(device)`,
    or a call of a factory of the file each of whose returns makes one of the same class,
    itself or through a local bound once (`net = build_transformer(...); return net`)."""
    made = _made_by(value)
    if not m.matches(made, m.Call(func=m.Name())):
        return None
    name = made.func.value
    factory = only_module_binding(ctx.module, name)
    if not isinstance(factory, cst.FunctionDef):
        return name  # a class (checked by the caller), or nothing known
    if depth == 0 or factory.decorators:
        return None
    classes = set()
    for returned in _own_returns(factory) or [None]:
        element = returned.value if returned is not None else None
        if isinstance(element, cst.Name):
            element = _local_value(factory, element.value)
        classes.add(_class_built_by(ctx, element, depth - 1) if element is not None else None)
    return classes.pop() if len(classes) == 1 else None


def _tracer(ctx, plan) -> ModeTracer:
    models = _models(plan)
    cache = ctx.found.setdefault("step_modes_cache", {})
    helpers, known_runs = cache.setdefault("helpers", {}), cache.setdefault("runs", {})

    def observes(call, names) -> bool:
        """The call runs the model held by `names` (the model's, or a helper's parameter)."""
        key = (id(call), names)
        if key not in known_runs:
            if names not in helpers:
                helpers[names] = _helpers_reading(ctx.module, set(names))
            runs = _call_runs_model(ctx, call, set(names), helpers[names])
            known_runs[key] = (call, runs)  # (the call kept alive: its id stays its own)
        return known_runs[key][1]

    model_class = _model_class(ctx, plan)
    loops = [plan.validation.anchor] if plan.validation is not None else []
    nonempty = set()
    for loop in loops:  # the pass's own loop runs its loader's batches: at least one
        nonempty |= {id(f) for f in m.findall(loop, m.For())}
        if isinstance(loop, cst.For):
            nonempty.add(id(loop))
    return ModeTracer(
        ctx,
        models,
        observes=observes,
        harmless=lambda call, name: not _hands_model(ctx, call, name),
        builds_module=lambda value, position: builds_module(ctx, value, position),
        model_class=model_class,
        nonempty=nonempty,
    )
