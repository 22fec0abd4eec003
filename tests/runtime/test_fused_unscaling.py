"""A fused optimizer (`fused=True`) unscales the gradients in its own step: under "16-mixed"
Lightning's precision plugin does not call `scaler.unscale_` before it (nor lets
`gradient_clip_val` clip the scaled gradients), and neither does the runtime's. The plugins are
driven directly on CPU (a Trainer on CPU runs "16-mixed" as bf16, with no scaler)."""

from __future__ import annotations

import pytest
import torch

from torchlift.runtime.precision import MixedPrecision


def _step(plugin, optimizer_kwargs):
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 3)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.1, **optimizer_kwargs)
    unscaled = []
    original = plugin.scaler.unscale_
    plugin.scaler.unscale_ = lambda opt: (unscaled.append(opt), original(opt))
    x = torch.randn(4, 8)

    def closure():
        optimizer.zero_grad()
        loss = model(x).square().mean()
        plugin.scaler.scale(loss).backward()
        return loss

    return plugin, optimizer, closure, unscaled, model


@pytest.mark.parametrize("fused", [False, True])
def test_unscales_only_what_lightning_unscales(fused):
    lightning = pytest.importorskip("lightning.pytorch.plugins.precision")
    kwargs = {"fused": True} if fused else {}
    ours = _step(MixedPrecision("16-mixed", "cpu"), kwargs)
    theirs = _step(lightning.MixedPrecision("16-mixed", "cpu"), kwargs)
    plugin, optimizer, closure, unscaled, model = ours
    plugin.optimizer_step(optimizer, closure, lambda: None)
    l_plugin, l_optimizer, l_closure, l_unscaled, l_model = theirs

    class Module:  # what Lightning's plugin reads of the LightningModule here
        automatic_optimization = True
        trainer = None

    l_plugin._after_closure = lambda *args: None
    l_plugin.optimizer_step(l_optimizer, model=Module(), closure=l_closure)
    assert len(unscaled) == len(l_unscaled) == (0 if fused else 1)
    for ours_p, theirs_p in zip(model.parameters(), l_model.parameters()):
        assert torch.equal(ours_p, theirs_p)


def test_clipping_a_fused_optimizers_scaled_gradients_is_refused_as_lightning_does():
    import types

    import torchlift.runtime as L

    module = L.LightningModule()
    module.layer = torch.nn.Linear(2, 2)
    plugin = MixedPrecision("16-mixed", "cpu")
    module.trainer = types.SimpleNamespace(precision_plugin=plugin)
    fused = torch.optim.AdamW(module.parameters(), lr=0.1, fused=True)
    with pytest.raises(RuntimeError, match="does not allow for gradient clipping"):
        module.clip_gradients(fused, gradient_clip_val=1.0)
    module.clip_gradients(torch.optim.AdamW(module.parameters(), lr=0.1), gradient_clip_val=1.0)
