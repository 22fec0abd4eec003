"""Hook dispatch: callbacks first, then the LightningModule; only overridden hooks run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torchlift.runtime.callbacks.callback import Callback

if TYPE_CHECKING:  # annotations only
    from torchlift.runtime.trainer.states import TrainerFn


class _HookDispatch:
    def _module_overrides(self, name: str) -> bool:
        cached = self._module_hook_cache.get(name)
        if cached is None:
            from torchlift.runtime.core.module import LightningModule

            module = self.lightning_module
            impl = getattr(type(module), name, None)
            cached = impl is not None and impl is not getattr(LightningModule, name, None)
            if name in ("validation_step", "test_step", "training_step"):
                cached = cached or name in vars(module)
            self._module_hook_cache[name] = cached
        return cached

    def _build_hook_cache(self) -> None:
        self._hook_cache = {}
        self._dispatch = {}
        device = self.strategy.root_device
        # Batches from a CPU loader need no transfer unless a hook wants to see them.
        self._batch_transfer_needed = (
            device.type != "cpu"
            or self.datamodule is not None
            or self._module_overrides("on_before_batch_transfer")
            or self._module_overrides("transfer_batch_to_device")
            or self._module_overrides("on_after_batch_transfer")
        )

    def _callbacks_for(self, name: str) -> list:
        cached = self._hook_cache.get(name)
        if cached is None:
            base = getattr(Callback, name, None)
            cached = [
                getattr(c, name)
                for c in self.callbacks
                if getattr(type(c), name, None) is not base or name in vars(c)
            ]
            self._hook_cache[name] = cached
        return cached

    def _call_hook(self, name: str, *args: Any) -> Any:
        """Callbacks first, then the LightningModule (Lightning's order for every loop hook).
        Only overridden hooks are called; the lists are built once per run."""
        entry = self._dispatch.get(name)
        if entry is None:
            module_hook = (
                getattr(self.lightning_module, name) if self._module_overrides(name) else None
            )
            entry = self._dispatch[name] = (tuple(self._callbacks_for(name)), module_hook)
        callbacks, module_hook = entry
        if callbacks:
            module = self.lightning_module
            for hook in callbacks:
                hook(self, module, *args)
        if module_hook is not None:
            return module_hook(*args)
        return None

    def _call_module_hook(self, name: str, *args: Any) -> Any:
        return getattr(self.lightning_module, name)(*args)

    def _call_train_epoch_end_hooks(self) -> None:
        # Lightning: non-monitoring callbacks, the module, then monitoring callbacks (checkpoint,
        # early stopping) so they can see metrics logged in the module's on_train_epoch_end.
        from torchlift.runtime.callbacks.checkpoint import Checkpoint
        from torchlift.runtime.callbacks.early_stopping import EarlyStopping

        module = self.lightning_module
        hooks = self._callbacks_for("on_train_epoch_end")
        monitoring = [h for h in hooks if isinstance(h.__self__, (Checkpoint, EarlyStopping))]
        for hook in hooks:
            if hook not in monitoring:
                hook(self, module)
        self._log_on_step_default = False
        if self._module_overrides("on_train_epoch_end"):
            module.on_train_epoch_end()
        for hook in monitoring:
            hook(self, module)

    def _call_setup_hooks(self, fn: TrainerFn) -> None:
        module = self.lightning_module
        for logger in self.loggers:
            if hasattr(logger, "experiment"):
                _ = logger.experiment
        self.strategy.barrier("pre_setup")
        if self.datamodule is not None:
            self.datamodule.setup(stage=fn.value)
        for callback in self.callbacks:
            callback.setup(self, module, stage=fn.value)
        module.setup(stage=fn.value)
        self.strategy.barrier("post_setup")

    def _call_teardown_hooks(self, fn: TrainerFn) -> None:
        module = self.lightning_module
        if self.datamodule is not None:
            self.datamodule.teardown(stage=fn.value)
        for callback in self.callbacks:
            callback.teardown(self, module, stage=fn.value)
        module.teardown(stage=fn.value)

    def _prepare_data(self) -> None:
        # prepare_data runs once per node (local rank 0), as in Lightning.
        targets = [t for t in (self.datamodule, self.lightning_module) if t is not None]
        for target in targets:
            per_node = getattr(target, "prepare_data_per_node", True)
            if (per_node and self.local_rank == 0) or (not per_node and self.global_rank == 0):
                target.prepare_data()
        self.strategy.barrier("prepare_data")

    # --- train/eval mode bookkeeping ---------------------------------------------------------------
    def _capture_train_modes(self) -> dict:
        return {m: m.training for m in self.lightning_module.modules()}

    def _restore_train_modes(self, modes: dict) -> None:
        for module, mode in modes.items():
            module.training = mode
