"""`Trainer(plugins=[MixedPrecision("16-mixed", device, scaler=scaler)])`: the Trainer trains
with the GradScaler object it is given (its loaded state, its init_scale), as Lightning's
accelerator connector does; `precision=` beside a precision plugin is refused as there."""

from __future__ import annotations

import pytest
import torch

import torchlift.runtime as L
from torchlift.runtime.utilities.exceptions import MisconfigurationException


def _net(package):
    class Net(package.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(6, 2)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.cross_entropy(self.layer(x), y)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    return Net()


def _scaler():
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2)
    scaler.load_state_dict({**scaler.state_dict(), "scale": 64.0, "_growth_tracker": 1})
    return scaler


def _fit(package):
    torch.manual_seed(0)
    x, y = torch.randn(32, 6), torch.randint(0, 2, (32,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
    model = _net(package)
    scaler = _scaler()
    plugin = package.plugins.MixedPrecision("16-mixed", "cpu", scaler=scaler)
    trainer = package.Trainer(
        max_epochs=2,
        plugins=[plugin],
        accelerator="cpu",
        devices=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(model, loader)
    assert trainer.precision_plugin.scaler is scaler
    assert trainer.precision == "16-mixed"
    return model, scaler


def test_the_given_scaler_trains_as_on_lightning():
    lightning = pytest.importorskip("lightning.pytorch")
    ours, our_scaler = _fit(L)
    theirs, their_scaler = _fit(lightning)
    assert our_scaler.state_dict() == their_scaler.state_dict()
    assert our_scaler.get_scale() == 64.0 * 2**4  # grown from the loaded state, every 2 steps
    for mine, other in zip(ours.parameters(), theirs.parameters()):
        assert torch.equal(mine, other)


def test_a_single_plugin_and_none_are_accepted():
    scaler = torch.amp.GradScaler("cpu")
    trainer = L.Trainer(plugins=L.plugins.MixedPrecision("16-mixed", "cpu", scaler=scaler))
    assert trainer.precision_plugin.scaler is scaler
    assert L.Trainer(plugins=None).precision == "32-true"


def test_precision_beside_a_precision_plugin_is_refused_as_lightning_does():
    plugin = L.plugins.MixedPrecision("16-mixed", "cpu")
    with pytest.raises(ValueError, match="Received both `precision=16-mixed`"):
        L.Trainer(precision="16-mixed", plugins=[plugin])
    with pytest.raises(MisconfigurationException, match="multiple values for Precision"):
        L.Trainer(plugins=[plugin, L.plugins.MixedPrecision("16-mixed", "cpu")])


def test_the_plugin_checks_its_arguments_as_lightning_does():
    with pytest.raises(ValueError, match="Precision must be '16-mixed' or 'bf16-mixed'"):
        L.plugins.MixedPrecision("32-true", "cpu")
    with pytest.raises(MisconfigurationException, match="does not use a scaler"):
        L.plugins.MixedPrecision("bf16-mixed", "cpu", scaler=torch.amp.GradScaler("cpu"))
    assert L.plugins.MixedPrecision("bf16-mixed", "cpu").scaler is None
    assert L.plugins.MixedPrecision("16-mixed", "cpu").scaler is not None
