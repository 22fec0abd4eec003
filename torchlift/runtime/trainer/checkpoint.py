"""Checkpoints in Lightning's `.ckpt` layout: build, write, read, restore.

Keys match `lightning.pytorch.trainer.connectors.checkpoint_connector` so either trainer resumes
the other's files. Everything stored is plain Python / tensors, so
`torch.load(path, weights_only=True)` opens them. One extra key, "torchlift", holds the random
state of the current epoch (Lightning ignores it): with it a mid-epoch resume replays the same
shuffled order and dropout masks as the run that was interrupted.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import secrets
from pathlib import Path
from typing import Any, Optional

import torch

from torchlift.runtime.errors import MisconfigurationException

LIGHTNING_VERSION = "2.6.6"  # the Lightning layout these files follow
_TORCHLIFT_KEY = "torchlift"


def _atomic_save(obj: Any, path: str | Path) -> None:
    """Publish `path` whole or not at all, even with several writers sharing its folder.

    The temporary file has a unique name in the same folder (so `os.replace` is atomic and two
    trainers never write into one temp file), is fsync-ed before it is published, and is removed
    if anything fails on the way (disk full, interrupt).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    # O_EXCL: never write into another writer's file; mode 0o666 lets the umask decide, as open().
    handle = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(buffer.getbuffer())
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def save_checkpoint_file(checkpoint: dict[str, Any], filepath: str | Path) -> None:
    _atomic_save(checkpoint, filepath)


def load_checkpoint_file(
    path: Any, map_location: Any = None, weights_only: Optional[bool] = None
) -> dict[str, Any]:
    """Read a checkpoint; a missing file or something that is not a checkpoint is one clear error."""
    if isinstance(path, (str, Path)):
        if not os.path.exists(path):
            raise FileNotFoundError(f"ckpt_path={str(path)!r}: no such checkpoint file")
        if os.path.isdir(path):
            raise MisconfigurationException(
                f"ckpt_path={str(path)!r} is a directory, not a .ckpt file"
            )
    # Unpickling arbitrary objects can run code, so the only default is weights_only=True;
    # never retry silently without it. A caller who trusts the file opts in explicitly.
    try:
        checkpoint = torch.load(
            path, map_location=map_location or "cpu", weights_only=weights_only is not False
        )
    except Exception as exc:  # noqa: BLE001 - any failure here means "not a loadable checkpoint"
        raise MisconfigurationException(_load_failure_message(path, exc, weights_only)) from None
    if not isinstance(checkpoint, dict) or "state_dict" not in checkpoint:
        raise MisconfigurationException(
            f"ckpt_path={str(path)!r} is not a Lightning checkpoint (no 'state_dict' entry)"
        )
    return checkpoint


def _load_failure_message(path: Any, exc: Exception, weights_only: Optional[bool]) -> str:
    reason = _torch_load_reason(exc)
    if weights_only is not False and "global" in reason.lower():
        return (
            f"ckpt_path={str(path)!r} holds objects that loading with weights_only=True refuses "
            f"({reason}). Loading it with weights_only=False would unpickle them, which can run "
            "arbitrary code: pass weights_only=False only for a file you trust"
        )
    return f"ckpt_path={str(path)!r} is not a checkpoint (torch.load failed: {reason})"


def _torch_load_reason(exc: Exception) -> str:
    """The specific line of torch.load's error (its weights-only errors start with boilerplate)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        if "GLOBAL" in line or "WeightsUnpickler error:" in line or line.startswith("Unsupported"):
            detail = line.split("WeightsUnpickler error:")[-1].strip()
            if detail:
                return detail
            following = lines[lines.index(line) + 1 :]
            return following[0] if following else line
    return lines[0] if lines else type(exc).__name__


def instantiate_from_checkpoint(
    cls,
    checkpoint: dict[str, Any],
    strict: Optional[bool] = None,
    map_location: Any = None,
    **kwargs: Any,
):
    """`LightningModule.load_from_checkpoint`: rebuild from saved hyper-parameters, load weights."""
    hparams = dict(checkpoint.get(cls.CHECKPOINT_HYPER_PARAMS_KEY) or {})
    hparams.update(kwargs)
    signature = inspect.signature(cls.__init__)
    takes_var_kwargs = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    if not takes_var_kwargs:
        hparams = {k: v for k, v in hparams.items() if k in signature.parameters}
    model = cls(**hparams)
    if hasattr(model, "on_load_checkpoint"):
        model.on_load_checkpoint(checkpoint)
    if strict is None:
        strict = getattr(model, "strict_loading", True)
    model.load_state_dict(checkpoint["state_dict"], strict=strict)
    if (
        map_location is not None
        and not callable(map_location)
        and not isinstance(map_location, dict)
    ):
        model.to(map_location)
    return model


def dump_checkpoint(trainer, weights_only: bool = False) -> dict[str, Any]:
    from torchlift.runtime.seed import collect_rng_states
    from torchlift.runtime.trainer.progress import loops_state_dict

    module = trainer.lightning_module
    checkpoint: dict[str, Any] = {
        "epoch": trainer.current_epoch,
        "global_step": trainer.global_step,
        "pytorch-lightning_version": LIGHTNING_VERSION,
        "state_dict": module.state_dict(),
        "loops": loops_state_dict(trainer.fit_loop),
    }
    if not weights_only:
        checkpoint["callbacks"] = trainer._callbacks_state_dict()
        checkpoint["optimizer_states"] = [
            optimizer.state_dict() for optimizer in trainer.optimizers
        ]
        checkpoint["lr_schedulers"] = [
            config.scheduler.state_dict() for config in trainer.lr_scheduler_configs
        ]
        precision_state = trainer.precision_plugin.state_dict()
        if precision_state:
            checkpoint[trainer.precision_plugin.state_key] = precision_state
    for obj in (module, trainer.datamodule):
        if obj is not None and obj.hparams:
            if getattr(obj, "_hparams_name", None):
                checkpoint[obj.CHECKPOINT_HYPER_PARAMS_NAME] = obj._hparams_name
            checkpoint[obj.CHECKPOINT_HYPER_PARAMS_KEY] = dict(obj.hparams)
    if trainer.datamodule is not None:
        datamodule_state = trainer.datamodule.state_dict()
        if datamodule_state:
            checkpoint[type(trainer.datamodule).__qualname__] = datamodule_state
    if trainer.state.fn == "fit" and trainer.training_started:
        checkpoint[_TORCHLIFT_KEY] = {
            "rng": collect_rng_states(),
            "epoch_rng": trainer._epoch_start_rng,
            # what a ReduceLROnPlateau due right after this save will monitor
            "callback_metrics": {
                key: value.detach().cpu()
                for key, value in trainer.callback_metrics.items()
                if isinstance(value, torch.Tensor)
            },
        }
    if not weights_only:
        for callback in trainer.callbacks:
            callback.on_save_checkpoint(trainer, module, checkpoint)
    module.on_save_checkpoint(checkpoint)
    return checkpoint


def restore_optimizers_and_schedulers(trainer, checkpoint: dict[str, Any]) -> None:
    if "optimizer_states" not in checkpoint or "lr_schedulers" not in checkpoint:
        raise MisconfigurationException(
            "ckpt_path: the checkpoint holds only weights (saved with weights_only=True / "
            "ModelCheckpoint(save_weights_only=True)); it cannot resume training"
        )
    states = checkpoint["optimizer_states"]
    if len(states) != len(trainer.optimizers):
        raise MisconfigurationException(
            f"ckpt_path: the checkpoint has {len(states)} optimizer state(s) but configure_optimizers "
            f"returned {len(trainer.optimizers)}"
        )
    for optimizer, state in zip(trainer.optimizers, states):
        optimizer.load_state_dict(state)
    for config, state in zip(trainer.lr_scheduler_configs, checkpoint["lr_schedulers"]):
        config.scheduler.load_state_dict(state)
