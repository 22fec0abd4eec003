"""One model / data / run helper for both engines: each case is written once and run on
`torchlift.runtime` and on `lightning.pytorch` (the parameter `L` is the engine module)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

import torchlift.runtime as ours

QUIET = dict(
    logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False
)


def lightning():
    return pytest.importorskip("lightning.pytorch")


def engines():
    """pytest params: our runtime and real Lightning."""
    return [
        pytest.param("ours", id="torchlift"),
        pytest.param("lightning", id="lightning", marks=pytest.mark.lightning),
    ]


def engine(name: str):
    return ours if name == "ours" else lightning()


def make_data(n: int = 48, features: int = 6, seed: int = 1234) -> TensorDataset:
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, features, generator=gen)
    y = (x[:, :1] * 0.7 - x[:, 1:2] * 0.3) + 0.1 * torch.randn(n, 1, generator=gen)
    return TensorDataset(x, y)


def loaders(batch_size: int = 8, shuffle: bool = True, n: int = 48):
    train = DataLoader(make_data(n), batch_size=batch_size, shuffle=shuffle)
    val = DataLoader(make_data(16, seed=99), batch_size=8)
    return train, val


def make_model(L, **cfg: Any):
    """A small MLP with dropout (so every run also checks random-number consumption)."""

    class Model(L.LightningModule):
        def __init__(self, lr: float = 0.05, **options: Any) -> None:
            super().__init__()
            self.net = torch.nn.Sequential(
                torch.nn.Linear(6, 16),
                torch.nn.ReLU(),
                torch.nn.Dropout(0.2),
                torch.nn.Linear(16, 1),
            )
            self.lr = lr
            self.options = options
            self.losses: list[float] = []
            self.val_losses: list[float] = []

        def forward(self, x):
            return self.net(x)

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self(x).float(), y)
            self.losses.append(loss.item())
            self.log("train_loss", loss, on_step=True, on_epoch=True, prog_bar=True)
            return loss

        def on_train_batch_start(self, batch, batch_idx):
            # returning -1 ends the epoch early (Lightning's contract)
            if self.options.get("skip_from") == batch_idx and self.current_epoch == 1:
                return -1
            return None

        def validation_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self(x).float(), y)
            self.val_losses.append(loss.item())
            self.log("val_loss", loss)

        def configure_optimizers(self):
            opt_name = self.options.get("optimizer", "sgd")
            if opt_name == "adam":
                optimizer = torch.optim.Adam(self.parameters(), lr=self.lr)
            else:
                optimizer = torch.optim.SGD(self.parameters(), lr=self.lr, momentum=0.9)
            sched = self.options.get("scheduler")
            if sched is None:
                return optimizer
            if sched == "plateau":
                scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
                    optimizer, factor=0.5, patience=0
                )
                return {
                    "optimizer": optimizer,
                    "lr_scheduler": {"scheduler": scheduler, "monitor": "val_loss"},
                }
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
            return {
                "optimizer": optimizer,
                "lr_scheduler": {
                    "scheduler": scheduler,
                    "interval": sched,
                    "frequency": self.options.get("freq", 1),
                },
            }

    return Model(**cfg)


def make_gan(L):
    """Manual optimization with two optimizers, schedulers and toggling (a GAN-shaped step)."""

    class TwoOptimizers(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.automatic_optimization = False
            self.gen = torch.nn.Sequential(
                torch.nn.Linear(6, 8), torch.nn.Dropout(0.1), torch.nn.Linear(8, 6)
            )
            self.disc = torch.nn.Sequential(
                torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)
            )
            self.losses: list[float] = []

        def training_step(self, batch, batch_idx):
            x, _ = batch
            opt_g, opt_d = self.optimizers()
            fake = self.gen(torch.randn_like(x))
            self.toggle_optimizer(opt_d)
            d_loss = self.disc(x).mean() - self.disc(fake.detach()).mean()
            opt_d.zero_grad()
            self.manual_backward(d_loss)
            opt_d.step()
            self.untoggle_optimizer(opt_d)
            self.toggle_optimizer(opt_g)
            g_loss = self.disc(fake).mean() ** 2
            opt_g.zero_grad()
            self.manual_backward(g_loss)
            opt_g.step()
            self.untoggle_optimizer(opt_g)
            sched_g, sched_d = self.lr_schedulers()
            if self.trainer.is_last_batch:
                sched_g.step()
                sched_d.step()
            self.losses += [d_loss.item(), g_loss.item()]
            self.log_dict({"d_loss": d_loss, "g_loss": g_loss}, prog_bar=True)

        def configure_optimizers(self):
            opt_g = torch.optim.Adam(self.gen.parameters(), lr=1e-2)
            opt_d = torch.optim.SGD(self.disc.parameters(), lr=1e-2)
            sched_g = torch.optim.lr_scheduler.StepLR(opt_g, 1, 0.5)
            sched_d = torch.optim.lr_scheduler.StepLR(opt_d, 1, 0.5)
            return [opt_g, opt_d], [sched_g, sched_d]

    return TwoOptimizers()


def fit(
    name: str,
    model_cfg: dict | None = None,
    trainer_cfg: dict | None = None,
    seed: int = 7,
    with_val: bool = True,
    shuffle: bool = True,
    batch_size: int = 8,
    n: int = 48,
    gan: bool = False,
    callbacks=None,
    ckpt_path=None,
    model=None,
):
    """Seed, build, fit; return (model, trainer)."""
    L = engine(name)
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        L.seed_everything(seed, verbose=False)
        if model is None:
            model = make_gan(L) if gan else make_model(L, **(model_cfg or {}))
        train, val = loaders(batch_size, shuffle, n)
        cfg = {**QUIET, "accelerator": "cpu", "devices": 1, **(trainer_cfg or {})}
        if callbacks is not None:
            cfg["callbacks"] = callbacks
        trainer = L.Trainer(**cfg)
        trainer.fit(model, train, val if with_val else None, ckpt_path=ckpt_path)
    return model, trainer
