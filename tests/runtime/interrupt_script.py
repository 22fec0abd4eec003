"""A training script the interrupt tests run as real processes:

    python interrupt_script.py OUT ENGINE DEVICES MODE

ENGINE: ours | lightning. DEVICES: 1 or 2 (DDP on CPU). Every rank writes OUT/pid.<local rank>.
MODE:
    sigint_rank0      rank 0 sends SIGINT to itself at its 4th step (the signal reaches it alone)
    sigint_group      rank 0 writes OUT/ready at its 4th step and sleeps: the test sends SIGINT
                      to the whole process group, as Ctrl-C in a terminal does
    rank_exits_early  local rank 1 exits with code 0 before it joins the process group
Prints "AFTER FIT" when `fit` returns.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

out, engine, devices, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
if engine == "lightning":
    import lightning.pytorch as L
else:
    import torchlift.runtime as L

local_rank = int(os.environ.get("LOCAL_RANK", "0"))
with open(os.path.join(out, f"pid.{local_rank}"), "w") as pid_file:
    pid_file.write(str(os.getpid()))
if mode == "rank_exits_early" and local_rank == 1:
    sys.exit(0)


class Model(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        if batch_idx == 3 and self.global_rank == 0:
            if mode == "sigint_rank0":
                os.kill(os.getpid(), signal.SIGINT)
            elif mode == "sigint_group":
                open(os.path.join(out, "ready"), "w").close()
                time.sleep(60)  # Ctrl-C arrives while this rank is busy
        x, y = batch
        return torch.nn.functional.mse_loss(self.layer(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


if __name__ == "__main__":
    data = TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
    trainer = L.Trainer(
        max_epochs=1,
        accelerator="cpu",
        devices=devices,
        strategy="ddp" if devices > 1 else "auto",
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(Model(), DataLoader(data, batch_size=4))
    print("AFTER FIT", flush=True)
