"""Gather (read only): find training loops and build a complete LoopPlan for each, or say why not.

Bindings are recognised by qualified name (`torch.optim.Adam`, `optim.SGD`,
`from torch.optim import Adam`, `import torch.nn as tnn`, resolved through the file's
imports), never by variable spelling. Understood: epoch loops over range(...) at module
level, in a function or under `if __name__`; per-epoch helpers (inlined); validation and
test passes under no_grad/inference_mode; schedulers per step/epoch, ReduceLROnPlateau on
a metric; clipping; `if (i + 1) % N == 0` accumulation; autocast + GradScaler; DataParallel.
Does not convert (reported with a rule code, loop left untouched): `while` loops, several
optimizers (GANs), `continue`, `break` before the step, conditional backward, models or
loaders that are parameters of a library function, optimizers used before the loop.
"""

from __future__ import annotations

import builtins

import libcst as cst
import libcst.matchers as m

from .inline_helpers import helper_call, inline_call, training_helpers
from .loop_rules import (
    ACCUMULATION,
    BINDING,
    CONTROL_FLOW,
    DISTRIBUTED,
    EPOCH_STATEMENT,
    EVAL_SHAPE,
    GLOBAL_STATEMENT,
    MIXED_PRECISION,
    NOT_A_LOADER,
    NOT_AN_EPOCH_LOOP,
    PLACEMENT,
    STEP_SEQUENCE,
    WHILE_LOOP,
)
from .names import bound_names, collect_names, node_kinds, scope_reads
from .passes.strip_device_moves import is_device_expr, is_trivial_statement, strip_device_moves
from .plan import EvalPlan, LoopPlan
from .rule import Refused, Unsupported

_TQDM = {"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm", "tqdm.rich.tqdm"}
_TRANGE = {"tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange", "tqdm.std.trange"}
_NO_GRAD = {
    "torch.no_grad",
    "torch.inference_mode",
    "torch.autograd.no_grad",
    "torch.autograd.grad_mode.no_grad",
    "torch.autograd.grad_mode.inference_mode",
}
_CLIP = {
    "torch.nn.utils.clip_grad_norm_": "norm",
    "torch.nn.utils.clip_grad.clip_grad_norm_": "norm",
    "torch.nn.utils.clip_grad_value_": "value",
    "torch.nn.utils.clip_grad.clip_grad_value_": "value",
}
_DATA_PARALLEL = {
    "torch.nn.DataParallel",
    "torch.nn.parallel.DataParallel",
    "torch.nn.parallel.data_parallel.DataParallel",
}


def _call_method(stmt: cst.CSTNode, method: str) -> cst.BaseExpression | None:
    """Receiver of `<receiver>.<method>(...)` when `stmt` is exactly that expression statement."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            func = small.value.func
            if isinstance(func, cst.Attribute) and func.attr.value == method:
                return func.value
    return None


def _single_assign(stmt: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            return small.targets[0].target.value, small.value
    return None


def _direct_breaks(node: cst.CSTNode) -> list[cst.Break]:
    """`break` statements that leave the loop enclosing `node` (not an inner loop)."""
    found = []
    if isinstance(node, (cst.For, cst.While)):
        node = node.body
    for child in node.children:
        if isinstance(child, cst.Break):
            found.append(child)
        elif not isinstance(child, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef)):
            found.extend(_direct_breaks(child))
    return found


def _statements(stmt: cst.CSTNode) -> list:
    """`stmt` and every statement nested in it, in source order."""
    from .find_loops import iter_cst_statements

    return iter_cst_statements([stmt], [])


def _contains(node: cst.CSTNode, kinds: frozenset) -> bool:
    return bool(node_kinds(node) & kinds)


_BACKWARD = frozenset({"backward"})
_FLOW = frozenset({"break", "continue", "return", "yield", "global"})
_FLOW_NO_BREAK = frozenset({"continue", "return", "yield", "global"})
_LOOP = frozenset({"loop"})
_BUILTINS = frozenset(dir(builtins))
_OPTIMIZER_CALL = frozenset({"optimizer_call"})


class _Consequence(Exception):
    """Planning cannot go on, for a reason already recorded as a blocker."""


class LoopPlanner:
    """Builds the plan for one outermost loop. Raises Unsupported with a rule code."""

    def __init__(self, imports: dict[str, str], module: cst.Module, loop: cst.CSTNode) -> None:
        self.index_start: dict[str, cst.BaseExpression] = {}
        self.blockers: list[Unsupported] = []
        self._imports = imports
        self.module = module
        self.loop = loop

    # -- metadata helpers -------------------------------------------------------------
    def qualnames(self, node: cst.CSTNode) -> set[str]:
        return self._import_qualnames(node)

    def _import_qualnames(self, node: cst.CSTNode) -> set[str]:
        from libcst.helpers import get_full_name_for_node

        dotted = get_full_name_for_node(node)
        if not dotted:
            return set()
        head, _, rest = dotted.partition(".")
        if head in self._imports:
            return {self._imports[head] + ("." + rest if rest else "")}
        import builtins

        if not rest and hasattr(builtins, head):
            return {f"builtins.{head}"}
        return set()

    def call_qualnames(self, node: cst.CSTNode) -> set[str]:
        return self.qualnames(node.func) if isinstance(node, cst.Call) else set()

    # -- entry ------------------------------------------------------------------------
    def plan(self) -> LoopPlan:
        """The complete plan, or Refused with every blocker found.

        A check whose failure leaves the rest of the loop readable records its blocker
        (`_block`) and planning goes on, so the user sees every reason at once; a failure
        that leaves nothing sensible to read further raises Unsupported at once."""
        try:
            plan = self._plan()
        except Unsupported as fatal:
            self.blockers.append(fatal)
        except _Consequence:
            pass
        except Exception:
            if not self.blockers:
                raise
            # analysis went on past a recorded blocker and tripped over what it refused:
            # the loop is refused anyway, and the blockers say why
        if self.blockers:
            raise Refused(self.blockers)
        return plan

    def _block(self, rule, reason: str, node) -> None:
        self.blockers.append(Unsupported(rule, reason, node))

    def _plan(self) -> LoopPlan:
        loop = self.loop
        if isinstance(loop, cst.While):
            raise Unsupported(WHILE_LOOP, "`while` training loops are not converted", loop)
        self._locate_container(loop)
        epoch_var, start, max_epochs, epoch_body = self._read_epoch_loop(loop)
        if loop.orelse is not None:
            raise Unsupported(CONTROL_FLOW, "`for ... else` on the epoch loop", loop)
        epoch_body = self._inline_helpers(epoch_body)
        pre, train_loop, post, val_stmt = self._split_epoch_body(epoch_body)
        pre = self._unwrap_progress_bar(train_loop, pre)
        plan_parts = self._read_train_loop(train_loop)
        self._positioned_body = plan_parts[3]
        train_loader, train_target, train_index, body, steps = plan_parts
        optimizer, opt_stmt, opt_call = self._find_optimizer(steps)
        model = self._model_from_optimizer(opt_call)
        aliases = set()
        wrapped = self._data_parallel_wrapper(model)
        if wrapped is not None:  # `parallel = nn.DataParallel(model)`: train `model` itself
            aliases.add(model)
            model = wrapped
        plan = LoopPlan(
            epoch_loop=loop,
            container=self.container,
            in_function=self.in_function,
            epoch_var=epoch_var,
            epoch_start=start,
            max_epochs=max_epochs,
            train_loader=train_loader,
            train_target=train_target,
            train_index=train_index,
            train_body=[stmt for _, stmt in body],
            loss_name=steps["loss"],
            pre_train=pre,
            post_train=post,
            model=model,
            model_class=None,
            forward_params=None,
            optimizer=optimizer,
            optimizer_stmt=opt_stmt,
        )
        plan.model_aliases = aliases
        if getattr(self, "precision", None) is not None:
            precision, enabled = self.precision
            plan.precision = precision
            plan.precision_enabled = enabled
        if getattr(self, "scaler", None) is not None:
            if plan.precision is None:
                raise Unsupported(MIXED_PRECISION, "GradScaler without autocast", self.scaler[1])
            plan.remove_stmts.append(self.scaler[1])
            plan.scaler = self.scaler[0]
        self._check_step_order(plan, steps)
        self._read_scheduler(plan, steps)
        plan.device_names = self._device_names()
        self._read_model_bindings(plan)
        if plan.train_loader in self.params:
            raise Unsupported(
                NOT_A_LOADER,
                f"the loader `{plan.train_loader}` is a parameter of the function holding the "
                "loop: convert the script that builds it",
                self.loop,
            )
        if val_stmt is not None:
            plan.validation = self._read_eval(val_stmt, plan, "validation")
        self._read_test(plan)
        self._drop_mode_calls(plan)
        self._strip_devices(plan)
        from .resolve_names import resolve_names

        plan.inlined_helpers = list(self.inlined)
        plan.index_start = dict(self.index_start)
        for start in self.index_start.values():
            if not isinstance(start, cst.Integer):
                raise Unsupported(NOT_A_LOADER, "enumerate start is not a constant", loop)
        self.scope = scope_info(self, plan)
        resolve_names(plan, self.scope, self._block)
        return plan

    # -- where the loop lives ---------------------------------------------------------
    def _locate_container(self, loop: cst.CSTNode) -> None:
        self.in_function = False
        self.function: cst.FunctionDef | None = None
        owner = None
        for stmt in self.module.body:
            if stmt is loop:
                owner = self.module
                break
            block = getattr(stmt, "body", None)
            if isinstance(block, cst.IndentedBlock) and any(s is loop for s in block.body):
                owner = stmt
                break
        if owner is None:
            raise Unsupported(PLACEMENT, "training loop is nested inside another statement", loop)
        if owner is self.module:
            self.container = self.module
            self.top_stmt = loop
        else:
            if isinstance(owner, cst.FunctionDef):
                self.in_function = True
                self.function = owner
            elif not (
                isinstance(owner, cst.If)
                and m.matches(
                    owner.test,
                    m.Comparison(
                        left=m.Name("__name__"),
                        comparisons=[m.ComparisonTarget(operator=m.Equal())],
                    ),
                )
            ):
                raise Unsupported(
                    PLACEMENT,
                    "training loop is inside a block other than a function or `if __name__`",
                    loop,
                )
            self.container = owner.body
            self.top_stmt = owner
        body = list(self.container.body)
        index = next(i for i, s in enumerate(body) if s is loop)
        self.before = body[:index]
        self.after = body[index + 1 :]
        module_body = list(self.module.body)
        top_index = next(i for i, s in enumerate(module_body) if s is self.top_stmt)
        self.module_before = module_body[:top_index] if self.top_stmt is not loop else []
        self.module_after = module_body[top_index + 1 :] if self.top_stmt is not loop else []
        if self.in_function:
            # names the function binds: parameters + statements before the loop
            self.scope_before = list(self.before)
            self.params = {p.name.value for p in self._all_params(self.function)}
            if _contains(self.function.body, frozenset({"global"})):
                raise Unsupported(GLOBAL_STATEMENT, "the function holding the loop uses global/nonlocal", loop)
        else:
            self.scope_before = [*self.module_before, *self.before]
            self.params = set()
        self.scope_after = list(self.after) + ([] if self.in_function else self.module_after)
        self.module_defs = self._module_definitions()

    @staticmethod
    def _all_params(func: cst.FunctionDef) -> list[cst.Param]:
        p = func.params
        out = [*p.posonly_params, *p.params, *p.kwonly_params]
        for star in (p.star_arg, p.star_kwarg):
            if isinstance(star, cst.Param):
                out.append(star)
        return out

    def _module_definitions(self) -> set[str]:
        names: set[str] = set()
        for stmt in self.module.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                names.add(stmt.name.value)
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        names |= collect_names(small).writes
            elif isinstance(stmt, (cst.If, cst.Try)) and _contains(stmt, frozenset({"import"})):
                for found in _statements(stmt):  # guarded imports
                    if isinstance(found, cst.SimpleStatementLine):
                        for small in found.body:
                            if isinstance(small, (cst.Import, cst.ImportFrom)):
                                names |= collect_names(small).writes
        return names

    # -- epoch loop -------------------------------------------------------------------
    def _read_epoch_loop(self, loop: cst.For):
        iterator = loop.iter
        if isinstance(iterator, cst.Call) and self.call_qualnames(iterator) & _TQDM:
            if iterator.args and iterator.args[0].keyword is None:
                iterator = iterator.args[0].value
        names = self.call_qualnames(iterator)
        if not (names & ({"builtins.range"} | _TRANGE)):
            if isinstance(loop.target, cst.BaseExpression) and self._is_batch_loop_target(loop):
                raise Unsupported(
                    NOT_AN_EPOCH_LOOP,
                    "batch loop without an epoch loop around it: wrap it in "
                    "`for epoch in range(1):` to convert it",
                    loop,
                )
            raise Unsupported(
                NOT_AN_EPOCH_LOOP, "outer loop calling backward() is not `for epoch in range(...)`", loop
            )
        args = iterator.args
        if any(a.keyword is not None or a.star for a in args) or not 1 <= len(args) <= 2:
            raise Unsupported(NOT_AN_EPOCH_LOOP, "epoch range(...) with a step or keywords", loop)
        if isinstance(loop.target, cst.Name):
            epoch_var = loop.target.value if loop.target.value != "_" else None
        else:
            raise Unsupported(NOT_AN_EPOCH_LOOP, "epoch loop target is not a single name", loop)
        if len(args) == 1:
            start, max_epochs = None, args[0].value
        else:
            start, stop = args[0].value, args[1].value
            if (
                isinstance(stop, cst.BinaryOperation)
                and isinstance(stop.operator, cst.Add)
                and isinstance(stop.right, cst.Integer)
                and isinstance(start, cst.Integer)
                and start.evaluated_value == stop.right.evaluated_value
            ):
                max_epochs = stop.left
            elif isinstance(start, cst.Integer) and isinstance(stop, cst.Integer):
                max_epochs = cst.Integer(str(stop.evaluated_value - start.evaluated_value))
            else:
                max_epochs = cst.BinaryOperation(left=stop, operator=cst.Subtract(), right=start)
            if isinstance(start, cst.Integer) and start.evaluated_value == 0:
                start = None
        return epoch_var, start, max_epochs, list(loop.body.body)

    def _inline_helpers(self, stmts):
        helpers = training_helpers(self.module)
        self.inlined: list[str] = []
        if not helpers:
            return stmts
        taken = collect_names(*stmts).all() | set(self.params)
        for stmt in self.scope_before:
            taken |= bound_names(stmt)
        out = []
        for stmt in stmts:
            found = helper_call(stmt, helpers)
            if found is None:
                out.append(stmt)
                continue
            body, bound = inline_call(stmt, *found, taken)
            taken |= bound
            self.inlined.append(found[0].name.value)
            out.extend(body)
        return out

    def _is_batch_loop_target(self, loop: cst.For) -> bool:
        return isinstance(loop.iter, (cst.Name, cst.Call))

    def _split_epoch_body(self, stmts):
        pre, post = [], []
        train_loop = None
        val_stmt = None
        for stmt in stmts:
            if _contains(stmt, _FLOW) and not isinstance(stmt, cst.For):
                self._block(CONTROL_FLOW, "epoch loop body uses break/continue/return", stmt)
            if _contains(stmt, _BACKWARD):
                if isinstance(stmt, cst.For) and train_loop is None:
                    train_loop = stmt
                    continue
                self._block(
                    ACCUMULATION,
                    "backward() is called outside a single batch loop of the epoch "
                    "(conditional or several training loops)",
                    stmt,
                )
                continue
            if train_loop is None:
                if _contains(stmt, _LOOP):
                    self._block(
                        EPOCH_STATEMENT, "loop before the training batch loop in the epoch", stmt
                    )
                pre.append(stmt)
            elif val_stmt is None and self._eval_loop_of(stmt) is not None:
                val_stmt = stmt
                post.append(stmt)  # placeholder: split in _read_eval
            else:
                if _contains(stmt, _LOOP) and not self._harmless_loop(stmt):
                    self._block(
                        EVAL_SHAPE,
                        "second loop over data in the epoch is not a validation loop "
                        "under torch.no_grad()",
                        stmt,
                    )
                post.append(stmt)
        if train_loop is None:
            raise Unsupported(NOT_AN_EPOCH_LOOP, "no batch loop found in the epoch loop", self.loop)
        for stmt in train_loop.body.body:
            if _contains(stmt, _LOOP) and _contains(stmt, _BACKWARD):
                self._block(ACCUMULATION, "backward() in a loop inside the batch loop", stmt)
        return pre, train_loop, post, val_stmt

    def _harmless_loop(self, stmt) -> bool:
        """Loops at epoch level that do not iterate a loader (e.g. over a list of metrics)."""
        for loop in _statements(stmt):
            if isinstance(loop, cst.While):
                return False
            if isinstance(loop, cst.For) and isinstance(loop.iter, cst.Name):
                if self._is_loader_name(loop.iter.value):
                    return False
        return True

    def _is_loader_name(self, name: str) -> bool:
        for stmt in self.scope_before:
            found = _single_assign(stmt)
            if found and found[0] == name and isinstance(found[1], cst.Call):
                if any(q.endswith("DataLoader") for q in self.call_qualnames(found[1])):
                    return True
        return False

    def _eval_loop_of(self, stmt) -> tuple[cst.CSTNode | None, cst.For] | None:
        """(with-statement or None, the batch For) when `stmt` is an evaluation pass."""
        if isinstance(stmt, cst.With) and self._is_no_grad(stmt):
            loops = [s for s in stmt.body.body if isinstance(s, cst.For)]
            if len(loops) == 1 and isinstance(self._unwrap_iter(loops[0])[0], cst.Name):
                return stmt, loops[0]
        if isinstance(stmt, cst.For):
            inner = stmt.body.body
            if len(inner) == 1 and isinstance(inner[0], cst.With) and self._is_no_grad(inner[0]):
                if isinstance(self._unwrap_iter(stmt)[0], cst.Name):
                    return None, stmt
        return None

    def _is_no_grad(self, stmt: cst.With) -> bool:
        return all(
            isinstance(item.item, cst.Call)
            and not item.item.args
            and self.call_qualnames(item.item) & _NO_GRAD
            and item.asname is None
            for item in stmt.items
        )

    # -- batch loops ------------------------------------------------------------------
    def _unwrap_iter(self, loop: cst.For):
        """(loader expression, index name, batch target) of a batch loop."""
        iterator, target, index = loop.iter, loop.target, None
        for _ in range(3):
            if not isinstance(iterator, cst.Call) or not iterator.args:
                break
            names = self.call_qualnames(iterator)
            first = iterator.args[0]
            if first.keyword is not None or first.star:
                break
            if names & _TQDM:
                iterator = first.value
            elif "builtins.enumerate" in names and index is None:
                start = None
                if len(iterator.args) > 2 or (
                    len(iterator.args) == 2
                    and iterator.args[1].keyword is not None
                    and iterator.args[1].keyword.value != "start"
                ):
                    raise Unsupported(NOT_A_LOADER, "enumerate() with unexpected arguments", loop)
                if len(iterator.args) == 2:
                    start = iterator.args[1].value
                    if not isinstance(start, (cst.Integer, cst.Name, cst.Attribute)):
                        raise Unsupported(NOT_A_LOADER, "enumerate start is an expression", loop)
                if not m.matches(
                    target, m.Tuple(elements=[m.Element(m.Name()), m.Element()])
                ) and not m.matches(target, m.List(elements=[m.Element(m.Name()), m.Element()])):
                    raise Unsupported(NOT_A_LOADER, "enumerate target is not `i, batch`", loop)
                index = target.elements[0].value.value
                target = target.elements[1].value
                iterator = first.value
                if start is not None and not (
                    isinstance(start, cst.Integer) and start.evaluated_value == 0
                ):
                    self.index_start[index] = start
            else:
                break
        return iterator, index, target

    def _unwrap_progress_bar(self, loop: cst.For, pre):
        """`pbar = tqdm(loader, ...)` then `for batch in pbar:` with `pbar.set_postfix(...)`:
        Lightning draws its own progress bar, so the bar and its display calls go."""
        iterator, _, _ = self._unwrap_iter(loop)
        if not isinstance(iterator, cst.Name):
            return pre
        name = iterator.value
        for stmt in pre:
            assign = _single_assign(stmt)
            if not assign or assign[0] != name:
                continue
            value = assign[1]
            if not (isinstance(value, cst.Call) and self.call_qualnames(value) & _TQDM):
                return pre
            if not value.args or value.args[0].keyword is not None:
                return pre
            self.progress_bar = (name, value.args[0].value)
            return [s for s in pre if s is not stmt]
        return pre

    def _read_train_loop(self, loop: cst.For):
        if loop.orelse is not None:
            raise Unsupported(CONTROL_FLOW, "`for ... else` on the batch loop", loop)
        iterator, index, target = self._unwrap_iter(loop)
        bar = getattr(self, "progress_bar", None)
        if bar and m.matches(iterator, m.Name(bar[0])):
            iterator = bar[1]
        if not isinstance(iterator, cst.Name):
            raise Unsupported(
                NOT_A_LOADER,
                "batch loop does not iterate a loader name (manual batching over range or "
                "zip is not converted; use a DataLoader)",
                loop,
            )
        if _contains(loop.body, _FLOW_NO_BREAK) or any(
            _direct_breaks(s) for s in loop.body.body if isinstance(s, (cst.For, cst.While))
        ):
            self._block(
                CONTROL_FLOW, "batch loop uses continue/return (cannot be kept faithfully)", loop
            )
        steps: dict = {"zero_grad": [], "backward": None, "step": [], "clip": None}
        body = []
        position = 0
        for stmt in self._unwrap_autocast(loop.body.body):
            position += 1
            receiver = _call_method(stmt, "backward")
            if receiver is not None and self._scaler_call(receiver, "scale"):
                if len(receiver.args) != 1 or not isinstance(receiver.args[0].value, cst.Name):
                    raise Unsupported(MIXED_PRECISION, "scaler.scale(...) of an expression", stmt)
                receiver = receiver.args[0].value  # scaler.scale(loss).backward()
            if receiver is not None:
                if steps["backward"] is not None:
                    self._block(ACCUMULATION, "backward() called twice per batch", stmt)
                    continue
                if not isinstance(receiver, cst.Name):
                    raise Unsupported(
                        ACCUMULATION,
                        "backward() on an expression (gradient scaling or accumulation)",
                        stmt,
                    )
                if stmt.body[0].value.args:
                    self._block(ACCUMULATION, "backward() with arguments", stmt)
                steps["backward"] = position
                steps["loss"] = receiver.value
                steps["backward_stmt"] = stmt
                continue
            receiver = _call_method(stmt, "zero_grad")
            if receiver is not None:
                if not isinstance(receiver, cst.Name):
                    raise Unsupported(STEP_SEQUENCE, "zero_grad() on an expression", stmt)
                steps["zero_grad"].append((position, receiver.value, stmt))
                continue
            if self._scaler_statement(stmt, ("unscale_", "update")):
                continue  # Lightning's mixed precision unscales before clipping and updates
            if self._scaler_statement(stmt, ("step",)):
                args = stmt.body[0].value.args
                if len(args) != 1 or not isinstance(args[0].value, cst.Name):
                    raise Unsupported(MIXED_PRECISION, "scaler.step(...) of an expression", stmt)
                steps["step"].append((position, args[0].value.value, stmt))
                continue
            receiver = _call_method(stmt, "step")
            if receiver is not None and isinstance(receiver, cst.Name):
                if stmt.body[0].value.args:
                    self._block(STEP_SEQUENCE, "step() with arguments", stmt)
                steps["step"].append((position, receiver.value, stmt))
                continue
            if (
                bar
                and (
                    _call_method(stmt, "set_postfix")
                    or _call_method(stmt, "set_description")
                    or _call_method(stmt, "set_postfix_str")
                    or _call_method(stmt, "update")
                )
                is not None
            ):
                receiver = stmt.body[0].value.func.value
                if m.matches(receiver, m.Name(bar[0])):
                    continue  # progress display: Lightning's bar shows the logged loss
            clip = self._clip_call(stmt)
            if clip is not None:
                if steps["clip"] is not None:
                    self._block(STEP_SEQUENCE, "gradients clipped twice", stmt)
                steps["clip"] = (position, clip, stmt)
                continue
            group = self._accumulation_group(stmt, index)
            if group is not None:
                steps["accumulate"] = group
                for inner in stmt.body.body:
                    receiver = _call_method(inner, "zero_grad") or _call_method(inner, "step")
                    kind = "zero_grad" if _call_method(inner, "zero_grad") is not None else "step"
                    steps[kind].append((position, receiver.value, inner))
                continue
            if _contains(stmt, _BACKWARD) or _contains(stmt, _OPTIMIZER_CALL):
                self._block(
                    ACCUMULATION,
                    "optimizer calls inside a nested statement (conditional step or "
                    "gradient accumulation)",
                    stmt,
                )
                continue
            body.append((position, stmt))
        if steps["backward"] is None:
            if self.blockers:  # a backward() the reading refused already (conditional, nested)
                raise _Consequence
            raise Unsupported(STEP_SEQUENCE, "no `loss.backward()` statement in the batch loop", loop)
        return iterator.value, target, index, body, steps

    def _read_accumulation(self, plan: LoopPlan, steps) -> None:
        every = steps["accumulate"]
        code = self.module.code_for_node(every)
        loss = plan.loss_name
        body = self._positioned_body
        found = None
        for k, (position, stmt) in enumerate(body):
            assign = _single_assign(stmt)
            if assign and assign[0] == loss and position < steps["backward"]:
                found = (k, position, stmt, assign[1])
        if found is None:
            raise Unsupported(ACCUMULATION, "accumulated loss is not bound before backward()", self.loop)
        k, position, stmt, value = found
        if not (
            isinstance(value, cst.BinaryOperation)
            and isinstance(value.operator, cst.Divide)
            and self.module.code_for_node(value.right).strip() == code.strip()
        ):
            raise Unsupported(
                ACCUMULATION,
                "gradient accumulation without dividing the loss by the group size "
                "(Lightning divides it)",
                stmt,
            )
        # `loss = X / N` -> `step_loss = X` + `loss = step_loss / N`: Lightning divides the
        # returned `step_loss` by N itself, the same operation the script did
        head = cst.parse_statement(f"step_loss = {self.module.code_for_node(value.left)}\n")
        head = head.with_changes(leading_lines=stmt.leading_lines)
        tail = stmt.with_changes(
            leading_lines=[],
            body=[stmt.body[0].with_changes(value=value.with_changes(left=cst.Name("step_loss")))],
        )
        body[k : k + 1] = [(position, head), (position, tail)]
        plan.train_body = [s for _, s in body]
        plan.loss_capture = "step_loss"
        plan.accumulate = every
        pre_zero = [
            s
            for s in plan.pre_train
            if m.matches(_call_method(s, "zero_grad"), m.Name(plan.optimizer))
        ]
        plan.pre_train = [s for s in plan.pre_train if s not in pre_zero]
        plan.notes.append(
            "accumulate_grad_batches: Lightning also steps on a last partial group of an epoch"
        )

    def _accumulation_group(self, stmt, index):
        """`if (i + 1) % N == 0:` holding only step()/zero_grad(): gradient accumulation.
        Returns N, or None when `stmt` is something else."""
        if not isinstance(stmt, cst.If) or stmt.orelse is not None or index is None:
            return None
        test = stmt.test
        if not m.matches(
            test,
            m.Comparison(
                left=m.BinaryOperation(
                    left=m.BinaryOperation(
                        left=m.Name(index), operator=m.Add(), right=m.Integer("1")
                    ),
                    operator=m.Modulo(),
                ),
                comparisons=[m.ComparisonTarget(operator=m.Equal(), comparator=m.Integer("0"))],
            ),
        ):
            return None
        inner = list(stmt.body.body) if isinstance(stmt.body, cst.IndentedBlock) else []
        for s in inner:
            receiver = _call_method(s, "zero_grad") or _call_method(s, "step")
            if not isinstance(receiver, cst.Name) or s.body[0].value.args:
                return None
        if not inner:
            return None
        return test.left.right

    # -- mixed precision: autocast + GradScaler -> Trainer(precision=...) ---------------
    _AUTOCAST = {
        "torch.autocast",
        "torch.amp.autocast",
        "torch.cuda.amp.autocast",
        "torch.cpu.amp.autocast",
        "torch.amp.autocast_mode.autocast",
    }
    _SCALER = {
        "torch.amp.GradScaler",
        "torch.cuda.amp.GradScaler",
        "torch.amp.grad_scaler.GradScaler",
    }

    def _unwrap_autocast(self, stmts):
        """`with torch.autocast(...):` around forward and loss: its body, the precision noted."""
        out = []
        for stmt in stmts:
            if (
                isinstance(stmt, cst.With)
                and len(stmt.items) == 1
                and isinstance(stmt.items[0].item, cst.Call)
                and self.call_qualnames(stmt.items[0].item) & self._AUTOCAST
                and stmt.items[0].asname is None
                and isinstance(stmt.body, cst.IndentedBlock)
            ):
                self._read_autocast(stmt.items[0].item, stmt)
                body = list(stmt.body.body)
                if body:
                    body[0] = body[0].with_changes(
                        leading_lines=[*stmt.leading_lines, *body[0].leading_lines]
                    )
                out.extend(body)
            else:
                out.append(stmt)
        return out

    def _read_autocast(self, call: cst.Call, stmt) -> None:
        dtype, enabled = None, None
        for arg in call.args:
            key = arg.keyword.value if arg.keyword is not None else None
            if key == "dtype":
                dtype = self.qualnames(arg.value)
            elif key == "enabled":
                enabled = arg.value
            elif key in (None, "device_type"):
                continue
            else:
                raise Unsupported(MIXED_PRECISION, f"autocast({key}=...) is not converted", stmt)
        if dtype and any(q.endswith("bfloat16") for q in dtype):
            precision = "bf16-mixed"
        elif dtype is None or any(q.endswith(("float16", "half")) for q in dtype):
            precision = "16-mixed"
        else:
            raise Unsupported(MIXED_PRECISION, "autocast dtype not understood", stmt)
        if getattr(self, "precision", None) not in (None, (precision, enabled)):
            raise Unsupported(MIXED_PRECISION, "several autocast regions disagree", stmt)
        self.precision = (precision, enabled)

    def _scaler_call(self, node, method: str) -> bool:
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            return False
        if node.func.attr.value != method or not isinstance(node.func.value, cst.Name):
            return False
        binding, _ = self._binding(node.func.value.value)
        if binding is None or not isinstance(binding[1], cst.Call):
            return False
        if self.call_qualnames(binding[1]) & self._SCALER:
            self.scaler = (node.func.value.value, binding[0])
            return True
        return False

    def _scaler_statement(self, stmt, methods) -> bool:
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return False
        small = stmt.body[0]
        if not isinstance(small, cst.Expr):
            return False
        return any(self._scaler_call(small.value, method) for method in methods)

    def _clip_call(self, stmt):
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        small = stmt.body[0]
        call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
        if not isinstance(call, cst.Call):
            return None
        kinds = {_CLIP[q] for q in self.call_qualnames(call) if q in _CLIP}
        if not kinds:
            return None
        if isinstance(small, cst.Assign):
            raise Unsupported(STEP_SEQUENCE, "the gradient norm returned by clipping is used", stmt)
        kind = kinds.pop()
        args = list(call.args)
        if len(args) != 2 or any(a.star for a in args):
            raise Unsupported(STEP_SEQUENCE, "clipping with norm_type or other options", stmt)
        return kind, args[0].value, args[1].value

    # -- optimizer / scheduler / model ------------------------------------------------
    def _binding(self, name: str):
        """The last `name = <expr>` statement of the loop's scope before the loop, and how
        many statements there bind `name`."""
        index = getattr(self, "_binding_index", None)
        if index is None:  # one pass over the scope, then lookups
            index = {}
            for stmt in self.scope_before:
                assign = _single_assign(stmt)
                for bound in bound_names(stmt):
                    found, count = index.get(bound, (None, 0))
                    found = (stmt, assign[1]) if assign and assign[0] == bound else None
                    index[bound] = (found, count + 1)
            self._binding_index = index
        return index.get(name, (None, 0))

    def _find_optimizer(self, steps):
        optimizers = []
        for position, receiver, stmt in steps["step"]:
            binding, _ = self._binding(receiver)
            kind = self._optim_kind(binding)
            if kind is None:
                raise Unsupported(
                    BINDING,
                    f"`{receiver}.step()`: `{receiver}` is not bound to a torch.optim "
                    "optimizer or scheduler call in this scope before the loop",
                    stmt,
                )
            if kind == "optimizer":
                optimizers.append((position, receiver, binding))
        names = {o[1] for o in optimizers}
        if len(names) != 1 or len(optimizers) != 1:
            raise Unsupported(
                STEP_SEQUENCE,
                "expected exactly one optimizer.step() per batch (several optimizers need "
                "manual optimization, not converted)",
                self.loop,
            )
        position, name, (stmt, call) = optimizers[0]
        _, count = self._binding(name)
        if count != 1 or stmt not in self.before and stmt not in self.module_before:
            raise Unsupported(BINDING, f"optimizer `{name}` is bound more than once", stmt)
        steps["optimizer_step"] = position
        return name, stmt, call

    def _optim_kind(self, binding) -> str | None:
        if binding is None:
            return None
        _, value = binding
        names = self.call_qualnames(value)
        if any(q.startswith("torch.optim.lr_scheduler.") for q in names):
            return "scheduler"
        if any(q.startswith("torch.optim.") for q in names):
            return "optimizer"
        return None

    def _model_from_optimizer(self, call: cst.Call) -> str:
        receivers = {
            found.func.value.value
            for found in m.findall(
                call,
                m.Call(
                    func=m.Attribute(
                        value=m.Name(), attr=m.Name("parameters") | m.Name("named_parameters")
                    )
                ),
            )
        }
        if len(receivers) != 1:
            raise Unsupported(
                BINDING,
                "cannot tell which model the optimizer trains (expected `model.parameters()`)",
                call,
            )
        return receivers.pop()

    def _check_step_order(self, plan: LoopPlan, steps) -> None:
        backward = steps["backward"]
        opt_step = steps["optimizer_step"]
        if opt_step < backward:
            self._block(STEP_SEQUENCE, "optimizer.step() before backward()", plan.epoch_loop)
        if steps.get("accumulate") is not None:
            self._read_accumulation(plan, steps)
        zeros = steps["zero_grad"]
        if len(zeros) != 1:
            self._block(
                STEP_SEQUENCE,
                "expected one zero_grad() per batch (none means gradients accumulate)",
                plan.epoch_loop,
            )
        else:
            z_pos, z_name, z_stmt = zeros[0]
            if z_name not in (plan.optimizer, plan.model, *plan.model_aliases):
                self._block(STEP_SEQUENCE, f"zero_grad() on `{z_name}`", z_stmt)
            if backward > z_pos and z_pos > opt_step or backward < z_pos < opt_step:
                self._block(STEP_SEQUENCE, "zero_grad() between backward() and step()", z_stmt)
        if steps["clip"] is not None:
            c_pos, (kind, params, value), c_stmt = steps["clip"]
            if not backward < c_pos < opt_step:
                self._block(STEP_SEQUENCE, "clipping outside backward()..step()", c_stmt)
            if not m.matches(
                params,
                m.Call(
                    func=m.Attribute(
                        value=m.OneOf(*[m.Name(n) for n in {plan.model, *plan.model_aliases}]),
                        attr=m.Name("parameters"),
                    )
                ),
            ):
                raise Unsupported(
                    STEP_SEQUENCE, "clipping something else than model.parameters()", c_stmt
                )
            plan.clip = (value, kind)
        rebound = False
        # statements between backward and step see gradients; after step, updated weights
        for position, stmt in self._positioned_body:
            reads = collect_names(stmt).reads
            if {plan.model, *plan.model_aliases} & reads:
                reads = reads | {plan.model}
            if backward < position < opt_step and plan.model in reads:
                self._block(
                    STEP_SEQUENCE, "code between backward() and step() reads the model", stmt
                )
            if position > opt_step and plan.model in reads:
                self._block(
                    EPOCH_STATEMENT,
                    "code after optimizer.step() reads the model (Lightning runs it before "
                    "the step)",
                    stmt,
                )
            if plan.loss_name in collect_names(stmt).writes and position > backward:
                if plan.accumulate is not None:
                    raise Unsupported(ACCUMULATION, "accumulated loss rebound after backward()", stmt)
                rebound = True
                plan.loss_capture = "step_loss"
            if _direct_breaks(stmt):
                if position < opt_step:
                    self._block(
                        CONTROL_FLOW, "`break` before optimizer.step() cannot be kept faithfully", stmt
                    )
                plan.break_flag = True
        if rebound:
            capture = cst.parse_statement(f"{plan.loss_capture} = {plan.loss_name}\n")
            body = [s for p, s in self._positioned_body if p < backward]
            body += [capture] + [s for p, s in self._positioned_body if p > backward]
            plan.train_body = body

    def _read_scheduler(self, plan: LoopPlan, steps) -> None:
        schedulers = [s for s in steps["step"] if s[1] != plan.optimizer]
        epoch_steps = [s for s in plan.post_train if _call_method(s, "step") is not None]
        for stmt in plan.pre_train:
            receiver = _call_method(stmt, "step")
            if receiver is not None:
                raise Unsupported(
                    EPOCH_STATEMENT, "scheduler.step() before the epoch's training loop", stmt
                )
        found = []
        for position, name, stmt in schedulers:
            found.append((name, "step", stmt))
            if position < steps["optimizer_step"]:
                raise Unsupported(STEP_SEQUENCE, "scheduler.step() before optimizer.step()", stmt)
        for stmt in epoch_steps:
            receiver = _call_method(stmt, "step")
            if isinstance(receiver, cst.Name):
                binding, _ = self._binding(receiver.value)
                if self._optim_kind(binding) == "scheduler":
                    args = stmt.body[0].value.args
                    plateau = any(
                        q.endswith("ReduceLROnPlateau") for q in self.call_qualnames(binding[1])
                    )
                    if args and not (
                        plateau and len(args) == 1 and args[0].keyword is None and not args[0].star
                    ):
                        raise Unsupported(BINDING, "scheduler.step(...) with arguments", stmt)
                    if plateau and not args:
                        raise Unsupported(
                            BINDING, "ReduceLROnPlateau stepped without a metric", stmt
                        )
                    found.append((receiver.value, "epoch", stmt))
        if not found:
            return
        if len({f[0] for f in found}) != 1 or len(found) != 1:
            raise Unsupported(BINDING, "several scheduler.step() calls", found[0][2])
        name, interval, stmt = found[0]
        (binding_stmt, call), count = self._binding(name)
        if count != 1:
            raise Unsupported(BINDING, f"scheduler `{name}` is bound more than once", binding_stmt)
        first = call.args[0] if call.args else None
        if first is None or not m.matches(first.value, m.Name(plan.optimizer)):
            raise Unsupported(
                BINDING, "scheduler is not built on the loop's optimizer", binding_stmt
            )
        plan.scheduler, plan.scheduler_stmt, plan.scheduler_interval = name, binding_stmt, interval
        if interval == "epoch":
            at = next(i for i, s in enumerate(plan.post_train) if s is stmt)
            for later in plan.post_train[at + 1 :]:
                if collect_names(later).reads & {name, plan.optimizer}:
                    raise Unsupported(
                        EPOCH_STATEMENT,
                        "code after the epoch's scheduler.step() reads the optimizer or "
                        "scheduler (Lightning steps the scheduler after the epoch hooks)",
                        later,
                    )
            args = stmt.body[0].value.args
            if args:  # ReduceLROnPlateau: log the metric; Lightning steps it with that value
                metric = args[0].value
                key = metric.value if isinstance(metric, cst.Name) else "monitor"
                plan.scheduler_monitor = key
                code = self.module.code_for_node(metric)
                log = cst.parse_statement(f'self.log("{key}", {code})\n')
                log = log.with_changes(leading_lines=stmt.leading_lines)
                plan.post_train = [log if s is stmt else s for s in plan.post_train]
                return
            plan.post_train = [s for s in plan.post_train if s is not stmt]

    def _data_parallel_wrapper(self, name: str) -> str | None:
        """`name = nn.DataParallel(inner)` bound once to a different name: return `inner`."""
        binding, count = self._binding(name)
        if binding is None or count != 1:
            return None
        stmt, value = binding
        if (
            isinstance(value, cst.Call)
            and self.call_qualnames(value) & _DATA_PARALLEL
            and value.args
            and isinstance(value.args[0].value, cst.Name)
            and value.args[0].value.value != name
        ):
            self.wrapper_stmt = stmt
            return value.args[0].value.value
        return None

    def _read_model_bindings(self, plan: LoopPlan) -> None:
        model = plan.model
        devices = plan.device_names
        if model in self.params:
            raise Unsupported(
                BINDING,
                f"the model `{model}` is a parameter of the function holding the loop (a "
                "library helper, not a script): convert the script that builds the model",
                self.loop,
            )
        constructed = False

        def placement_only(stmt) -> str | None:
            """'remove' for DataParallel wrapping, 'strip' for a device move of the model."""
            assign = _single_assign(stmt)
            if assign and assign[0] == model:
                value = assign[1]
                if isinstance(value, cst.Call) and self.call_qualnames(value) & _DATA_PARALLEL:
                    return "remove"
                if m.matches(strip_device_moves(value, devices), m.Name(model)):
                    return "strip"
                return None
            receiver = _call_method(stmt, "to") or _call_method(stmt, "cuda")
            if receiver is not None and m.matches(receiver, m.Name(model)):
                if is_trivial_statement(strip_device_moves(stmt, devices)):
                    return "strip"
            return None

        for stmt in self.scope_before:
            kind = placement_only(stmt)
            if kind == "remove":
                plan.remove_stmts.append(stmt)
                plan.notes.append("DataParallel removed: the Trainer places the model")
                continue
            if kind == "strip":
                plan.strip_stmts.append(stmt)
                continue
            if isinstance(stmt, cst.If) and model in bound_names(stmt) | scope_reads(stmt):
                inner = list(stmt.body.body)
                kinds = [placement_only(s) for s in inner]
                if stmt.orelse is None and inner and all(kinds):
                    plan.remove_stmts.append(stmt)
                    if "remove" in kinds:
                        plan.notes.append("DataParallel removed: the Trainer places the model")
                    continue
            if model not in bound_names(stmt):
                continue
            assign = _single_assign(stmt)
            if assign is None or assign[0] != model:
                raise Unsupported(
                    BINDING, f"model `{model}` is bound in a way not understood", stmt
                )
            value = assign[1]
            if any("DistributedDataParallel" in q for q in self.call_qualnames(value)):
                self._block(
                    DISTRIBUTED, "DistributedDataParallel scripts are not converted yet", stmt
                )
            plan.strip_stmts.append(stmt)
            constructed = True
            core = strip_device_moves(value, devices)
            if isinstance(core, cst.Call):
                func = core.func.attr if isinstance(core.func, cst.Attribute) else core.func
                if isinstance(core.func, cst.Name) and func.value[:1].isupper():
                    plan.model_class = func.value
        if getattr(self, "wrapper_stmt", None) is not None:
            plan.remove_stmts.append(self.wrapper_stmt)
            plan.notes.append("DataParallel removed: the Trainer places the model")
        if not constructed:
            raise Unsupported(
                BINDING, f"model `{model}` is not bound by a plain assignment", self.loop
            )
        if plan.model_class:
            for stmt in self.module.body:
                if isinstance(stmt, cst.ClassDef) and stmt.name.value == plan.model_class:
                    for item in stmt.body.body:
                        if isinstance(item, cst.FunctionDef) and item.name.value == "forward":
                            plan.forward_params = item.params

    def _device_names(self) -> set[str]:
        names = set()
        for stmt in self.scope_before:
            assign = _single_assign(stmt)
            if assign and self._is_device_value(assign[1]):
                names.add(assign[0])
        return names

    def _is_device_value(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.IfExp):
            return self._is_device_value(value.body) and self._is_device_value(value.orelse)
        if isinstance(value, cst.Call):
            return "torch.device" in self.call_qualnames(value)
        return isinstance(value, cst.SimpleString) and is_device_expr(value, set())

    # -- evaluation passes ------------------------------------------------------------
    def _read_eval(self, stmt, plan: LoopPlan, kind: str) -> EvalPlan:
        with_stmt, loop = self._eval_loop_of(stmt)
        if loop.orelse is not None or _contains(loop.body, _FLOW):
            raise Unsupported(CONTROL_FLOW, f"{kind} loop uses break/continue/return/else", loop)
        iterator, index, target = self._unwrap_iter(loop)
        if iterator.value == plan.train_loader:
            raise Unsupported(EVAL_SHAPE, f"{kind} loop iterates the training loader", loop)
        if with_stmt is not None:
            inner = list(with_stmt.body.body)
            at = next(i for i, s in enumerate(inner) if s is loop)
            before, after = inner[:at], inner[at + 1 :]
            body = list(loop.body.body)
        else:
            before, after = [], []
            body = list(loop.body.body[0].body.body)
        for piece in before + body + after:
            if _contains(piece, _LOOP) and not self._harmless_loop(piece):
                raise Unsupported(EVAL_SHAPE, f"nested loop over data in the {kind} pass", piece)
        # statements between the training loop and this pass that set up its accumulators
        at = next(i for i, s in enumerate(plan.post_train) if s is stmt)
        between, rest = plan.post_train[:at], plan.post_train[at + 1 :]
        eval_names = collect_names(loop, *before).all()
        setup = [
            s
            for s in between
            if collect_names(s).writes & eval_names and not _call_method(s, "eval")
        ]
        plan.post_train = [s for s in between if s not in setup] + after + rest
        return EvalPlan(
            loader=iterator.value,
            target=target,
            index=index,
            before=setup + before,
            body=body,
            after=after,
            anchor=stmt,
        )

    def _read_test(self, plan: LoopPlan) -> None:
        """A test pass after training (`with torch.no_grad(): for batch in test_loader:`)
        becomes test_step + `trainer.test(...)`; anything unusual leaves it as written."""
        after = list(self.after)
        bound_before = set(self.params)
        for stmt in self.scope_before:
            bound_before |= bound_names(stmt)
        for i, stmt in enumerate(after):
            found = self._eval_loop_of(stmt)
            if found is None:
                if _contains(stmt, _LOOP | _BACKWARD):
                    return
                continue
            with_stmt, loop = found
            iterator, index, target = self._unwrap_iter(loop)
            if not isinstance(iterator, cst.Name) or iterator.value == plan.train_loader:
                return
            if iterator.value not in bound_before or loop.orelse is not None:
                return
            if with_stmt is not None:
                inner = list(with_stmt.body.body)
                at = next(k for k, s in enumerate(inner) if s is loop)
                inner_before, inner_after = inner[:at], inner[at + 1 :]
                body = list(loop.body.body)
            else:
                inner_before, inner_after, body = [], [], list(loop.body.body[0].body.body)
            if any(_contains(p, _FLOW | _LOOP) for p in inner_before + body + inner_after):
                return
            pass_names = collect_names(loop, *inner_before).all()
            j = i
            while (
                j > 0
                and not _contains(after[j - 1], _LOOP)
                and (
                    collect_names(after[j - 1]).writes & pass_names
                    or m.matches(_call_method(after[j - 1], "eval"), m.Name(plan.model))
                )
            ):
                j -= 1
            written = collect_names(loop, *inner_before, *inner_after, *after[j:i]).writes
            k = i + 1
            while (
                k < len(after)
                and collect_names(after[k]).reads & written
                and not _contains(after[k], _LOOP)
                and not collect_names(after[k]).reads & {plan.model}
            ):
                k += 1
            section = after[j:k]
            reads = collect_names(*section).reads - collect_names(*section).writes
            if reads - bound_before - self.module_defs - _BUILTINS:
                return  # reads something bound after training: keep the pass as written
            plan.test = EvalPlan(
                loader=iterator.value,
                target=target,
                index=index,
                before=after[j:i] + inner_before,
                body=body,
                after=inner_after + after[i + 1 : k],
                anchor=stmt,
            )
            plan.test_stmts = section
            self.scope_after = [s for s in self.scope_after if not any(s is t for t in section)]
            return

    # -- clean-up of statements the trainer owns --------------------------------------
    def _drop_mode_calls(self, plan: LoopPlan) -> None:
        def keep(stmt) -> bool:
            for method in ("train", "eval"):
                receiver = _call_method(stmt, method)
                if m.matches(receiver, m.Name(plan.model)) if receiver is not None else False:
                    if not stmt.body[0].value.args:
                        return False
            return True

        plan.pre_train = [s for s in plan.pre_train if keep(s)]
        plan.post_train = [s for s in plan.post_train if keep(s)]
        plan.train_body = [s for s in plan.train_body if keep(s)]
        for v in (plan.validation, plan.test):
            if v is not None:
                v.before = [s for s in v.before if keep(s)]
                v.body = [s for s in v.body if keep(s)]
                v.after = [s for s in v.after if keep(s)]

    def _strip_devices(self, plan: LoopPlan) -> None:
        devices = plan.device_names

        def clean(stmts):
            out = []
            for stmt in stmts:
                new = strip_device_moves(stmt, devices)
                if isinstance(new, cst.If) and new.orelse is None:
                    if all(is_trivial_statement(s) for s in new.body.body):
                        continue
                if not is_trivial_statement(new):
                    out.append(new)
            return out

        plan.pre_train = clean(plan.pre_train)
        plan.post_train = clean(plan.post_train)
        plan.train_body = clean(plan.train_body)
        for v in (plan.validation, plan.test):
            if v is not None:
                v.before, v.body, v.after = clean(v.before), clean(v.body), clean(v.after)


def scope_info(planner: LoopPlanner, plan: LoopPlan):
    """What the loop's scope binds and reads outside the loop (for resolve_names)."""
    from .resolve_names import ScopeInfo

    before = set(planner.params)
    for stmt in planner.scope_before:
        before |= bound_names(stmt)
    function_imports: set[str] = set()
    if planner.in_function and _contains(planner.function.body, frozenset({"import"})):
        for found in _statements(planner.function):
            if isinstance(found, cst.SimpleStatementLine):
                for small in found.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        function_imports |= collect_names(small).writes
    after = NameUseAcc()
    for stmt in planner.scope_after:
        after.add(stmt)
    moved = [plan.optimizer_stmt, plan.scheduler_stmt]
    other = set()
    for stmt in planner.scope_before:
        if any(stmt is s for s in moved):
            continue
        other |= scope_reads(stmt)
    return ScopeInfo(
        before_writes=before,
        function_imports=function_imports,
        after_reads=after.reads,
        after_writes=after.writes,
        other_reads=other,
        module_defs=planner.module_defs,
        in_function=planner.in_function,
    )


class NameUseAcc:
    def __init__(self) -> None:
        self.reads: set[str] = set()
        self.writes: set[str] = set()

    def add(self, node) -> None:
        """Accumulate in source order: `reads` are names read before this code binds them."""
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self.writes |= bound_names(node)
            return
        use = collect_names(node)
        self.reads |= use.read_first - self.writes
        self.writes |= use.writes
