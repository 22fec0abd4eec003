"""Decide, for every name the extracted code touches, what it becomes in the LightningModule.

- read-only names bound before the loop -> `__init__` argument stored as `self.<name>`
  (module-level imports, classes and functions stay globals);
- names carried across steps or hooks (accumulators, counters) -> `self.<name>` state, with
  the pre-loop value passed in and the final value read back after `trainer.fit` if later
  code uses it;
- names written and read inside one step or hook -> plain locals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from .analysis.function_reads import (
    module_functions,
    reads_of_all_functions,
    reads_of_functions_called,
    reads_through_calls,
)
from .analysis.module_placement import (
    module_aliases,
    module_devices,
    module_names,
    modules_run,
)
from .analysis.names import (
    NameUse,
    bound_names,
    collect_names,
    names_read_before_bound,
    scope_reads,
)
from .analysis.statements import contains, move_calls, statements
from .lightning_module_api import hooks_of_pass
from .patterns.amp import MIXED_PRECISION
from .patterns.bindings import BINDING
from .plan import LoopPlan
from .rule import Rule, Unsupported

UNPASSABLE_NAME = Rule(
    "TL108",
    "loop code reads a name that cannot be passed to the LightningModule",
    """Names the loop reads become `__init__` arguments of the LightningModule, bound where
    the loop was. A name imported inside the function, bound only after the loop, or a batch
    index read outside its own step has no value there to pass.""",
    """Import at module level, bind the name before the loop, and keep the batch index inside
    the batch loop.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y) * scale
            loss.backward()
            optimizer.step()
    scale = 1.0
    """,
)

NOT_CARRIED_BACK = Rule(
    "TL112",
    "code after the loop reads a name the loop wrote that cannot be carried back",
    """Values the loop leaves behind (an accumulator, the last loss) are read back from the
    LightningModule after `trainer.fit`. The epoch counter and a DataParallel wrapper have no
    such value: the Trainer owns them.""",
    """Record what you need in a variable inside the loop (`last_epoch = epoch`), or read
    `trainer.current_epoch` after converting.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    print("stopped at", epoch)
    """,
)

REBINDS_OWNED_NAME = Rule(
    "TL116",
    "the loop rebinds the model, a loader, the device or the epoch counter",
    """The Trainer owns the model, the loaders, the device and the epoch counter once the loop
    is converted; a loop that assigns to one of them changes something the Trainer would not
    see.""",
    """Use another name for the new value (`batch_loader = ...`), or build it before the
    loop.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        loader = DataLoader(loader.dataset, batch_size=2)
    """,
)

LOCAL_DEFINITION = Rule(
    "TL119",
    "a function or class defined in the loop is used by another step or hook",
    """A `def` or `class` inside the epoch loop moves with the code around it into one hook;
    the other hooks and steps cannot see it there.""",
    """Define the function at module level (or before the loop): it is then available to
    every hook.""",
    """
    for epoch in range(2):
        def scaled(value):
            return value * 0.5

        for x, y in loader:
            optimizer.zero_grad()
            loss = scaled(criterion(model(x), y))
            loss.backward()
            optimizer.step()
    """,
)

STATE_READ_BY_FUNCTION = Rule(
    "TL129",
    "a function called while training reads a variable the loop updates",
    """A variable the loop updates from step to step (a step counter, a best score) is carried
    by the LightningModule as `self.` state while training, and copied back after `fit`. A
    function of the script the loop calls (`report(...)`, a closure logging the step) reads
    the script's own variable instead, which does not change until `fit` returns.""",
    """Pass the value to the function as an argument (`report(tag, step)`).""",
    """
    step = 0


    def report(tag):
        print(tag, "at step", step)


    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            step += 1
        report(f"epoch {epoch}")
    """,
)

RULES = (
    UNPASSABLE_NAME,
    NOT_CARRIED_BACK,
    REBINDS_OWNED_NAME,
    LOCAL_DEFINITION,
    STATE_READ_BY_FUNCTION,
)


@dataclass
class ScopeInfo:
    before_writes: set[str]  # names the loop's scope binds before the loop (incl. parameters)
    function_imports: set[str]  # names a function container binds by import
    after_reads: set[str]  # names read by code after the loop in the same scope
    after_writes: set[str]
    other_reads: set[str]  # names read by the scope outside the loop and moved statements
    # of those, the names read from the statement last binding them on: what an earlier
    # statement read was another object bound to the name (a previous phase's optimizer)
    other_reads_since_bound: set[str]
    module_defs: set[str]  # module-level imports, classes, functions
    in_function: bool
    # module scope only: globals read by the functions code after the loop calls, and by any
    # module function (the loop's own helpers aside)
    called_after_reads: set[str] = frozenset()
    function_reads: set[str] = frozenset()
    returned: set[str] = frozenset()  # names a `return` after the loop reads: the callers'
    params: set[str] = frozenset()  # the parameters of the function holding the loop
    placed_modules: set[str] = frozenset()  # modules the scope moves to a device before it
    # module -> the device code the scope moved it to (analysis/module_placement.py)
    module_devices: dict = field(default_factory=dict)
    run_after: set[str] = frozenset()  # names code after the loop runs (analysis/module_placement)
    model_aliases: set[str] = frozenset()  # other names of the model (`m = model.to(device)`)
    # the scope's own functions (a module's, or the closures of the function holding the loop)
    # -> what each reads from the scope, through the others it calls (function_reads.py):
    # code calling one while training or after it reads those names then
    functions_reading: dict = field(default_factory=dict)


def pieces_of(plan: LoopPlan) -> dict[str, list[cst.CSTNode]]:
    # `epoch = self.current_epoch + <start>` opens the hooks reading the epoch: in a function
    # the start (`args.start_epoch`) is a local of it, to pass like the step's own reads
    start = []
    if plan.epoch_var and plan.epoch_start is not None and plan.in_function:
        start = [cst.SimpleStatementLine([cst.Expr(plan.epoch_start)])]
    pieces = {
        "on_train_epoch_start": list(plan.pre_train),
        "training_step": [t for t in [plan.train_target] if t is not None]
        + start
        + plan.train_body,
        "on_train_batch_start": plan.before_step_pieces(),
        "on_train_batch_end": plan.after_step_pieces(),
        "configure_gradient_clipping": list(plan.clip_hook),
        "on_train_epoch_end": list(plan.post_train),
    }
    if plan.validation:
        pieces["on_validation_epoch_start"] = list(plan.validation.before)
        pieces["validation_step"] = [plan.validation.target, *plan.validation.body]
        pieces["on_validation_epoch_end"] = list(plan.validation.after)
    if plan.test:
        pieces["on_test_epoch_start"] = list(plan.test.before)
        pieces["test_step"] = [plan.test.target, *plan.test.body]
        pieces["on_test_epoch_end"] = list(plan.test.after)
    configure = []
    for optimizer in plan.optimizers:
        if not optimizer.given:  # a given one is handed to the module: `__init__` argument
            configure.append(optimizer.stmt)
        if optimizer.scheduler_stmt is not None:
            configure.append(optimizer.scheduler_stmt)
    if plan.scheduler_list is not None:  # built over the list: both there
        configure += [plan.optimizer_list[1], plan.scheduler_list[1]]
    pieces["configure_optimizers"] = configure
    return pieces


def _uses(piece: list[cst.CSTNode]) -> NameUse:
    use = NameUse()
    for node in piece:
        if isinstance(node, cst.BaseExpression):  # a batch target: written first
            bound = collect_names(cst.AssignTarget(node)).writes
            use.writes |= bound
            use.definite |= bound
        else:
            use.update(collect_names(node))
    return use


def _is_constant(name: str) -> bool:
    return name.isupper() and any(c.isalpha() for c in name)


def _refuse(rule, reason: str, node) -> None:
    raise Unsupported(rule, reason, node)


def resolve_names(
    plan: LoopPlan, scope: ScopeInfo, block=_refuse, given: dict | None = None
) -> dict[str, NameUse]:
    """Fill the plan's init_args / state / rebind lists. Each name that cannot be resolved is
    reported through `block(rule, reason, node)` (the planner collects them all). `given`:
    names the loop binds that the script spells otherwise (a helper's parameter bound to the
    expression its call passes, patterns/helpers.py) -> (how it was given, the call)."""
    given = given or {}

    def rebinds(rule, name: str) -> None:
        how, call = given.get(name, ("", None))
        if call is None:  # the statement binding it, or the loop when not a plain statement
            lines = m.findall(plan.epoch_loop, m.SimpleStatementLine())
            call = next((s for s in lines if name in bound_names(s)), plan.epoch_loop)
        block(rule, f"the loop rebinds `{name}`{how}", call)

    pieces = pieces_of(plan)
    uses = {hook: _uses(nodes) for hook, nodes in pieces.items()}
    models = {n for model in plan.models for n in (model.name, *model.aliases)}
    aliases = {n for model in plan.models for n in model.aliases}
    special = {*models, plan.train_loader, *plan.device_names}
    # a device read from a config at run time is handed to the class as the script's value
    # (its moves still go: device_moves.py), so it compares and prints the same
    handed = {d for d in plan.device_names if plan.device_expr(d) is None}
    if plan.scaler and (
        (plan.scaler in scope.after_reads and plan.scaler_after is None)
        or plan.scaler in scope.other_reads
        or any(plan.scaler in u.all() for u in uses.values())
    ):
        block(MIXED_PRECISION, f"`{plan.scaler}` is used beyond the step", plan.epoch_loop)
    if plan.scaler not in scope.after_reads:
        plan.scaler_after = None  # no code after fit reads it: nothing to rebind
    if aliases & (scope.after_reads | scope.other_reads):
        wrapper = sorted(aliases & (scope.after_reads | scope.other_reads))[0]
        block(
            NOT_CARRIED_BACK,
            f"the model's wrapper `{wrapper}` (DataParallel / DDP) is used outside the loop",
            plan.epoch_loop,
        )
    if plan.epoch_var:
        special.add(plan.epoch_var)
    if plan.validation:
        special.add(plan.validation.loader)
        special |= set(plan.validation.more_loaders)
        if plan.validation.more_loaders:
            special.add("dataloader_idx")  # the step's parameter (patterns/merge_passes.py)
    if plan.test:
        special.add(plan.test.loader)
    optim_names = {o.name for o in plan.optimizers} | {
        o.scheduler for o in plan.optimizers if o.scheduler
    }
    optim_names |= {found[0] for found in (plan.optimizer_list, plan.scheduler_list) if found}

    for hook, use in uses.items():
        if hook != "configure_optimizers" and use.writes & optim_names:
            rebinds(BINDING, sorted(use.writes & optim_names)[0])
        if use.writes & special:
            rebinds(REBINDS_OWNED_NAME, sorted(use.writes & special)[0])
    kept = {o.name for o in plan.optimizers if o.given} | {
        o.scheduler for o in plan.optimizers if o.scheduler_held or o.scheduler_given
    }  # the script's own objects, handed to the module (patterns/kept_optimizers.py)
    if scope.other_reads_since_bound & (optim_names - kept):
        name = sorted(scope.other_reads_since_bound & (optim_names - kept))[0]
        block(
            BINDING,
            f"`{name}` is used before the training loop; not converted",
            plan.epoch_loop,
        )
    # read after the loop (e.g. saved in a checkpoint): rebound from the trainer after fit
    plan.optim_after = sorted(scope.after_reads & (optim_names - kept))
    if plan.epoch_var and plan.epoch_var in scope.after_reads:
        block(NOT_CARRIED_BACK, f"code after the loop reads `{plan.epoch_var}`", plan.epoch_loop)
    steps = {
        "training_step": plan.train_index,
        "validation_step": plan.validation.index if plan.validation else None,
        "test_step": plan.test.index if plan.test else None,
    }
    for hook, index in steps.items():
        if not index:
            continue
        own = {h for h, i in steps.items() if i == index}  # steps binding it as their index
        if index == plan.train_index:
            own.add("on_train_batch_end")  # the hook after the step gets it as `batch_idx`
        elsewhere = {h for h, u in uses.items() if h not in own and index in u.all()}
        carrier = hook == "training_step" and _read_after_batch_loop(plan, index, elsewhere, uses)
        if carrier:
            plan.carried_index = index  # the last step's index, as the loop that set it left it
            plan.index_carried_by = carrier
            continue
        if plan.carried_index == index:
            elsewhere.discard("on_train_epoch_end")
        if elsewhere:
            block(UNPASSABLE_NAME, f"batch index `{index}` used outside its step", plan.epoch_loop)

    all_names: list[str] = []
    for use in uses.values():
        for name in sorted(use.all()):
            if name not in all_names:
                all_names.append(name)
    locals_configure = optim_names
    loaders = {plan.train_loader} | ({plan.validation.loader} if plan.validation else set())
    extra_init = sorted(uses["configure_optimizers"].reads & loaders)
    init_args, state, rebind, test_rebind = [], set(), [], []
    # a def or class written in a piece binds a local of the hook it lands in
    defined = {
        node.name.value: node
        for piece in pieces.values()
        for node in piece
        if isinstance(node, (cst.FunctionDef, cst.ClassDef))
    }
    # names read after the loop through the scope's functions it calls (`report("done")`)
    after_reads = scope.after_reads | set().union(
        *(scope.functions_reading.get(n, set()) for n in scope.after_reads)
    )
    for name in all_names:
        if name in special - handed or name in locals_configure or name == "self":
            continue
        if name in plan.module_globals:  # read and written as the module's own variable
            continue
        if name in (
            plan.train_index,
            plan.validation.index if plan.validation else None,
            plan.test.index if plan.test else None,
        ):
            continue
        written = any(name in u.writes for u in uses.values())
        if written:
            carried = name in after_reads or any(name in u.read_first for u in uses.values())
            if not carried:
                continue  # local to each step/hook that uses it
            if name in defined:
                block(
                    LOCAL_DEFINITION,
                    f"`{name}` is defined in the loop and used by another step or hook; "
                    "define it before the loop",
                    defined[name],
                )
                continue
            state.add(name)
            if name in scope.before_writes and not _reset_before_read(name, uses, after_reads):
                init_args.append(name)
            if name in after_reads:
                test_hooks = ("on_test_epoch_start", "test_step", "on_test_epoch_end")
                if any(name in uses[h].writes for h in test_hooks if h in uses):
                    test_rebind.append(name)
                else:
                    rebind.append(name)
            continue
        if name in scope.function_imports:
            block(
                UNPASSABLE_NAME,
                f"the loop reads `{name}`, imported inside the function; import it at module level",
                plan.epoch_loop,
            )
        if name in scope.before_writes:
            if not scope.in_function and (name in scope.module_defs or _is_constant(name)):
                continue  # module-level imports, definitions and CONSTANTS stay globals
            init_args.append(name)
        elif name in scope.after_writes:
            block(
                UNPASSABLE_NAME,
                f"the loop reads `{name}`, which is only bound after the loop",
                plan.epoch_loop,
            )
    _state_read_by_called_functions(plan, scope, all_names, state, block)
    # Lightning's fit returns the model on the CPU: code after it that uses the model and the
    # device (also through the script's own functions) gets the model put back -- also where
    # the script placed it with `.cuda()` (`if train_on_gpu: model.cuda()`)
    model_later = scope.after_reads | scope.called_after_reads
    # a model the function returns, or is given, goes on in its callers on its device
    escapes = any(model.name in scope.returned | scope.params for model in plan.models)
    used = sorted(plan.device_names & (scope.after_reads | scope.function_reads))
    # (a model the script never placed is where fit hands it back: patterns/unplaced_model.py)
    placed = not plan.model_on_cpu
    # the device the script moved its model to (`probe = nn.Linear(...).to(DEVICE)`), for
    # later code using it on tensors it placed before (no device name read after fit)
    own = next((d for model in plan.models if (d := scope.module_devices.get(model.name))), None)
    # the model under any of its names (`m = model.to(device)` then `m.generate(...)`)
    names = {n for model in plan.models for n in (model.name, *model.aliases)}
    names |= scope.model_aliases
    run = bool(names & scope.run_after)
    if placed and (escapes or names & model_later):
        if not used and escapes:
            used = sorted(plan.device_names)
        plan.device_after = used[0] if used else (own if run else None) or plan.cuda_placement
    # ... and so are the other modules it holds (a distillation's frozen teacher, evaluated
    # after training with batches moved by `.cuda()`; an EMA copy of the placed model; a loss
    # built with weights on the device), each to the device the script put it on
    device = used[0] if used else own or plan.cuda_placement
    held = {
        n: scope.module_devices.get(n) or device
        for n in init_args
        if n in model_later
        and (n in scope.placed_modules or n in scope.module_devices)
        and (used or n in scope.run_after)  # its state alone (a state_dict saved) is the same
    }
    unknown = sorted(n for n, where in held.items() if where is None)
    if placed and unknown:
        block(
            NOT_CARRIED_BACK,
            f"code after the loop uses `{unknown[0]}`, which the LightningModule holds and fit "
            "hands back on the CPU, and the script's device for it is not known here",
            plan.epoch_loop,
        )
    if placed and held and not unknown:
        plan.held_after, plan.held_device = list(held), held
    given = [o.name for o in plan.optimizers if o.given]
    given += [o.scheduler for o in plan.optimizers if o.scheduler_held or o.scheduler_given]
    plan.init_args = given + init_args + [n for n in extra_init if n not in init_args]
    plan.loader_args = extra_init
    plan.state = state
    plan.rebind_after = rebind
    plan.test_rebind = test_rebind
    return uses


# the hooks of each pass, its first hook first: what that hook binds before reading it is
# bound anew at the start of every pass
_PASSES = (
    hooks_of_pass("on_train_epoch_start", "on_train_epoch_end"),
    hooks_of_pass("on_validation_epoch_start", "on_validation_epoch_end"),
    hooks_of_pass("on_test_epoch_start", "on_test_epoch_end"),
)


def _reset_before_read(name: str, uses, after_reads: set[str]) -> bool:
    """The value `name` has before the loop is never read: each pass using it binds it first
    thing (`running_loss = 0` at the top of the epoch, `correct = 0` before a test loop),
    `configure_optimizers` does not read it, and no code after the loop reads it back (with
    no epoch at all, it would read the value from before). Then it is no argument of the
    module: the value from before the loop may not even exist any more (an earlier loop's
    accumulator, now its module's state)."""
    if name in after_reads:
        return False
    if "configure_optimizers" in uses and name in uses["configure_optimizers"].all():
        return False
    for first, *rest in _PASSES:
        if not any(name in uses[hook].all() for hook in (first, *rest) if hook in uses):
            continue
        start = uses.get(first)
        if start is None or name not in start.definite or name in start.read_first:
            return False
    return True


def _state_read_by_called_functions(plan, scope: ScopeInfo, hook_names, state, block) -> None:
    """TL129 for a function of the scope the hooks call (`report(...)` at the epoch's end)
    that reads a name the LightningModule carries as `self.` state: while training it would
    read the scope's variable, still holding its value from before `fit`."""
    for function in sorted(set(hook_names) & set(scope.functions_reading)):
        stale = sorted(scope.functions_reading[function] & state)
        if stale:
            block(
                STATE_READ_BY_FUNCTION,
                f"`{function}()`, called while training, reads `{stale[0]}`, which the "
                "LightningModule carries as state: it would read the value from "
                "before training",
                plan.epoch_loop,
            )
            return


def _read_after_batch_loop(plan: LoopPlan, index: str, elsewhere, uses) -> str | None:
    """The step whose last index the epoch's end reads (`total / (i + 1)`), when it reads it
    nowhere else outside the steps and no code assigns it: the training step's, or, read
    after a validation pass reusing the name (`running_vloss / (i + 1)`), the validation
    step's. Lightning runs on_train_epoch_end after the validation pass, as the script read
    it. None when the epoch's end reads it both before and after the pass."""
    if elsewhere != {"on_train_epoch_end"}:
        return None
    end = uses["on_train_epoch_end"]
    if index in end.writes and index not in end.read_first:
        # the epoch's end binds the name before it reads it: a local of its own, not the index
        return None
    # read first, then bound by the epoch's end itself (an inlined evaluation helper's own
    # `for batch_idx, b in enumerate(val_loader)`): the hook reads `self.<index>` throughout,
    # in the order the script's inlined code did, and the next epoch's steps set it again
    if index in uses["training_step"].writes:
        return None
    if plan.validation is not None and plan.validation.index == index:
        if index in plan.post_eval_reads:  # there it is the validation pass's index
            if index in plan.pre_eval_reads or index in uses["validation_step"].writes:
                return None
            return "validation_step"
    return "training_step"


def scope_info(ctx, plan: LoopPlan) -> ScopeInfo:
    """What the loop's scope binds and reads outside the loop."""
    before = set(ctx.params)
    for stmt in ctx.scope_before:
        before |= bound_names(stmt)
    function_imports: set[str] = set()
    if ctx.in_function and contains(ctx.function.body, frozenset({"import"})):
        for found in statements(ctx.function):
            if isinstance(found, cst.SimpleStatementLine):
                for small in found.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        function_imports |= collect_names(small).writes
    # the code around the loop as it will be written: rewritten statements as rewritten
    rewritten = {id(stmt): new for stmt, new in plan.rewrite_stmts}
    removed = {id(stmt) for stmt in plan.remove_stmts}
    after = _NamesInOrder()
    for stmt in ctx.scope_after:
        if id(stmt) not in removed:
            # a later loop reading what this one left when its own body does not run (a
            # second training loop's epoch-end `print(loss)`); the loop itself, met again
            # in a loop over runs, reads its values through the module
            again = any(inner is ctx.loop for inner in statements(stmt))
            after.add(rewritten.get(id(stmt), stmt), loops_may_not_run=not again)
    moved = pieces_of(plan)["configure_optimizers"]
    other, since_bound = set(), set()
    last_bound = {}  # name -> index of the last statement binding it before the loop
    for index, stmt in enumerate(ctx.scope_before):
        last_bound.update(dict.fromkeys(bound_names(stmt), index))
    for index, stmt in enumerate(ctx.scope_before):
        if any(stmt is s for s in moved) or id(stmt) in removed:
            continue
        reads = scope_reads(rewritten.get(id(stmt), stmt))
        other |= reads
        since_bound |= {name for name in reads if index >= last_bound.get(name, -1)}
    # module globals an inlined helper declared: the module holds their final value after
    # training, as the helper left it (patterns/helper_globals.py)
    carried = set(ctx.found.get("helper_globals", ()))
    called_after, function_reads = set(), set()
    if ctx.in_function:  # its closures read its locals
        defs = {s.name.value: s for s in ctx.function.body.body if isinstance(s, cst.FunctionDef)}
    else:
        defs = {
            name: f
            for name, f in module_functions(ctx.module).items()
            if name not in ctx.found.get("inlined", ())
        }
    if not ctx.in_function:  # a function's locals are not the globals its helpers read
        own = set(ctx.found.get("inlined", ()))
        called_after = reads_of_functions_called(ctx.module, after.reads)
        function_reads = reads_of_all_functions(ctx.module, skip=own)
    return ScopeInfo(
        before_writes=before,
        function_imports=function_imports,
        after_reads=after.reads | carried,
        after_writes=after.writes,
        other_reads=other,
        other_reads_since_bound=since_bound,
        module_defs=ctx.module_defs,
        in_function=ctx.in_function,
        called_after_reads=called_after,
        function_reads=function_reads,
        params=set(ctx.params),
        functions_reading=reads_through_calls(defs, _mentioned(plan, after.reads)),
        placed_modules=_placed_modules(ctx),
        module_devices=module_devices(ctx, ctx.scope_before),
        model_aliases=module_aliases(ctx.scope_before, {model.name for model in plan.models}),
        run_after=modules_run(ctx.scope_after),
        returned={
            name
            for stmt in ctx.scope_after
            for ret in m.findall(stmt, m.Return())
            if ret.value is not None
            for name in collect_names(ret.value).reads
        },
    )


def _mentioned(plan: LoopPlan, after_reads: set[str]) -> set[str]:
    """Names the generated methods and the code after the loop read."""
    names = set(after_reads)
    for piece in pieces_of(plan).values():
        names |= _uses(piece).all()
    return names


# methods only a torch module has among what scripts call (not an optimizer's `state_dict`;
# a tensor's `.to()` is not in place)
_MODULE_METHODS = frozenset(
    "parameters named_parameters eval train modules children apply requires_grad_".split()
)


def _placed_modules(ctx) -> set[str]:
    """Names the scope moves to a device before the loop (`t = Net().cuda() if c else Net()`,
    `t.to(device)`) and uses as a module elsewhere (`t.eval()`, `t.parameters()`) or binds to
    a module (`t = nn.Linear(4, 2)`, analysis/module_placement.py): what Lightning's teardown
    hands back on the CPU when the LightningModule holds it."""
    moved = set()
    for stmt in ctx.scope_before:
        for move in move_calls(stmt):
            receiver = move.func.value
            while isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute):
                receiver = receiver.func.value  # `Net().cuda()`: bound below
            if isinstance(receiver, cst.Name):
                moved.add(receiver.value)
        if isinstance(stmt, cst.SimpleStatementLine) and move_calls(stmt):
            moved |= bound_names(stmt)
    used_as_module = {
        call.func.value.value
        for node in [*ctx.scope_before, *ctx.scope_after, ctx.loop]
        for call in m.findall(node, m.Call(func=m.Attribute(value=m.Name())))
        if call.func.attr.value in _MODULE_METHODS
    }
    return moved & (used_as_module | module_names(ctx, ctx.scope_before))


class _NamesInOrder:
    def __init__(self) -> None:
        self.reads: set[str] = set()
        self.writes: set[str] = set()

    def add(self, node, loops_may_not_run: bool = False) -> None:
        """Accumulate in source order: `reads` are names read before this code binds them
        (`loops_may_not_run`: also those bound only in a loop's body that may run no time)."""
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self.writes |= bound_names(node)
            return
        use = names_read_before_bound(node) if loops_may_not_run else collect_names(node)
        self.reads |= use.read_first - self.writes
        self.writes |= use.writes
