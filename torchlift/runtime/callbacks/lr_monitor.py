"""`LearningRateMonitor`: log each optimizer's learning rate (Lightning 2.6's names and timing).

Names: "lr-<OptimizerClass>" (or the scheduler config's `name`), "-1", "-2"... for repeated
optimizer classes, "/pg1", "/pg2"... (or the param group's "name") when an optimizer has several
parameter groups; "-momentum" / "-weight_decay" suffixes when those are logged too.
Step-interval schedulers are logged at `on_train_batch_start` every `log_every_n_steps`,
epoch-interval ones at `on_train_epoch_start`; optimizers without scheduler at both.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

import torch
from torch.optim import Optimizer

from torchlift.runtime.callbacks import _trainer_state as ts
from torchlift.runtime.callbacks._trainer_state import MisconfigurationException
from torchlift.runtime.callbacks.callback import Callback
from torchlift.runtime.utilities.rank_zero import rank_zero_warn


class LearningRateMonitor(Callback):
    def __init__(
        self,
        logging_interval: str | None = None,
        log_momentum: bool = False,
        log_weight_decay: bool = False,
    ) -> None:
        if logging_interval not in (None, "step", "epoch"):
            raise MisconfigurationException(
                "logging_interval should be `step` or `epoch` or `None`."
            )
        self.logging_interval = logging_interval
        self.log_momentum = log_momentum
        self.log_weight_decay = log_weight_decay
        self.lrs: dict[str, list[float]] = {}
        self.last_momentum_values: dict[str, float | None] = {}
        self.last_weight_decay_values: dict[str, float | None] = {}

    def on_train_start(self, trainer, *args: Any, **kwargs: Any) -> None:
        if not trainer.loggers:
            raise MisconfigurationException(
                "Cannot use `LearningRateMonitor` callback with `Trainer` that has no logger."
            )
        if self.log_momentum and not self._all_have_momentum(trainer):
            rank_zero_warn(
                "You have set log_momentum=True, but some optimizers do not have momentum."
                " This will log a value 0 for the momentum.",
                category=RuntimeWarning,
            )
        sched_names, seen, seen_types = self._find_names_from_schedulers(
            trainer.lr_scheduler_configs
        )
        opt_names, _ = self._find_names_from_optimizers(trainer.optimizers, seen, seen_types)
        names = list(itertools.chain.from_iterable(sched_names + opt_names))
        self.lrs = {name: [] for name in names}
        self.last_momentum_values = {name + "-momentum": None for name in names}
        self.last_weight_decay_values = {name + "-weight_decay": None for name in names}

    @staticmethod
    def _all_have_momentum(trainer) -> bool:
        if trainer.lr_scheduler_configs:
            optimizers = [config.scheduler.optimizer for config in trainer.lr_scheduler_configs]
        else:
            optimizers = list(trainer.optimizers)
        return all("momentum" in o.defaults for o in optimizers) or all(
            "betas" in o.defaults for o in optimizers
        )

    def on_train_batch_start(self, trainer, *args: Any, **kwargs: Any) -> None:
        if self.logging_interval == "epoch" or not ts.should_update_logs(trainer):
            return
        stats = self._extract_stats(trainer, "step" if self.logging_interval is None else "any")
        self._log(trainer, stats)

    def on_train_epoch_start(self, trainer, *args: Any, **kwargs: Any) -> None:
        if self.logging_interval == "step":
            return
        stats = self._extract_stats(trainer, "epoch" if self.logging_interval is None else "any")
        self._log(trainer, stats)

    @staticmethod
    def _log(trainer, stats: dict[str, float]) -> None:
        if stats:
            step = ts.batches_that_stepped(trainer)
            for logger in trainer.loggers:
                logger.log_metrics(stats, step=step)

    def _extract_stats(self, trainer, interval: str) -> dict[str, float]:
        stats: dict[str, float] = {}
        configs = trainer.lr_scheduler_configs
        sched_names, seen, seen_types = self._find_names_from_schedulers(configs)
        self._remap_keys(sched_names)
        for names, config in zip(sched_names, configs):
            if interval in (config.interval, "any"):
                stats.update(self._get_optimizer_stats(config.scheduler.optimizer, names))
        opt_names, unscheduled = self._find_names_from_optimizers(
            trainer.optimizers, seen, seen_types
        )
        self._remap_keys(opt_names)
        for optimizer, names in zip(unscheduled, opt_names):
            stats.update(self._get_optimizer_stats(optimizer, names))
        # Lightning exposes the values to other callbacks (e.g. ModelCheckpoint filenames).
        device = getattr(trainer.strategy, "root_device", None)
        values = {name: torch.tensor(value, device=device) for name, value in stats.items()}
        trainer.callback_metrics.update(values)
        return stats

    def _get_optimizer_stats(self, optimizer: Optimizer, names: list[str]) -> dict[str, float]:
        stats: dict[str, float] = {}
        use_betas = "betas" in optimizer.defaults
        for group, name in zip(optimizer.param_groups, names):
            self.lrs.setdefault(name, []).append(group["lr"])
            stats[name] = group["lr"]
            if self.log_momentum:
                momentum = group["betas"][0] if use_betas else group.get("momentum", 0)
                self.last_momentum_values[f"{name}-momentum"] = momentum
                stats[f"{name}-momentum"] = momentum
            if self.log_weight_decay:
                self.last_weight_decay_values[f"{name}-weight_decay"] = group["weight_decay"]
                stats[f"{name}-weight_decay"] = group["weight_decay"]
        return stats

    def _remap_keys(self, names: list[list[str]], token: str = "/pg1") -> None:
        """An optimizer that gained param groups: "lr-Adam" becomes "lr-Adam/pg1", history kept."""
        for group_names in names:
            for new_name in group_names:
                old_name = new_name.replace(token, "")
                if token in new_name and old_name in self.lrs:
                    self.lrs[new_name] = self.lrs.pop(old_name)
                elif new_name not in self.lrs:
                    self.lrs[new_name] = []

    # --- naming ------------------------------------------------------------------------------
    @staticmethod
    def _add_prefix(name: str, optimizer_cls: type, seen_types: defaultdict) -> str:
        if optimizer_cls not in seen_types:
            return name
        count = seen_types[optimizer_cls]
        return name + f"-{count - 1}" if count > 1 else name

    @staticmethod
    def _add_suffix(name: str, param_groups: list[dict], index: int, use_names: bool = True) -> str:
        if len(param_groups) > 1:
            if not use_names:
                return f"{name}/pg{index + 1}"
            return f"{name}/{param_groups[index].get('name', f'pg{index + 1}')}"
        if use_names:
            group_name = param_groups[index].get("name")
            return f"{name}/{group_name}" if group_name else name
        return name

    @staticmethod
    def _duplicate_param_group_names(param_groups: list[dict]) -> set[str]:
        names = [group.get("name", f"pg{i}") for i, group in enumerate(param_groups, start=1)]
        return {n for n in names if names.count(n) > 1}

    def _find_names_from_schedulers(
        self, configs: list
    ) -> tuple[list[list[str]], list, defaultdict]:
        names: list[list[str]] = []
        seen: list[Optimizer] = []
        seen_types: defaultdict = defaultdict(int)
        for config in configs:
            optimizer = config.scheduler.optimizer
            name = config.name if config.name is not None else "lr-" + type(optimizer).__name__
            names.append(
                self._check_duplicates_and_update_name(optimizer, name, seen, seen_types, config)
            )
        return names, seen, seen_types

    def _find_names_from_optimizers(
        self, optimizers: list, seen: list, seen_types: defaultdict
    ) -> tuple[list[list[str]], list]:
        names: list[list[str]] = []
        unscheduled: list[Optimizer] = []
        for optimizer in optimizers:
            optimizer = getattr(optimizer, "optimizer", optimizer)  # unwrap LightningOptimizer
            if optimizer in seen:
                continue
            name = "lr-" + type(optimizer).__name__
            names.append(
                self._check_duplicates_and_update_name(optimizer, name, seen, seen_types, None)
            )
            unscheduled.append(optimizer)
        return names, unscheduled

    def _check_duplicates_and_update_name(
        self, optimizer: Optimizer, name: str, seen: list, seen_types: defaultdict, config: Any
    ) -> list[str]:
        seen.append(optimizer)
        optimizer_cls = type(optimizer)
        if config is None or config.name is None:
            seen_types[optimizer_cls] += 1
        groups = optimizer.param_groups
        duplicates = self._duplicate_param_group_names(groups)
        if duplicates:
            raise MisconfigurationException(
                "A single `Optimizer` cannot have multiple parameter groups with identical `name`"
                f" values. {name} has duplicated parameter group names {duplicates}"
            )
        name = self._add_prefix(name, optimizer_cls, seen_types)
        return [self._add_suffix(name, groups, i) for i in range(len(groups))]
