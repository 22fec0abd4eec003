"""Trainer flags removed in Lightning 2.0 (guide rows "used Trainer's flag ...").

Applied: device flags (`gpus`, `tpu_cores`, `num_processes`, `auto_select_gpus`) and 1.x
strategy names (`distributed_backend=`, `accelerator="ddp"`) become `accelerator` +
`devices` + `strategy`, with 1.x meanings (`gpus=-1` all, `"0,1"` ids, `0`/None the CPU);
`precision=16`, `amp_*`, `resume_from_checkpoint` (moved to the one `fit` call of that
trainer), `checkpoint_callback`, `progress_bar_refresh_rate`, `weights_summary`,
`terminate_on_nan`, `replace_sampler_ddp`, `max_steps=None`, `reload_dataloaders_every_epoch`,
`log_gpu_memory`; a flag set to its 1.x default is simply removed.
Not converted (reported at the flag, with the guide's instruction): device counts that are
not literals (`gpus=args.gpus`: 0 meant CPU, so the accelerator depends on the value), `dp`,
`ddp2`, `horovod`, sharded strategies, `ipus`, apex, `stochastic_weight_avg=True` (2.x needs
`swa_lrs`), tuner flags, `track_grad_norm`, `flush_logs_every_n_steps`, `weights_save_path`,
scheduled `accumulate_grad_batches`, and the other removed flags. Callbacks the runtime lacks
are reported for `--target runtime`.
"""

from __future__ import annotations

import libcst as cst

from .context import FileUpgrade
from .edits import (
    append_arguments,
    keyword,
    keyword_index,
    keyword_value,
    rewrite_arguments,
)
from .rules import UpgradeRule
from .runtime_api import available_on_runtime
from .triggers import AstIndex
from .values import UNKNOWN, literal, source

RULES = [
    UpgradeRule(
        "TL201",
        "Trainer device flags (gpus, tpu_cores, ipus, num_processes, auto_select_gpus)",
        "Lightning 2.0 removed the per-accelerator count flags: the accelerator is named and "
        "`devices` gives the count or the ids. 1.x meanings are kept: gpus=-1 is every GPU, "
        "a string with a comma lists ids, 0 or None ran on the CPU.",
        "Trainer(gpus=2)",
        'Trainer(accelerator="gpu", devices=2)',
        "pass accelerator=... and devices=... yourself: a count that is not a literal may be "
        "0 (CPU in 1.x); IPUs moved to the lightning-graphcore package",
    ),
    UpgradeRule(
        "TL202",
        "distributed_backend= and accelerator='ddp'/'ddp_spawn'/'ddp_cpu' become strategy=",
        "Since 1.5 the distributed mode is the `strategy`; `accelerator` names the hardware.",
        "Trainer(gpus=2, distributed_backend='ddp')",
        'Trainer(accelerator="gpu", devices=2, strategy="ddp")',
        "'dp' and 'ddp2' were removed in 2.0: use strategy='ddp' (each process sees its own "
        "batch of the same size, so the effective batch grows with the devices); horovod was "
        "removed: use 'ddp'; sharded strategies became strategy='fsdp'",
    ),
    UpgradeRule(
        "TL203",
        "precision=16 / 'bf16' become '16-mixed' / 'bf16-mixed'; amp_backend, amp_level removed",
        "2.0 names precision by mode; native AMP is the only backend, so amp_backend='native' "
        "and amp_level go.",
        "Trainer(precision=16, amp_backend='native')",
        'Trainer(precision="16-mixed")',
        "apex was removed in 2.0: use precision='16-mixed' (native AMP)",
    ),
    UpgradeRule(
        "TL204",
        "resume_from_checkpoint= moves to trainer.fit(..., ckpt_path=...)",
        "The checkpoint to resume from is an argument of fit since 1.5.",
        'trainer = Trainer(resume_from_checkpoint="last.ckpt")\ntrainer.fit(model)',
        'trainer = Trainer()\ntrainer.fit(model, ckpt_path="last.ckpt")',
        "pass the path to the fit call: trainer.fit(model, ckpt_path=...)",
    ),
    UpgradeRule(
        "TL205",
        "checkpoint_callback= becomes enable_checkpointing=",
        "Renamed in 1.5; a ModelCheckpoint goes in callbacks=[...].",
        "Trainer(checkpoint_callback=False)",
        "Trainer(enable_checkpointing=False)",
        "pass a ModelCheckpoint instance in callbacks=[...] and enable_checkpointing=True",
    ),
    UpgradeRule(
        "TL206",
        "progress_bar_refresh_rate= becomes TQDMProgressBar(refresh_rate=) or "
        "enable_progress_bar=False",
        "The progress bar is a callback since 1.5; 0 turned it off.",
        "Trainer(progress_bar_refresh_rate=10)",
        "Trainer(callbacks=[TQDMProgressBar(refresh_rate=10)])",
        "add callbacks=[TQDMProgressBar(refresh_rate=...)] (process_position= goes there too) "
        "or enable_progress_bar=False",
    ),
    UpgradeRule(
        "TL207",
        "weights_summary= becomes enable_model_summary / ModelSummary(max_depth=)",
        "'top' is 2.x's default summary; 'full' is ModelSummary(max_depth=-1); None turns it off.",
        'Trainer(weights_summary="full")',
        "Trainer(callbacks=[ModelSummary(max_depth=-1)])",
        "add callbacks=[ModelSummary(max_depth=...)] (with --target lightning: the runtime "
        "prints the top-level summary only)",
    ),
    UpgradeRule(
        "TL208",
        "terminate_on_nan= becomes detect_anomaly=",
        "The guide's replacement: autograd anomaly detection stops at the first NaN/inf.",
        "Trainer(terminate_on_nan=True)",
        "Trainer(detect_anomaly=True)",
        "set detect_anomaly=True",
    ),
    UpgradeRule(
        "TL209",
        "stochastic_weight_avg=True becomes the StochasticWeightAveraging callback",
        "2.x's StochasticWeightAveraging requires the SWA learning rate (`swa_lrs`), which the "
        "1.x flag took from the optimizer: it cannot be chosen mechanically.",
        "Trainer(stochastic_weight_avg=True)",
        "Trainer(callbacks=[StochasticWeightAveraging(swa_lrs=1e-2)])",
        "add callbacks=[StochasticWeightAveraging(swa_lrs=...)] with your SWA learning rate "
        "(use --target lightning: the runtime has no SWA)",
    ),
    UpgradeRule(
        "TL210",
        "auto_lr_find / auto_scale_batch_size / trainer.tune() become a Tuner",
        "2.0 moved tuning out of the Trainer: `Tuner(trainer).lr_find(model)` / "
        "`.scale_batch_size(model)`, or the LearningRateFinder / BatchSizeFinder callbacks.",
        "trainer = Trainer(auto_lr_find=True)\ntrainer.tune(model)",
        "trainer = Trainer()\nTuner(trainer).lr_find(model)",
        "call lightning.pytorch.tuner.Tuner(trainer).lr_find(model) / .scale_batch_size(model) "
        "before fit (use --target lightning: the runtime has no tuner)",
    ),
    UpgradeRule(
        "TL211",
        "track_grad_norm= becomes a hook",
        "Removed in 2.0; the guide logs the norms in on_before_optimizer_step.",
        "Trainer(track_grad_norm=2)",
        "def on_before_optimizer_step(self, optimizer):\n"
        "    self.log_dict(lightning.pytorch.utilities.grad_norm(self, norm_type=2))",
        "log lightning.pytorch.utilities.grad_norm(self, norm_type=...) in your "
        "LightningModule's on_before_optimizer_step",
    ),
    UpgradeRule(
        "TL212",
        "replace_sampler_ddp= becomes use_distributed_sampler=",
        "Renamed in 2.0.",
        "Trainer(replace_sampler_ddp=False)",
        "Trainer(use_distributed_sampler=False)",
        "rename the flag to use_distributed_sampler",
    ),
    UpgradeRule(
        "TL213",
        "max_steps=None becomes max_steps=-1",
        "2.x turns the limit off with -1 (the default); None is rejected.",
        "Trainer(max_steps=None)",
        "Trainer(max_steps=-1)",
        "pass max_steps=-1",
    ),
    UpgradeRule(
        "TL214",
        "log_gpu_memory= / gpu_metrics= become the DeviceStatsMonitor callback",
        "GPU memory logging moved to a callback in 1.5.",
        'Trainer(log_gpu_memory="all")',
        "Trainer(callbacks=[DeviceStatsMonitor()])",
        "add callbacks=[DeviceStatsMonitor()] (use --target lightning: the runtime has none)",
    ),
    UpgradeRule(
        "TL215",
        "flush_logs_every_n_steps= goes to the logger",
        "Removed from the Trainer in 1.5; loggers that buffer take it.",
        "Trainer(flush_logs_every_n_steps=50)",
        "Trainer(logger=CSVLogger('logs', flush_logs_every_n_steps=50))",
        "pass flush_logs_every_n_steps=... to your logger (CSVLogger takes it) and remove it "
        "from the Trainer",
    ),
    UpgradeRule(
        "TL216",
        "reload_dataloaders_every_epoch=True becomes reload_dataloaders_every_n_epochs=1",
        "Generalised to a period in 1.4.",
        "Trainer(reload_dataloaders_every_epoch=True)",
        "Trainer(reload_dataloaders_every_n_epochs=1)",
        "pass reload_dataloaders_every_n_epochs=1",
    ),
    UpgradeRule(
        "TL217",
        "weights_save_path= becomes ModelCheckpoint(dirpath=)",
        "Removed in 1.7: the checkpoint folder is the ModelCheckpoint's.",
        'Trainer(weights_save_path="ckpts")',
        'Trainer(callbacks=[ModelCheckpoint(dirpath="ckpts")])',
        "pass dirpath=... to your ModelCheckpoint, or default_root_dir=... to the Trainer",
    ),
    UpgradeRule(
        "TL218",
        "accumulate_grad_batches={epoch: n} becomes GradientAccumulationScheduler",
        "2.x takes an int; a schedule is a callback.",
        "Trainer(accumulate_grad_batches={0: 1, 4: 2})",
        "Trainer(callbacks=[GradientAccumulationScheduler(scheduling={0: 1, 4: 2})])",
        "add callbacks=[GradientAccumulationScheduler(scheduling={...})]",
    ),
    UpgradeRule(
        "TL219",
        "other Trainer flags removed in 2.0",
        "truncated_bptt_steps moved to the LightningModule (manual optimization), "
        "prepare_data_per_node to the DataModule, move_metrics_to_cpu and "
        "multiple_trainloader_mode were removed, process_position went to TQDMProgressBar.",
        "Trainer(truncated_bptt_steps=5)",
        "(manual optimization in the LightningModule)",
        "follow the message for the flag; the Trainer rejects it in 2.x",
    ),
]

_ACTION = {rule.code: rule.action for rule in RULES}

_DEVICE_FLAGS = ("gpus", "tpu_cores", "ipus", "num_processes", "auto_select_gpus")
_STRATEGY_SOURCES = ("distributed_backend", "accelerator")
# 1.x `accelerator=` / `distributed_backend=` values naming a distributed mode
_STRATEGIES = {
    "ddp": "ddp",
    "ddp_spawn": "ddp_spawn",
    "ddp_cpu": "ddp",
    "deepspeed": "deepspeed",
}
_GONE_STRATEGIES = {
    "dp": "'dp' was removed in 2.0: use strategy='ddp' (the batch size is per process)",
    "ddp2": "'ddp2' was removed in 2.0: use strategy='ddp'",
    "horovod": "horovod was removed in 2.0: use strategy='ddp'",
    "ddp_sharded": "sharded training became strategy='fsdp' in 2.0",
    "ddp_sharded_spawn": "sharded training became strategy='fsdp' in 2.0",
}
_HARDWARE = {"cpu", "gpu", "cuda", "mps", "tpu", "auto"}
_OTHER_REMOVED = {
    "truncated_bptt_steps": "truncated_bptt_steps was removed: implement it with manual "
    "optimization in the LightningModule",
    "prepare_data_per_node": "prepare_data_per_node moved to the DataModule/LightningModule "
    "attribute of that name",
    "move_metrics_to_cpu": "move_metrics_to_cpu was removed: remove it",
    "multiple_trainloader_mode": "multiple_trainloader_mode was removed: wrap the loaders in "
    "CombinedLoader(loaders, mode=...)",
    "process_position": "process_position was removed: pass it to "
    "TQDMProgressBar(process_position=...)",
}


def may_apply(found: AstIndex) -> bool:
    """Whether a Trainer call of the file passes a flag some row here starts from."""
    if not found.called("Trainer"):
        return False
    if found.call_keywords("Trainer") & _REMOVED_FLAGS:
        return True
    return bool(
        "accumulate_grad_batches" in found.dict_keywords or found.literal_keywords & _OLD_VALUES
    )


class _CallPlan:
    """What becomes of one Trainer(...) call: replaced keywords and callbacks to add."""

    def __init__(self) -> None:
        self.replace: dict[str, list[cst.Arg]] = {}
        self.callbacks: list[tuple[str, str]] = []  # (canonical class, arguments source)
        self.callback_flag: str | None = None  # the flag whose place `callbacks=` takes


class TrainerFlags(cst.CSTVisitor):
    def __init__(self, upgrade: FileUpgrade):
        super().__init__()
        self.upgrade = upgrade

    def visit_Call(self, node: cst.Call) -> None:
        if self.upgrade.refers_to(node.func, "Trainer"):
            self._trainer(node)

    # --- one Trainer call -------------------------------------------------------------------

    def _trainer(self, call: cst.Call) -> None:
        plan = _CallPlan()
        self._devices(call, plan)
        for flag in [a.keyword.value for a in call.args if a.keyword is not None]:
            handler = getattr(self, f"_flag_{flag}", None)
            if handler is not None:
                handler(call, call.args[keyword_index(call, flag)], plan)
            elif flag in _OTHER_REMOVED:
                arg = call.args[keyword_index(call, flag)]
                self.upgrade.reported(arg, "TL219", _OTHER_REMOVED[flag])
        if plan.callbacks:
            self._place_callbacks(call, plan)
        if plan.replace:
            replace = plan.replace
            self.upgrade.edit(call, lambda updated: rewrite_arguments(updated, replace))

    def _value(self, arg: cst.Arg):
        return literal(self.upgrade.module, arg.value)

    def _done(self, arg: cst.Arg, code: str, after: str) -> None:
        before = source(self.upgrade.module, arg)
        self.upgrade.applied(arg, code, f"Trainer({before.rstrip(',')}) -> {after}")

    def _remove_default(self, arg: cst.Arg, code: str, plan: _CallPlan) -> None:
        plan.replace[arg.keyword.value] = []
        self._done(arg, code, "removed (the 2.x default)")

    # --- devices and strategy ---------------------------------------------------------------

    def _devices(self, call: cst.Call, plan: _CallPlan) -> None:
        args = {a.keyword.value: a for a in call.args if a.keyword is not None}
        touched = [name for name in _DEVICE_FLAGS if name in args]
        strategy_arg = args.get("distributed_backend")
        keep_accelerator = False  # the call's own accelerator= names the hardware: keep it
        accelerator = args.get("accelerator")
        if accelerator is not None:
            value = self._value(accelerator)
            if isinstance(value, str) and value not in _HARDWARE:
                if strategy_arg is None:
                    strategy_arg = accelerator  # 1.x: accelerator="ddp" named the strategy
                else:  # both named it: distributed_backend wins, as in 1.x
                    touched.append("accelerator")
            else:
                keep_accelerator = True
        if strategy_arg is not None:
            touched.append(strategy_arg.keyword.value)
        if not touched:
            return
        result: dict[str, cst.BaseExpression] = {}
        if not self._device_counts(args, result):
            return
        if strategy_arg is not None and not self._strategy(args, strategy_arg, result):
            return
        if keep_accelerator:
            result.pop("accelerator", None)
        if "devices" in result and "devices" in args:
            self.upgrade.reported(
                args["devices"], "TL201", "both devices= and a 1.x device count given: keep one"
            )
            return
        new = [keyword(k, result[k]) for k in ("accelerator", "devices", "strategy") if k in result]
        first = min(touched, key=lambda name: keyword_index(call, name))
        for name in touched:
            plan.replace[name] = new if name == first else []
        after = ", ".join(source(self.upgrade.module, a) for a in new) or "removed"
        for name in touched:
            self._done(args[name], "TL201" if name in _DEVICE_FLAGS else "TL202", after)

    def _device_counts(self, args, result) -> bool:
        """Fill `result` from gpus / tpu_cores / ipus / num_processes; False if reported."""
        if "ipus" in args:
            self.upgrade.reported(
                args["ipus"],
                "TL201",
                "IPU support moved to the lightning-graphcore package",
            )
            return False
        if "gpus" in args:
            value = self._value(args["gpus"])
            counted = _gpus(value)
            if counted is None:
                self.upgrade.reported(
                    args["gpus"],
                    "TL201",
                    f"gpus={source(self.upgrade.module, args['gpus'].value)} is not a literal: "
                    "pass accelerator='gpu', devices=<it> (or accelerator='cpu' when it is 0 "
                    "or None, as 1.x did)",
                )
                return False
            accelerator, devices = counted
            result.setdefault("accelerator", cst.SimpleString(f'"{accelerator}"'))
            if devices is not None:
                result["devices"] = (
                    args["gpus"].value if devices is _SAME else cst.parse_expression(devices)
                )
        elif "tpu_cores" in args:
            result.setdefault("accelerator", cst.SimpleString('"tpu"'))
            result["devices"] = args["tpu_cores"].value
        elif "num_processes" in args:
            result.setdefault("accelerator", cst.SimpleString('"cpu"'))
            result["devices"] = args["num_processes"].value
        return True

    def _strategy(self, args, arg: cst.Arg, result) -> bool:
        value = self._value(arg)
        if value is None:
            return True
        if "strategy" in args:
            self.upgrade.reported(arg, "TL202", "both strategy= and a 1.x strategy name given")
            return False
        if value in _GONE_STRATEGIES:
            self.upgrade.reported(arg, "TL202", _GONE_STRATEGIES[value])
            return False
        if value not in _STRATEGIES:
            self.upgrade.reported(
                arg,
                "TL202",
                f"{arg.keyword.value}={source(self.upgrade.module, arg.value)}: "
                "pass the strategy name as strategy=...",
            )
            return False
        if value == "ddp_cpu":
            result["accelerator"] = cst.SimpleString('"cpu"')
        result["strategy"] = cst.SimpleString(f'"{_STRATEGIES[value]}"')
        return True

    # --- one handler per flag ---------------------------------------------------------------

    def _flag_precision(self, call, arg, plan):
        value = self._value(arg)
        new = {16: "16-mixed", "16": "16-mixed", "bf16": "bf16-mixed"}.get(value)
        if new is not None:
            plan.replace["precision"] = [keyword("precision", f'"{new}"')]
            self._done(arg, "TL203", f'precision="{new}"')

    def _flag_amp_backend(self, call, arg, plan):
        if self._value(arg) == "native":
            self._remove_default(arg, "TL203", plan)
        else:
            self.upgrade.reported(arg, "TL203", _ACTION["TL203"])

    def _flag_amp_level(self, call, arg, plan):
        backend = keyword_value(call, "amp_backend")
        if backend is None or literal(self.upgrade.module, backend) == "native":
            self._remove_default(arg, "TL203", plan)
        else:
            self.upgrade.reported(arg, "TL203", _ACTION["TL203"])

    def _flag_resume_from_checkpoint(self, call, arg, plan):
        if self._value(arg) is None:
            self._remove_default(arg, "TL204", plan)
            return
        fit = self._single_fit_call(call)
        if fit is None or keyword_index(fit, "ckpt_path") is not None:
            self.upgrade.reported(
                arg,
                "TL204",
                "no single fit() call of this trainer found: " + _ACTION["TL204"],
            )
            return
        if not self._stable(arg.value):
            self.upgrade.reported(arg, "TL204", "the path is computed; " + _ACTION["TL204"])
            return
        plan.replace["resume_from_checkpoint"] = []
        value = arg.value
        self.upgrade.edit(
            fit,
            lambda updated: append_arguments(updated, [keyword("ckpt_path", value)]),
        )
        line = self.upgrade.position(fit)[0]
        self._done(
            arg,
            "TL204",
            f"fit(..., ckpt_path={source(self.upgrade.module, value)}) at line {line}",
        )

    def _flag_checkpoint_callback(self, call, arg, plan):
        if not isinstance(self._value(arg), bool):  # 1.x also took a ModelCheckpoint here
            self.upgrade.reported(arg, "TL205", _ACTION["TL205"])
            return
        plan.replace["checkpoint_callback"] = [keyword("enable_checkpointing", arg.value)]
        self._done(
            arg,
            "TL205",
            f"enable_checkpointing={source(self.upgrade.module, arg.value)}",
        )

    def _flag_progress_bar_refresh_rate(self, call, arg, plan):
        value = self._value(arg)
        if value is None:
            self._remove_default(arg, "TL206", plan)
        elif value == 0:
            plan.replace[arg.keyword.value] = [keyword("enable_progress_bar", "False")]
            self._done(arg, "TL206", "enable_progress_bar=False")
        elif isinstance(value, int) and not isinstance(value, bool):
            self._add_callback(
                call,
                arg,
                plan,
                "TL206",
                "callbacks.TQDMProgressBar",
                f"refresh_rate={value}",
            )
        else:
            self.upgrade.reported(arg, "TL206", _ACTION["TL206"])

    def _flag_weights_summary(self, call, arg, plan):
        value = self._value(arg)
        if value is None:
            plan.replace[arg.keyword.value] = [keyword("enable_model_summary", "False")]
            self._done(arg, "TL207", "enable_model_summary=False")
        elif value == "top":
            self._remove_default(arg, "TL207", plan)
        elif value == "full":
            self._add_callback(call, arg, plan, "TL207", "callbacks.ModelSummary", "max_depth=-1")
        else:
            self.upgrade.reported(arg, "TL207", _ACTION["TL207"])

    def _flag_terminate_on_nan(self, call, arg, plan):
        self._rename_bool(arg, plan, "TL208", "detect_anomaly", _ACTION["TL208"])

    def _flag_stochastic_weight_avg(self, call, arg, plan):
        self._only_default_removed(arg, plan, "TL209", (False,), _ACTION["TL209"])

    def _flag_auto_lr_find(self, call, arg, plan):
        self._only_default_removed(arg, plan, "TL210", (False,), _ACTION["TL210"])

    _flag_auto_scale_batch_size = _flag_auto_lr_find

    def _flag_track_grad_norm(self, call, arg, plan):
        self._only_default_removed(arg, plan, "TL211", (-1,), _ACTION["TL211"])

    def _flag_replace_sampler_ddp(self, call, arg, plan):
        plan.replace[arg.keyword.value] = [keyword("use_distributed_sampler", arg.value)]
        self._done(
            arg,
            "TL212",
            f"use_distributed_sampler={source(self.upgrade.module, arg.value)}",
        )

    def _flag_max_steps(self, call, arg, plan):
        if self._value(arg) is None:
            plan.replace["max_steps"] = [keyword("max_steps", "-1")]
            self._done(arg, "TL213", "max_steps=-1")

    def _flag_log_gpu_memory(self, call, arg, plan):
        if self._value(arg) in (None, False):
            self._remove_default(arg, "TL214", plan)
        else:
            self._add_callback(call, arg, plan, "TL214", "callbacks.DeviceStatsMonitor", "")

    _flag_gpu_metrics = _flag_log_gpu_memory

    def _flag_flush_logs_every_n_steps(self, call, arg, plan):
        self.upgrade.reported(arg, "TL215", _ACTION["TL215"])

    def _flag_reload_dataloaders_every_epoch(self, call, arg, plan):
        value = self._value(arg)
        if value is False:
            self._remove_default(arg, "TL216", plan)
        elif value is True:
            plan.replace[arg.keyword.value] = [keyword("reload_dataloaders_every_n_epochs", "1")]
            self._done(arg, "TL216", "reload_dataloaders_every_n_epochs=1")
        else:
            self.upgrade.reported(arg, "TL216", _ACTION["TL216"])

    def _flag_weights_save_path(self, call, arg, plan):
        self.upgrade.reported(arg, "TL217", _ACTION["TL217"])

    def _flag_accumulate_grad_batches(self, call, arg, plan):
        if isinstance(arg.value, cst.Dict):
            self.upgrade.reported(arg, "TL218", _ACTION["TL218"])

    # --- shared steps -----------------------------------------------------------------------

    def _rename_bool(self, arg, plan, code, new_name, action):
        value = self._value(arg)
        if value is False:
            self._remove_default(arg, code, plan)
        elif value is True:
            plan.replace[arg.keyword.value] = [keyword(new_name, "True")]
            self._done(arg, code, f"{new_name}=True")
        else:
            self.upgrade.reported(arg, code, action)

    def _only_default_removed(self, arg, plan, code, defaults, action):
        if self._value(arg) in defaults or self._value(arg) is None:
            self._remove_default(arg, code, plan)
        else:
            self.upgrade.reported(arg, code, action)

    def _add_callback(self, call, arg, plan, code, name, arguments):
        existing = keyword_value(call, "callbacks")
        if existing is not None and not isinstance(existing, cst.List):
            self.upgrade.reported(
                arg,
                code,
                f"callbacks= is not a list literal: add {name.rpartition('.')[2]} to it by hand",
            )
            return
        if self.upgrade.target == "runtime" and not available_on_runtime(name):
            short = name.rpartition(".")[2]
            self.upgrade.reported(
                arg,
                code,
                f"torchlift.runtime has no {short}: use --target lightning, or " + _ACTION[code],
            )
            return
        plan.callbacks.append((name, arguments))
        plan.callback_flag = plan.callback_flag or arg.keyword.value
        plan.replace[arg.keyword.value] = []
        self._done(arg, code, f"callbacks=[{name.rpartition('.')[2]}({arguments})]")

    def _place_callbacks(self, call: cst.Call, plan: _CallPlan) -> None:
        """The new callbacks go into `callbacks=[...]`, or a new `callbacks=` takes the place
        of the first flag they replace."""
        existing = keyword_value(call, "callbacks")
        upgrade = self.upgrade
        wanted = plan.callbacks

        def built() -> list[cst.Element]:
            return [
                cst.Element(cst.Call(upgrade.reference(name), args=_parse_args(arguments)))
                for name, arguments in wanted
            ]

        if existing is not None:
            index = keyword_index(call, "callbacks")

            def extend(updated: cst.Call) -> cst.Call:
                listed = updated.args[index].value
                elements = list(listed.elements)
                if elements and elements[-1].comma is cst.MaybeSentinel.DEFAULT:
                    elements[-1] = elements[-1].with_changes(
                        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                    )
                new = built()
                for position, element in enumerate(new[:-1]):
                    new[position] = element.with_changes(
                        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                    )
                args = list(updated.args)
                args[index] = args[index].with_changes(
                    value=listed.with_changes(elements=elements + new)
                )
                return updated.with_changes(args=args)

            self.upgrade.edit(call, extend)
            return
        flag = plan.callback_flag
        original = plan.replace

        def insert(updated: cst.Call) -> cst.Call:
            elements = built()
            for position, element in enumerate(elements[:-1]):
                elements[position] = element.with_changes(
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                )
            listed = cst.List(elements)
            return rewrite_arguments(updated, {flag: [keyword("callbacks", listed)]})

        plan.replace = {k: v for k, v in original.items() if k != flag}
        self.upgrade.edit(call, insert)

    def _single_fit_call(self, trainer_call: cst.Call) -> cst.Call | None:
        """The only `<name>.fit(...)` of the name this Trainer(...) is assigned to."""
        assign = self.upgrade.parent(trainer_call)
        if not (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
        ):
            return None
        name = assign.targets[0].target.value
        scope = self.upgrade.scope(trainer_call)
        if scope is None or len(scope.assignments[name]) != 1:
            return None
        fits = []
        for assignment in scope.assignments[name]:
            for access in assignment.references:
                attribute = self.upgrade.parent(access.node)
                call = self.upgrade.parent(attribute) if attribute is not None else None
                if (
                    isinstance(attribute, cst.Attribute)
                    and attribute.attr.value == "fit"
                    and isinstance(call, cst.Call)
                    and call.func is attribute
                ):
                    fits.append(call)
        return fits[0] if len(fits) == 1 else None

    def _stable(self, value: cst.BaseExpression) -> bool:
        """A literal, or a name (or attribute of one) bound once: the same value at fit."""
        if literal(self.upgrade.module, value) is not UNKNOWN:
            return True
        while isinstance(value, cst.Attribute):
            value = value.value
        if not isinstance(value, cst.Name):
            return False
        scope = self.upgrade.scope(value)
        return scope is not None and len(scope.assignments[value.value]) <= 1


_SAME = object()  # devices is the gpus expression itself


def _gpus(value):
    """(accelerator, devices) for a 1.x `gpus=` literal; devices None: 2.x's default."""
    if value is UNKNOWN:
        return None
    if value is None or value == 0 or value == "0" or value == []:
        return "cpu", None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return "gpu", _SAME
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return "gpu", _SAME
    if isinstance(value, str):
        text = value.strip()
        if text == "-1":
            return "gpu", "-1"
        if "," in text:
            ids = [int(part) for part in text.split(",") if part.strip()]
            return "gpu", repr(ids)
        if text.isdigit():
            return "gpu", text
    return None


def _parse_args(arguments: str) -> list[cst.Arg]:
    if not arguments:
        return []
    return list(cst.ensure_type(cst.parse_expression(f"f({arguments})"), cst.Call).args)


# keywords no 2.x Trainer takes, and literal values only 1.x gave the ones it kept
_REMOVED_FLAGS = {
    name[len("_flag_") :] for name in vars(TrainerFlags) if name.startswith("_flag_")
} - {"precision", "max_steps", "accumulate_grad_batches"}
_REMOVED_FLAGS |= {*_DEVICE_FLAGS, "distributed_backend", *_OTHER_REMOVED}
_OLD_VALUES = {
    ("precision", 16),
    ("precision", "16"),
    ("precision", "bf16"),
    ("max_steps", None),
}
_OLD_VALUES |= {("accelerator", name) for name in (*_STRATEGIES, *_GONE_STRATEGIES)}
