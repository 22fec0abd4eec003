"""Build the generated code of a plan: the LightningModule class and the Trainer statements.

User statements are moved as libcst nodes (their comments come along); only names are
rewritten (`model(x)` -> `self(x)`, `criterion` -> `self.criterion`, device -> `self.device`).
The generated class is black-formatted on its own; nothing else in the file is reformatted.
"""

from __future__ import annotations

import dataclasses

import black
import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names, rename, self_attr
from ..plan import LoopPlan
from ..reserved import RESERVED_ATTRIBUTES
from .black_config import current_mode
from .rank_zero import guarded

# keys of Lightning's own checkpoint dict: a saved script variable must not overwrite one
_CHECKPOINT_KEYS = frozenset(
    {
        "epoch",
        "global_step",
        "pytorch-lightning_version",
        "state_dict",
        "loops",
        "callbacks",
        "optimizer_states",
        "lr_schedulers",
        "hparams_name",
        "hyper_parameters",
        "datamodule_hparams_name",
        "datamodule_hyper_parameters",
        "MixedPrecision",
        "native_amp_scaling_state",
    }
)


def attr_name(name: str) -> str:
    return f"{name}_" if name in RESERVED_ATTRIBUTES else name


def line_length() -> int:
    return current_mode().line_length


def format_code(code: str, indent: int = 0) -> str:
    """black with the project's settings, for code that will sit `indent` columns deep (line
    length counted there)."""
    mode = current_mode()
    if indent:
        mode = dataclasses.replace(mode, line_length=mode.line_length - indent)
    try:
        return black.format_str(code, mode=mode)
    except Exception:  # black cannot format it: keep libcst's rendering, still valid Python
        return code


class _ModelCallsToSelf(cst.CSTTransformer):
    """`model(x)` -> `self(x)`: the LightningModule's forward delegates to the model."""

    def __init__(self, model: str) -> None:
        super().__init__()
        self.model = model

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if isinstance(updated_node.func, cst.Name) and updated_node.func.value == self.model:
            return updated_node.with_changes(func=cst.Name("self"))
        return updated_node


_SELF_DEVICE = m.Attribute(value=m.Name("self"), attr=m.Name("device"))


class _DeviceArgsToSelfDevice(cst.CSTTransformer):
    """A device name holding a string reads as `self.device.type` / `str(self.device)` in
    the class (plan.device_expr); where a torch.device is as good -- a `device=` argument, a
    `.to(...)` move -- it is `self.device`, the Trainer's own device with its index."""

    _STRING_FORMS = m.Attribute(value=_SELF_DEVICE, attr=m.Name("type")) | m.Call(
        func=m.Name("str"), args=[m.Arg(value=_SELF_DEVICE)]
    )

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        if updated_node.keyword is not None and updated_node.keyword.value == "device":
            if m.matches(updated_node.value, self._STRING_FORMS):
                return updated_node.with_changes(value=_expr("self.device"))
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if m.matches(updated_node.func, m.Attribute(attr=m.Name("to"))) and updated_node.args:
            first = updated_node.args[0]
            if first.keyword is None and m.matches(first.value, self._STRING_FORMS):
                args = [first.with_changes(value=_expr("self.device")), *updated_node.args[1:]]
                return updated_node.with_changes(args=args)
        return updated_node


def _expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def _stmt(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


def _comment(text: str) -> cst.EmptyLine:
    return cst.EmptyLine(comment=cst.Comment(text))


class ClassBuilder:
    def __init__(
        self, plan: LoopPlan, class_name: str, module: cst.Module, alias: str = "L"
    ) -> None:
        self.plan = plan
        self.class_name = class_name
        self.alias = alias  # the Lightning import's name
        self.module = module
        mapping: dict[str, cst.BaseExpression] = {}
        for name in [*plan.init_args, *sorted(plan.state)]:
            mapping[name] = self_attr(attr_name(name))
        for name in self.hyperparameters:
            mapping[name] = _expr(f"self.hparams.{name}")
        for name in plan.device_names:  # a string stays a string (device_intent)
            expr = plan.device_expr(name)
            if expr is not None:  # None: the script's value, handed over (resolve_names)
                mapping[name] = _expr(expr)
        mapping[plan.train_loader] = _expr("self.trainer.train_dataloader")
        if plan.carried_index:  # read after the batch loop: the last step's index
            mapping[plan.carried_index] = self_attr(attr_name(plan.carried_index))
        if plan.validation:
            v = plan.validation
            # the training loader validated over (a training accuracy in eval mode) is read
            # as the training loader: the same object, under the name that says so
            if v.more_loaders:  # several validation dataloaders: a list, in the passes' order
                for i, name in reversed(list(enumerate([v.loader, *v.more_loaders]))):
                    if name != plan.train_loader:
                        mapping[name] = _expr(f"self.trainer.val_dataloaders[{i}]")
            elif v.loader != plan.train_loader:
                mapping[v.loader] = _expr("self.trainer.val_dataloaders")
        # the test loader is the Trainer's only while it tests: read as such in the test hooks,
        # and in the training run under the role it plays there (validated over, say), if any
        # (patterns/loader_roles.py refuses a read of a loader the Trainer does not hold)
        self.test_mapping: dict[str, cst.BaseExpression] = {}
        if plan.test:
            self.test_mapping[plan.test.loader] = _expr("self.trainer.test_dataloaders")
        self.testing = False  # building the test hooks
        for model in plan.models:
            for name in (model.name, *model.aliases):
                mapping[name] = self_attr(self.model_attr(model))
        self.mapping = mapping
        if not plan.optimizers:  # parameters updated by hand (patterns/hand_update.py)
            return
        # reading the optimizer / scheduler in a step or hook (e.g. the learning rate)
        optimizer = plan.optimizer
        mapping[optimizer.name] = _expr("self.optimizers()")
        if len(plan.optimizers) > 1:
            for k, other in enumerate(plan.optimizers):
                mapping[other.name] = _expr(f"self.optimizers()[{k}]")
            schedulers = [o.scheduler for o in plan.optimizers if o.scheduler]
            for k, scheduler in enumerate(schedulers):
                index = f"[{k}]" if len(schedulers) > 1 else ""
                mapping[scheduler] = _expr(f"self.lr_schedulers(){index}")
            # the script's own lists of them, in the same order (patterns/optimizer_lists.py)
            if plan.optimizer_list is not None:
                mapping[plan.optimizer_list[0]] = _expr("self.optimizers()")
            if plan.scheduler_list is not None:
                mapping[plan.scheduler_list[0]] = _expr("self.lr_schedulers()")
        for given in plan.optimizers:  # the script's own optimizers, handed to `__init__`
            if given.given:
                mapping[given.name] = self_attr(attr_name(given.name))
        if optimizer.scheduler_held:  # the script's scheduler, stepped by the module
            mapping[optimizer.scheduler] = self_attr(attr_name(optimizer.scheduler))
        elif optimizer.scheduler and len(plan.optimizers) == 1:
            mapping[optimizer.scheduler] = _expr("self.lr_schedulers()")
        self.mapping = mapping

    @property
    def hyperparameters(self) -> list[str]:
        """The `__init__` arguments `save_hyperparameters` keeps (patterns/hyperparameters)."""
        return [name for name in self.plan.init_args if name in self.plan.hparams]

    @property
    def several_models(self) -> bool:
        return len(self.plan.models) > 1

    def model_attr(self, model) -> str:
        """`self.model` for the one model (forward delegates to it); each model of several
        keeps its own name."""
        if not self.several_models or model.name == "model":  # `model` is free for a model
            return "model"
        return attr_name(model.name)

    def rewrite(self, nodes, extra=None):
        mapping = dict(self.mapping)
        if self.testing:
            mapping.update(self.test_mapping)
        if extra:
            mapping.update(extra)
        # output run once under DDP (patterns/rank_zero_effects.py), found before renaming
        nodes = guarded(list(nodes), self.plan.rank_zero, "self.trainer.is_global_zero")
        out = []
        model = self.plan.model
        for node in nodes:
            if not self.several_models:
                for name in (model.name, *model.aliases):
                    node = node.visit(_ModelCallsToSelf(name))
            out.append(rename(node, mapping).visit(_DeviceArgsToSelfDevice()))
        return out

    def epoch_prefix(self, nodes) -> list[cst.BaseStatement]:
        plan = self.plan
        if not plan.epoch_var:
            return []
        reads = set()
        for node in nodes:
            reads |= collect_names(node).reads
        if plan.epoch_var not in reads:
            return []
        value = "self.current_epoch"
        if plan.epoch_start is not None:
            value += " + " + self.module.code_for_node(self.rewrite([plan.epoch_start])[0])
        return [_stmt(f"{plan.epoch_var} = {value}\n")]

    def target_prefix(self, target) -> list[cst.BaseStatement]:
        if target is None or isinstance(target, cst.Name) and target.value == "batch":
            return []
        # the batch target binds the same names as the step's body: renamed alike (a batch
        # variable carried as `self.x` is unpacked into `self.x`)
        code = self.module.code_for_node(self.rewrite([target])[0])
        return [_stmt(f"{code} = batch\n")]

    def _unread_counter(self, target, stmts) -> bool:
        """A step loop's counter (a plain name, not carried as state) the step never reads:
        `it = batch` would only be a leftover."""
        if not (self.plan.step_loop and isinstance(target, cst.Name)):
            return False
        kept = self.rewrite([target])[0]
        return isinstance(kept, cst.Name) and kept.value == target.value and not _reads(
            stmts, target.value
        )

    def method(self, header: str, body: list[cst.BaseStatement]) -> cst.FunctionDef:
        if body:  # no blank line right after the `def`
            first = body[0]
            lines = list(first.leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            body = [first.with_changes(leading_lines=lines), *body[1:]]
        written = sorted(collect_names(*body).writes & self.plan.module_globals) if body else []
        if written:  # the script's module globals stay the module's (patterns/module_globals)
            body = [_stmt(f"global {', '.join(written)}\n"), *body]
        func = _stmt(f"def {header}:\n    pass\n")
        return func.with_changes(body=func.body.with_changes(body=body))

    def build(self) -> cst.ClassDef:
        plan = self.plan
        pieces = plan.hook_pieces
        methods = [self.init_method()]
        if not self.several_models:  # several models: the steps call each by its name
            methods.append(self.forward_method())
        if plan.pre_train or "on_train_epoch_start" in pieces.keys() | plan.hook_tails.keys():
            methods.append(self.hook("on_train_epoch_start", plan.pre_train))
        if plan.before_step:  # the code before a step closure (patterns/closure_step.py)
            methods.append(self.train_batch_start())
        elif "on_train_batch_start" in pieces:
            body = [_stmt(code + "\n") for code in pieces["on_train_batch_start"]]
            methods.append(self.method("on_train_batch_start(self, batch, batch_idx)", body))
        methods.append(self.training_step())
        if plan.clip_hook:  # the script's own clipping, its norm kept (patterns/clipping.py)
            header = (
                "configure_gradient_clipping(self, optimizer, gradient_clip_val=None, "
                "gradient_clip_algorithm=None)"
            )
            methods.append(
                self.method(
                    header, self.epoch_prefix(plan.clip_hook) + self.rewrite(plan.clip_hook)
                )
            )
        if plan.after_step:
            methods.append(self.train_batch_end())
        if plan.validation:
            v = plan.validation
            if "on_validation_model_zero_grad" in pieces:  # patterns/bar_draws.py
                methods.append(self.hook("on_validation_model_zero_grad", []))
            if v.keeps_train_mode or set(v.other_modes.values()) - {"eval"}:
                methods.append(self.train_mode_hook("on_validation_model_eval", v))
            if plan.gradients_outlive_step:
                methods.append(self.keep_gradients_hook())
            if v.before:
                methods.append(self.hook("on_validation_epoch_start", v.before))
            methods.append(self.step("validation_step", v.target, v.index, v.body, None))
            if v.after:
                methods.append(self.hook("on_validation_epoch_end", v.after))
        if plan.post_train:
            methods.append(self.hook("on_train_epoch_end", plan.post_train))
        if plan.test:
            t = plan.test
            self.testing = True
            if t.keeps_train_mode:
                methods.append(self.train_mode_hook("on_test_model_eval", t))
            if t.before:
                methods.append(self.hook("on_test_epoch_start", t.before))
            methods.append(self.step("test_step", t.target, t.index, t.body, None))
            if t.after:
                methods.append(self.hook("on_test_epoch_end", t.after))
            self.testing = False
        methods += self.checkpoint_hooks()
        methods.append(self.configure_optimizers())
        cls = _stmt(f"class {self.class_name}({self.alias}.LightningModule):\n    pass\n")
        cls = cls.with_changes(body=cls.body.with_changes(body=methods))
        code = format_code(self.module.code_for_node(cls))
        self.code = code  # the class's text, for callers that need its words (no codegen)
        return cst.parse_statement(code)

    def checkpoint_hooks(self) -> list[cst.FunctionDef]:
        """Carried values a kept hand-set learning rate follows, saved with the checkpoint so
        a resumed run sets the same rates (patterns/lr_decay.py)."""
        plan = self.plan
        names = [n for n in plan.checkpoint_state if n in plan.state | plan.module_globals]
        if not names:
            return []
        keys = {name: f"script_{name}" if name in _CHECKPOINT_KEYS else name for name in names}
        save = [_stmt(f'checkpoint["{keys[name]}"] = {name}\n') for name in names]
        load = [_stmt(f'{name} = checkpoint["{keys[name]}"]\n') for name in names]
        return [
            self.method("on_save_checkpoint(self, checkpoint)", self.rewrite(save)),
            self.method("on_load_checkpoint(self, checkpoint)", self.rewrite(load)),
        ]

    def init_method(self) -> cst.FunctionDef:
        plan = self.plan
        args = [*(model.name for model in plan.models), *plan.init_args]
        lines = ["super().__init__()"]
        if plan.manual_optimization:
            lines.append("self.automatic_optimization = False")
        kept = self.hyperparameters
        if kept:
            ignored = ", ".join(f'"{a}"' for a in args if a not in kept)
            lines.append(f"self.save_hyperparameters({f'ignore=[{ignored}]' if ignored else ''})")
        lines += [f"self.{self.model_attr(model)} = {model.name}" for model in plan.models]
        lines += [f"self.{attr_name(a)} = {a}" for a in plan.init_args if a not in kept]
        body = [_stmt(line + "\n") for line in lines]
        return self.method(f"__init__(self, {', '.join(args)})", body)

    def forward_method(self) -> cst.FunctionDef:
        params = self.plan.model.forward_params
        if params is None or params.star_kwarg is not None or params.kwonly_params:
            return self.method(
                "forward(self, *args, **kwargs)",
                [_stmt("return self.model(*args, **kwargs)\n")],
            )
        plain = [p for p in [*params.posonly_params, *params.params]][1:]
        star = params.star_arg if isinstance(params.star_arg, cst.Param) else None
        sig = [
            self.module.code_for_node(p.with_changes(comma=cst.MaybeSentinel.DEFAULT))
            for p in plain
        ]
        call = [p.name.value for p in plain]
        if star is not None:
            sig.append("*" + star.name.value)
            call.append("*" + star.name.value)
        header = ", ".join(["self", *sig])
        return self.method(f"forward({header})", [_stmt(f"return self.model({', '.join(call)})\n")])

    def hook(self, name: str, stmts) -> cst.FunctionDef:
        lead = [_stmt(code + "\n") for code in self.plan.hook_pieces.get(name, [])]
        tail = [_stmt(code + "\n") for code in self.plan.hook_tails.get(name, [])]
        body = lead + self.rewrite(stmts) + tail
        prefix = self.epoch_prefix(stmts)
        if prefix and body:  # the hook's first statement follows the prefix: no blank line
            lines = list(body[0].leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            body[0] = body[0].with_changes(leading_lines=lines)
        return self.method(f"{name}(self)", prefix + body)

    def step(self, name, target, index, stmts, loss) -> cst.FunctionDef:
        extra = {}
        prefix = []
        start = self.plan.index_start.get(index) if index else None
        if start is not None:
            # `for i, b in enumerate(loader, 1)`: the script's counter, when the step reads it
            if index == self.plan.carried_index or _reads(stmts, index):
                prefix = [_stmt(f"{index} = batch_idx + {self.module.code_for_node(start)}\n")]
            extra[index] = cst.Name(index)
        elif index:
            extra[index] = cst.Name("batch_idx")
        if index and index == self.plan.carried_index and name == self.plan.index_carried_by:
            # code after the batch loop (or the validation pass) reads the last step's index
            value = index if start is not None else "batch_idx"
            prefix.append(_stmt(f"self.{attr_name(index)} = {value}\n"))
        unpack = self.target_prefix(target)
        if self._unread_counter(target, stmts):
            unpack = []
        # an index named like the step's `batch` parameter is bound after the batch is unpacked
        lead = unpack + prefix if index == "batch" else prefix + unpack
        if loss is not None and self.plan.manual_optimization and self.plan.optimizers:
            # the step calls the optimizers by the script's names, bound once per step
            names = [optimizer.name for optimizer in self.plan.optimizers]
            extra.update({name: cst.Name(name) for name in names})
            optimizers = [_stmt(f"{', '.join(names)} = self.optimizers()\n")]
            schedulers = [o.scheduler for o in self.plan.optimizers if o.scheduler]
            reads = set().union(*(collect_names(s).reads for s in stmts)) if stmts else set()
            if len(self.plan.optimizers) > 1 and reads & set(schedulers):
                extra.update({name: cst.Name(name) for name in schedulers})
                optimizers.append(_stmt(f"{', '.join(schedulers)} = self.lr_schedulers()\n"))
            lead = optimizers + lead
        body = lead + self.rewrite(stmts, extra)
        if loss is not None:  # the training step: what patterns rewrite in it
            for rewrite_step in self.plan.step_rewrites:
                rewritten = (rewrite_step(node) for node in body)
                body = [node for node in rewritten if not isinstance(node, cst.RemovalSentinel)]
        if loss is not None and len(self.plan.optimizers) <= 1:  # one loss to log and return
            loss_code = self.module.code_for_node(self.rewrite([cst.Name(loss)])[0])
            bar = ", prog_bar=True" if self.plan.loss_on_progress_bar else ""
            if self.plan.loss_every_step:
                body.append(_stmt(f'self.log("train_loss", {loss_code}{bar})\n'))
            if not self.plan.manual_optimization:  # manual steps return nothing to optimize
                body.append(_stmt(f"return {loss_code}\n"))
        if body and name in self.plan.full_precision_passes:
            body = [_full_precision(body, training=loss is not None)]
        if not body:
            body = [_stmt("pass\n")]
        more = name == "validation_step" and self.plan.validation.more_loaders
        params = "batch, batch_idx, dataloader_idx=0" if more else "batch, batch_idx"
        return self.method(f"{name}(self, {params})", self.epoch_prefix(stmts) + body)

    def training_step(self) -> cst.FunctionDef:
        p = self.plan
        loss = p.loss_capture or p.loss_name
        return self.step("training_step", p.train_target, p.train_index, p.train_body, loss)

    def keep_gradients_hook(self) -> cst.FunctionDef:
        """Lightning zeroes the gradients before each validation pass (its
        `on_validation_model_zero_grad`). A manual step kept as written zeroes them where the
        script does: gradients it carries past the pass (an accumulation group left partial
        at an epoch's end, added into the next epoch's first update) must stay there."""
        body = _stmt("pass\n").with_changes(
            leading_lines=[
                _comment("# Lightning would zero the gradients here; the step zeroes them where"),
                _comment("# the script did (what an epoch leaves in them carries into the next)"),
            ]
        )
        return self.method("on_validation_model_zero_grad(self)", [body])

    def train_mode_hook(self, name: str, evaluation) -> cst.FunctionDef:
        """Lightning's eval-mode switch before an evaluation pass, overridden to keep the
        modes the script evaluated in: train mode for the model when it never called
        model.eval(), and each other module the pass runs (an EMA copy) in its own."""
        base = "train" if evaluation.keeps_train_mode else "eval"
        why = (
            "# the script evaluated in train mode (it never called model.eval())"
            if evaluation.keeps_train_mode
            else "# the script evaluated the model in eval mode"
        )
        body = [_stmt(f"self.{base}()\n").with_changes(leading_lines=[_comment(why)])]
        for module, mode in evaluation.other_modes.items():
            if mode != base:
                why = f"# and `{module}` in {mode} mode, as the script set it"
                line = _stmt(f"self.{module}.{mode}()\n")
                body.append(line.with_changes(leading_lines=[_comment(why)]))
        return self.method(f"{name}(self)", body)

    def train_batch_end(self) -> cst.FunctionDef:
        """Code the script ran after `optimizer.step()`: Lightning's hook after the step."""
        plan = self.plan
        header = "on_train_batch_end(self, outputs, batch, batch_idx)"
        return self.batch_hook(header, plan.after_step, plan.after_step_pieces())

    def train_batch_start(self) -> cst.FunctionDef:
        """Code the script ran before a step closure: Lightning's hook before the step."""
        plan = self.plan
        header = "on_train_batch_start(self, batch, batch_idx)"
        return self.batch_hook(header, plan.before_step, plan.before_step_pieces())

    def batch_hook(self, header: str, stmts, pieces) -> cst.FunctionDef:
        plan = self.plan
        index = plan.train_index
        extra = {index: cst.Name("batch_idx")} if index and index != "batch_idx" else None
        prefix = []
        start = plan.index_start.get(index) if index else None
        if start is not None:
            if _reads(stmts, index):
                prefix = [_stmt(f"{index} = batch_idx + {self.module.code_for_node(start)}\n")]
            extra = None
        unpack = self.target_prefix(plan.train_target) if pieces[0] is plan.train_target else []
        body = prefix + unpack + self.rewrite(stmts, extra)
        return self.method(header, self.epoch_prefix(stmts) + body)

    def configure_optimizers(self) -> cst.FunctionDef:
        plan = self.plan
        if not plan.optimizers:  # Lightning runs the fit with no optimizer (and warns)
            why = "# the parameters are updated by hand in training_step"
            body = [_stmt("return None\n").with_changes(leading_lines=[_comment(why)])]
            return self.method("configure_optimizers(self)", body)
        if len(plan.optimizers) > 1:  # built in the script's order, the step's unpacking
            names = [optimizer.name for optimizer in plan.optimizers]
            local = {name: cst.Name(name) for name in names}
            for optimizer in plan.optimizers:  # the caller's optimizers, handed to `__init__`
                if optimizer.given:
                    local[optimizer.name] = self_attr(attr_name(optimizer.name))
            for loader in plan.loader_args:
                local[loader] = self_attr(attr_name(loader))
            schedulers = [o for o in plan.optimizers if o.scheduler]
            local.update({o.scheduler: cst.Name(o.scheduler) for o in schedulers})
            stmts = [o.stmt for o in plan.optimizers if not o.given]
            stmts += [o.scheduler_stmt for o in schedulers]
            returned = ", ".join(self.module.code_for_node(local[name]) for name in names)
            if schedulers:  # Lightning ties each to the optimizer it was built on
                returned = f"[{returned}], [{', '.join(o.scheduler for o in schedulers)}]"
            if plan.scheduler_list is not None:  # the script's lists, built as it built them
                lists = [plan.optimizer_list, plan.scheduler_list]
                stmts += [stmt for _, stmt in lists]
                local.update({name: cst.Name(name) for name, _ in lists})
                returned = ", ".join(name for name, _ in lists)
            body = self.rewrite(stmts, local)
            body.append(_stmt(f"return {returned}\n"))
            return self.method("configure_optimizers(self)", body)
        optimizer = plan.optimizer
        stmts = [] if optimizer.given else [optimizer.stmt]
        if optimizer.scheduler_stmt is not None:
            stmts.append(optimizer.scheduler_stmt)
        local = {optimizer.name: cst.Name(optimizer.name)}
        if optimizer.given:  # the caller's optimizer, handed to `__init__`
            local[optimizer.name] = self_attr(attr_name(optimizer.name))
        # the Trainer sets up its dataloaders after configure_optimizers: use the ones passed in
        for loader in plan.loader_args:
            local[loader] = self_attr(attr_name(loader))
        if optimizer.scheduler:
            local[optimizer.scheduler] = cst.Name(optimizer.scheduler)
        if optimizer.scheduler_given:  # the script's scheduler, Lightning steps it
            local[optimizer.scheduler] = self_attr(attr_name(optimizer.scheduler))
        body = self.rewrite(stmts, local)
        returned = self.module.code_for_node(local[optimizer.name])
        if optimizer.scheduler is None or optimizer.scheduler_held:
            body.append(_stmt(f"return {returned}\n"))
        else:
            monitor = f'"monitor": "{optimizer.monitor}", ' if optimizer.monitor else ""
            scheduler = self.module.code_for_node(local[optimizer.scheduler])
            every = f', "frequency": {optimizer.frequency}' if optimizer.frequency != 1 else ""
            body.append(
                _stmt(
                    f'return {{"optimizer": {returned}, "lr_scheduler": '
                    f'{{"scheduler": {scheduler}, {monitor}'
                    f'"interval": "{optimizer.interval}"{every}}}}}\n'
                )
            )
        return self.method("configure_optimizers(self)", body)


def _reads(stmts, name: str) -> bool:
    return any(name in collect_names(stmt).reads for stmt in stmts)


def _full_precision(body: list, training: bool = False) -> cst.With:
    """`body` under `torch.autocast(..., enabled=False)`: Lightning runs the steps in its
    precision's autocast, where the script evaluated in full precision, or autocast only a
    region of the step (kept inside, patterns/amp_partial.py)."""
    block = _stmt("with torch.autocast(self.device.type, enabled=False):\n    pass\n")
    why = (
        "# the script autocast only its region below: Lightning would autocast all the step"
        if training or any(isinstance(s, cst.With) for s in body)
        else "# the script evaluated in full precision: Lightning would autocast this step"
    )
    return block.with_changes(
        body=block.body.with_changes(body=body), leading_lines=[_comment(why)]
    )
