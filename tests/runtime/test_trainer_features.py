"""Trainer features on our runtime: sanity-check RNG neutrality, limits, validation cadence,
fast_dev_run, overfit_batches, predict, datamodule, hyper-parameters, precisions, logging."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from runtime_engines import QUIET, engine, engines, fit, loaders, make_data, make_model
from torch.utils.data import DataLoader

import torchlift.runtime as L


class Recorder(L.Callback):
    def __init__(self):
        self.events: list[tuple] = []

    def on_validation_epoch_start(self, trainer, pl_module):
        self.events.append(("val", trainer.global_step, trainer.sanity_checking))

    def on_train_epoch_start(self, trainer, pl_module):
        self.events.append(("epoch", trainer.current_epoch))


@pytest.mark.parametrize("name", engines())
def test_sanity_check_is_random_state_neutral(name):
    """num_sanity_val_steps=2 vs 0: identical training losses with shuffling + dropout, and the
    global generators (torch, numpy, python) are left exactly as found."""

    class RandomVal(Recorder):
        def on_validation_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0):
            # a validation step that consumes every generator
            torch.rand(3), np.random.rand(), random.random()

    without, _ = fit(
        name, trainer_cfg=dict(max_epochs=2, num_sanity_val_steps=0), callbacks=[RandomVal()]
    )
    with_check, _ = fit(
        name, trainer_cfg=dict(max_epochs=2, num_sanity_val_steps=2), callbacks=[RandomVal()]
    )
    assert with_check.losses == without.losses
    assert len(with_check.val_losses) == len(without.val_losses) + 2


def test_sanity_check_runs_before_training_and_validation_at_epoch_end():
    recorder = Recorder()
    fit("ours", trainer_cfg=dict(max_epochs=2, check_val_every_n_epoch=1), callbacks=[recorder])
    assert recorder.events == [
        ("val", 0, True),
        ("epoch", 0),
        ("val", 6, False),
        ("epoch", 1),
        ("val", 12, False),
    ]


def test_check_val_every_n_epoch_and_val_check_interval():
    recorder = Recorder()
    fit(
        "ours",
        trainer_cfg=dict(max_epochs=4, check_val_every_n_epoch=2, num_sanity_val_steps=0),
        callbacks=[recorder],
    )
    assert [e for e in recorder.events if e[0] == "val"] == [("val", 12, False), ("val", 24, False)]
    recorder = Recorder()
    fit(
        "ours",
        trainer_cfg=dict(max_epochs=1, val_check_interval=0.5, num_sanity_val_steps=0),
        callbacks=[recorder],
    )
    assert [e[1] for e in recorder.events if e[0] == "val"] == [3, 6]


def test_limits_and_max_steps():
    model, trainer = fit(
        "ours", trainer_cfg=dict(max_epochs=3, limit_train_batches=2, limit_val_batches=1)
    )
    assert trainer.global_step == 6 and len(model.losses) == 6
    assert (
        len(model.val_losses) == 1 + 3
    )  # sanity check: min(2, limit_val_batches=1), then 3 epochs
    model, trainer = fit(
        "ours", trainer_cfg=dict(max_epochs=3, limit_train_batches=0.5, num_sanity_val_steps=0)
    )
    assert trainer.num_training_batches == 3 and trainer.global_step == 9
    model, trainer = fit("ours", trainer_cfg=dict(max_steps=4, max_epochs=-1))
    assert trainer.global_step == 4 and len(model.losses) == 4 and trainer.current_epoch == 1


def test_fast_dev_run():
    model, trainer = fit("ours", trainer_cfg=dict(fast_dev_run=2, max_epochs=5))
    assert trainer.global_step == 2 and len(model.losses) == 2 and len(model.val_losses) == 2
    assert trainer.loggers == []


def test_overfit_batches_uses_the_same_batches_every_epoch():
    model, trainer = fit(
        "ours", trainer_cfg=dict(max_epochs=2, overfit_batches=2, num_sanity_val_steps=0)
    )
    assert trainer.num_training_batches == 2 and trainer.global_step == 4
    batches = []

    class Capture(L.Callback):
        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            batches.append(batch[0].clone())

    fit(
        "ours",
        trainer_cfg=dict(max_epochs=2, overfit_batches=2, num_sanity_val_steps=0),
        callbacks=[Capture()],
    )
    torch.testing.assert_close(batches[0], batches[2])
    torch.testing.assert_close(batches[0], make_data()[0:8][0])


def test_validate_test_predict_and_hooks():
    model, trainer = fit("ours", trainer_cfg=dict(max_epochs=1))
    _, val = loaders()
    results = trainer.validate(model, val, verbose=False)
    assert list(results[0]) == ["val_loss"] and isinstance(results[0]["val_loss"], float)

    class WithTest(type(model)):
        def test_step(self, batch, batch_idx):
            self.log("test_loss", torch.nn.functional.mse_loss(self(batch[0]), batch[1]))

    tested = WithTest()
    tested.load_state_dict(model.state_dict())
    out = L.Trainer(**QUIET).test(tested, val, verbose=False)
    assert out[0]["test_loss"] == pytest.approx(results[0]["val_loss"], rel=1e-6)

    class WithPredict(type(model)):
        def predict_step(self, batch, batch_idx):
            return self(batch[0])

    predictor = WithPredict()
    predictor.load_state_dict(model.state_dict())
    predictions = L.Trainer(**QUIET).predict(predictor, DataLoader(make_data(10), batch_size=4))
    assert [p.shape for p in predictions] == [
        torch.Size([4, 1]),
        torch.Size([4, 1]),
        torch.Size([2, 1]),
    ]
    assert torch.is_grad_enabled()  # predict leaves grad mode as it was


def test_datamodule_and_hooks_order():
    calls = []

    class DM(L.LightningDataModule):
        def prepare_data(self):
            calls.append("prepare_data")

        def setup(self, stage):
            calls.append(f"setup:{stage}")

        def train_dataloader(self):
            return loaders()[0]

        def val_dataloader(self):
            return loaders()[1]

        def teardown(self, stage):
            calls.append(f"teardown:{stage}")

    model, trainer = fit(
        "ours", trainer_cfg=dict(max_epochs=1), model=make_model(L), with_val=False
    )
    dm = DM()
    trainer = L.Trainer(max_epochs=1, **QUIET)
    trainer.fit(make_model(L), datamodule=dm)
    assert calls == ["prepare_data", "setup:fit", "teardown:fit"]
    assert trainer.datamodule is dm and trainer.global_step == 6


def test_save_hyperparameters_and_load_from_checkpoint(tmp_path):
    class HP(L.LightningModule):
        def __init__(self, hidden: int, lr: float = 0.1, *, tag: str = "t", **extra):
            super().__init__()
            self.save_hyperparameters(ignore=["tag"])
            self.layer = torch.nn.Linear(6, hidden)

    model = HP(3, lr=0.5, tag="x", note="hi")
    assert dict(model.hparams) == {"hidden": 3, "lr": 0.5, "note": "hi"}
    assert model.hparams.lr == 0.5

    class Named(L.LightningModule):
        def __init__(self, a: int = 1, b: int = 2):
            super().__init__()
            self.save_hyperparameters("a")

    assert dict(Named(5, 6).hparams) == {"a": 5}


@pytest.mark.parametrize("precision", ["64", 64, "64-true"])
def test_precision_64(precision):
    model, trainer = fit("ours", trainer_cfg=dict(max_epochs=1, precision=precision))
    assert trainer.precision == "64-true"
    assert next(model.parameters()).dtype == torch.float64


def test_16_mixed_on_cpu_becomes_bf16_like_lightning():
    with pytest.warns(UserWarning, match="bf16-mixed"):
        trainer = L.Trainer(accelerator="cpu", precision="16-mixed", **QUIET)
    assert trainer.precision == "bf16-mixed"
    assert L.Trainer(accelerator="cpu", precision="bf16", **QUIET).precision == "bf16-mixed"
    assert L.Trainer(accelerator="cpu", precision=32, **QUIET).precision == "32-true"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="16-mixed with a GradScaler needs CUDA")
def test_16_mixed_on_cuda_scales_and_clips(tmp_path):
    model, trainer = fit(
        "ours",
        trainer_cfg=dict(
            max_epochs=1, accelerator="gpu", precision="16-mixed", gradient_clip_val=0.5
        ),
    )
    assert trainer.precision_plugin.scaler is not None
    path = tmp_path / "amp.ckpt"
    trainer.save_checkpoint(path)
    assert "MixedPrecision" in torch.load(path, weights_only=True)


def test_gradscaler_unscales_before_clipping_and_skips_inf():
    """The fp16 path's order on any device: unscale -> clip -> step (skipped on inf)."""
    from torchlift.runtime.precision import MixedPrecision

    plugin = MixedPrecision("16-mixed", "cpu")
    param = torch.nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([param], lr=1.0)
    seen = {}

    def closure():
        optimizer.zero_grad()
        plugin.pre_backward((param * 3).sum()).backward()
        return torch.tensor(1.0)

    def after():
        seen["grad"] = param.grad.clone()  # what clipping would see

    plugin.optimizer_step(optimizer, closure, after)
    torch.testing.assert_close(seen["grad"], torch.full((2,), 3.0))  # unscaled
    torch.testing.assert_close(param.detach(), torch.full((2,), -2.0))

    def inf_closure():
        optimizer.zero_grad()
        plugin.pre_backward((param * float("inf")).sum()).backward()
        return torch.tensor(1.0)

    before = param.detach().clone()
    plugin.optimizer_step(optimizer, inf_closure, lambda: None)
    torch.testing.assert_close(param.detach(), before)  # step skipped


@pytest.mark.parametrize("name", engines())
def test_logging_defaults_and_epoch_means(name):
    E = engine(name)
    logged = {}

    class Logs(E.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(6, 1)
            self.step_values = []

        def training_step(self, batch, batch_idx):
            value = torch.tensor(float(batch_idx))
            self.log("idx", value, on_epoch=True)
            self.log("sum_idx", value, on_step=False, on_epoch=True, reduce_fx="sum")
            self.log("max_idx", value, on_step=False, on_epoch=True, reduce_fx="max")
            return self.layer(batch[0]).pow(2).mean()

        def validation_step(self, batch, batch_idx):
            self.log("v", torch.tensor(float(batch[0].shape[0])), prog_bar=True)

        def on_train_epoch_end(self):
            logged.update(self.trainer.callback_metrics)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    train = DataLoader(make_data(20), batch_size=8)  # batches of 8, 8, 4
    val = DataLoader(make_data(20), batch_size=8)
    trainer = E.Trainer(max_epochs=1, num_sanity_val_steps=0, **QUIET)
    trainer.fit(Logs(), train, val)
    # inside on_train_epoch_end the epoch aggregate is already visible (Lightning computes it then)
    assert logged["idx_step"] == 2.0 and logged["idx"].item() == pytest.approx(0.8)
    metrics = trainer.callback_metrics
    # weighted by batch size: (0*8 + 1*8 + 2*4) / 20
    assert metrics["idx_epoch"].item() == pytest.approx(16 / 20)
    assert metrics["sum_idx"].item() == 3.0 and metrics["max_idx"].item() == 2.0
    assert metrics["v"].item() == pytest.approx((8 * 8 + 8 * 8 + 4 * 4) / 20)
    assert trainer.progress_bar_metrics == {"v": pytest.approx(7.2)}
    assert all(isinstance(v, torch.Tensor) for v in metrics.values())


def test_estimated_stepping_batches_and_attributes():
    seen = {}

    class Peek(L.Callback):
        def on_train_start(self, trainer, pl_module):
            seen.update(
                steps=trainer.estimated_stepping_batches,
                batches=trainer.num_training_batches,
                val=trainer.num_val_batches,
                fn=trainer.state.fn,
                training=trainer.training,
                world=trainer.world_size,
                zero=trainer.is_global_zero,
            )

    fit("ours", trainer_cfg=dict(max_epochs=3, accumulate_grad_batches=4), callbacks=[Peek()])
    assert seen == dict(steps=6, batches=6, val=[2], fn="fit", training=True, world=1, zero=True)


def test_optimizers_are_instances_of_their_class_and_init_module():
    seen = {}

    class Manual(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.automatic_optimization = False
            self.layer = torch.nn.Linear(6, 1)

        def training_step(self, batch, batch_idx):
            opt = self.optimizers()
            seen["adam"] = isinstance(opt, torch.optim.Adam)
            opt.zero_grad()
            self.manual_backward(self.layer(batch[0]).pow(2).mean())
            opt.step()

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=0.01)

    _, trainer = fit("ours", model=Manual(), with_val=False, trainer_cfg=dict(max_epochs=1))
    assert seen["adam"] and trainer.global_step == 6
    with L.Trainer(precision="64-true", **QUIET).init_module():
        layer = torch.nn.Linear(2, 2)
    assert layer.weight.dtype == torch.float64 and torch.get_default_dtype() == torch.float32


def test_several_train_loaders_are_rejected_clearly():
    train, _ = loaders()
    from torchlift.runtime.utilities.exceptions import MisconfigurationException

    with pytest.raises(MisconfigurationException, match="several train dataloaders"):
        L.Trainer(max_epochs=1, **QUIET).fit(make_model(L), [train, train])


def test_model_summary_table(capsys):
    fit("ours", trainer_cfg=dict(max_epochs=1, enable_model_summary=True))
    err = capsys.readouterr().err
    assert "net  | Sequential | 129" in err and "Total params" in err


def _several_val_loaders_run(name):
    E = engine(name)

    class Multi(E.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(6, 1)

        def training_step(self, batch, batch_idx):
            return torch.nn.functional.mse_loss(self.layer(batch[0]), batch[1])

        def validation_step(self, batch, batch_idx, dataloader_idx=0):
            self.log("val_loss", torch.nn.functional.mse_loss(self.layer(batch[0]), batch[1]))

        def test_step(self, batch, batch_idx):
            self.log("test_loss", torch.nn.functional.mse_loss(self.layer(batch[0]), batch[1]))

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    E.seed_everything(3, verbose=False)
    model = Multi()
    train, val = loaders()
    other = DataLoader(make_data(12, seed=5), batch_size=4)
    trainer = E.Trainer(max_epochs=2, **QUIET)
    trainer.fit(model, train, [val, other])
    names = sorted(k for k in trainer.callback_metrics if k.startswith("val_loss"))
    fit_val = {n: trainer.callback_metrics[n].item() for n in names}
    tested = trainer.test(model, other, verbose=False)
    return fit_val, tested


@pytest.mark.lightning
def test_several_val_loaders_and_test_results_match_lightning():
    ours = _several_val_loaders_run("ours")
    theirs = _several_val_loaders_run("lightning")
    assert sorted(ours[0]) == ["val_loss/dataloader_idx_0", "val_loss/dataloader_idx_1"]
    assert ours[0] == pytest.approx(theirs[0], rel=1e-6)
    assert ours[1][0] == pytest.approx(theirs[1][0], rel=1e-6) and list(ours[1][0]) == ["test_loss"]


@pytest.mark.parametrize("name", engines())
def test_every_module_the_lightning_module_holds_is_handed_back_on_the_cpu(name):
    """Not only the model: an EMA copy or a frozen teacher the LightningModule holds goes to
    the CPU with it when fit ends (Lightning's Strategy.teardown calls `module.cpu()`, on any
    device; the runtime when it trained off the CPU, pretended here). Code after `fit` using
    one on the device needs it put back: the migrator emits `ema.to(device)` for each
    (resolve_names.py, analysis/module_placement.py)."""
    Lx = engine(name)

    moved = []

    class PretendedGpu(Lx.Callback):
        def on_train_end(self, trainer, pl_module):
            moved.clear()  # the moves of the setup: not the hand-back
            if name == "ours":
                trainer.strategy.root_device = torch.device("cuda", 0)

    model = make_model(Lx)
    model.ema = torch.nn.Linear(6, 1).requires_grad_(False)
    apply = model.ema._apply

    def recording(fn, *args, **kwargs):  # what `.cpu()` does to each of its tensors
        moved.append(fn(torch.empty(0)).device.type)
        return apply(fn, *args, **kwargs)

    model.ema._apply = recording
    trainer = Lx.Trainer(max_epochs=1, callbacks=[PretendedGpu()], **QUIET)
    trainer.fit(model, loaders()[0])
    assert moved == ["cpu"]


def test_max_time_stops_training():
    model, trainer = fit("ours", trainer_cfg=dict(max_time={"seconds": 0}, num_sanity_val_steps=0))
    assert trainer.global_step == 1 and trainer.current_epoch == 1  # stopped after the first batch
    assert len(model.val_losses) == 2  # validation still runs when stopping (Lightning)
    with pytest.raises(ValueError, match="max_time"):
        L.Trainer(max_time="soon")


def test_module_is_handed_back_on_the_cpu_after_fit():
    """Lightning's strategies move the module to the CPU when fit ends; so does the runtime,
    so code after `fit` finds it in the same place on both packages. (No GPU here: the
    strategy is told it trained on one just before the run ends.)"""

    class PretendedGpu(L.Callback):
        def on_train_end(self, trainer, pl_module):
            trainer.strategy.root_device = torch.device("cuda", 0)

    model = make_model(L)
    moved = []
    model.cpu = lambda: moved.append("cpu") or model
    trainer = L.Trainer(max_epochs=1, callbacks=[PretendedGpu()], **QUIET)
    trainer.fit(model, loaders()[0])
    assert moved == ["cpu"]
