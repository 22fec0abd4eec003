"""What `configure_optimizers` may return, parsed into optimizers + scheduler configs; and the
`LightningOptimizer` wrapper whose `step` goes through the trainer's precision plugin."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import torch
from torch.optim import Optimizer

from torchlift.runtime.errors import MisconfigurationException

_SCHEDULER_KEYS = {
    "scheduler",
    "name",
    "interval",
    "frequency",
    "reduce_on_plateau",
    "monitor",
    "strict",
    "opt_idx",
}
_ACCEPTED_FORMS = (
    "an Optimizer; a list/tuple of Optimizers; a tuple of two lists ([optimizers], [schedulers]); "
    'a dict {"optimizer": ..., "lr_scheduler": scheduler or {"scheduler": ..., "interval": ..., '
    '"frequency": ..., "monitor": ...}, "monitor": ...}; a list/tuple of such dicts; or None'
)


@dataclass
class LRSchedulerConfig:
    scheduler: Any
    name: Optional[str] = None
    interval: str = "epoch"
    frequency: int = 1
    reduce_on_plateau: bool = False
    monitor: Optional[str] = None
    strict: bool = True


def _is_optimizer(obj: Any) -> bool:
    return isinstance(obj, Optimizer) or (
        callable(getattr(obj, "step", None)) and hasattr(obj, "param_groups")
    )


def _is_plateau(scheduler: Any) -> bool:
    return isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau)


def _scheduler_config(entry: Any, monitor: Optional[str]) -> LRSchedulerConfig:
    if isinstance(entry, dict):
        if "scheduler" not in entry:
            raise MisconfigurationException(
                'configure_optimizers: the "lr_scheduler" dict needs a "scheduler" key '
                f"(accepted keys: {sorted(_SCHEDULER_KEYS)})"
            )
        unknown = set(entry) - _SCHEDULER_KEYS
        if unknown:
            raise MisconfigurationException(
                f'configure_optimizers: unknown key(s) {sorted(unknown)} in the "lr_scheduler" dict; '
                f"accepted: {sorted(_SCHEDULER_KEYS)}"
            )
        interval = entry.get("interval", "epoch")
        if interval not in ("step", "epoch"):
            raise MisconfigurationException(
                f'configure_optimizers: "interval" is {interval!r}; accepted: "step", "epoch"'
            )
        frequency = entry.get("frequency", 1)
        if not isinstance(frequency, int) or frequency < 1:
            raise MisconfigurationException(
                f'configure_optimizers: "frequency" is {frequency!r}; accepted: a positive int'
            )
        scheduler = entry["scheduler"]
        config = LRSchedulerConfig(
            scheduler=scheduler,
            name=entry.get("name"),
            interval=interval,
            frequency=frequency,
            reduce_on_plateau=entry.get("reduce_on_plateau", _is_plateau(scheduler)),
            monitor=entry.get("monitor", monitor),
            strict=entry.get("strict", True),
        )
    else:
        config = LRSchedulerConfig(
            scheduler=entry, reduce_on_plateau=_is_plateau(entry), monitor=monitor
        )
    if not hasattr(config.scheduler, "step") or not hasattr(config.scheduler, "state_dict"):
        raise MisconfigurationException(
            f"configure_optimizers: {type(config.scheduler).__name__} is not a learning-rate scheduler "
            "(needs step() and state_dict())"
        )
    if config.reduce_on_plateau and config.monitor is None:
        raise MisconfigurationException(
            'configure_optimizers: a ReduceLROnPlateau scheduler needs a "monitor" key naming a logged '
            'metric, e.g. {"scheduler": sched, "monitor": "val_loss"}'
        )
    return config


def _unknown(result: Any) -> MisconfigurationException:
    return MisconfigurationException(
        f"configure_optimizers returned an unsupported value of type {type(result).__name__}; "
        f"accepted: {_ACCEPTED_FORMS}"
    )


def _from_dict(entry: dict) -> tuple[Optimizer, list[LRSchedulerConfig]]:
    if "optimizer" not in entry or not _is_optimizer(entry["optimizer"]):
        raise MisconfigurationException(
            'configure_optimizers: a returned dict needs an "optimizer" key holding an Optimizer; '
            f"accepted: {_ACCEPTED_FORMS}"
        )
    unknown = set(entry) - {"optimizer", "lr_scheduler", "monitor"}
    if unknown:
        raise MisconfigurationException(
            f"configure_optimizers: unknown key(s) {sorted(unknown)} in the returned dict; "
            'accepted: "optimizer", "lr_scheduler", "monitor"'
        )
    configs = []
    if entry.get("lr_scheduler") is not None:
        configs.append(_scheduler_config(entry["lr_scheduler"], entry.get("monitor")))
    return entry["optimizer"], configs


def parse_optimizers(result: Any) -> tuple[list[Optimizer], list[LRSchedulerConfig]]:
    """Normalise every return form of `configure_optimizers` that Lightning 2.x accepts."""
    if result is None:
        return [], []
    if _is_optimizer(result):
        return [result], []
    if isinstance(result, dict):
        optimizer, configs = _from_dict(result)
        return [optimizer], configs
    if isinstance(result, (list, tuple)):
        items = list(result)
        if (
            len(items) == 2
            and isinstance(items[0], (list, tuple))
            and all(_is_optimizer(o) for o in items[0])
        ):
            schedulers = items[1] if isinstance(items[1], (list, tuple)) else [items[1]]
            return list(items[0]), [_scheduler_config(s, None) for s in schedulers]
        if items and all(_is_optimizer(o) for o in items):
            return items, []
        if items and all(isinstance(o, dict) for o in items):
            optimizers, configs = [], []
            for entry in items:
                optimizer, entry_configs = _from_dict(entry)
                optimizers.append(optimizer)
                configs.extend(entry_configs)
            return optimizers, configs
    raise _unknown(result)


class LightningOptimizer:
    """Wraps a torch optimizer so `step` runs through the precision plugin (AMP scaling, clipping
    hooks) and counts toward `global_step`; every other attribute is the wrapped optimizer's."""

    def __init__(self, optimizer: Optimizer, trainer: Any = None) -> None:
        # Like Lightning: the wrapper is an instance of the wrapped optimizer's class too, so
        # `isinstance(self.optimizers(), torch.optim.Adam)` holds in user code.
        self.__dict__["_optimizer"] = optimizer
        if not isinstance(optimizer, LightningOptimizer):
            cls = type("Lightning" + type(optimizer).__name__, (type(self), type(optimizer)), {})
            object.__setattr__(self, "__class__", cls)
        self.__dict__["_trainer"] = trainer
        self.__dict__["_on_before_step"] = None
        self.__dict__["_on_after_step"] = None

    @property
    def optimizer(self) -> Optimizer:
        return self._optimizer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_optimizer"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__dict__:
            self.__dict__[name] = value
        else:
            setattr(self._optimizer, name, value)

    def zero_grad(self, set_to_none: bool = True) -> None:
        self._optimizer.zero_grad(set_to_none=set_to_none)

    def state_dict(self) -> dict:
        return self._optimizer.state_dict()

    def load_state_dict(self, state_dict: dict) -> None:
        self._optimizer.load_state_dict(state_dict)

    def step(self, closure: Optional[Callable[[], Any]] = None, **kwargs: Any) -> Any:
        if self._trainer is None:
            return (
                self._optimizer.step(closure=closure, **kwargs)
                if closure
                else self._optimizer.step(**kwargs)
            )
        if self._on_before_step is not None:
            self._on_before_step()
        if closure is None:
            closure = _do_nothing_closure
        output = self._trainer._optimizer_step(self._optimizer, closure, **kwargs)
        if self._on_after_step is not None:
            self._on_after_step()
        return output

    def __repr__(self) -> str:  # Lightning's wrapper prints as the optimizer it wraps
        return repr(self._optimizer)


def _do_nothing_closure() -> None:
    return None
