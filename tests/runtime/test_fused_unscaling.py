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


def test_bf16_mixed_refuses_clipping_a_fused_optimizer_as_lightning_does():
    """Lightning's MixedPrecision refuses `gradient_clip_val` for an optimizer handling
    unscaling under "bf16-mixed" too (no scaler there): the runtime raises alike."""
    import types

    import torchlift.runtime as L

    lightning = pytest.importorskip("lightning.pytorch.plugins.precision")
    layer = torch.nn.Linear(2, 2)
    fused = torch.optim.AdamW(layer.parameters(), lr=0.1, fused=True)
    with pytest.raises(RuntimeError, match="does not allow for gradient clipping"):
        lightning.MixedPrecision("bf16-mixed", "cpu").clip_gradients(fused, 1.0)
    module = L.LightningModule()
    module.layer = layer
    module.trainer = types.SimpleNamespace(precision_plugin=MixedPrecision("bf16-mixed", "cpu"))
    with pytest.raises(RuntimeError, match="does not allow for gradient clipping"):
        module.clip_gradients(fused, gradient_clip_val=1.0)
    module.clip_gradients(torch.optim.AdamW(layer.parameters(), lr=0.1), gradient_clip_val=1.0)


def _script_steps(batches, fused_unscale=True):
    """The script: `scaler.unscale_(optimizer)` then clipping, GradScaler.step on a fused AdamW."""
    torch.manual_seed(0)
    model = torch.nn.Linear(6, 2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05, fused=True)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
    for x, y in batches:
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        if fused_unscale:
            scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        scaler.step(optimizer)
        scaler.update()
    return model


def _converted_steps(package, batches, unscale_in_hook=True):
    """The conversion (patterns/clipping.py): the clipping in configure_gradient_clipping, the
    Trainer's scaler unscaling there an optimizer that handles unscaling itself."""

    class Net(package.LightningModule):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.model = torch.nn.Linear(6, 2)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.cross_entropy(self.model(x), y)

        def configure_gradient_clipping(
            self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None
        ):
            raw = self.optimizers(use_pl_optimizer=False)
            if unscale_in_hook and getattr(raw, "_step_supports_amp_scaling", False) and (
                getattr(self.trainer.precision_plugin, "scaler", None) is not None
            ):
                self.trainer.precision_plugin.scaler.unscale_(raw)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 0.1)

        def configure_optimizers(self):
            return torch.optim.AdamW(self.model.parameters(), lr=0.05, fused=True)

    net = Net()
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
    trainer = package.Trainer(
        max_epochs=1,
        accelerator="cpu",
        devices=1,
        plugins=[package.plugins.MixedPrecision("16-mixed", "cpu", scaler=scaler)],
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(net, batches)
    return net.model


@pytest.mark.parametrize("engine", ["torchlift", "lightning"])
def test_the_hook_unscaling_a_fused_optimizer_steps_as_the_script(engine):
    """A fused AdamW (on the CPU) under an enabled GradScaler: the script unscales, clips and
    steps; the converted hook unscales where the script did, then GradScaler.step hands the
    fused step the unscaled gradients (no second unscale) -- bit for bit. Without the hook's
    unscale the clipping sees the scaled gradients (what Lightning alone would do)."""
    import torchlift.runtime as L

    package = L if engine == "torchlift" else pytest.importorskip("lightning.pytorch")
    gen = torch.Generator().manual_seed(3)
    data = torch.utils.data.TensorDataset(
        torch.randn(48, 6, generator=gen), torch.randint(0, 2, (48,), generator=gen)
    )
    batches = torch.utils.data.DataLoader(data, batch_size=8)
    script = _script_steps(batches)
    converted = _converted_steps(package, batches)
    for mine, theirs in zip(script.parameters(), converted.parameters()):
        assert torch.equal(mine, theirs)
    unscaled_by_no_one = _converted_steps(package, batches, unscale_in_hook=False)
    assert not all(
        torch.equal(a, b) for a, b in zip(script.parameters(), unscaled_by_no_one.parameters())
    )
