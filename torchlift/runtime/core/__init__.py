from torchlift.runtime.core.datamodule import LightningDataModule
from torchlift.runtime.core.module import LightningModule

__all__ = ["LightningDataModule", "LightningModule"]
