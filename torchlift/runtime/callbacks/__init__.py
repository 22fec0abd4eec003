"""Callbacks with the names and behaviour of `lightning.pytorch.callbacks`."""

from torchlift.runtime.callbacks.callback import Callback
from torchlift.runtime.callbacks.checkpoint import Checkpoint
from torchlift.runtime.callbacks.early_stopping import EarlyStopping
from torchlift.runtime.callbacks.lr_monitor import LearningRateMonitor
from torchlift.runtime.callbacks.model_checkpoint import ModelCheckpoint
from torchlift.runtime.callbacks.progress import ProgressBar, TQDMProgressBar

__all__ = [
    "Callback",
    "Checkpoint",
    "EarlyStopping",
    "LearningRateMonitor",
    "ModelCheckpoint",
    "ProgressBar",
    "TQDMProgressBar",
]
