"""Validation, test and predict loops (Lightning's hook order; see loops/evaluation_loop.py)."""

from __future__ import annotations

from typing import Any

import torch

from torchlift.runtime.trainer.fetcher import BatchFetcher


def _step_args(batch: Any, batch_idx: int, dataloader_idx: int, multiple: bool) -> tuple:
    return (batch, batch_idx, dataloader_idx) if multiple else (batch, batch_idx)


def run_evaluation(
    trainer, stage: str, loaders: list, limits: list, counters=None, grad_mode: str = "no_grad"
) -> list[dict]:
    """Run `validation_step` / `test_step` over `loaders`; return the epoch metrics per loader."""
    module = trainer.lightning_module
    prefix = "validation" if stage == "validate" else "test"
    step_fn = getattr(module, f"{prefix}_step")
    results = trainer._eval_results
    results.reset()
    trainer._active_results = results
    trainer._log_on_step_default = False
    previous_modes = trainer._capture_train_modes()
    # Lightning creates the first loader's iterator (EvaluationLoop.reset) before the pass's
    # hooks, and a DataLoader iterator draws its seed from torch's generator: code of those
    # hooks that draws must come after it, as there (the later loaders' iterators are created
    # when the previous one is exhausted, as its sequential CombinedLoader does)
    first = BatchFetcher(loaders[0], limits[0]) if loaders else None
    if first is not None:
        first.start()
    trainer._call_module_hook(f"on_{prefix}_model_eval")
    if counters is not None:
        counters.batch_progress.reset_current()
        counters._has_run = False
    multiple = len(loaders) > 1
    trainer._eval_dataloader_suffix = None
    context = torch.inference_mode() if grad_mode == "inference" else torch.no_grad()
    outputs_per_loader: list[dict] = []
    with context:
        trainer._call_hook(f"on_{prefix}_start")
        trainer._call_hook(f"on_{prefix}_epoch_start")
        for dataloader_idx, (loader, limit) in enumerate(zip(loaders, limits)):
            if limit == 0:
                continue
            trainer._eval_dataloader_suffix = (
                f"/dataloader_idx_{dataloader_idx}" if multiple else None
            )
            if dataloader_idx == 0:
                fetcher = first
            else:
                fetcher = BatchFetcher(loader, limit)
                fetcher.start()
            batch_idx = 0
            while not fetcher.done:
                try:
                    batch = next(fetcher)
                except StopIteration:
                    break
                batch = trainer._transfer_batch(batch, dataloader_idx)
                if counters is not None:
                    counters.batch_progress.is_last_batch = fetcher.done
                    counters.batch_progress.increment("ready")
                trainer._on_batch_start(batch)
                hook_args = _step_args(batch, batch_idx, dataloader_idx, multiple)
                trainer._call_hook(f"on_{prefix}_batch_start", *hook_args)
                if counters is not None:
                    counters.batch_progress.increment("started")
                with trainer.precision_plugin.forward_context():
                    output = step_fn(*trainer._eval_step_args(step_fn, hook_args))
                if counters is not None:
                    counters.batch_progress.increment("processed")
                trainer._call_hook(f"on_{prefix}_batch_end", output, *hook_args)
                if counters is not None:
                    counters.batch_progress.increment("completed")
                    counters._has_run = True
                if not trainer.sanity_checking:
                    trainer._log_eval_step_metrics(dataloader_idx)
                batch_idx += 1
        trainer._eval_dataloader_suffix = None
        trainer._call_hook(f"on_{prefix}_epoch_end")
        metrics = trainer._commit_eval_epoch_metrics()
        outputs_per_loader = _split_per_loader(metrics, len(loaders))
        trainer._call_hook(f"on_{prefix}_end")
    if trainer._module_overrides(f"on_{prefix}_model_train"):
        trainer._call_module_hook(f"on_{prefix}_model_train")
    else:
        trainer._restore_train_modes(previous_modes)
    trainer._active_results = trainer._train_results
    return outputs_per_loader


def _split_per_loader(metrics: dict[str, Any], count: int) -> list[dict]:
    if count <= 1:
        return [metrics]
    per_loader: list[dict] = [{} for _ in range(count)]
    for name, value in metrics.items():
        for idx in range(count):
            if name.endswith(f"/dataloader_idx_{idx}"):
                per_loader[idx][name] = value
                break
        else:
            for entry in per_loader:
                entry[name] = value
    return per_loader


def run_prediction(trainer, loaders: list, limits: list, return_predictions: bool) -> Any:
    module = trainer.lightning_module
    trainer._log_on_step_default = False
    previous_modes = trainer._capture_train_modes()
    first = BatchFetcher(loaders[0], limits[0]) if loaders else None  # before the hooks, as
    if first is not None:  # in run_evaluation (Lightning's PredictionLoop.reset)
        first.start()
    trainer._call_module_hook("on_predict_model_eval")
    multiple = len(loaders) > 1
    all_predictions: list[list] = []
    with torch.inference_mode():
        trainer._call_hook("on_predict_start")
        trainer._call_hook("on_predict_epoch_start")
        for dataloader_idx, (loader, limit) in enumerate(zip(loaders, limits)):
            predictions: list = []
            if dataloader_idx == 0:
                fetcher = first
            else:
                fetcher = BatchFetcher(loader, limit)
                fetcher.start()
            batch_idx = 0
            while not fetcher.done:
                try:
                    batch = next(fetcher)
                except StopIteration:
                    break
                batch = trainer._transfer_batch(batch, dataloader_idx)
                hook_args = _step_args(batch, batch_idx, dataloader_idx, multiple)
                trainer._call_hook("on_predict_batch_start", *hook_args)
                with trainer.precision_plugin.forward_context():
                    output = module.predict_step(
                        *trainer._eval_step_args(module.predict_step, hook_args)
                    )
                trainer._call_hook("on_predict_batch_end", output, *hook_args)
                if return_predictions:
                    predictions.append(output)
                batch_idx += 1
            all_predictions.append(predictions)
        trainer._call_hook("on_predict_epoch_end")
        trainer._call_hook("on_predict_end")
    trainer._restore_train_modes(previous_modes)
    if not return_predictions:
        return None
    return all_predictions[0] if len(all_predictions) == 1 else all_predictions
