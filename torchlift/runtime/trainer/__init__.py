from torchlift.runtime.trainer.trainer import Trainer

__all__ = ["Trainer"]
