"""Two-process DDP run for test_callbacks_ddp.py: `python callbacks_ddp_script.py OUT`.

Validation logs `rank0_metric` on global rank 0 only (no sync_dist) and `rank_metric` on every
rank with different values per rank. ModelCheckpoint monitors the first (the other ranks must
take rank 0's decisions instead of waiting in a collective rank 0 never joins), EarlyStopping
the second (one rank wanting to stop stops all). Every rank writes OUT/rank<N>.json.
"""

from __future__ import annotations

import json
import os
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

import torchlift.runtime as L
from torchlift.runtime.callbacks import EarlyStopping, ModelCheckpoint

# rank 1's metric stops improving after epoch 1; rank 0's keeps improving
RANK_METRIC = {0: [5.0, 4.0, 3.0, 2.0, 1.0, 0.5], 1: [5.0, 4.0, 4.5, 4.6, 4.7, 4.8]}
RANK0_METRIC = [0.9, 0.5, 0.7, 0.4, 0.8, 0.3]


class Model(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        return self.layer(batch[0]).pow(2).mean()

    def validation_step(self, batch, batch_idx):
        epoch = self.current_epoch
        if self.global_rank == 0:
            self.log("rank0_metric", RANK0_METRIC[epoch])
        self.log("rank_metric", RANK_METRIC[self.global_rank][epoch])

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


def main(out: str) -> None:
    torch.set_num_threads(1)
    L.seed_everything(0, verbose=False)
    data = DataLoader(TensorDataset(torch.randn(16, 4)), batch_size=4)
    checkpoint = ModelCheckpoint(
        dirpath=os.path.join(out, "ckpt"),
        monitor="rank0_metric",
        save_top_k=2,
        filename="{epoch}-{rank0_metric:.1f}",
    )
    stopper = EarlyStopping(monitor="rank_metric", patience=2)
    trainer = L.Trainer(
        accelerator="cpu",
        strategy="ddp",
        devices=2,
        max_epochs=6,
        default_root_dir=out,
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        callbacks=[checkpoint, stopper],
    )
    trainer.fit(Model(), data, data)
    result = {
        "epoch": trainer.current_epoch,
        "stopped_epoch": stopper.stopped_epoch,
        "best": os.path.basename(checkpoint.best_model_path),
        "best_k": sorted(os.path.basename(p) for p in checkpoint.best_k_models),
        "score": float(checkpoint.best_model_score),
        "files": sorted(os.listdir(checkpoint.dirpath)),
    }
    with open(os.path.join(out, f"rank{trainer.global_rank}.json"), "w") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main(sys.argv[1])
