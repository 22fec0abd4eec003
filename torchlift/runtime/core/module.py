"""`LightningModule`: a `torch.nn.Module` with the hooks, `self.log` and the optimisation helpers of
Lightning 2.x. Every hook is a no-op here; the trainer only calls the ones a subclass overrides."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Union

import torch
from torch import nn

from torchlift.runtime.core.hparams import HyperparametersMixin
from torchlift.runtime.core.results import normalize_reduce_fx
from torchlift.runtime.precision import MixedPrecision, handles_unscaling
from torchlift.runtime.utilities.rank_zero import rank_zero_only


class LightningModule(HyperparametersMixin, nn.Module):
    CHECKPOINT_HYPER_PARAMS_KEY = "hyper_parameters"
    CHECKPOINT_HYPER_PARAMS_NAME = "hparams_name"
    CHECKPOINT_HYPER_PARAMS_TYPE = "hparams_type"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._trainer = None
        self._automatic_optimization = True
        self._device = torch.device("cpu")
        self.strict_loading = True
        self.example_input_array = None
        self.prepare_data_per_node = True
        self.allow_zero_length_dataloader_with_multiple_devices = False

    # --- properties the trainer fills --------------------------------------------------------
    @property
    def trainer(self):
        if self._trainer is None:
            raise RuntimeError(f"{type(self).__name__} is not attached to a `Trainer`.")
        return self._trainer

    @trainer.setter
    def trainer(self, trainer) -> None:
        self._trainer = trainer

    @property
    def device(self) -> torch.device:
        for param in self.parameters():
            return param.device
        return self._device

    @property
    def dtype(self) -> torch.dtype:
        for param in self.parameters():
            return param.dtype
        return torch.get_default_dtype()

    @property
    def automatic_optimization(self) -> bool:
        return self._automatic_optimization

    @automatic_optimization.setter
    def automatic_optimization(self, value: bool) -> None:
        self._automatic_optimization = value

    @property
    def current_epoch(self) -> int:
        return self._trainer.current_epoch if self._trainer is not None else 0

    @property
    def global_step(self) -> int:
        return self._trainer.global_step if self._trainer is not None else 0

    @property
    def global_rank(self) -> int:
        return self._trainer.global_rank if self._trainer is not None else 0

    @property
    def local_rank(self) -> int:
        return self._trainer.local_rank if self._trainer is not None else 0

    @property
    def on_gpu(self) -> bool:
        return self.device.type == "cuda"

    @property
    def logger(self):
        return self._trainer.logger if self._trainer is not None else None

    @property
    def loggers(self) -> list:
        return self._trainer.loggers if self._trainer is not None else []

    # --- logging -------------------------------------------------------------------------------
    def log(
        self,
        name: str,
        value: Any,
        prog_bar: bool = False,
        logger: Optional[bool] = None,
        on_step: Optional[bool] = None,
        on_epoch: Optional[bool] = None,
        reduce_fx: Union[str, Callable] = "mean",
        enable_graph: bool = False,
        sync_dist: bool = False,
        sync_dist_group: Any = None,
        add_dataloader_idx: bool = True,
        batch_size: Optional[int] = None,
        metric_attribute: Optional[str] = None,
        rank_zero_only: bool = False,
    ) -> None:
        trainer = self._trainer
        if trainer is None:
            return  # Lightning silently ignores logging outside a Trainer
        trainer._log(
            name,
            value,
            prog_bar=prog_bar,
            logger=True if logger is None else logger,
            on_step=on_step,
            on_epoch=on_epoch,
            reduce_fx=(
                reduce_fx
                if isinstance(reduce_fx, str) and reduce_fx == "mean"
                else normalize_reduce_fx(reduce_fx)
            ),
            sync_dist=sync_dist,
            batch_size=batch_size,
        )

    def log_dict(
        self,
        dictionary: Mapping[str, Any],
        prog_bar: bool = False,
        logger: Optional[bool] = None,
        on_step: Optional[bool] = None,
        on_epoch: Optional[bool] = None,
        reduce_fx: Union[str, Callable] = "mean",
        enable_graph: bool = False,
        sync_dist: bool = False,
        sync_dist_group: Any = None,
        add_dataloader_idx: bool = True,
        batch_size: Optional[int] = None,
        rank_zero_only: bool = False,
    ) -> None:
        for name, value in dictionary.items():
            self.log(
                name,
                value,
                prog_bar=prog_bar,
                logger=logger,
                on_step=on_step,
                on_epoch=on_epoch,
                reduce_fx=reduce_fx,
                sync_dist=sync_dist,
                batch_size=batch_size,
            )

    @rank_zero_only
    def print(self, *args: Any, **kwargs: Any) -> None:
        print(*args, **kwargs)

    # --- steps (override) ----------------------------------------------------------------------
    def training_step(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("`training_step` must be implemented to be used with the Trainer")

    def validation_step(self, *args: Any, **kwargs: Any) -> Any: ...

    def test_step(self, *args: Any, **kwargs: Any) -> Any: ...

    def predict_step(self, *args: Any, **kwargs: Any) -> Any:
        batch = kwargs.get("batch", args[0] if args else None)
        return self(batch)

    def configure_optimizers(self) -> Any:
        raise NotImplementedError(
            "`configure_optimizers` must be implemented to be used with the Trainer"
        )

    def configure_callbacks(self) -> Any:
        return []

    def configure_model(self) -> None: ...

    # --- optimisation helpers -------------------------------------------------------------------
    def optimizers(self, use_pl_optimizer: bool = True):
        trainer = self.trainer
        optimizers = trainer._lightning_optimizers if use_pl_optimizer else trainer.optimizers
        if isinstance(optimizers, list) and len(optimizers) == 1:
            return optimizers[0]
        return optimizers

    def lr_schedulers(self):
        configs = self.trainer.lr_scheduler_configs
        if not configs:
            return None
        schedulers = [config.scheduler for config in configs]
        return schedulers[0] if len(schedulers) == 1 else schedulers

    def manual_backward(self, loss: torch.Tensor, *args: Any, **kwargs: Any) -> None:
        self.trainer._backward(loss, None, *args, **kwargs)

    def backward(self, loss: torch.Tensor, *args: Any, **kwargs: Any) -> None:
        loss.backward(*args, **kwargs)

    def toggle_optimizer(self, optimizer) -> None:
        """Freeze every parameter not owned by `optimizer` (restored by `untoggle_optimizer`)."""
        optimizer = getattr(optimizer, "optimizer", optimizer)
        saved: dict[nn.Parameter, bool] = {}
        for other in self.trainer.optimizers:
            if other is optimizer:
                continue
            for group in other.param_groups:
                for param in group["params"]:
                    saved.setdefault(param, param.requires_grad)
                    param.requires_grad = False
        for group in optimizer.param_groups:
            for param in group["params"]:
                param.requires_grad = saved.get(param, param.requires_grad)
        self._param_requires_grad_state = saved

    def untoggle_optimizer(self, optimizer) -> None:
        for param, requires_grad in getattr(self, "_param_requires_grad_state", {}).items():
            param.requires_grad = requires_grad
        self._param_requires_grad_state = {}

    def clip_gradients(
        self,
        optimizer,
        gradient_clip_val: Optional[Union[int, float]] = None,
        gradient_clip_algorithm: Optional[str] = None,
    ) -> None:
        if not gradient_clip_val:
            return
        optimizer = getattr(optimizer, "optimizer", optimizer)
        plugin = getattr(self._trainer, "precision_plugin", None)
        if isinstance(plugin, MixedPrecision) and handles_unscaling(optimizer):
            # as Lightning's MixedPrecision, "bf16-mixed" (no scaler) too: under a scaler the
            # gradients are still scaled, the step unscales them
            raise RuntimeError(
                f"The current optimizer, {type(optimizer).__qualname__}, does not allow for "
                "gradient clipping because it performs unscaling of gradients internally. "
                "HINT: Are you using a 'fused' optimizer?"
            )
        params = [p for group in optimizer.param_groups for p in group["params"]]
        if (gradient_clip_algorithm or "norm") == "value":
            torch.nn.utils.clip_grad_value_(params, clip_value=gradient_clip_val)
        else:
            torch.nn.utils.clip_grad_norm_(params, gradient_clip_val)

    def configure_gradient_clipping(
        self,
        optimizer,
        gradient_clip_val: Optional[Union[int, float]] = None,
        gradient_clip_algorithm: Optional[str] = None,
    ) -> None:
        self.clip_gradients(optimizer, gradient_clip_val, gradient_clip_algorithm)

    def optimizer_step(self, epoch: int, batch_idx: int, optimizer, optimizer_closure=None) -> None:
        optimizer.step(closure=optimizer_closure)

    def optimizer_zero_grad(self, epoch: int, batch_idx: int, optimizer) -> None:
        optimizer.zero_grad()

    def lr_scheduler_step(self, scheduler, metric: Any) -> None:
        if metric is None:
            scheduler.step()
        else:
            scheduler.step(metric)

    # --- data transfer hooks --------------------------------------------------------------------
    def transfer_batch_to_device(
        self, batch: Any, device: torch.device, dataloader_idx: int
    ) -> Any:
        from torchlift.runtime.utilities.transfer import move_data_to_device

        return move_data_to_device(batch, device)

    def on_before_batch_transfer(self, batch: Any, dataloader_idx: int) -> Any:
        return batch

    def on_after_batch_transfer(self, batch: Any, dataloader_idx: int) -> Any:
        return batch

    # --- hooks (no-ops) ---------------------------------------------------------------------------
    def prepare_data(self) -> None: ...
    def setup(self, stage: str) -> None: ...
    def teardown(self, stage: str) -> None: ...
    def on_fit_start(self) -> None: ...
    def on_fit_end(self) -> None: ...
    def on_train_start(self) -> None: ...
    def on_train_end(self) -> None: ...
    def on_validation_start(self) -> None: ...
    def on_validation_end(self) -> None: ...
    def on_test_start(self) -> None: ...
    def on_test_end(self) -> None: ...
    def on_predict_start(self) -> None: ...
    def on_predict_end(self) -> None: ...
    def on_train_batch_start(self, batch: Any, batch_idx: int) -> Optional[int]: ...
    def on_train_batch_end(self, outputs: Any, batch: Any, batch_idx: int) -> None: ...
    def on_validation_batch_start(
        self, batch: Any, batch_idx: int, dataloader_idx: int = 0
    ) -> None: ...
    def on_validation_batch_end(
        self, outputs: Any, batch: Any, batch_idx: int, dataloader_idx: int = 0
    ) -> None: ...
    def on_test_batch_start(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None: ...
    def on_test_batch_end(
        self, outputs: Any, batch: Any, batch_idx: int, dataloader_idx: int = 0
    ) -> None: ...
    def on_predict_batch_start(
        self, batch: Any, batch_idx: int, dataloader_idx: int = 0
    ) -> None: ...
    def on_predict_batch_end(
        self, outputs: Any, batch: Any, batch_idx: int, dataloader_idx: int = 0
    ) -> None: ...
    def on_train_epoch_start(self) -> None: ...
    def on_train_epoch_end(self) -> None: ...
    def on_validation_epoch_start(self) -> None: ...
    def on_validation_epoch_end(self) -> None: ...
    def on_test_epoch_start(self) -> None: ...
    def on_test_epoch_end(self) -> None: ...
    def on_predict_epoch_start(self) -> None: ...
    def on_predict_epoch_end(self) -> None: ...
    def on_before_zero_grad(self, optimizer) -> None: ...
    def on_before_backward(self, loss: torch.Tensor) -> None: ...
    def on_after_backward(self) -> None: ...
    def on_before_optimizer_step(self, optimizer) -> None: ...
    def on_validation_model_zero_grad(self) -> None:
        self.zero_grad(set_to_none=True)

    def on_validation_model_eval(self) -> None:
        self.eval()

    def on_validation_model_train(self) -> None:
        self.train()

    def on_test_model_eval(self) -> None:
        self.eval()

    def on_test_model_train(self) -> None:
        self.train()

    def on_predict_model_eval(self) -> None:
        self.eval()

    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None: ...
    def on_load_checkpoint(self, checkpoint: dict[str, Any]) -> None: ...

    # --- checkpoints ---------------------------------------------------------------------------
    @classmethod
    def load_from_checkpoint(
        cls,
        checkpoint_path: Union[str, Path, Any],
        map_location: Any = None,
        hparams_file: Any = None,
        strict: Optional[bool] = None,
        weights_only: Optional[bool] = None,
        **kwargs: Any,
    ):
        from torchlift.runtime.trainer.checkpoint import (
            instantiate_from_checkpoint,
            load_checkpoint_file,
        )

        checkpoint = load_checkpoint_file(
            checkpoint_path, map_location=map_location, weights_only=weights_only
        )
        return instantiate_from_checkpoint(
            cls, checkpoint, strict=strict, map_location=map_location, **kwargs
        )

    def freeze(self) -> None:
        for param in self.parameters():
            param.requires_grad = False
        self.eval()

    def unfreeze(self) -> None:
        for param in self.parameters():
            param.requires_grad = True
        self.train()
