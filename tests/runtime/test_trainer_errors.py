"""Bad input: one clear error naming the argument and what is accepted, never a deep traceback."""

from __future__ import annotations

import pytest
import torch
from runtime_engines import QUIET, fit, make_model

import torchlift.runtime as L
from torchlift.runtime.errors import MisconfigurationException


@pytest.mark.parametrize(
    "kwargs,fragments",
    [
        (dict(precision="17"), ["precision='17'", "'bf16-mixed'", "'16-mixed'", "'32-true'"]),
        (dict(precision=8), ["precision=8", "accepted"]),
        (dict(accelerator="tpu"), ["accelerator='tpu'", "'cpu'", "'gpu'", "'auto'"]),
        (dict(devices=0), ["devices=0", "accepted"]),
        (dict(devices="x"), ["devices='x'", "accepted"]),
        (dict(max_epochs=-2), ["max_epochs=-2", "-1"]),
        (dict(max_steps=-5), ["max_steps=-5", "-1"]),
        (dict(accumulate_grad_batches=0), ["accumulate_grad_batches=0", ">= 1"]),
        (dict(gradient_clip_algorithm="l2"), ["gradient_clip_algorithm='l2'", "'norm'", "'value'"]),
        (dict(limit_train_batches=1.5), ["limit_train_batches=1.5", "[0.0, 1.0]"]),
        (dict(val_check_interval=0.0), ["val_check_interval=0.0"]),
        (dict(strategy="deepspeed"), ["strategy='deepspeed'", "'ddp'"]),
        (dict(num_nodes=0), ["num_nodes=0", "positive int"]),
    ],
)
def test_bad_trainer_argument(kwargs, fragments):
    with pytest.raises(MisconfigurationException) as info:
        L.Trainer(**kwargs)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message


def test_gpu_without_cuda_is_clear():
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(MisconfigurationException, match="accelerator='gpu'.*CUDA"):
        L.Trainer(accelerator="gpu")


@pytest.mark.parametrize("returned", ["adam", 42, {"lr_scheduler": None}, [1, 2]])
def test_configure_optimizers_unknown(returned):
    class Odd(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(6, 1)

        def training_step(self, batch, batch_idx):
            return self.layer(batch[0]).sum()

        def configure_optimizers(self):
            return returned

    with pytest.raises(MisconfigurationException, match="configure_optimizers") as info:
        fit("ours", model=Odd(), with_val=False, trainer_cfg=dict(max_epochs=1))
    assert "accepted" in str(info.value)


def test_plateau_without_monitor():
    class Plateau(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(6, 1)

        def training_step(self, batch, batch_idx):
            return self.layer(batch[0]).sum()

        def configure_optimizers(self):
            opt = torch.optim.SGD(self.parameters(), lr=0.1)
            return {
                "optimizer": opt,
                "lr_scheduler": torch.optim.lr_scheduler.ReduceLROnPlateau(opt),
            }

    with pytest.raises(MisconfigurationException, match='"monitor"'):
        fit("ours", model=Plateau(), with_val=False, trainer_cfg=dict(max_epochs=1))


def test_missing_checkpoint_path(tmp_path):
    missing = tmp_path / "nope.ckpt"
    with pytest.raises(FileNotFoundError, match="nope.ckpt"):
        fit("ours", trainer_cfg=dict(max_epochs=1), ckpt_path=missing)


def test_not_a_checkpoint(tmp_path):
    junk = tmp_path / "junk.ckpt"
    junk.write_text("definitely not a checkpoint")
    with pytest.raises(MisconfigurationException, match="is not a checkpoint"):
        fit("ours", trainer_cfg=dict(max_epochs=1), ckpt_path=junk)
    weights = tmp_path / "weights.pt"
    torch.save({"layer.weight": torch.zeros(1)}, weights)
    with pytest.raises(MisconfigurationException, match="not a Lightning checkpoint"):
        fit("ours", trainer_cfg=dict(max_epochs=1), ckpt_path=weights)


def test_multiple_optimizers_need_manual_optimization():
    class Two(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(6, 1)

        def training_step(self, batch, batch_idx):
            return self.a(batch[0]).sum()

        def configure_optimizers(self):
            return [
                torch.optim.SGD(self.parameters(), lr=0.1),
                torch.optim.SGD(self.parameters(), lr=0.1),
            ]

    with pytest.raises(MisconfigurationException, match="manual optimization"):
        fit("ours", model=Two(), with_val=False, trainer_cfg=dict(max_epochs=1))


def test_fit_without_training_data():
    model = make_model(L)
    with pytest.raises(MisconfigurationException, match="no training data"):
        L.Trainer(max_epochs=1, **QUIET).fit(model)
