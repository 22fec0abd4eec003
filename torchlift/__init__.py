"""torchlift: migrate plain PyTorch training scripts to Lightning structure."""

__version__ = "0.1.0"
