"""`Trainer(sync_batchnorm=True)` as the runtime and Lightning run it, in a process of its own
(DDP starts a process group): `python sync_batchnorm_script.py ENGINE STRATEGY FN`.

Prints one JSON line: the error raised (type and message) or None, and the class names of the
batch-norm layers after the call (what the user's model holds).
"""

from __future__ import annotations

import importlib
import json
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset


def main(engine: str, strategy: str, fn: str) -> None:
    L = importlib.import_module(
        "lightning.pytorch" if engine == "lightning" else "torchlift.runtime"
    )
    torch.manual_seed(0)

    class Net(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8))
            self.head = torch.nn.Linear(8, 1)

        def forward(self, x):
            return self.head(self.body(x))

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.mse_loss(self(x), y)

        def validation_step(self, batch, batch_idx):
            x, y = batch
            self.log("val", torch.nn.functional.mse_loss(self(x), y))

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    loader = DataLoader(data, batch_size=8)
    model = Net()
    trainer = L.Trainer(
        accelerator="cpu",
        devices=1,
        strategy=strategy,
        sync_batchnorm=True,
        max_epochs=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
    )
    error = None
    try:
        getattr(trainer, fn)(model, loader)
    except Exception as exc:  # the outcome compared
        error = [type(exc).__name__, str(exc)]
    norms = [type(m).__name__ for m in model.modules() if "BatchNorm" in type(m).__name__]
    print(json.dumps({"error": error, "norms": norms}))


if __name__ == "__main__":
    main(*sys.argv[1:])
