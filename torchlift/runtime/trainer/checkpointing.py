"""Trainer side of checkpoints: save, restore module/callbacks/training state, find the resume point."""

from __future__ import annotations

import glob
import os
from typing import Any, Optional

from torchlift.runtime.errors import MisconfigurationException
from torchlift.runtime.trainer import checkpoint as ckpt_io
from torchlift.runtime.trainer.states import TrainerFn
from torchlift.runtime.utilities.rank_zero import rank_zero_warn


class _CheckpointConnector:
    def _callbacks_state_dict(self) -> dict[str, Any]:
        states = {}
        for callback in self.callbacks:
            state = callback.state_dict()
            if state:
                states[callback.state_key] = state
        return states

    def dump_checkpoint(self, weights_only: bool = False) -> dict[str, Any]:
        return ckpt_io.dump_checkpoint(self, weights_only=weights_only)

    def save_checkpoint(
        self, filepath, weights_only: bool = False, storage_options: Any = None
    ) -> None:
        if self.lightning_module is None:
            raise MisconfigurationException(
                "Trainer.save_checkpoint: no model attached; call fit/validate/test/predict first"
            )
        checkpoint = self.dump_checkpoint(weights_only)
        if self.is_global_zero:
            ckpt_io.save_checkpoint_file(checkpoint, filepath)
        self.strategy.barrier("Trainer.save_checkpoint")

    def _restore_module_and_callbacks(self, checkpoint: dict[str, Any]) -> None:
        module = self.lightning_module
        module.on_load_checkpoint(checkpoint)
        module.load_state_dict(
            checkpoint["state_dict"], strict=getattr(module, "strict_loading", True)
        )
        if self.datamodule is not None:
            key = type(self.datamodule).__qualname__
            if key in checkpoint:
                self.datamodule.load_state_dict(checkpoint[key])
        states = checkpoint.get("callbacks") or {}
        for callback in self.callbacks:
            callback.on_load_checkpoint(self, module, checkpoint)
        for callback in self.callbacks:
            state = states.get(callback.state_key)
            if state is None:
                # Lightning < 1.5 keyed states by class; accept that too.
                state = states.get(type(callback).__qualname__) or states.get(type(callback))
            if state:
                callback.load_state_dict(state)

    def _restore_training_state(self, checkpoint: dict[str, Any]) -> None:
        key = self.precision_plugin.state_key
        if key in checkpoint:
            self.precision_plugin.load_state_dict(checkpoint[key])
        elif "native_amp_scaling_state" in checkpoint:
            self.precision_plugin.load_state_dict(checkpoint["native_amp_scaling_state"])
        if self.state.fn != TrainerFn.FITTING:
            return
        loops = checkpoint.get("loops")
        if loops is not None and "fit_loop" in loops:
            self.fit_loop.load_state_dict(loops["fit_loop"])
        else:
            # very old checkpoints: only epoch / global_step
            self.fit_loop.epoch_progress.current["completed"] = int(checkpoint.get("epoch", 0))
            self.fit_loop.epoch_progress.current["processed"] = int(checkpoint.get("epoch", 0))
        ckpt_io.restore_optimizers_and_schedulers(self, checkpoint)
        self.fit_loop._resume = self._resume_point(checkpoint)

    def _resume_point(self, checkpoint: dict[str, Any]) -> dict[str, Any]:
        ep = self.fit_loop.epoch_progress.current
        bp = self.fit_loop.epoch_loop.batch_progress.current
        extra = checkpoint.get("torchlift") or {}
        point: dict[str, Any] = {
            "rng": extra.get("rng"),
            "epoch_rng": extra.get("epoch_rng"),
            "callback_metrics": extra.get("callback_metrics"),
        }
        if ep["started"] > ep["processed"] and bp["ready"] > 0:
            point["mode"] = "mid_epoch"
            point["stage"] = (
                "after_train_batch_end" if bp["completed"] < bp["ready"] else "after_validation"
            )
        elif ep["started"] > ep["processed"]:
            # stopped right at an epoch's start: run that epoch from its beginning
            for field in ("ready", "started"):
                ep[field] = ep["processed"]
                self.fit_loop.epoch_progress.total[field] = self.fit_loop.epoch_progress.total[
                    "processed"
                ]
            point["mode"] = "epoch_start"
        elif ep["processed"] > ep["completed"]:
            point["mode"] = "epoch_end"
        else:
            point["mode"] = "epoch_start"
        return point

    def _find_fit_checkpoint(self, which: str) -> Optional[str]:
        """`fit(ckpt_path="last"|"best")`: the ModelCheckpoint's file (newest last*.ckpt on disk)."""
        callbacks = self.checkpoint_callbacks
        if which == "best":
            paths = [getattr(c, "best_model_path", "") for c in callbacks]
            paths = [p for p in paths if p]
            if not paths:
                raise MisconfigurationException(
                    'fit(ckpt_path="best"): no best checkpoint is known; pass a file path instead'
                )
            return paths[0]
        candidates = [getattr(c, "last_model_path", "") for c in callbacks]
        for callback in callbacks:
            dirpath = getattr(callback, "dirpath", None)
            if dirpath and os.path.isdir(dirpath):
                candidates += glob.glob(os.path.join(dirpath, "last*.ckpt"))
        candidates = [p for p in candidates if p and os.path.isfile(p)]
        if not candidates:
            rank_zero_warn(
                'fit(ckpt_path="last") is set, but there is no last checkpoint available. '
                "No checkpoint will be loaded."
            )
            return None
        return max(candidates, key=os.path.getmtime)
