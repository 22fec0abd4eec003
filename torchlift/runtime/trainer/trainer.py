"""`Trainer`: Lightning 2.x's arguments, attributes and entry points (fit / validate / test /
predict), composed from small parts: connector (strings -> objects), fit_loop, evaluation_loop,
checkpoint, progress. This file wires them together and owns hook dispatch and metric routing."""

from __future__ import annotations

import contextlib
import os
import signal
from typing import Any, Iterable, Optional, Union

import torch

from torchlift.runtime.callbacks.callback import Callback
from torchlift.runtime.core.optimizer import LightningOptimizer, parse_optimizers
from torchlift.runtime.core.results import ResultStore
from torchlift.runtime.errors import MisconfigurationException
from torchlift.runtime.strategies import layer_sync
from torchlift.runtime.trainer import checkpoint as ckpt_io
from torchlift.runtime.trainer.checkpointing import _CheckpointConnector
from torchlift.runtime.trainer.connector import precision_plugin_of, resolve
from torchlift.runtime.trainer.data import _accepts_positional, _DataConnector
from torchlift.runtime.trainer.evaluation_loop import run_evaluation, run_prediction
from torchlift.runtime.trainer.fit_loop import FitLoop
from torchlift.runtime.trainer.hooks import _HookDispatch
from torchlift.runtime.trainer.metrics import _MetricsRouting
from torchlift.runtime.trainer.properties import _TrainerProperties
from torchlift.runtime.trainer.states import RunningStage, TrainerFn, TrainerState, TrainerStatus
from torchlift.runtime.utilities.rank_zero import rank_zero_info, rank_zero_print, rank_zero_warn


def _check_int(
    name: str, value: Any, minimum: int, allow_none: bool = False, extra: str = ""
) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        accepted = f"an int >= {minimum}" + (" or None" if allow_none else "") + extra
        raise MisconfigurationException(
            f"Trainer({name}={value!r}) is not valid; accepted: {accepted}"
        )


def _check_limit(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MisconfigurationException(
            f"Trainer({name}={value!r}) is not valid; accepted: an int >= 0 (batches) or a float in [0.0, 1.0]"
        )
    if (isinstance(value, int) and value < 0) or (
        isinstance(value, float) and not 0.0 <= value <= 1.0
    ):
        raise MisconfigurationException(
            f"Trainer({name}={value!r}) is not valid; accepted: an int >= 0 (batches) or a float in [0.0, 1.0]"
        )


class Trainer(
    _TrainerProperties, _HookDispatch, _DataConnector, _MetricsRouting, _CheckpointConnector
):
    def __init__(
        self,
        *,
        accelerator: Any = "auto",
        strategy: Any = "auto",
        devices: Any = "auto",
        num_nodes: int = 1,
        precision: Any = None,
        logger: Any = None,
        callbacks: Any = None,
        fast_dev_run: Union[int, bool] = False,
        max_epochs: Optional[int] = None,
        min_epochs: Optional[int] = None,
        max_steps: int = -1,
        min_steps: Optional[int] = None,
        max_time: Any = None,
        limit_train_batches: Union[int, float, None] = None,
        limit_val_batches: Union[int, float, None] = None,
        limit_test_batches: Union[int, float, None] = None,
        limit_predict_batches: Union[int, float, None] = None,
        overfit_batches: Union[int, float] = 0.0,
        val_check_interval: Union[int, float, None] = None,
        check_val_every_n_epoch: Optional[int] = 1,
        num_sanity_val_steps: Optional[int] = None,
        log_every_n_steps: Optional[int] = None,
        enable_checkpointing: Optional[bool] = None,
        enable_progress_bar: Optional[bool] = None,
        enable_model_summary: Optional[bool] = None,
        accumulate_grad_batches: int = 1,
        gradient_clip_val: Union[int, float, None] = None,
        gradient_clip_algorithm: Optional[str] = None,
        deterministic: Any = None,
        benchmark: Optional[bool] = None,
        inference_mode: bool = True,
        use_distributed_sampler: bool = True,
        profiler: Any = None,
        detect_anomaly: bool = False,
        barebones: bool = False,
        plugins: Any = None,
        sync_batchnorm: bool = False,
        reload_dataloaders_every_n_epochs: int = 0,
        default_root_dir: Optional[Union[str, os.PathLike]] = None,
        enable_autolog_hparams: bool = True,
        model_registry: Optional[str] = None,
    ) -> None:
        # --- validate plain arguments (one clear error each) ----------------------------------
        _check_int("max_epochs", max_epochs, -1, allow_none=True, extra=" (-1 = no limit)")
        _check_int("min_epochs", min_epochs, 0, allow_none=True)
        _check_int("max_steps", max_steps, -1, extra=" (-1 = no limit)")
        _check_int("min_steps", min_steps, 0, allow_none=True)
        _check_int("accumulate_grad_batches", accumulate_grad_batches, 1)
        _check_int("check_val_every_n_epoch", check_val_every_n_epoch, 1, allow_none=True)
        if num_sanity_val_steps is not None:
            _check_int(
                "num_sanity_val_steps", num_sanity_val_steps, -1, extra=" (-1 = all batches)"
            )
        if log_every_n_steps is not None:
            _check_int("log_every_n_steps", log_every_n_steps, 0)
        if isinstance(fast_dev_run, bool):
            fast_dev_batches = 1 if fast_dev_run else 0
        else:
            _check_int("fast_dev_run", fast_dev_run, 0, extra=" or a bool")
            fast_dev_batches = fast_dev_run
        if gradient_clip_val is not None and (
            isinstance(gradient_clip_val, bool)
            or not isinstance(gradient_clip_val, (int, float))
            or gradient_clip_val < 0
        ):
            raise MisconfigurationException(
                f"Trainer(gradient_clip_val={gradient_clip_val!r}) is not valid; accepted: a number >= 0 or None"
            )
        if gradient_clip_algorithm is not None and gradient_clip_algorithm not in ("norm", "value"):
            raise MisconfigurationException(
                f"Trainer(gradient_clip_algorithm={gradient_clip_algorithm!r}) is not valid; accepted: 'norm', 'value'"
            )
        for name, value in (
            ("limit_train_batches", limit_train_batches),
            ("limit_val_batches", limit_val_batches),
            ("limit_test_batches", limit_test_batches),
            ("limit_predict_batches", limit_predict_batches),
            ("overfit_batches", overfit_batches),
        ):
            if value is not None:
                _check_limit(name, value)
        if val_check_interval is not None:
            if (
                isinstance(val_check_interval, bool)
                or not isinstance(val_check_interval, (int, float))
                or (isinstance(val_check_interval, float) and not 0.0 < val_check_interval <= 1.0)
                or (isinstance(val_check_interval, int) and val_check_interval < 1)
            ):
                raise MisconfigurationException(
                    f"Trainer(val_check_interval={val_check_interval!r}) is not valid; accepted: an int >= 1 "
                    "(batches) or a float in (0.0, 1.0] (fraction of an epoch)"
                )

        # arguments whose machinery the runtime does not have: an error, never a silent no-op
        if profiler is not None:
            raise MisconfigurationException(
                f"Trainer(profiler={profiler!r}) is not supported by torchlift.runtime; remove it "
                "or run the script on Lightning"
            )
        precision_plugin = precision_plugin_of(plugins, precision)
        _check_int("reload_dataloaders_every_n_epochs", reload_dataloaders_every_n_epochs, 0)
        self._use_distributed_sampler = bool(use_distributed_sampler)

        # --- resolve devices / strategy / precision (connector.py) -----------------------------
        resolved = resolve(
            accelerator,
            devices,
            strategy,
            num_nodes,
            "32-true" if precision is None else precision,
            precision_plugin,
        )
        self.accelerator = resolved.accelerator
        self._accelerator_flag = resolved.accelerator
        self._devices = resolved.devices
        self.strategy = resolved.strategy
        self.precision_plugin = resolved.precision
        self.precision = resolved.precision_name
        self.num_nodes = num_nodes
        if getattr(self.strategy, "precision_plugin", None) is None:
            try:
                self.strategy.precision_plugin = self.precision_plugin
            except AttributeError:
                pass

        self._default_root_dir = (
            os.fspath(default_root_dir) if default_root_dir is not None else None
        )
        self.fast_dev_run = fast_dev_run
        if fast_dev_batches:
            limit_train_batches = limit_val_batches = limit_test_batches = limit_predict_batches = (
                fast_dev_batches
            )
            max_steps = fast_dev_batches
            num_sanity_val_steps = 0
            max_epochs = 1
            val_check_interval = 1.0
            check_val_every_n_epoch = 1
            rank_zero_info(
                f"Running in `fast_dev_run` mode: will run the requested loop using {fast_dev_batches} batch(es). "
                "Logging and checkpointing is suppressed."
            )
        self.overfit_batches = overfit_batches
        if overfit_batches:
            limit_train_batches = overfit_batches
            limit_val_batches = overfit_batches
        self.limit_train_batches = 1.0 if limit_train_batches is None else limit_train_batches
        self.limit_val_batches = 1.0 if limit_val_batches is None else limit_val_batches
        self.limit_test_batches = 1.0 if limit_test_batches is None else limit_test_batches
        self.limit_predict_batches = 1.0 if limit_predict_batches is None else limit_predict_batches
        self.val_check_interval = 1.0 if val_check_interval is None else val_check_interval
        self.val_check_batch: float = float("inf")
        self.check_val_every_n_epoch = check_val_every_n_epoch
        self.num_sanity_val_steps = (
            2
            if num_sanity_val_steps is None
            else (float("inf") if num_sanity_val_steps == -1 else num_sanity_val_steps)
        )
        self.log_every_n_steps = 50 if log_every_n_steps is None else log_every_n_steps
        self.accumulate_grad_batches = accumulate_grad_batches
        self.gradient_clip_val = gradient_clip_val
        self.gradient_clip_algorithm = gradient_clip_algorithm or (
            "norm" if gradient_clip_val is not None else None
        )
        self._detect_anomaly = detect_anomaly
        self._inference_mode = inference_mode
        self.reload_dataloaders_every_n_epochs = reload_dataloaders_every_n_epochs
        self.enable_autolog_hparams = enable_autolog_hparams
        self.barebones = barebones
        self.min_steps = min_steps
        self.max_steps = max_steps
        self._max_time_seconds = _parse_max_time(max_time)
        self._sync_batchnorm = sync_batchnorm
        self._max_epochs_arg = max_epochs
        self._min_epochs_arg = min_epochs
        if deterministic:
            torch.use_deterministic_algorithms(True, warn_only=deterministic == "warn")
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        if benchmark is not None and self.accelerator == "cuda":
            torch.backends.cudnn.benchmark = benchmark
        elif deterministic and self.accelerator == "cuda":
            torch.backends.cudnn.benchmark = False

        # --- loops, state, metrics -------------------------------------------------------------
        self.fit_loop = FitLoop(self, min_steps, max_steps)
        self.fit_loop.max_epochs = 1000 if max_epochs is None else max_epochs
        self.state = TrainerState()
        self.should_stop = False
        self.sanity_checking = False
        self.training_started = False
        self.lightning_module = None
        self.datamodule = None
        self.optimizers: list = []
        self._lightning_optimizers: list = []
        self.lr_scheduler_configs: list = []
        self.train_dataloader = None
        self.val_dataloaders = None
        self.test_dataloaders = None
        self.predict_dataloaders = None
        self.num_training_batches: float = float("inf")
        self.num_val_batches: list = []
        self.num_test_batches: list = []
        self.num_predict_batches: list = []
        self.num_sanity_val_batches: list = []
        self._train_results = ResultStore()
        self._eval_results = ResultStore()
        self._active_results = self._train_results
        self._callback_metrics: dict[str, Any] = {}
        self._logged_metrics: dict[str, Any] = {}
        self._progress_bar_metrics: dict[str, Any] = {}
        self._log_on_step_default = False
        self._train_epoch_end_reached = False
        self._eval_batches_seen: dict[int, int] = {}
        self._eval_dataloader_suffix: Optional[str] = None
        self._current_batch: Any = None
        self._current_batch_size: Optional[int] = None
        self._epoch_start_rng: Any = None
        self._train_source: Any = None
        self._val_source: Any = None
        self._test_source: Any = None
        self._predict_source: Any = None
        self._hook_cache: dict[str, list] = {}
        self._dispatch: dict[str, tuple] = {}
        self._batch_transfer_needed = True
        self._module_hook_cache: dict[str, bool] = {}
        self._enable_validation = True

        # --- callbacks and loggers (H2's classes; imported here, not at package import) --------
        self._enable_checkpointing = True if enable_checkpointing is None else enable_checkpointing
        self._enable_progress_bar = True if enable_progress_bar is None else enable_progress_bar
        self.enable_model_summary = True if enable_model_summary is None else enable_model_summary
        self.callbacks: list[Callback] = self._configure_callbacks(callbacks)
        self.loggers: list = self._configure_loggers(logger)
        if fast_dev_batches:
            self.loggers = []

    # ================================================================================================
    # configuration helpers
    # ================================================================================================
    def _configure_callbacks(self, callbacks: Any) -> list:
        if callbacks is None:
            callbacks = []
        elif isinstance(callbacks, Callback) or not isinstance(callbacks, Iterable):
            callbacks = [callbacks]
        callbacks = list(callbacks)
        for callback in callbacks:
            if not isinstance(callback, Callback):
                raise MisconfigurationException(
                    f"Trainer(callbacks=...): {callback!r} is not a Callback; accepted: Callback instances"
                )
        if self._enable_checkpointing or self._enable_progress_bar:
            from torchlift.runtime import callbacks as cb

            if self._enable_checkpointing and not any(
                isinstance(c, cb.ModelCheckpoint) for c in callbacks
            ):
                callbacks.append(cb.ModelCheckpoint())
            if not self._enable_checkpointing and any(
                isinstance(c, cb.ModelCheckpoint) for c in callbacks
            ):
                raise MisconfigurationException(
                    "Trainer was configured with enable_checkpointing=False but found ModelCheckpoint in callbacks"
                )
            has_bar = any(isinstance(c, cb.ProgressBar) for c in callbacks)
            if self._enable_progress_bar and not has_bar:
                callbacks.append(cb.TQDMProgressBar())
            if not self._enable_progress_bar and has_bar:
                raise MisconfigurationException(
                    "Trainer was configured with enable_progress_bar=False but found a ProgressBar in callbacks"
                )
        return self._reorder_callbacks(callbacks)

    @staticmethod
    def _reorder_callbacks(callbacks: list) -> list:
        # Lightning runs checkpoint callbacks last so they see what the others set (e.g. early stop).
        try:
            from torchlift.runtime.callbacks.checkpoint import Checkpoint
        except ImportError:  # pragma: no cover
            return callbacks
        others = [c for c in callbacks if not isinstance(c, Checkpoint)]
        checkpoints = [c for c in callbacks if isinstance(c, Checkpoint)]
        return others + checkpoints

    def _configure_loggers(self, logger: Any) -> list:
        if logger is False or logger == []:
            return []
        if logger is None or logger is True:
            from torchlift.runtime import loggers as lg

            root = self.default_root_dir
            try:
                import tensorboard  # noqa: F401

                return [lg.TensorBoardLogger(save_dir=root)]
            except ImportError:
                try:
                    import tensorboardX  # noqa: F401

                    return [lg.TensorBoardLogger(save_dir=root)]
                except ImportError:
                    return [lg.CSVLogger(save_dir=root)]
        if isinstance(logger, (list, tuple)):
            return list(logger)
        return [logger]

    # ================================================================================================
    # entry points
    # ================================================================================================
    def fit(
        self,
        model,
        train_dataloaders=None,
        val_dataloaders=None,
        datamodule=None,
        ckpt_path=None,
        weights_only: Optional[bool] = None,
    ) -> None:
        from torchlift.runtime.core.datamodule import LightningDataModule

        if isinstance(train_dataloaders, LightningDataModule):
            datamodule, train_dataloaders = train_dataloaders, None
        if datamodule is not None and (
            train_dataloaders is not None or val_dataloaders is not None
        ):
            raise MisconfigurationException(
                "Trainer.fit: pass either a datamodule or train_dataloaders/val_dataloaders, not both"
            )
        self._attach(model, datamodule, TrainerFn.FITTING)
        self._train_source = train_dataloaders
        self._val_source = val_dataloaders
        self._run_guarded(self._run, model, ckpt_path, weights_only)

    def validate(
        self,
        model=None,
        dataloaders=None,
        ckpt_path=None,
        verbose: bool = True,
        datamodule=None,
        weights_only: Optional[bool] = None,
    ) -> list[dict[str, float]]:
        return self._evaluate(
            TrainerFn.VALIDATING, model, dataloaders, ckpt_path, verbose, datamodule, weights_only
        )

    def test(
        self,
        model=None,
        dataloaders=None,
        ckpt_path=None,
        verbose: bool = True,
        datamodule=None,
        weights_only: Optional[bool] = None,
    ) -> list[dict[str, float]]:
        return self._evaluate(
            TrainerFn.TESTING, model, dataloaders, ckpt_path, verbose, datamodule, weights_only
        )

    def predict(
        self,
        model=None,
        dataloaders=None,
        datamodule=None,
        return_predictions: Optional[bool] = None,
        ckpt_path=None,
        weights_only: Optional[bool] = None,
    ):
        from torchlift.runtime.core.datamodule import LightningDataModule

        if isinstance(dataloaders, LightningDataModule):
            datamodule, dataloaders = dataloaders, None
        self._attach(model, datamodule, TrainerFn.PREDICTING)
        self._predict_source = dataloaders
        return self._run_guarded(
            self._run,
            self.lightning_module,
            self._select_ckpt(ckpt_path, model),
            weights_only,
            return_predictions=True if return_predictions is None else return_predictions,
        )

    def _evaluate(self, fn, model, dataloaders, ckpt_path, verbose, datamodule, weights_only):
        from torchlift.runtime.core.datamodule import LightningDataModule

        if isinstance(dataloaders, LightningDataModule):
            datamodule, dataloaders = dataloaders, None
        self._attach(model, datamodule, fn)
        if fn == TrainerFn.VALIDATING:
            self._val_source = dataloaders
        else:
            self._test_source = dataloaders
        self._verbose = verbose
        return self._run_guarded(
            self._run, self.lightning_module, self._select_ckpt(ckpt_path, model), weights_only
        )

    def _select_ckpt(self, ckpt_path, model) -> Optional[str]:
        if ckpt_path in ("best", "last") or (
            ckpt_path is None and model is None and self.checkpoint_callback
        ):
            callback = self.checkpoint_callback
            if callback is None:
                if ckpt_path is None:
                    return None
                raise MisconfigurationException(
                    f'ckpt_path="{ckpt_path}" needs a ModelCheckpoint callback'
                )
            path = getattr(
                callback, "best_model_path" if ckpt_path != "last" else "last_model_path", ""
            )
            if not path:
                if ckpt_path is None:
                    return None
                raise MisconfigurationException(
                    f'ckpt_path="{ckpt_path}": no checkpoint has been saved yet by ModelCheckpoint'
                )
            return path
        return ckpt_path

    def _attach(self, model, datamodule, fn: TrainerFn) -> None:
        from torchlift.runtime.core.module import LightningModule

        if model is None:
            if self.lightning_module is None:
                raise MisconfigurationException(
                    f"Trainer.{fn.value}: no model given and none attached from an earlier fit; pass model=..."
                )
            model = self.lightning_module
        if not isinstance(model, LightningModule):
            raise MisconfigurationException(
                f"Trainer.{fn.value}: model must be a LightningModule, got {type(model).__name__}"
            )
        self.state.fn = fn
        self.state.status = TrainerStatus.RUNNING
        self.should_stop = False
        # As Lightning's data connector: each entry point starts with no loader of any stage,
        # so `trainer.train_dataloader` is None while testing after a `fit`
        self.train_dataloader = None
        self.val_dataloaders = None
        self.test_dataloaders = None
        self.predict_dataloaders = None
        self.lightning_module = model
        model._trainer = self
        if datamodule is not None:
            self.datamodule = datamodule
            datamodule.trainer = self
        self._hook_cache = {}
        self._dispatch = {}
        self._module_hook_cache = {}

    def _run_guarded(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt as exc:
            # As Lightning: a second Ctrl-C must not cut the shutdown short, the ranks this
            # process launched are stopped, and the script does not go on after fit.
            rank_zero_warn("Detected KeyboardInterrupt, attempting graceful shutdown ...")
            _ignore_further_ctrl_c()
            self.state.status = TrainerStatus.INTERRUPTED
            self._on_exception(exc)
            self._teardown()
            launcher = getattr(self.strategy, "launcher", None)
            if launcher is not None:
                launcher.kill_children()
            raise SystemExit(1) from None
        except BaseException as exc:
            self.state.status = TrainerStatus.INTERRUPTED
            self._on_exception(exc)
            self._teardown()
            raise

    def _on_exception(self, exc: BaseException) -> None:
        module = self.lightning_module
        for callback in self.callbacks:
            try:
                callback.on_exception(self, module, exc)
            except Exception:  # noqa: BLE001 - never hide the original error
                pass
        if self.datamodule is not None and hasattr(self.datamodule, "on_exception"):
            try:
                self.datamodule.on_exception(exc)
            except Exception:  # noqa: BLE001
                pass
        for logger in self.loggers:
            try:
                logger.finalize("failed")
            except Exception:  # noqa: BLE001
                pass

    def _hand_back_on_cpu(self, model) -> None:
        """Lightning's strategies move the module to the CPU when a run ends (fit, validate,
        test, predict): code after `fit` sees it there, on either package."""
        if self.strategy.root_device.type != "cpu":
            model.cpu()

    def _teardown(self) -> None:
        try:
            self.strategy.teardown()
        except Exception:  # noqa: BLE001
            pass

    # ================================================================================================
    # the run (Lightning's Trainer._run order)
    # ================================================================================================
    def _run(self, model, ckpt_path=None, weights_only=None, return_predictions: bool = True):
        fn = self.state.fn
        if fn == TrainerFn.FITTING:
            max_epochs = self._max_epochs_arg
            if max_epochs is None:
                if self.max_steps == -1 and self._max_time_seconds is None:
                    rank_zero_warn(
                        "`max_epochs` was not set. Setting it to 1000 epochs. To train without an epoch limit, "
                        "set `max_epochs=-1`."
                    )
                    max_epochs = 1000
                else:
                    max_epochs = -1
            min_epochs = self._min_epochs_arg
            if min_epochs is None:
                min_epochs = 1 if self.min_steps is not None else 0
            self.fit_loop.max_epochs = max_epochs
            self.fit_loop.min_epochs = min_epochs
            self.fit_loop.epoch_loop.automatic = model.automatic_optimization
            self.training_started = False
        self._verify_configuration(model, fn)
        # Model-provided callbacks (configure_callbacks) replace trainer ones of the same type.
        extra = model.configure_callbacks()
        if extra:
            extra = [extra] if isinstance(extra, Callback) else list(extra)
            types = {type(c) for c in extra}
            self.callbacks = self._reorder_callbacks(
                [c for c in self.callbacks if type(c) not in types] + extra
            )
            self._hook_cache = {}
        self._training_step_takes_idx = _accepts_positional(type(model).training_step, 3)

        self.strategy.setup_environment()
        self._prepare_data()
        self._call_setup_hooks(fn)
        model.configure_model()

        loaded = None
        if fn == TrainerFn.FITTING and ckpt_path in ("last", "best"):
            ckpt_path = self._find_fit_checkpoint(ckpt_path)
        if ckpt_path is not None:
            self._ckpt_path = str(ckpt_path)
            loaded = ckpt_io.load_checkpoint_file(ckpt_path, weights_only=weights_only)
            self._restore_module_and_callbacks(loaded)

        self._callback_metrics = {}
        self._logged_metrics = {}
        self._progress_bar_metrics = {}
        self._train_results.reset()
        self._eval_results.reset()

        # strategy.setup: precision conversion, device placement, optimizers (Lightning's order)
        model = self.precision_plugin.convert_module(model)
        for module in model.modules():
            if hasattr(module, "_device"):
                module._device = self.strategy.root_device
        # Lightning's layer sync: DDP strategies only, while fitting, reverted when it ends
        synced = fn == TrainerFn.FITTING and self._sync_batchnorm and self.strategy.is_parallel
        if synced:
            model = layer_sync.apply(model)
        try:
            self._set_up_module(model, fn, loaded)
        except BaseException:
            if synced:  # (Lightning's teardown after an error)
                layer_sync.revert(model)
            raise
        try:
            result = self._run_stage(fn, return_predictions)
        finally:
            self.strategy.teardown()
            if synced:
                layer_sync.revert(model)
            self._hand_back_on_cpu(model)
        if fn == TrainerFn.FITTING:
            self._call_hook("on_fit_end")
        self._call_teardown_hooks(fn)
        for logger in self.loggers:
            logger.finalize("success")
        self.state.status = TrainerStatus.FINISHED
        self.state.stage = None
        return result

    def _set_up_module(self, model, fn, loaded) -> None:
        """DDP wrap, optimizers, `on_fit_start`, a checkpoint's training state."""
        self.strategy.setup_module(model)
        if fn == TrainerFn.FITTING:
            self._setup_optimizers(model)

        if fn == TrainerFn.FITTING:
            self._call_hook("on_fit_start")
            self._log_hyperparams()
            if self.enable_model_summary and self.is_global_zero and not self.fast_dev_run:
                from torchlift.runtime.trainer.summary import print_summary

                print_summary(model)
        if loaded is not None:
            self._restore_training_state(loaded)

        self._build_hook_cache()

    def _verify_configuration(self, model, fn) -> None:
        if fn == TrainerFn.FITTING:
            if not self._module_overrides("training_step"):
                raise MisconfigurationException(
                    "No `training_step()` method defined. Lightning `Trainer` expects as minimum a "
                    "`training_step()`, `train_dataloader()` and `configure_optimizers()` to be defined."
                )
            if not self._module_overrides("configure_optimizers"):
                raise MisconfigurationException(
                    "No `configure_optimizers()` method defined. Lightning `Trainer` expects as minimum a "
                    "`training_step()`, `train_dataloader()` and `configure_optimizers()` to be defined."
                )
            if not model.automatic_optimization and self.gradient_clip_val:
                raise MisconfigurationException(
                    "Automatic gradient clipping is not supported for manual optimization; remove "
                    "Trainer(gradient_clip_val=...) and call self.clip_gradients(...) in training_step"
                )
            if not model.automatic_optimization and self.accumulate_grad_batches != 1:
                raise MisconfigurationException(
                    "Automatic gradient accumulation is not supported for manual optimization; remove "
                    "Trainer(accumulate_grad_batches=...) and accumulate in training_step"
                )
        elif fn == TrainerFn.VALIDATING and not self._module_overrides("validation_step"):
            raise MisconfigurationException(
                "Trainer.validate: the model has no `validation_step()` method"
            )
        elif fn == TrainerFn.TESTING and not self._module_overrides("test_step"):
            raise MisconfigurationException("Trainer.test: the model has no `test_step()` method")

    def _run_stage(self, fn, return_predictions: bool):
        self.strategy.barrier("run-stage")
        self.lightning_module.zero_grad(set_to_none=True)
        if fn == TrainerFn.FITTING:
            from torchlift.runtime.seed import isolate_rng

            with isolate_rng():
                self._run_sanity_check()
            self.training = True
            self._active_results = self._train_results
            with torch.autograd.set_detect_anomaly(self._detect_anomaly):
                self.fit_loop.run()
            self.training = False
            return None
        if fn in (TrainerFn.VALIDATING, TrainerFn.TESTING):
            return self._run_standalone_evaluation(fn)
        return self._run_predict(return_predictions)

    def _setup_optimizers(self, model) -> None:
        result = model.configure_optimizers()
        optimizers, configs = parse_optimizers(result)
        if not optimizers:
            rank_zero_warn(
                "`LightningModule.configure_optimizers` returned `None`, this fit will run with "
                "no optimizer"
            )
        if model.automatic_optimization and len(optimizers) > 1:
            raise MisconfigurationException(
                "Training with multiple optimizers is only supported with manual optimization. Set "
                "`self.automatic_optimization = False`, then access your optimizers in `training_step` with "
                "`opt1, opt2, ... = self.optimizers()`."
            )
        self.optimizers = optimizers
        self._lightning_optimizers = [LightningOptimizer(o, self) for o in optimizers]
        self.lr_scheduler_configs = configs
        if not optimizers:  # as Lightning: also under manual optimization (`self.optimizers()`)
            self.optimizers = [_MockOptimizer()]
            self._lightning_optimizers = [LightningOptimizer(self.optimizers[0], self)]

    # ================================================================================================
    # one training step's pieces (called from fit_loop and LightningOptimizer)
    # ================================================================================================
    def _call_training_step(self, batch: Any, batch_idx: int) -> Any:
        module = self.lightning_module
        with self.precision_plugin.forward_context():
            if self._training_step_takes_idx:
                return module.training_step(batch, batch_idx)
            return module.training_step(batch)

    def _backward(self, loss: torch.Tensor, optimizer: Any, *args: Any, **kwargs: Any) -> None:
        loss = self.precision_plugin.pre_backward(loss)
        self._call_hook("on_before_backward", loss)
        self.lightning_module.backward(loss, *args, **kwargs)
        self._call_hook("on_after_backward")

    def _optimizer_step(self, optimizer, closure, **kwargs: Any) -> Any:
        module = self.lightning_module
        automatic = module.automatic_optimization
        manual_progress = None if automatic else self.fit_loop.epoch_loop.manual_optim_step_progress
        if manual_progress is not None:
            manual_progress.increment("ready")

        def after_closure() -> None:
            self._call_hook("on_before_optimizer_step", optimizer)
            if automatic:
                module.configure_gradient_clipping(
                    optimizer,
                    gradient_clip_val=self.gradient_clip_val,
                    gradient_clip_algorithm=self.gradient_clip_algorithm,
                )

        output = self.precision_plugin.optimizer_step(optimizer, closure, after_closure, **kwargs)
        if manual_progress is not None:
            manual_progress.increment("completed")
        return output

    # ================================================================================================
    # sanity check, standalone evaluation, predict
    # ================================================================================================
    def _run_sanity_check(self) -> None:
        if not (self.enable_validation and self.num_sanity_val_steps > 0):
            return
        if (
            self.fit_loop.epoch_progress.total["ready"] > 0
            or self.fit_loop.epoch_loop.global_step > 0
        ):
            return  # resuming: Lightning does not re-run it either
        loaders, limits = self._setup_eval_data("val")
        limits = [min(self.num_sanity_val_steps, n) for n in limits]
        self.num_sanity_val_batches = limits
        if sum(limits) == 0:
            return
        stage = self.state.stage
        self.sanity_checking = True
        self.state.stage = RunningStage.SANITY_CHECKING
        self._callback_metrics, self._logged_metrics, self._progress_bar_metrics = {}, {}, {}
        self._call_callbacks_only("on_sanity_check_start")
        run_evaluation(self, "validate", loaders, limits, counters=None)
        self._call_callbacks_only("on_sanity_check_end")
        self._callback_metrics, self._logged_metrics, self._progress_bar_metrics = {}, {}, {}
        self._eval_results.reset()
        self.sanity_checking = False
        self.state.stage = stage

    def _call_callbacks_only(self, name: str, *args: Any) -> None:
        module = self.lightning_module
        for hook in self._callbacks_for(name):
            hook(self, module, *args)

    def _run_validation(self) -> None:
        loaders = self._as_loader_list(self.val_dataloaders)
        if not loaders and self.val_dataloaders is None:
            loaders, _ = self._setup_eval_data("val")
        if not loaders or sum(self.num_val_batches) == 0:
            return  # Lightning skips a validation without batches (no hooks either)
        self.validating = True
        run_evaluation(
            self,
            "validate",
            loaders,
            list(self.num_val_batches),
            counters=self.fit_loop.epoch_loop.val_loop,
        )
        self.training = True

    def _run_standalone_evaluation(self, fn) -> list[dict[str, float]]:
        kind = "val" if fn == TrainerFn.VALIDATING else "test"
        loaders, limits = self._setup_eval_data(kind)
        if not loaders:
            raise MisconfigurationException(
                f"Trainer.{fn.value}: no {kind} data; pass dataloaders=..., a datamodule, or define "
                f"`{kind}_dataloader()` in the LightningModule"
            )
        self.state.stage = RunningStage.VALIDATING if kind == "val" else RunningStage.TESTING
        grad_mode = "inference" if self._inference_mode else "no_grad"
        results = run_evaluation(
            self, fn.value, loaders, limits, counters=None, grad_mode=grad_mode
        )
        floats = [
            {k: (v.item() if isinstance(v, torch.Tensor) else v) for k, v in r.items()}
            for r in results
        ]
        if getattr(self, "_verbose", True) and self.is_global_zero:
            _print_results(floats, "Validate" if kind == "val" else "Test")
        return floats

    def _run_predict(self, return_predictions: bool):
        loaders, limits = self._setup_eval_data("predict")
        if not loaders:
            raise MisconfigurationException(
                "Trainer.predict: no data; pass dataloaders=..., a datamodule, or define `predict_dataloader()`"
            )
        self.state.stage = RunningStage.PREDICTING
        return run_prediction(self, loaders, limits, return_predictions)

    # ------------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def init_module(self, empty_init: Optional[bool] = None):
        """Create parameters on the target device (and in float64 for precision "64-true")."""
        dtype = torch.float64 if self.precision == "64-true" else None
        previous = torch.get_default_dtype()
        if dtype is not None:
            torch.set_default_dtype(dtype)
        try:
            with self.strategy.root_device:
                yield
        finally:
            torch.set_default_dtype(previous)

    def print(self, *args: Any, **kwargs: Any) -> None:
        rank_zero_print(*args, **kwargs)


class _MockOptimizer(torch.optim.Optimizer):
    """Stands in when configure_optimizers returns None, in automatic and manual optimization
    alike (Lightning's `_MockOptimizer`): it steps nothing, and its state is empty (`{}` in a
    checkpoint's `optimizer_states`)."""

    def __init__(self) -> None:
        super().__init__([torch.zeros(1)], {})

    def add_param_group(self, param_group) -> None:
        pass

    def load_state_dict(self, state_dict) -> None:
        pass

    def state_dict(self) -> dict:
        return {}

    def step(self, closure=None):
        if closure is not None:
            return closure()
        return None

    def zero_grad(self, set_to_none: bool = True) -> None: ...

    def __repr__(self) -> str:
        return "No Optimizer"


def _print_results(results: list[dict[str, float]], stage: str) -> None:
    rows = [(name, value) for result in results for name, value in result.items()]
    if not rows:
        return
    width = max(len(name) for name, _ in rows) + 2
    line = "─" * (width + 24)
    print(line)
    print(f"{stage + ' metric':<{width}}{'DataLoader 0':>24}")
    print(line)
    for name, value in rows:
        print(f"{name:<{width}}{value:>24.6g}")
    print(line)


def _parse_max_time(max_time: Any) -> Optional[float]:
    """Trainer(max_time=...): "DD:HH:MM:SS", a timedelta or a dict of timedelta fields."""
    if max_time is None:
        return None
    import datetime

    if isinstance(max_time, datetime.timedelta):
        return max_time.total_seconds()
    if isinstance(max_time, dict):
        return datetime.timedelta(**max_time).total_seconds()
    if isinstance(max_time, str):
        parts = max_time.split(":")
        if len(parts) == 4 and all(p.strip().isdigit() for p in parts):
            days, hours, minutes, seconds = (int(p) for p in parts)
            return datetime.timedelta(
                days=days, hours=hours, minutes=minutes, seconds=seconds
            ).total_seconds()
    raise MisconfigurationException(
        f"Trainer(max_time={max_time!r}) is not valid; accepted: 'DD:HH:MM:SS', a datetime.timedelta, "
        "or a dict such as {'hours': 1}"
    )


def _ignore_further_ctrl_c() -> None:
    # ValueError: fit runs outside the main thread, where signals are not ours to handle
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
