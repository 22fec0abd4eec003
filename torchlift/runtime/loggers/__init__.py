"""Experiment loggers with the names and file layout of `lightning.pytorch.loggers`."""

from torchlift.runtime.loggers.csv_logs import CSVLogger
from torchlift.runtime.loggers.logger import DummyLogger, Logger
from torchlift.runtime.loggers.tensorboard import TensorBoardLogger

__all__ = ["CSVLogger", "DummyLogger", "Logger", "TensorBoardLogger"]
