"""`ModelCheckpoint`: save the model periodically and keep the best `save_top_k` files.

Behaves like Lightning 2.6's callback of the same name: the same arguments, file names
("epoch=3-step=40.ckpt", "-v1" on collisions, "last.ckpt"), the same decision points
(`on_train_batch_end` for `every_n_train_steps`, `on_train_epoch_end` or `on_validation_end`
for epochs) and the same `state_key` / `state_dict()`, so checkpoints interchange with Lightning.

Distributed runs: every rank runs the same decisions (file-exists checks and top-k comparisons
go through `trainer.strategy.reduce_boolean_decision`); only global rank zero touches files.
If the monitored metric was logged on some ranks only, rank zero's value is broadcast first so
every rank takes the same branch and joins the same collectives (no deadlock).

Not supported: remote (fsspec) paths, and Lightning's undocumented `saved_models` / `layer`
hack for manual optimization.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import time
import warnings
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal
from weakref import proxy

import torch
from torch import Tensor

from torchlift.runtime.callbacks import _trainer_state as ts
from torchlift.runtime.callbacks._trainer_state import MisconfigurationException
from torchlift.runtime.callbacks.checkpoint import Checkpoint
from torchlift.runtime.utilities.rank_zero import rank_zero_info, rank_zero_warn

log = logging.getLogger(__name__)
_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        rank_zero_warn(message)


class ModelCheckpoint(Checkpoint):
    CHECKPOINT_JOIN_CHAR = "-"
    CHECKPOINT_EQUALS_CHAR = "="
    CHECKPOINT_NAME_LAST = "last"
    FILE_EXTENSION = ".ckpt"
    STARTING_VERSION = 1

    def __init__(
        self,
        dirpath: str | os.PathLike | None = None,
        filename: str | None = None,
        monitor: str | None = None,
        verbose: bool = False,
        save_last: bool | Literal["link"] | None = None,
        save_top_k: int = 1,
        save_on_exception: bool = False,
        save_weights_only: bool = False,
        mode: str = "min",
        auto_insert_metric_name: bool = True,
        every_n_train_steps: int | None = None,
        train_time_interval: timedelta | None = None,
        every_n_epochs: int | None = None,
        save_on_train_epoch_end: bool | None = None,
        enable_version_counter: bool = True,
    ) -> None:
        super().__init__()
        self.monitor = monitor
        self.verbose = verbose
        self.save_last = save_last
        self.save_top_k = save_top_k
        self.save_on_exception = save_on_exception
        self.save_weights_only = save_weights_only
        self.auto_insert_metric_name = auto_insert_metric_name
        self._save_on_train_epoch_end = save_on_train_epoch_end
        self._enable_version_counter = enable_version_counter
        self._last_global_step_saved = 0  # nothing to save before the first optimizer step
        self._last_time_checked: float | None = None
        self.current_score: Tensor | None = None
        self.best_k_models: dict[str, Tensor] = {}
        self.kth_best_model_path = ""
        self.best_model_score: Tensor | None = None
        self.best_model_path = ""
        self.last_model_path = ""
        self._last_checkpoint_saved = ""
        self._defer_save_until_validation = False
        self._validation_ran = False

        if mode not in ("min", "max"):
            raise MisconfigurationException(f"`mode` can be min, max but got {mode}")
        self.mode = mode
        self.kth_value = torch.tensor(torch.inf if mode == "min" else -torch.inf)

        if dirpath:
            dirpath = os.path.realpath(os.path.expanduser(os.fspath(dirpath)))
        self.dirpath: str | None = dirpath or None
        self.filename = filename

        if every_n_train_steps is None and every_n_epochs is None and train_time_interval is None:
            every_n_epochs, every_n_train_steps = 1, 0  # default: one checkpoint per epoch
        self._train_time_interval = train_time_interval
        self._every_n_epochs: int = every_n_epochs or 0
        self._every_n_train_steps: int = every_n_train_steps or 0
        self._validate_configuration()

    # --- identity and state ------------------------------------------------------------------
    @property
    def state_key(self) -> str:
        return self._generate_state_key(
            monitor=self.monitor,
            mode=self.mode,
            every_n_train_steps=self._every_n_train_steps,
            every_n_epochs=self._every_n_epochs,
            train_time_interval=self._train_time_interval,
        )

    @property
    def every_n_epochs(self) -> int | None:
        return self._every_n_epochs

    def state_dict(self) -> dict[str, Any]:
        return {
            "monitor": self.monitor,
            "best_model_score": self.best_model_score,
            "best_model_path": self.best_model_path,
            "current_score": self.current_score,
            "dirpath": self.dirpath,
            "best_k_models": self.best_k_models,
            "kth_best_model_path": self.kth_best_model_path,
            "kth_value": self.kth_value,
            "last_model_path": self.last_model_path,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        dirpath_from_ckpt = state_dict.get("dirpath", self.dirpath)
        if self.dirpath == dirpath_from_ckpt:
            self.best_model_score = state_dict["best_model_score"]
            self.kth_best_model_path = state_dict.get(
                "kth_best_model_path", self.kth_best_model_path
            )
            self.kth_value = state_dict.get("kth_value", self.kth_value)
            self.best_k_models = state_dict.get("best_k_models", self.best_k_models)
            self.last_model_path = state_dict.get("last_model_path", self.last_model_path)
        else:
            warnings.warn(
                f"The dirpath has changed from {dirpath_from_ckpt!r} to {self.dirpath!r}, therefore"
                " `best_model_score`, `kth_best_model_path`, `kth_value`, `last_model_path` and"
                " `best_k_models` won't be reloaded. Only `best_model_path` will be reloaded."
            )
        self.best_model_path = state_dict["best_model_path"]

    # --- hooks -------------------------------------------------------------------------------
    def setup(self, trainer, pl_module, stage: str) -> None:
        dirpath = trainer.strategy.broadcast(self._resolve_ckpt_dir(trainer))
        self.dirpath = dirpath
        if trainer.is_global_zero and stage == "fit":
            if self.save_top_k != 0 and os.path.isdir(dirpath) and os.listdir(dirpath):
                rank_zero_warn(f"Checkpoint directory {dirpath} exists and is not empty.")

    def on_train_start(self, trainer, pl_module) -> None:
        self._last_time_checked = time.monotonic()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        """Save every `every_n_train_steps` optimizer steps (or `train_time_interval`)."""
        if self._every_n_train_steps < 1 and self._train_time_interval is None:
            return  # the default (per-epoch saving): nothing to decide per batch
        skip_batch = self._every_n_train_steps < 1 or (
            trainer.global_step % self._every_n_train_steps != 0
        )
        if not getattr(pl_module, "automatic_optimization", True):
            self._save_on_manual_optimization_step(trainer, skip_batch)
            return

        skip_time = True
        now = time.monotonic()
        if self._train_time_interval is not None:
            previous = self._last_time_checked
            skip_time = (
                previous is None or (now - previous) < self._train_time_interval.total_seconds()
            )
            skip_time = trainer.strategy.broadcast(skip_time)  # clocks differ across ranks
        if skip_batch and skip_time:
            return
        if not skip_time:
            self._last_time_checked = now

        candidates = self._monitor_candidates(trainer)
        if self.monitor is not None and self.monitor not in candidates:
            self._defer_save_until_validation = True  # the metric usually comes from validation
            return
        if (
            self.monitor is not None
            and not self._should_save_on_train_epoch_end(trainer)
            and ts.is_last_batch(trainer)
            and self._validation_will_run(trainer)
        ):
            self._defer_save_until_validation = True  # save once the epoch's val metric exists
            return
        if self._should_skip_saving_checkpoint(trainer):
            return
        self._save_topk_checkpoint(trainer, candidates)
        self._save_last_checkpoint(trainer, candidates)

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        if self._should_skip_saving_checkpoint(trainer):
            return
        if self._should_save_on_train_epoch_end(trainer):
            self._save_epoch_checkpoints(trainer, self._monitor_candidates(trainer))

    def on_validation_end(self, trainer, pl_module) -> None:
        if (
            ts.is_fitting(trainer)
            and not trainer.sanity_checking
            and ts.num_val_batches_total(trainer)
        ):
            self._validation_ran = True
        if self._should_skip_saving_checkpoint(trainer):
            return
        if self._should_save_on_train_epoch_end(trainer):
            return
        candidates = self._monitor_candidates(trainer)
        if self._defer_save_until_validation:
            self._save_topk_checkpoint(trainer, candidates)
            self._save_last_checkpoint(trainer, candidates)
            self._defer_save_until_validation = False
            return
        self._save_epoch_checkpoints(trainer, candidates)

    def on_exception(self, trainer, pl_module, exception: BaseException) -> None:
        if not (
            self.save_on_exception
            and not trainer.fast_dev_run
            and not trainer.sanity_checking
            and self._last_global_step_saved != trainer.global_step
        ):
            return
        candidates = self._monitor_candidates(trainer)
        filepath = self.format_checkpoint_name(metrics=candidates)
        self._save_checkpoint(trainer, filepath)
        self._save_last_checkpoint(trainer, candidates)
        rank_zero_info(
            f"An {type(exception).__name__} was raised with message: {exception},"
            f" saved checkpoint to {filepath}"
        )

    def on_train_end(self, trainer, pl_module) -> None:
        # `save_last=True` promises a last.ckpt even if no periodic save happened.
        if self.save_last and not self._last_checkpoint_saved:
            self._save_last_checkpoint(trainer, self._monitor_candidates(trainer))

    # --- decisions ---------------------------------------------------------------------------
    def _save_epoch_checkpoints(self, trainer, candidates: dict[str, Tensor]) -> None:
        if self._every_n_epochs >= 1 and (trainer.current_epoch + 1) % self._every_n_epochs == 0:
            self._save_topk_checkpoint(trainer, candidates)
        if self._last_global_step_saved == trainer.global_step or (
            self.save_last == "link" and self._last_checkpoint_saved
        ):
            self._save_last_checkpoint(trainer, candidates)

    def _save_on_manual_optimization_step(self, trainer, skip_batch: bool) -> None:
        if skip_batch or self._should_skip_saving_checkpoint(trainer):
            return
        candidates = self._monitor_candidates(trainer)
        if self.monitor is not None and self.monitor not in candidates:
            self._defer_save_until_validation = True
            return
        if trainer.is_global_zero:
            _warn_once(
                "Using ModelCheckpoint with manual optimization and every_n_train_steps: the"
                " checkpoint holds the model state AFTER the optimizer step."
            )
        self._save_topk_checkpoint(trainer, candidates)
        self._save_last_checkpoint(trainer, candidates)
        self._last_time_checked = time.monotonic()

    def _validation_will_run(self, trainer) -> bool:
        if not getattr(trainer, "enable_validation", False) or not ts.num_val_batches_total(
            trainer
        ):
            return False
        every = trainer.check_val_every_n_epoch
        return every is None or (trainer.current_epoch + 1) % every == 0

    def _should_skip_saving_checkpoint(self, trainer) -> bool:
        return (
            bool(trainer.fast_dev_run)
            or not ts.is_fitting(trainer)
            or trainer.sanity_checking
            or self._last_global_step_saved == trainer.global_step  # this step is saved already
        )

    def _should_save_on_train_epoch_end(self, trainer) -> bool:
        if self._save_on_train_epoch_end is not None:
            return self._save_on_train_epoch_end
        if getattr(trainer, "_val_check_time_interval", None) is not None:
            return False
        if trainer.check_val_every_n_epoch != 1:
            return False
        if ts.num_val_batches_total(trainer) == 0:
            return True  # no validation: the train epoch end is the only place to save
        return trainer.val_check_interval == 1.0

    def _validate_configuration(self) -> None:
        if self.save_top_k < -1:
            raise MisconfigurationException(
                f"Invalid value for save_top_k={self.save_top_k}. Must be >= -1"
            )
        if self._every_n_train_steps < 0:
            raise MisconfigurationException(
                f"Invalid value for every_n_train_steps={self._every_n_train_steps}. Must be >= 0"
            )
        if self._every_n_epochs < 0:
            raise MisconfigurationException(
                f"Invalid value for every_n_epochs={self._every_n_epochs}. Must be >= 0"
            )
        triggers = (
            (self._every_n_train_steps >= 1)
            + (self._every_n_epochs >= 1)
            + (self._train_time_interval is not None)
        )
        if triggers > 1:
            raise MisconfigurationException(
                f"Combination of parameters every_n_train_steps={self._every_n_train_steps}, "
                f"every_n_epochs={self._every_n_epochs} and"
                f" train_time_interval={self._train_time_interval} should be mutually exclusive."
            )
        if self.monitor is None and self.save_top_k not in (-1, 0, 1):
            raise MisconfigurationException(
                f"ModelCheckpoint(save_top_k={self.save_top_k}, monitor=None) is not a valid"
                " configuration. No quantity for top_k to track."
            )

    def _monitor_candidates(self, trainer) -> dict[str, Tensor]:
        candidates = dict(
            trainer.callback_metrics
        )  # values are never mutated, a shallow copy is enough
        epoch = candidates.get("epoch")
        candidates["epoch"] = (
            epoch.int() if isinstance(epoch, Tensor) else torch.tensor(trainer.current_epoch)
        )
        step = candidates.get("step")
        candidates["step"] = (
            step.int() if isinstance(step, Tensor) else torch.tensor(trainer.global_step)
        )
        if self.monitor is not None and ts.world_size(trainer) > 1:
            self._agree_on_monitor(trainer, candidates)
        return candidates

    def _agree_on_monitor(self, trainer, candidates: dict[str, Tensor]) -> None:
        """Make every rank see the monitored value, or every rank see it missing.

        Branches below ("metric missing -> defer / warn") would otherwise differ between ranks that
        logged the metric and ranks that did not, and the next collective would hang.
        """
        strategy = trainer.strategy
        present = self.monitor in candidates
        if strategy.reduce_boolean_decision(present, all=True):
            return
        value = candidates.get(self.monitor)
        value = strategy.broadcast(
            None if value is None else torch.as_tensor(value).detach().cpu(), src=0
        )
        if value is None:
            candidates.pop(self.monitor, None)
        else:
            candidates[self.monitor] = value

    def check_monitor_top_k(self, trainer, current: Tensor | None = None) -> bool:
        if current is None:
            return False
        if self.save_top_k == -1:
            return True
        if len(self.best_k_models) < self.save_top_k:
            return True
        better = torch.lt if self.mode == "min" else torch.gt
        decision = bool(better(current, self.best_k_models[self.kth_best_model_path]))
        return trainer.strategy.reduce_boolean_decision(decision)

    # --- saving ------------------------------------------------------------------------------
    def _save_topk_checkpoint(self, trainer, candidates: dict[str, Tensor]) -> None:
        if self.save_top_k == 0:
            return
        if self.monitor is None:
            self._save_none_monitor_checkpoint(trainer, candidates)
            return
        if self.monitor not in candidates:
            message = (
                f"`ModelCheckpoint(monitor={self.monitor!r})` could not find the monitored key in the"
                f" returned metrics: {list(candidates)}."
                f" HINT: Did you call `log({self.monitor!r}, value)` in the `LightningModule`?"
            )
            if self._validation_ran or ts.validation_has_run(trainer):
                raise MisconfigurationException(message)
            _warn_once(message)
        self._save_monitor_checkpoint(trainer, candidates)

    def _save_monitor_checkpoint(self, trainer, candidates: dict[str, Tensor]) -> None:
        current = candidates.get(self.monitor)
        if self.check_monitor_top_k(trainer, current):
            self._update_best_and_save(current, trainer, candidates)
        elif self.verbose:
            rank_zero_info(
                f"Epoch {int(candidates['epoch']):d}, global step {int(candidates['step']):d}:"
                f" {self.monitor!r} was not in top {self.save_top_k}"
            )

    def _save_none_monitor_checkpoint(self, trainer, candidates: dict[str, Tensor]) -> None:
        filepath = self._get_metric_interpolated_filepath_name(
            candidates, trainer, self.best_model_path
        )
        previous, self.best_model_path = self.best_model_path, filepath
        self._save_checkpoint(trainer, filepath)
        if (
            self.save_top_k == 1
            and previous
            and self._should_remove_checkpoint(trainer, previous, filepath)
        ):
            self._remove_checkpoint(trainer, previous)

    def _update_best_and_save(
        self, current: Tensor, trainer, candidates: dict[str, Tensor]
    ) -> None:
        k = len(self.best_k_models) + 1 if self.save_top_k == -1 else self.save_top_k
        del_filepath = None
        if len(self.best_k_models) == k and k > 0:
            del_filepath = self.kth_best_model_path
            self.best_k_models.pop(del_filepath)
        if isinstance(current, Tensor) and torch.isnan(current):
            # a NaN score ranks last, whatever the mode
            current = torch.tensor(
                float("inf" if self.mode == "min" else "-inf"), device=current.device
            )
        filepath = self._get_metric_interpolated_filepath_name(candidates, trainer, del_filepath)
        self.current_score = current
        self.best_k_models[filepath] = current
        if len(self.best_k_models) == k:
            worst = max if self.mode == "min" else min
            self.kth_best_model_path = worst(self.best_k_models, key=self.best_k_models.get)
            self.kth_value = self.best_k_models[self.kth_best_model_path]
        best = min if self.mode == "min" else max
        self.best_model_path = best(self.best_k_models, key=self.best_k_models.get)
        self.best_model_score = self.best_k_models[self.best_model_path]
        if self.verbose:
            rank_zero_info(
                f"Epoch {int(candidates['epoch']):d}, global step {int(candidates['step']):d}:"
                f" {self.monitor!r} reached {float(current):0.5f}"
                f" (best {float(self.best_model_score):0.5f}), saving model to {filepath!r} as top {k}"
            )
        self._save_checkpoint(trainer, filepath)
        if del_filepath and self._should_remove_checkpoint(trainer, del_filepath, filepath):
            self._remove_checkpoint(trainer, del_filepath)

    def _save_last_checkpoint(self, trainer, candidates: dict[str, Tensor]) -> None:
        if not self.save_last:
            return
        filepath = self.format_checkpoint_name(candidates, self.CHECKPOINT_NAME_LAST)
        if self._enable_version_counter:
            version = self.STARTING_VERSION
            while self.file_exists(filepath, trainer) and filepath != self.last_model_path:
                filepath = self.format_checkpoint_name(
                    candidates, self.CHECKPOINT_NAME_LAST, ver=version
                )
                version += 1
        previous, self.last_model_path = self.last_model_path, filepath
        if self.save_last == "link" and self._last_checkpoint_saved and self.save_top_k != 0:
            self._link_checkpoint(trainer, self._last_checkpoint_saved, filepath)
        else:
            self._save_checkpoint(trainer, filepath)
        if previous and self._should_remove_checkpoint(trainer, previous, filepath):
            self._remove_checkpoint(trainer, previous)

    def _save_checkpoint(self, trainer, filepath: str) -> None:
        # The trainer writes on global rank zero only and waits at a barrier afterwards.
        trainer.save_checkpoint(filepath, self.save_weights_only)
        self._last_global_step_saved = trainer.global_step
        self._last_checkpoint_saved = filepath
        if trainer.is_global_zero:
            for logger in trainer.loggers:
                logger.after_save_checkpoint(proxy(self))

    @staticmethod
    def _link_checkpoint(trainer, filepath: str, linkpath: str) -> None:
        if trainer.is_global_zero and os.path.abspath(filepath) != os.path.abspath(linkpath):
            if os.path.islink(linkpath) or os.path.isfile(linkpath):
                os.remove(linkpath)
            elif os.path.isdir(linkpath):
                shutil.rmtree(linkpath)
            try:
                os.symlink(os.path.relpath(filepath, os.path.dirname(linkpath)), linkpath)
            except OSError:  # e.g. no symlink permission: fall back to a copy
                shutil.copy(filepath, linkpath)
        trainer.strategy.barrier()

    def _should_remove_checkpoint(self, trainer, previous: str, current: str) -> bool:
        """Never delete the file just written, a file outside `dirpath`, or the resumed-from file."""
        if previous == current:
            return False
        previous_path = Path(previous).absolute()
        resume = getattr(trainer, "ckpt_path", None)
        if resume is not None and previous_path == Path(resume).absolute():
            return False
        return Path(self.dirpath).absolute() in previous_path.parents

    def _remove_checkpoint(self, trainer, filepath: str) -> None:
        remove = getattr(trainer.strategy, "remove_checkpoint", None)
        if remove is not None:
            remove(filepath)
        elif trainer.is_global_zero and os.path.lexists(filepath):
            os.remove(filepath)

    def file_exists(self, filepath: str, trainer) -> bool:
        """Rank zero looks at the disk; every rank gets its answer (keeps names identical)."""
        local = os.path.exists(filepath) if trainer.is_global_zero else False
        return trainer.strategy.reduce_boolean_decision(local, all=False)

    # --- names -------------------------------------------------------------------------------
    def _resolve_ckpt_dir(self, trainer) -> str:
        """`dirpath`, else <logger save_dir>/<name>/<version>/checkpoints, else <root>/checkpoints."""
        if self.dirpath is not None:
            return self.dirpath
        if len(trainer.loggers) > 0:
            logger = trainer.loggers[0]
            save_dir = logger.save_dir if logger.save_dir is not None else trainer.default_root_dir
            version = logger.version
            version = version if isinstance(version, str) else f"version_{version}"
            return os.path.join(save_dir, str(logger.name), version, "checkpoints")
        return os.path.join(trainer.default_root_dir, "checkpoints")

    def _format_checkpoint_name(
        self,
        filename: str | None,
        metrics: dict[str, Tensor],
        prefix: str | None = None,
        auto_insert_metric_name: bool = True,
    ) -> str:
        if not filename:
            filename = "{epoch}" + self.CHECKPOINT_JOIN_CHAR + "{step}"
        # "{val_loss:.2f}" -> "val_loss={0[val_loss]:.2f}"; longest names first so that
        # "{val_loss" is not rewritten inside "{val_loss_ema".
        groups = sorted(re.findall(r"(\{.*?)[:\}]", filename), key=len, reverse=True)
        for group in groups:
            name = group[1:]
            if auto_insert_metric_name:
                filename = filename.replace(group, name + self.CHECKPOINT_EQUALS_CHAR + "{" + name)
            filename = filename.replace(group, f"{{0[{name}]")
            if name not in metrics:
                metrics[name] = torch.tensor(0)
        filename = filename.format(metrics)
        if prefix is not None:
            filename = self.CHECKPOINT_JOIN_CHAR.join([prefix, filename])
        return filename

    def format_checkpoint_name(
        self,
        metrics: dict[str, Any],
        filename: str | None = None,
        ver: int | None = None,
        prefix: str | None = None,
    ) -> str:
        """Fill the template: `format_checkpoint_name({"epoch": 2, "val_loss": 0.123})`."""
        name = self._format_checkpoint_name(
            filename or self.filename,
            metrics,
            prefix=prefix,
            auto_insert_metric_name=self.auto_insert_metric_name,
        )
        if ver is not None:
            name = self.CHECKPOINT_JOIN_CHAR.join((name, f"v{ver}"))
        name = f"{name}{self.FILE_EXTENSION}"
        return os.path.join(self.dirpath, name) if self.dirpath else name

    def _get_metric_interpolated_filepath_name(
        self, candidates: dict[str, Tensor], trainer, del_filepath: str | None = None
    ) -> str:
        filepath = self.format_checkpoint_name(candidates)
        if self._enable_version_counter:
            version = self.STARTING_VERSION
            while self.file_exists(filepath, trainer) and filepath != del_filepath:
                filepath = self.format_checkpoint_name(candidates, ver=version)
                version += 1
        return filepath

    def to_yaml(self, filepath: str | os.PathLike | None = None) -> None:
        """Write `best_k_models` ({path: score}) to a YAML file (default: dirpath/best_k_models.yaml)."""
        from torchlift.runtime.loggers.hparams_file import dump_yaml

        best_k = {path: score.item() for path, score in self.best_k_models.items()}
        if filepath is None:
            filepath = os.path.join(self.dirpath, "best_k_models.yaml")
        with open(filepath, "w") as handle:
            handle.write(dump_yaml(best_k))
