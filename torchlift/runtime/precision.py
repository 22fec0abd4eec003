"""Precision plugins: how the forward runs (autocast, dtype) and how an optimizer steps (GradScaler).

The base `Precision` does nothing; subclasses override only what differs, as in Lightning Fabric.
Strings such as "16-mixed" become one of these objects in `trainer/connector.py`, nowhere else.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import torch

from torchlift.runtime.errors import MisconfigurationException


def _apply_to_tensors(data: Any, fn: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    if isinstance(data, torch.Tensor):
        return fn(data)
    if isinstance(data, (list, tuple)):
        converted = [_apply_to_tensors(item, fn) for item in data]
        if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
            return type(data)(*converted)
        return type(data)(converted)
    if isinstance(data, dict):
        return type(data)((key, _apply_to_tensors(value, fn)) for key, value in data.items())
    return data


class Precision:
    """Full fp32 ("32-true"): every hook is the identity."""

    name = "32-true"
    scaler: Any = None

    def convert_module(self, module: torch.nn.Module) -> torch.nn.Module:
        return module

    def convert_input(self, batch: Any) -> Any:
        return batch

    def forward_context(self) -> contextlib.AbstractContextManager:
        return contextlib.nullcontext()

    def pre_backward(self, loss: torch.Tensor) -> torch.Tensor:
        return loss

    def optimizer_step(
        self,
        optimizer: torch.optim.Optimizer,
        closure: Callable[[], Any],
        after_closure: Callable,
        **kwargs,
    ) -> Any:
        # The optimizer calls the closure (training_step + backward) itself; the hooks that must
        # see gradients (on_before_optimizer_step, clipping) run right after it, before the update.
        def closure_then_hooks() -> Any:
            result = closure()
            after_closure()
            return result

        return optimizer.step(closure=closure_then_hooks, **kwargs)

    def unscale_gradients(self, optimizer: torch.optim.Optimizer) -> None: ...

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None: ...

    @property
    def state_key(self) -> str:
        # Lightning stores the plugin state under the plugin's class name.
        return type(self).__qualname__


class DoublePrecision(Precision):
    """ "64-true": parameters, float inputs and newly created float tensors in float64."""

    name = "64-true"

    def convert_module(self, module: torch.nn.Module) -> torch.nn.Module:
        return module.double()

    def convert_input(self, batch: Any) -> Any:
        return _apply_to_tensors(batch, lambda t: t.double() if torch.is_floating_point(t) else t)

    @contextlib.contextmanager
    def forward_context(self):
        previous = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        try:
            yield
        finally:
            torch.set_default_dtype(previous)


def handles_unscaling(optimizer: Any) -> bool:
    """A fused torch optimizer (`fused=True`) unscales the gradients in its own step, given
    the scaler's scale: Lightning does not unscale them first, nor may they be clipped."""
    return getattr(getattr(optimizer, "optimizer", optimizer), "_step_supports_amp_scaling", False)


class MixedPrecision(Precision):
    """ "16-mixed" (autocast fp16 + GradScaler) and "bf16-mixed" (autocast bf16, no scaler)."""

    def __init__(self, precision: str, device: str, scaler: Any = None) -> None:
        # Lightning's signature and checks: a GradScaler given here is the one that trains
        # (a script's own, holding the state its resume loaded: `Trainer(plugins=[...])`)
        if precision not in ("16-mixed", "bf16-mixed"):
            raise ValueError(
                f"`Passed `{type(self).__name__}(precision={precision!r})`."
                " Precision must be '16-mixed' or 'bf16-mixed'."
            )
        if scaler is None and precision == "16-mixed":
            scaler = torch.amp.GradScaler(device=device)
        if scaler is not None and precision == "bf16-mixed":
            raise MisconfigurationException(
                f"`precision='bf16-mixed'` does not use a scaler, found {scaler}."
            )
        self.name = precision
        self.device_type = device
        self.dtype = torch.bfloat16 if precision == "bf16-mixed" else torch.float16
        self.scaler = scaler

    def forward_context(self) -> contextlib.AbstractContextManager:
        # cache_enabled=False as Lightning: the weight cache is invalid across optimizer steps.
        return torch.autocast(self.device_type, dtype=self.dtype, cache_enabled=False)

    def pre_backward(self, loss: torch.Tensor) -> torch.Tensor:
        return self.scaler.scale(loss) if self.scaler is not None else loss

    def optimizer_step(self, optimizer, closure, after_closure, **kwargs) -> Any:
        if self.scaler is None:
            return super().optimizer_step(optimizer, closure, after_closure, **kwargs)
        if isinstance(optimizer, torch.optim.LBFGS):
            raise ValueError(
                "precision='16-mixed' does not work with the LBFGS optimizer (GradScaler cannot step it)"
            )
        result = closure()
        skipped = result is None and getattr(closure, "automatic", False)
        if not skipped and not handles_unscaling(optimizer):
            # Unscale before clipping so `gradient_clip_val` applies to the true gradients
            # (not for a fused optimizer, which unscales in its own step: Lightning's order).
            self.scaler.unscale_(optimizer)
        after_closure()
        if skipped:
            return result
        output = self.scaler.step(optimizer, **kwargs)  # skips the update if grads hold inf/nan
        self.scaler.update()
        return output

    def state_dict(self) -> dict[str, Any]:
        return self.scaler.state_dict() if self.scaler is not None else {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if self.scaler is not None and state_dict:
            self.scaler.load_state_dict(state_dict)
