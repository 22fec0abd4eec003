"""`save_hyperparameters` / `hparams`, shared by LightningModule and LightningDataModule."""

from __future__ import annotations

import copy
import inspect
import types
from typing import Any, Optional, Sequence, Union


class AttributeDict(dict):
    """dict whose keys are also attributes (`self.hparams.lr`)."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError as exc:
            raise AttributeError(f"'AttributeDict' object has no attribute '{key}'") from exc

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value

    def __delattr__(self, key: str) -> None:
        del self[key]


def _init_arguments(frame: types.FrameType) -> dict[str, Any]:
    """The arguments the `__init__` running in `frame` received, **kwargs flattened."""
    info = inspect.getargvalues(frame)
    local_vars = info.locals
    args = {name: local_vars[name] for name in info.args if name in local_vars}
    args.pop(info.args[0] if info.args else "self", None)  # self
    if info.varargs and local_vars.get(info.varargs):
        args[info.varargs] = local_vars[info.varargs]
    if info.keywords:
        args.update(local_vars.get(info.keywords, {}))
    return args


class HyperparametersMixin:
    def save_hyperparameters(
        self,
        *args: Any,
        ignore: Optional[Union[Sequence[str], str]] = None,
        frame: Optional[types.FrameType] = None,
        logger: bool = True,
    ) -> None:
        """Store the `__init__` arguments (or the named ones) in `self.hparams` and in checkpoints."""
        self._log_hyperparams = logger
        if frame is None:
            frame = inspect.currentframe().f_back  # type: ignore[union-attr]
        ignored = {ignore} if isinstance(ignore, str) else set(ignore or ())
        if len(args) == 1 and not isinstance(args[0], str):
            hparams = args[0]
            if isinstance(hparams, dict):
                hparams = dict(hparams)
            elif hasattr(hparams, "__dict__") and not isinstance(hparams, (list, tuple)):
                hparams = dict(vars(hparams))
            else:
                raise ValueError(
                    "save_hyperparameters: a single positional argument must be a dict, a Namespace or "
                    "argument names (str)"
                )
            self._hparams_name = None
        else:
            init_args = _init_arguments(frame)
            if args:
                missing = [name for name in args if name not in init_args]
                if missing:
                    raise ValueError(
                        f"save_hyperparameters: {missing} are not arguments of __init__; accepted: "
                        f"{sorted(init_args)}"
                    )
                hparams = {name: init_args[name] for name in args}
            else:
                hparams = init_args
            self._hparams_name = "kwargs" if hparams else None
        hparams = {key: value for key, value in hparams.items() if key not in ignored}
        self._set_hparams(hparams)
        self._hparams_initial = copy.deepcopy(self._hparams)

    def _set_hparams(self, hparams: dict) -> None:
        self._hparams = AttributeDict(hparams)

    @property
    def hparams(self) -> AttributeDict:
        if not hasattr(self, "_hparams"):
            self._hparams = AttributeDict()
        return self._hparams

    @property
    def hparams_initial(self) -> AttributeDict:
        if not hasattr(self, "_hparams_initial"):
            return AttributeDict()
        return copy.deepcopy(self._hparams_initial)
