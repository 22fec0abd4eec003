"""Pattern: which model and optimizer the loop trains, and the statements that build them.

    model = Net().to(device)                            -> `model = Net()`; LitNet(model)
    optimizer = torch.optim.SGD(model.parameters())     -> moved into configure_optimizers

The optimizer is the receiver of the batch loop's `step()` bound to a `torch.optim` call
(by qualified name) in the loop's scope before the loop; the model is the one whose
`parameters()` it is built on -- several models when it is built on several
(`itertools.chain(encoder.parameters(), decoder.parameters())`, parameter groups, the
script's own function building groups from a model it is given, groups the script filled
before the loop from `model.named_parameters()` by comprehensions or `.append` in a loop,
followed back through the statements binding or filling what the call reads; the groups are
then an `__init__` argument of the module): the LightningModule holds them all. Refused
(TL106): no such binding, several optimizers, an
optimizer bound twice where the last binding may not reach the loop (under an `if`; one bound
again right before its loop -- a fine-tuning phase's fresh optimizer under the pretraining's
name -- is that loop's: rebound_for_this_loop), a model that is a parameter of the function holding the loop or is
bound other than by a plain assignment.
"""

from __future__ import annotations

import sys

import libcst as cst
import libcst.matchers as m

from ..analysis.function_reads import module_functions
from ..analysis.globals_read import module_global_binding, rebound_through_global
from ..analysis.names import bound_names, collect_names, scope_reads
from ..analysis.reaching import reaching_binding
from ..analysis.statements import call_method, single_assign, statements
from ..plan import ModelPlan, OptimizerPlan
from ..rule import Rule, Unsupported
from ..shapes.context import Consequence
from ..source.code_text import first_line
from ..source.tuple_bindings import why_not_split
from .data_parallel import DISTRIBUTED, is_data_parallel
from .ddp import ddp_unwrap, is_ddp_wrap, read_as_model
from .ddp.sync_batchnorm import read_sync_batchnorm
from .device_moves import is_trivial_statement, strip_device_moves
from .factories import returned, trained_model
from .known_branches import known_test, taken_branch, why_branch_unknown
from .module_zero_grad import dotted_path
from .optimizer_factories import (
    faithful_optimizer_function,
    refuse_unfaithful_optimizer,
    trained_models,
)
from .optimizer_groups import filling_calls
from .optimizer_methods import method_optimizer_model, why_not_method_optimizer
from .passed_in import _parameters_of, called_in_file, callee_qualnames, given_optimizer
from .placement_chain import is_placement_chain
from .placement_chain import take as take_placement_chain
from .scheduler_factories import faithful_scheduler_function, refuse_unfaithful
from .step_sequence import STEP_SEQUENCE

BINDING = Rule(
    "TL106",
    "model, optimizer or scheduler binding not understood",
    """`configure_optimizers` rebuilds the optimizer (and scheduler) from the statement that
    created it (or returns the script's own when code outside the loop uses it), and the
    LightningModule wraps the model the optimizer trains. Each must be bound once, by a plain
    assignment before the loop.""",
    """Bind `model = ...`, `optimizer = torch.optim.X(model.parameters(), ...)` and the
    scheduler once, right before the loop (or once at module level, for a function holding
    the loop that reads them as globals).""",
    """
    if len(loader) > 1:
        optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

RULES = (BINDING,)


def optim_kind(ctx, binding) -> str | None:
    """ "optimizer" or "scheduler" for a binding to a torch.optim call, else None. The
    callable may be a parameter of the function holding the loop, read at its call sites
    (`opt_func(model.parameters(), lr)`, patterns/passed_in.py); None when its callers pass
    an optimizer here and a scheduler there."""
    if binding is None:
        return None
    _, value = binding
    if method_optimizer_model(ctx, value):  # `model.configure_optimizers(...)`: nanoGPT's
        return "optimizer"
    if faithful_scheduler_function(ctx, value):  # `get_linear_schedule_with_warmup(optimizer, ...)`
        return "scheduler"
    if faithful_optimizer_function(ctx, value):  # `_select_optimizer(args, model)`
        return "optimizer"
    kinds = set()
    for name in callee_qualnames(ctx, value):
        if name.startswith("torch.optim.lr_scheduler."):
            kinds.add("scheduler")
        elif name.startswith("torch.optim."):
            kinds.add("optimizer")
        else:
            kinds.add(None)
    return kinds.pop() if len(kinds) == 1 else None


def bind(ctx, plan, steps) -> None:
    if steps.get("manual"):  # several optimizers: manual_optimization bound them
        return
    optimizers = []
    given: list[str] = []  # models of optimizers the function holding the loop is given
    for position, receiver, stmt in steps["step"]:
        if receiver in ctx.params and not ctx.binding(receiver)[1]:
            model = given_optimizer(ctx, receiver, stmt)  # read at the call sites
            optimizers.append((position, receiver, None))
            given.append(model)
            continue
        binding, _ = ctx.binding(receiver)
        model = factory_optimizer(ctx, receiver) if binding is None else None
        if model is not None:  # `dataset, model, optimizer = load_train_objs()`: kept, given
            optimizers.append((position, receiver, None))
            given.append(model)
            continue
        if binding is None:  # `optimizer` of the module, read by the function holding the loop
            binding = module_global_binding(ctx, receiver)
        kind = optim_kind(ctx, binding)
        if kind is None and ctx.in_function and receiver in rebound_through_global(ctx):
            raise Unsupported(
                BINDING,
                f"`{_step_use(ctx, stmt, receiver)}`: `{receiver}` is a module global some "
                f"function rebinds (`global {receiver}`): the Trainer would go on stepping the "
                "first object",
                stmt,
            )
        if kind is None and binding is not None:  # a function of the script doing more
            refuse_unfaithful_optimizer(ctx, binding[1], receiver)
            refuse_unfaithful(ctx, binding[1], receiver)
            why = why_not_method_optimizer(ctx, binding[1])  # `model.configure_optimizers()`
            if why is not None:
                raise Unsupported(BINDING, f"optimizer `{receiver}` is built by {why}", binding[0])
        if kind is None:
            rebuilt = _bound_in(ctx.loop, receiver)
            if rebuilt is not None:  # the Kaggle habit of a new optimizer per epoch or fold
                raise Unsupported(
                    BINDING,
                    f"`{receiver}` is built again inside the loop: a fresh optimizer (its "
                    "state, momentum or Adam's moments, started over) each time, where the "
                    "Trainer builds one in configure_optimizers",
                    rebuilt,
                )
            raise Unsupported(
                BINDING,
                f"`{_step_use(ctx, stmt, receiver)}`: `{receiver}` is not bound to a torch.optim "
                "optimizer or scheduler call in this scope before the loop",
                stmt,
            )
        if kind == "optimizer":
            optimizers.append((position, receiver, binding))
    if not optimizers and ctx.blockers:  # the step was refused already (nested, conditional)
        raise Consequence
    if not optimizers:
        outside = _optimizer_step_outside(ctx)
        if outside is not None:
            raise Unsupported(
                STEP_SEQUENCE,
                f"`{outside.func.value.value}.step()` runs outside the batch loop (once per "
                "epoch): the Trainer steps after every batch",
                outside,
            )
        raise Unsupported(
            STEP_SEQUENCE,
            "no optimizer.step() in the batch loop, and no update of a model's parameters "
            "by hand (`for p in model.parameters(): p.data.add_(p.grad, alpha=-lr)`, "
            "converted to manual optimization): nothing the Trainer could run updates them",
            ctx.loop,
        )
    if len({o[1] for o in optimizers}) != 1 or len(optimizers) != 1:
        raise Unsupported(
            STEP_SEQUENCE,
            "expected exactly one optimizer.step() per batch (several optimizers need "
            "manual optimization, not converted)",
            ctx.loop,
        )
    if given:
        position, name, _ = optimizers[0]
        steps["optimizer_step"] = position
        plan.optimizers.append(OptimizerPlan(name, None, given=True))
        plan.models.append(ModelPlan(given[0]))
        return
    position, name, (stmt, call) = optimizers[0]
    _, count = ctx.binding(name)
    count = 1 if count == 0 and module_global_binding(ctx, name) else count
    if stmt not in ctx.before and stmt not in ctx.module_before:
        raise Unsupported(BINDING, f"optimizer `{name}` is bound more than once", stmt)
    if count != 1 and not rebound_for_this_loop(ctx, name, stmt):
        raise Unsupported(BINDING, f"optimizer `{name}` is bound more than once", stmt)
    steps["optimizer_step"] = position
    plan.optimizers.append(OptimizerPlan(name, stmt))
    plan.models.extend(ModelPlan(name) for name in models_from_optimizer(call, ctx.module, ctx))
    _refuse_model_rebound_after(ctx, stmt, name, [model.name for model in plan.models])
    for model in plan.models:  # `model_without_ddp.parameters()`: the model DDP wrapped
        read_as_model(ctx, model)


def rebound_for_this_loop(ctx, name: str, stmt) -> bool:
    """`stmt`, the last binding of `name` before the loop, is the one the loop reads for sure:
    a plain statement of the bodies leading to it (analysis/reaching.py), run whenever the
    loop is. A script training one model in phases builds each phase's optimizer under the
    same name right before its loop (`optimizer = Adam(...)`, pretraining; `optimizer =
    SGD(...)`, fine-tuning): the earlier bindings are other phases' objects, which this loop
    never steps."""
    scope = ctx.function if ctx.in_function else ctx.module
    return reaching_binding(scope, name, ctx.loop) is stmt


def _refuse_model_rebound_after(ctx, built, optimizer: str, models: list[str]) -> None:
    """Unsupported (TL106) when a model the optimizer `built` trains is copied to another
    name (`trained = net`, also through a chain of copies) and then bound to a new object by
    a statement not reading it (`net = nn.Linear(4, 2)`; `net = net.to(device)` or `net =
    DDP(net)` keep the parameters): the loop may train the first object through the copy,
    which the optimizer steps, where the LightningModule would hold the new one and the
    Trainer's optimizer step its parameters."""
    at = [i for i, s in enumerate(ctx.scope_before) if s is built]
    if not at:
        return
    for model in models:
        copies = {model}
        for stmt in ctx.scope_before:
            assign = single_assign(stmt)
            if assign and assign[0] != model and m.matches(assign[1], m.Name()):
                if assign[1].value in copies:
                    copies.add(assign[0])
            after = ctx.scope_before.index(stmt) > at[0]
            rebinds = model in bound_names(stmt) and model not in scope_reads(stmt)
            if after and rebinds and len(copies) > 1:
                others = ", ".join(f"`{c}`" for c in sorted(copies - {model}))
                raise Unsupported(
                    BINDING,
                    f"model `{model}` is bound to a new object after optimizer `{optimizer}` "
                    f"was built on its parameters, while {others} still names the first one "
                    "(which the optimizer trains)",
                    stmt,
                )


def factory_optimizer(ctx, name: str) -> str | None:
    """The caller's name of the model an optimizer trains when the loop's scope binds the
    optimizer once, before the loop, by unpacking a factory of the file that returns it
    beside that model (`train_set, model, optimizer = load_train_objs()`, the DDP tutorial
    series; patterns/factories.py): the optimizer stays where the script builds it and is
    handed to the module, as one a caller passes in. None for any other binding."""
    binding, count = ctx.binding(name)
    if binding is not None or count != 1 or name in collect_names(ctx.loop).writes:
        return None
    stmt = next(s for s in ctx.scope_before if name in bound_names(s))
    readers = [s for s in ctx.scope_before if s is not stmt and name in scope_reads(s)]
    if readers:  # a scheduler built on it, a state loaded into it: not handed over as is
        raise Unsupported(
            BINDING,
            f"`{name}`, unpacked from a function of the script, is used before the loop "
            "(a scheduler built on it, a state loaded into it): not converted",
            readers[0],
        )
    factory = returned(ctx, stmt, name)
    value = factory.value if factory is not None else None
    if not isinstance(value, cst.Call):
        return None
    names = ctx.call_qualnames(value)
    if not any(q.startswith("torch.optim.") for q in names) or any(
        q.startswith("torch.optim.lr_scheduler.") for q in names
    ):
        return None
    return trained_model(factory, _parameters_of(value), stmt)


def given_optimizer_plan(plan) -> bool:
    """The loop's one optimizer is handed in by the caller (none: a hand update)."""
    return bool(plan.optimizers) and plan.optimizer.given


_PARAMETERS = m.Call(
    func=m.Attribute(
        value=m.Name() | m.Attribute() | m.Subscript(),
        attr=m.Name("parameters") | m.Name("named_parameters"),
    )
)


def _owners(node) -> list[str]:
    """The models whose parameters `node` reads: `model` for `model.parameters()` and for a
    submodule's, `encoder.linear.parameters()` (the LightningModule holds all of `encoder`)."""
    found = []
    for call in m.findall(node, _PARAMETERS):
        path = dotted_path(call.func.value)
        if path is not None and path.split(".")[0] != "self":
            found.append(path.split(".")[0])
    return found


def models_from_optimizer(call: cst.Call, module: cst.Module | None = None, ctx=None) -> list[str]:
    """The names whose `parameters()` the optimizer call reads, in source order; with the
    script's `module`, also the models handed to its own function building the parameter
    groups (`build_param_groups(model, wd)` reading `model.named_parameters()`); with the
    loop's `ctx`, the models whose parameters the groups were built from before the loop."""
    receivers = _owners(call)
    if not receivers and ctx is not None:  # `_select_optimizer(args, model)`
        receivers = trained_models(ctx, call)
    if not receivers and module is not None:
        receivers = _models_given_to_group_builders(call, module)
    if not receivers and ctx is not None:
        receivers = _models_behind_groups(call, ctx)
    if not receivers and ctx is not None:  # `model.configure_optimizers(...)`
        receivers = [r for r in [method_optimizer_model(ctx, call)] if r]
    if not receivers:
        filled = _unread_group_list(call, ctx)
        if filled is not None:  # `decay.append(t)` over `model.state_dict().items()`
            name, stmt = filled
            raise Unsupported(
                BINDING,
                f"cannot tell which model the optimizer trains: its parameters `{name}` are "
                "filled here from no model's `parameters()` / `named_parameters()`",
                stmt,
            )
        raise Unsupported(
            BINDING,
            "cannot tell which model the optimizer trains (expected `model.parameters()`)",
            call,
        )
    return list(dict.fromkeys(receivers))


def _unread_group_list(call: cst.Call, ctx) -> tuple[str, cst.CSTNode] | None:
    """(name, statement) for the first name the optimizer call reads that a statement before
    the loop fills (`decay.append(t)`, `(no_decay if ... else decay).append(t)`): the list the
    message names, at the line filling it."""
    if ctx is None:
        return None
    for name in sorted(collect_names(call).reads):
        for stmt in ctx.scope_before:
            if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and _fills(stmt, name):
                return name, stmt
    return None


def _models_behind_groups(call: cst.Call, ctx) -> list[str]:
    """The models whose `parameters()` / `named_parameters()` the statements before the loop
    read to fill the names the optimizer call reads, followed back through the statements
    binding or filling them (nanoGPT's `optim_groups` of dict and list comprehensions; decay
    lists filled by `for name, p in model.named_parameters(): ... decay.append(p)`)."""
    todo = list(collect_names(call).reads)
    seen: set[str] = set()
    found = []
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        for stmt in ctx.scope_before:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue  # its body fills nothing when it is defined (minGPT's model class
                # reads `m.named_parameters()` of its submodules in a method)
            if name not in bound_names(stmt) and not _fills(stmt, name):
                continue
            # `for mn, m in model.named_modules(): ... m.named_parameters(recurse=False)`:
            # `m` is the loop's, a submodule of what the loop iterates (read below)
            receivers = [r for r in _owners(stmt) if r not in _loop_targets(stmt)]
            found += receivers
            if not receivers:
                todo += sorted(collect_names(stmt).reads - seen)
    return list(dict.fromkeys(found))


def _loop_targets(stmt) -> set[str]:
    """The names the `for` loops and comprehensions of `stmt` bind as their targets."""
    loops = m.findall(stmt, m.For() | m.CompFor())
    return {n.value for loop in loops for n in m.findall(loop.target, m.Name())}


_FILLING = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})


def _fills(stmt, name: str) -> bool:
    """`stmt` adds to the list, set or dict `name` (`name.append(p)`, `name[k] = p`, also
    `(no_decay if p.ndim < 2 else decay).append(p)`)."""
    if any(c.func.attr.value in _FILLING for c in filling_calls(stmt, name)):
        return True
    return bool(m.findall(stmt, m.AssignTarget(target=m.Subscript(value=m.Name(name)))))


def _models_given_to_group_builders(call: cst.Call, module: cst.Module) -> list[str]:
    """Names passed positionally to a module-level function of the script whose parameter
    in that place it reads as `<param>.parameters()` / `.named_parameters()`."""
    functions = module_functions(module)
    found = []
    for inner in m.findall(call, m.Call(func=m.Name())):
        function = functions.get(inner.func.value)
        if function is None:
            continue
        params = [p.name.value for p in function.params.params]
        read = set(_owners(function.body))
        for param, arg in zip(params, inner.args):
            if arg.keyword is not None or arg.star or not isinstance(arg.value, cst.Name):
                break
            if param in read:
                found.append(arg.value.value)
    return list(dict.fromkeys(found))


def read(ctx, plan, steps) -> None:
    for model in plan.models:
        _read_model(ctx, plan, model)


def _read_model(ctx, plan, model) -> None:
    """The statements before the loop that build or place the model: the construction is
    kept without its device move, placement-only statements go (the Trainer places it)."""
    name = model.name
    devices = plan.device_names
    # a model the function is given is whatever its callers in this file pass (TL132 when
    # none does: a library helper); the LightningModule holds that same object
    given = name in ctx.params and (given_optimizer_plan(plan) or called_in_file(ctx))
    constructed = False
    strips_before = len(plan.strip_stmts)

    def placement_only(stmt, name=name) -> str | None:
        """'remove' for DataParallel wrapping, 'strip' for a device move of the model."""
        assign = single_assign(stmt)
        if assign and ddp_unwrap(ctx, assign, name):  # `model_without_ddp = model.module`
            return "ddp"
        if assign and assign[0] == name:
            value = assign[1]
            if is_ddp_wrap(ctx, value) and isinstance(value.args[0].value, cst.Name):
                return "ddp"
            if is_data_parallel(ctx, strip_device_moves(value, devices)):
                return "remove"  # `model = nn.DataParallel(model).cuda()` too
            if m.matches(strip_device_moves(value, devices), m.Name(name)):
                return "strip"
            return None
        receiver = call_method(stmt, "to") or call_method(stmt, "cuda")
        if receiver is not None and m.matches(receiver, m.Name(name)):
            if is_trivial_statement(strip_device_moves(stmt, devices)):
                return "strip"
        return None

    wrapped = ctx.found.setdefault("data_parallel_conditions", [])
    for stmt in _with_taken_branches(ctx, ctx.scope_before, name, placement_only):
        kind = placement_only(stmt)
        if kind == "ddp":  # `model = DDP(model)`: the strategy wraps it (patterns/ddp/)
            plan.remove_stmts.append(stmt)
            plan.removed_why.append((stmt, 'DDP wrapper -> `strategy="ddp"` wraps the model'))
            continue
        if kind == "remove":
            plan.remove_stmts.append(stmt)
            wrapped.append(None)
            continue
        if kind == "strip":
            plan.strip_stmts.append(stmt)
            continue
        if isinstance(stmt, cst.If) and name in bound_names(stmt) | scope_reads(stmt):
            inner = list(stmt.body.body)
            # `if cuda: Q = Q.cuda(); P = P.cuda()`: the other models the loop trains are
            # placed by the Trainer too (each one's own pass reads the same `if`)
            kinds = [
                placement_only(s) or _placing_another(s, model, plan, placement_only)
                for s in inner
            ]
            others = [s for s, kind in zip(inner, kinds) if kind is None]
            if stmt.orelse is None and inner and all(kinds):
                plan.remove_stmts.append(stmt)
                if "ddp" in kinds:
                    why = 'DDP wrapper -> `strategy="ddp"` wraps the model'
                    plan.removed_why.append((stmt, why))
                if "remove" in kinds:
                    wrapped.append(stmt.test)
                continue
            if (
                stmt.orelse is None
                and any(kinds)
                and "ddp" not in kinds
                and not any(name in bound_names(s) | scope_reads(s) for s in others)
                # what the rest moves may feed the model before fit: its move stays then
                and ("remove" in kinds or not _run_before_the_loop(ctx, name, stmt, plan))
            ):
                # `if torch.cuda.device_count() > 1: print(...); model = DataParallel(model)`
                # or `if cuda: net = net.cuda(); criterion = criterion.cuda()`: the wrap or
                # the model's move goes, the rest of the `if` stays
                body = stmt.body.with_changes(body=others)
                plan.rewrite_stmts.append((stmt, stmt.with_changes(body=body)))
                if "remove" in kinds:
                    wrapped.append(stmt.test)
                continue
        if is_placement_chain(ctx, stmt, name, placement_only):
            # ImageNet's `if not cuda: print(...)` / `elif args.gpu is not None: model =
            # model.cuda(args.gpu)` / `else: model = DataParallel(model).cuda()`: the Trainer
            # follows each branch (placement_chain.py); code before the loop running the
            # model keeps its placements
            kept = _run_before_the_loop(ctx, name, stmt, plan)
            take_placement_chain(ctx, plan, stmt, name, placement_only, kept)
            continue
        if name not in bound_names(stmt):
            continue
        if read_sync_batchnorm(ctx, plan, stmt, name):
            continue  # `if args.sync_bn: model = convert_sync_batchnorm(model)`: the Trainer's
        if isinstance(stmt, cst.If) and _only_compiles(ctx, stmt, name):
            continue  # `if args.compile: model = torch.compile(model)`: kept as written
        assign = single_assign(stmt)
        factory = returned(ctx, stmt, name) if assign is None else None
        if factory is not None:  # `model, loaders = load_train_objs(cfg)`: kept, as given
            constructed = True
            _class_from_factory(model, factory)
            continue
        if assign is None or assign[0] != name:
            if _wraps_in_ddp(ctx, stmt):  # `if ddp: model = DDP(model, ...)`
                raise Unsupported(DISTRIBUTED, DISTRIBUTED.title, stmt)
            if _syncs_batchnorm(ctx, stmt):
                raise Unsupported(BINDING, _SYNC_BATCHNORM, stmt)
            detail = why_not_split(stmt, ctx.module)  # a tuple assignment left whole
            why = f"model `{name}` is bound in a way not understood"
            if isinstance(stmt, cst.If):  # `if init_from == 'scratch': model = GPT(...)`
                test = ctx.module.code_for_node(stmt.test)
                ways = [
                    first_line(s, ctx.module)
                    for s in statements(stmt)
                    if isinstance(s, cst.SimpleStatementLine) and name in bound_names(s)
                ]
                bound = f" (`{'` or `'.join(ways)}`)" if ways else ""
                why = (
                    f"model `{name}` is bound under `if {test}:`{bound}, and which branch runs "
                    f"is not known before the loop, where the LightningModule takes one model: "
                    f"{why_branch_unknown(ctx, stmt)}"
                )
            raise Unsupported(BINDING, f"{why}: {detail}" if detail else why, stmt)
        value = assign[1]
        if is_ddp_wrap(ctx, value) and value.args:  # `model = DDP(Net())` -> `model = Net()`
            value = value.args[0].value
            unwrapped = stmt.with_changes(
                body=[stmt.body[0].with_changes(value=strip_device_moves(value, devices))]
            )
            plan.rewrite_stmts.append((stmt, unwrapped))
            why = "DDP wrapper removed: the strategy wraps the model itself"
            plan.rewritten_why.append((stmt, cst.Module(body=[unwrapped]).code, why))
        elif "ddp" not in ctx.found and any(
            "DistributedDataParallel" in q for q in ctx.call_qualnames(value)
        ):
            ctx.block(DISTRIBUTED, DISTRIBUTED.title, stmt)
        else:
            plan.strip_stmts.append(stmt)
        constructed = True
        core = strip_device_moves(value, devices)
        if isinstance(core, cst.Call):
            func = core.func.attr if isinstance(core.func, cst.Attribute) else core.func
            if isinstance(core.func, cst.Name) and func.value[:1].isupper():
                model.class_name = func.value
    wrapper = ctx.found.get("data_parallel_wrapper")
    if wrapper is not None and model is plan.model:
        plan.remove_stmts.append(wrapper)
        wrapped.append(None)
    wrapper = ctx.found.get("ddp_wrapper")
    if wrapper is not None and model is plan.model:
        plan.remove_stmts.append(wrapper)
        plan.removed_why.append((wrapper, 'DDP wrapper -> `strategy="ddp"` wraps the model'))
    if not constructed and not given and module_global_binding(ctx, name) is None:
        raise Unsupported(BINDING, f"model `{name}` is not bound by a plain assignment", ctx.loop)
    mine = [
        s
        for s in plan.strip_stmts[strips_before:]
        if any(s is t for t in ctx.scope_before)
        and not strip_device_moves(s, devices).deep_equals(s)  # it moves the model
    ]
    if mine and _run_before_the_loop(ctx, name, mine[0], plan):
        kept = {id(s) for s in mine}
        plan.strip_stmts[:] = [s for s in plan.strip_stmts if id(s) not in kept]
    if model.class_name:
        for stmt in ctx.module.body:
            if isinstance(stmt, cst.ClassDef) and stmt.name.value == model.class_name:
                for item in stmt.body.body:
                    if isinstance(item, cst.FunctionDef) and item.name.value == "forward":
                        model.forward_params = item.params


def _with_taken_branches(ctx, stmts, name: str, placement_only) -> list:
    """`stmts` with each `if` building `name` whose branch is known (a test on constants,
    nanoGPT's `if init_from == 'scratch': model = GPT(conf)`) replaced by the statements of
    that branch: the model is the one it builds; the `if` itself stays in the script as
    written. An `if` only moving or wrapping the model (`if cuda: model = model.cuda()`) is
    left to the placement rules below."""
    out = []
    for stmt in stmts:
        taken = taken_branch(ctx, stmt) if name in bound_names(stmt) else None
        binders = [s for s in taken or [] if name in bound_names(s)]
        if not binders or any(
            (single_assign(s) or ("",))[0] != name or placement_only(s) is not None
            for s in binders
        ):
            out.append(stmt)
            continue
        ctx.notes.append(
            f"`{ctx.module.code_for_node(stmt.test)}` is {known_test(ctx, stmt.test)} before "
            f"the loop (its names are constants): `{name}` is what the branch taken binds"
        )
        out += _with_taken_branches(ctx, taken, name, placement_only)
    return out


def _placing_another(stmt, model, plan, placement_only) -> str | None:
    """'strip' when `stmt` only moves another model of the plan to the device."""
    for other in plan.models:
        if other is not model and placement_only(stmt, other.name) == "strip":
            return "strip"
    return None


_SYNC_BATCHNORM = (
    "`SyncBatchNorm.convert_sync_batchnorm` under a test is not turned into "
    "`Trainer(sync_batchnorm=...)`: only a conversion of a DDP script's model, alone under an "
    "`if` (no `else`) whose test keeps its value until the Trainer, is"
)


def _syncs_batchnorm(ctx, stmt) -> bool:
    """`if args.sync_bn: model = nn.SyncBatchNorm.convert_sync_batchnorm(model)`."""
    return any(
        "torch.nn.SyncBatchNorm.convert_sync_batchnorm" in ctx.call_qualnames(call)
        for call in m.findall(stmt, m.Call())
    )


def _only_compiles(ctx, stmt: cst.If, name: str) -> bool:
    """Whether an `if` (no `else`) binds `name` only by `name = torch.compile(name, ...)`. The
    compiled module shares the model's parameters (the optimizer built on either trains the
    same tensors) and runs its forward: the LightningModule can hold it as the model."""
    if stmt.orelse is not None:
        return False
    nested = statements(stmt)[1:]
    # `try: model = torch.compile(model)` / `except Exception: print(...)`: the model stays
    # as it was when compiling fails -- the same `if` is kept as written
    compound = [s for s in nested if not isinstance(s, cst.SimpleStatementLine)]
    if any(name in bound_names(s) and not _compile_attempt(s, name) for s in compound):
        return False
    binding = [s for s in nested if isinstance(s, cst.SimpleStatementLine)]
    binding = [s for s in binding if name in bound_names(s)]
    for inner in binding:
        assign = single_assign(inner)
        value = assign[1] if assign and assign[0] == name else None
        if not (
            isinstance(value, cst.Call)
            and ctx.call_qualnames(value) & {"torch.compile"}
            and value.args
            and m.matches(value.args[0].value, m.Name(name))
        ):
            return False
    return bool(binding)


def parameter_aliases(ctx, name: str) -> set[str]:
    """The names holding the parameters of the model `name` in the same order when the loop
    runs: a name the scope binds once before the loop to it or it to (DeiT's
    `model_without_ddp = model`), the other one rebound after that only by `torch.compile`
    (whose module runs and shares the same parameters), neither in the loop."""
    found = set()
    written = collect_names(ctx.loop).writes
    for stmt in ctx.scope_before:
        assign = single_assign(stmt)
        if assign is None or not isinstance(assign[1], cst.Name) or assign[0] == assign[1].value:
            continue
        pair = {assign[0], assign[1].value}
        if name not in pair or pair & written:
            continue
        other = (pair - {name}).pop()
        later = ctx.scope_before[ctx.scope_before.index(stmt) + 1 :]
        if all(_keeps_parameters(ctx, s, pair) for s in later):
            found.add(other)
    return found


def _keeps_parameters(ctx, stmt, names: set[str]) -> bool:
    """`stmt` rebinds none of `names`, or only compiles one of them (`if args.compile:`)."""
    bound = names & bound_names(stmt)
    if not bound:
        return True
    return (
        len(bound) == 1
        and isinstance(stmt, cst.If)
        and _only_compiles(ctx, stmt, bound.pop())
    )


def _compile_attempt(stmt, name: str) -> bool:
    """A `try` whose handlers do not bind `name` (`except Exception as e:`), nor its
    `else` / `finally`: what it binds to `name` is its body's (checked by the caller)."""
    if not isinstance(stmt, cst.Try):
        return False
    handlers = [h for h in stmt.handlers if h.name is not None]
    if any(m.matches(h.name.name, m.Name(name)) for h in handlers):
        return False
    return not any(
        block is not None and name in bound_names(block)
        for block in (*stmt.handlers, stmt.orelse, stmt.finalbody)
    )


def _run_before_the_loop(ctx, name: str, moved, plan) -> bool:
    """Whether code between the model's device move and the loop may run the model -- call
    it, or hand it (or what it reads of it: `model.parameters()`) to a function that is not
    torch's or a builtin (`evaluate(model, loader)`, `summary(model, ...)`,
    `ExponentialMovingAverage(model.parameters(), 0.99)` cloning its tensors), or call a script
    function reading it as a global. That code feeds it what the script moved
    (`model(x.to(device))`), or makes tensors where the model is: the move stays, or on a GPU
    the model would still be on the CPU there (the Trainer moves it only in fit)."""
    at = next(i for i, s in enumerate(ctx.scope_before) if s is moved)
    placement = {id(s) for s in [*plan.strip_stmts, *plan.remove_stmts]}
    functions = {s.name.value: s for s in ctx.module.body if isinstance(s, cst.FunctionDef)}
    for stmt in ctx.scope_before[at + 1 :]:
        if id(stmt) in placement or isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        if m.findall(
            stmt, m.Call(func=m.Name(name) | m.Attribute(m.Name(name), m.Name("forward")))
        ):
            return True
        for call in m.findall(stmt, m.Call()):
            if any(m.matches(arg.value, m.Name(name)) for arg in call.args) or _given_state(
                ctx, call, name
            ):
                called = ctx.call_qualnames(call)
                if not called or any(q.split(".")[0] not in ("torch", "builtins") for q in called):
                    return True
            function = functions.get(call.func.value) if isinstance(call.func, cst.Name) else None
            if function is not None and _reads_global(function, name):
                return True
    return False


# what a module gives of its tensors, handed on (`ExponentialMovingAverage(model.parameters())`)
_STATE_OF = ("parameters", "named_parameters", "buffers", "named_buffers", "state_dict")


def _given_state(ctx, call: cst.Call, name: str) -> bool:
    """`call` hands the model's tensors (`model.parameters()`) to code that may clone them
    where the model is: a class or function of the script or another library, not torch, the
    standard library (`itertools.chain`) or another module's `load_state_dict`, which copies
    them into its own tensors."""
    state = m.Call(func=m.Attribute(value=m.Name(name), attr=m.OneOf(*map(m.Name, _STATE_OF))))
    if not any(m.matches(arg.value, state) for arg in call.args):
        return False
    if m.matches(call.func, m.Attribute(attr=m.Name("load_state_dict"))):
        return False
    roots = {q.split(".")[0] for q in ctx.call_qualnames(call)}
    return not roots & ({"torch", "builtins"} | set(sys.stdlib_module_names))


def _reads_global(function: cst.FunctionDef, name: str) -> bool:
    params = {p.name.value for p in m.findall(function.params, m.Param())}
    return name not in params and name in scope_reads(function.body)


def _class_from_factory(model, factory) -> None:
    """The model's class, when the factory builds it as `model = Net(...)` (its forward's
    parameters name the batch's parts)."""
    value = factory.value
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
        own = set().union(
            *(bound_names(s) for s in m.findall(factory.factory.body, m.BaseStatement()))
        )
        if value.func.value[:1].isupper() and value.func.value not in own:  # the module's class
            model.class_name = value.func.value


def _wraps_in_ddp(ctx, stmt) -> bool:
    return any(
        "torch.nn.parallel.DistributedDataParallel" in ctx.call_qualnames(call)
        or "torch.nn.parallel.distributed.DistributedDataParallel" in ctx.call_qualnames(call)
        for call in m.findall(stmt, m.Call())
    )


def _bound_in(loop, name: str):
    """The first statement of `loop` binding `name`, or None."""
    for stmt in m.findall(loop, m.SimpleStatementLine()):
        if name in bound_names(stmt):
            return stmt
    return None


def _step_use(ctx, stmt, receiver: str) -> str:
    """The step as the script writes it, for a message: `optimizer.step()`, or the call
    handing the optimizer over (`scaler.step(optimizer)`)."""
    stepped = m.Call(func=m.Attribute(value=m.Name(receiver), attr=m.Name("step")))
    handed = m.Call(args=[m.Arg(m.Name(receiver)), m.ZeroOrMore()])
    for call in m.findall(stmt, stepped | handed):
        return ctx.module.code_for_node(call)
    return f"{receiver}.step()"


def _optimizer_step_outside(ctx):
    """A `<optimizer>.step()` call of the loop (not in its batch loop, where none was found),
    on a name bound to a torch.optim optimizer before the loop."""
    for call in m.findall(ctx.loop, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("step")))):
        binding, _ = ctx.binding(call.func.value.value)
        if binding is not None and optim_kind(ctx, binding) == "optimizer":
            return call
    return None
