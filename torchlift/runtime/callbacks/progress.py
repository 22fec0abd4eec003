"""Progress bars: the `ProgressBar` base and `TQDMProgressBar` (Lightning 2.6's names and hooks).

The bar must cost next to nothing per step. Lightning redraws (and reads every prog_bar metric,
one `.item()` device sync each) on every batch by default; here a redraw also waits until
`REFRESH_INTERVAL` seconds have passed since the previous one and keeps the time spent drawing
under `REFRESH_BUDGET` of the run, so a step that is not redrawn costs one modulo and one clock
read. The last batch of a bar is always drawn. tqdm is imported
when the first bar is created, not when the runtime is imported.
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import Any

from torch import Tensor

from torchlift.runtime.callbacks.callback import Callback
from torchlift.runtime.utilities.rank_zero import rank_zero_warn

_PAD_SIZE = 5
_TQDM_CLASS: type | None = None


def _tqdm_class() -> type:
    """Lightning's `Tqdm`: pads numbers so the postfix does not flicker as digits change."""
    global _TQDM_CLASS
    if _TQDM_CLASS is None:
        from tqdm import tqdm as _tqdm

        class Tqdm(_tqdm):
            @staticmethod
            def format_num(n: int | float | str) -> str:
                padded = isinstance(n, (float, str))
                if not isinstance(n, str):
                    n = _tqdm.format_num(n)
                if padded and "e" not in n:
                    if "." not in n and len(n) < _PAD_SIZE:
                        try:
                            float(n)
                        except ValueError:
                            return n
                        n += "."
                    n += "0" * (_PAD_SIZE - len(n))
                return n

        _TQDM_CLASS = Tqdm
    return _TQDM_CLASS


def Tqdm(*args: Any, **kwargs: Any) -> Any:  # noqa: N802 - mirrors Lightning's class name
    return _tqdm_class()(*args, **kwargs)


def convert_inf(x: int | float | None) -> int | float | None:
    """tqdm cannot show inf/nan totals; None means "unknown"."""
    if x is None or math.isinf(x) or math.isnan(x):
        return None
    return x


def _logger_version(loggers: list) -> Any:
    if len(loggers) == 1:
        return loggers[0].version
    return "_".join(dict.fromkeys(str(logger.version) for logger in loggers))


def get_standard_metrics(trainer) -> dict[str, int | str]:
    """What every bar shows besides prog_bar metrics: the logger version as `v_num`."""
    items: dict[str, int | str] = {}
    if trainer.loggers:
        version = _logger_version(trainer.loggers)
        if version not in ("", None):
            items["v_num"] = version[-4:] if isinstance(version, str) else version
    return items


class ProgressBar(Callback):
    """Base class: totals and descriptions from the trainer; subclasses draw."""

    def __init__(self) -> None:
        self._trainer = None
        self._current_eval_dataloader_idx: int | None = None

    @property
    def trainer(self):
        if self._trainer is None:
            raise TypeError(
                f"The `{self.__class__.__name__}._trainer` reference has not been set yet."
            )
        return self._trainer

    sanity_check_description = "Sanity Checking"
    train_description = "Training"
    validation_description = "Validation"
    test_description = "Testing"
    predict_description = "Predicting"

    @property
    def total_train_batches(self) -> int | float:
        trainer = self.trainer
        if trainer.max_epochs == -1 and trainer.max_steps is not None and trainer.max_steps > 0:
            return min(trainer.num_training_batches, trainer.max_steps - trainer.global_step)
        return trainer.num_training_batches

    def _current_total(self, batches: Any) -> int | float:
        if isinstance(batches, (list, tuple)):
            return batches[self._current_eval_dataloader_idx or 0] if batches else 0
        return batches

    @property
    def total_val_batches_current_dataloader(self) -> int | float:
        trainer = self.trainer
        if trainer.sanity_checking:
            batches = getattr(trainer, "num_sanity_val_batches", trainer.num_val_batches)
        else:
            batches = trainer.num_val_batches
        return self._current_total(batches)

    @property
    def total_test_batches_current_dataloader(self) -> int | float:
        return self._current_total(self.trainer.num_test_batches)

    @property
    def total_predict_batches_current_dataloader(self) -> int | float:
        return self._current_total(self.trainer.num_predict_batches)

    @property
    def total_val_batches(self) -> int | float:
        batches = self.trainer.num_val_batches
        return sum(batches) if isinstance(batches, (list, tuple)) else batches

    def has_dataloader_changed(self, dataloader_idx: int) -> bool:
        old = self._current_eval_dataloader_idx
        self._current_eval_dataloader_idx = dataloader_idx
        return old != dataloader_idx

    def reset_dataloader_idx_tracker(self) -> None:
        self._current_eval_dataloader_idx = None

    def disable(self) -> None:
        raise NotImplementedError

    def enable(self) -> None:
        raise NotImplementedError

    def print(self, *args: Any, **kwargs: Any) -> None:
        print(*args, **kwargs)

    def setup(self, trainer, pl_module, stage: str) -> None:
        self._trainer = trainer
        if not trainer.is_global_zero:
            self.disable()  # one bar per job, drawn by rank zero

    def get_metrics(self, trainer, pl_module) -> dict[str, Any]:
        """`v_num` plus every metric logged with `prog_bar=True`, as Python numbers."""
        standard = get_standard_metrics(trainer)
        pbar = {
            k: (v.item() if isinstance(v, Tensor) and v.numel() == 1 else v)
            for k, v in trainer.progress_bar_metrics.items()
        }
        duplicates = list(standard.keys() & pbar.keys())
        if duplicates:
            rank_zero_warn(
                f"The progress bar already tracks a metric with the name(s) '{', '.join(duplicates)}'"
                f" and `self.log('{duplicates[0]}', ..., prog_bar=True)` will overwrite this value."
                " If this is undesired, change the name or override `get_metrics()` in the progress"
                " bar callback."
            )
        return {**standard, **pbar}


class TQDMProgressBar(ProgressBar):
    """tqdm bars for training (one per run, reset per epoch), validation, test and predict."""

    BAR_FORMAT = (
        "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_noinv_fmt}{postfix}]"
    )
    # Minimum seconds between two redraws of a bar (the last batch is always drawn) ...
    REFRESH_INTERVAL = 0.1
    # ... and at most this share of the run's time spent drawing: after a redraw that took c
    # seconds the next waits at least c / REFRESH_BUDGET. On a busy machine redraws get slower
    # along with everything else, so the bar's share stays bounded instead of growing with the
    # wall-clock time a fixed 10 Hz would spend on it.
    REFRESH_BUDGET = 0.01

    def __init__(self, refresh_rate: int = 1, process_position: int = 0, leave: bool = False):
        super().__init__()
        if not isinstance(refresh_rate, int) or refresh_rate < 0:
            raise ValueError(
                f"TQDMProgressBar(refresh_rate={refresh_rate!r}) is invalid: expected an int >= 0"
                " (batches between redraws; 0 hides the bar)."
            )
        self._refresh_rate = self._resolve_refresh_rate(refresh_rate)
        self._process_position = process_position
        self._enabled = True
        self._leave = leave
        self._train_progress_bar = None
        self._val_progress_bar = None
        self._test_progress_bar = None
        self._predict_progress_bar = None
        self._next_draw: dict[int, float] = {}  # id(bar) -> earliest next redraw

    def __getstate__(self) -> dict:
        # bars hold a terminal handle and a lock: not picklable, not worth saving
        return {k: (None if k.endswith("_progress_bar") else v) for k, v in vars(self).items()}

    @staticmethod
    def _resolve_refresh_rate(refresh_rate: int) -> int:
        if os.getenv("COLAB_GPU") and refresh_rate == 1:
            return 20
        if "TQDM_MINITERS" in os.environ:
            return max(int(os.environ["TQDM_MINITERS"]), refresh_rate)
        return refresh_rate

    def _bar(name: str):  # noqa: N805 - property factory used in the class body only
        attribute = f"_{name}"

        def getter(self):
            bar = getattr(self, attribute)
            if bar is None:
                raise TypeError(
                    f"The `{self.__class__.__name__}.{attribute}` reference has not been set yet."
                )
            return bar

        def setter(self, bar) -> None:
            setattr(self, attribute, bar)

        return property(getter, setter)

    train_progress_bar = _bar("train_progress_bar")
    val_progress_bar = _bar("val_progress_bar")
    test_progress_bar = _bar("test_progress_bar")
    predict_progress_bar = _bar("predict_progress_bar")
    del _bar

    @property
    def refresh_rate(self) -> int:
        return self._refresh_rate

    @property
    def process_position(self) -> int:
        return self._process_position

    @property
    def is_enabled(self) -> bool:
        return self._enabled and self.refresh_rate > 0

    @property
    def is_disabled(self) -> bool:
        return not self.is_enabled

    def disable(self) -> None:
        self._enabled = False

    def enable(self) -> None:
        self._enabled = True

    # --- bar factories (override to customise, as in Lightning) ------------------------------
    def _new_bar(self, desc: str, position: int, leave: bool, **extra: Any):
        return Tqdm(
            desc=desc,
            position=position,
            disable=self.is_disabled,
            leave=leave,
            dynamic_ncols=True,
            file=sys.stdout,
            bar_format=self.BAR_FORMAT,
            **extra,
        )

    def init_sanity_tqdm(self):
        return self._new_bar(self.sanity_check_description, 2 * self.process_position, False)

    def init_train_tqdm(self):
        return self._new_bar(self.train_description, 2 * self.process_position, True, smoothing=0)

    def init_predict_tqdm(self):
        return self._new_bar(self.predict_description, 2 * self.process_position, True, smoothing=0)

    def init_validation_tqdm(self):
        fn = self.trainer.state.fn
        has_main_bar = getattr(fn, "value", fn) != "validate"
        return self._new_bar(
            self.validation_description,
            2 * self.process_position + has_main_bar,
            not has_main_bar,
        )

    def init_test_tqdm(self):
        return self._new_bar("Testing", 2 * self.process_position, True)

    # --- drawing -----------------------------------------------------------------------------
    def _should_update(self, current: int, total: int | None) -> bool:
        if not self.is_enabled:
            return False
        if current == total:
            return True
        return current % self.refresh_rate == 0

    def _draw(self, bar, n: int, postfix: Any = None) -> None:
        """Move `bar` to `n` unless its last redraw is too recent (see REFRESH_INTERVAL/_BUDGET).

        Runs on every batch, so the common "not now" path is a few attribute reads. `postfix` is
        a callable returning the metrics to show; it runs only when the bar is really redrawn,
        because reading metrics syncs the device. The last batch of a bar is always drawn.
        """
        if not self._enabled or not self._refresh_rate or bar is None or bar.disable:
            return
        if n != bar.total:
            if n % self._refresh_rate:
                return
            now = time.monotonic()
            if now < self._next_draw.get(id(bar), 0.0):
                return
        else:
            now = time.monotonic()
        bar.n = n
        if postfix is not None:
            bar.set_postfix(postfix(), refresh=False)
        bar.refresh()
        cost = time.monotonic() - now
        self._next_draw[id(bar)] = now + max(self.REFRESH_INTERVAL, cost / self.REFRESH_BUDGET)

    def _reset(self, bar, total: int | float | None, description: str) -> None:
        bar.reset()
        bar.total = convert_inf(total)  # reset(total=None) would keep the old total
        bar.initial = 0
        bar.set_description(description, refresh=False)
        self._next_draw.pop(id(bar), None)

    # --- training ----------------------------------------------------------------------------
    def on_sanity_check_start(self, *_: Any) -> None:
        self.val_progress_bar = self.init_sanity_tqdm()
        self.train_progress_bar = Tqdm(disable=True)  # placeholder so on_validation_end works

    def on_sanity_check_end(self, *_: Any) -> None:
        self.val_progress_bar.close()
        self.train_progress_bar.close()

    def on_train_start(self, *_: Any) -> None:
        self.train_progress_bar = self.init_train_tqdm()

    def on_train_epoch_start(self, trainer, *_: Any) -> None:
        if self._leave:
            self.train_progress_bar = self.init_train_tqdm()
        self._reset(
            self.train_progress_bar, self.total_train_batches, f"Epoch {trainer.current_epoch}"
        )

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        self._draw(
            self._train_progress_bar, batch_idx + 1, lambda: self.get_metrics(trainer, pl_module)
        )

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        if not self.train_progress_bar.disable:
            self.train_progress_bar.set_postfix(self.get_metrics(trainer, pl_module))
        if self._leave:
            self.train_progress_bar.close()

    def on_train_end(self, *_: Any) -> None:
        self.train_progress_bar.close()

    # --- evaluation --------------------------------------------------------------------------
    def on_validation_start(self, trainer, pl_module) -> None:
        if not trainer.sanity_checking:
            self.val_progress_bar = self.init_validation_tqdm()

    def on_validation_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0):
        if not self.has_dataloader_changed(dataloader_idx):
            return
        desc = (
            self.sanity_check_description
            if trainer.sanity_checking
            else self.validation_description
        )
        self._reset(
            self.val_progress_bar,
            self.total_val_batches_current_dataloader,
            f"{desc} DataLoader {dataloader_idx}",
        )

    def on_validation_batch_end(
        self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0
    ) -> None:
        self._draw(self._val_progress_bar, batch_idx + 1)

    def on_validation_end(self, trainer, pl_module) -> None:
        self.val_progress_bar.close()
        self.reset_dataloader_idx_tracker()
        fn = trainer.state.fn
        if self._train_progress_bar is not None and getattr(fn, "value", fn) == "fit":
            self.train_progress_bar.set_postfix(self.get_metrics(trainer, pl_module))

    def on_test_start(self, trainer, pl_module) -> None:
        self.test_progress_bar = self.init_test_tqdm()

    def on_test_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0) -> None:
        if self.has_dataloader_changed(dataloader_idx):
            self._reset(
                self.test_progress_bar,
                self.total_test_batches_current_dataloader,
                f"{self.test_description} DataLoader {dataloader_idx}",
            )

    def on_test_batch_end(
        self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0
    ) -> None:
        self._draw(self._test_progress_bar, batch_idx + 1)

    def on_test_end(self, trainer, pl_module) -> None:
        self.test_progress_bar.close()
        self.reset_dataloader_idx_tracker()

    def on_predict_start(self, trainer, pl_module) -> None:
        self.predict_progress_bar = self.init_predict_tqdm()

    def on_predict_batch_start(
        self, trainer, pl_module, batch, batch_idx, dataloader_idx=0
    ) -> None:
        if self.has_dataloader_changed(dataloader_idx):
            self._reset(
                self.predict_progress_bar,
                self.total_predict_batches_current_dataloader,
                f"{self.predict_description} DataLoader {dataloader_idx}",
            )

    def on_predict_batch_end(
        self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0
    ) -> None:
        self._draw(self._predict_progress_bar, batch_idx + 1)

    def on_predict_end(self, trainer, pl_module) -> None:
        self.predict_progress_bar.close()
        self.reset_dataloader_idx_tracker()

    def print(self, *args: Any, sep: str = " ", **kwargs: Any) -> None:
        """Print above the active bar instead of through it."""
        for bar in (
            self._train_progress_bar,
            self._val_progress_bar,
            self._test_progress_bar,
            self._predict_progress_bar,
        ):
            if bar is not None and not bar.disable:
                bar.write(sep.join(map(str, args)), **kwargs)
                return
