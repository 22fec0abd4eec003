"""Checkpoints: Lightning's layout, exact resume (also mid-epoch), interchange with Lightning."""

from __future__ import annotations

import pytest
import torch
from runtime_engines import engine, fit, make_model


class _Interrupt(Exception):
    pass


def _stopper(L, at_step: int, path, hook: str = "on_train_batch_end"):
    class SaveThenCrash(L.Callback):
        def _maybe(self, trainer):
            if trainer.global_step == at_step and not getattr(self, "done", False):
                self.done = True
                trainer.save_checkpoint(path)
                raise _Interrupt()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self._maybe(trainer)

    def on_train_epoch_end(self, trainer, pl_module):
        self._maybe(trainer)

    def on_validation_end(self, trainer, pl_module):
        if not trainer.sanity_checking:
            self._maybe(trainer)

    setattr(
        SaveThenCrash,
        hook,
        {
            "on_train_batch_end": on_train_batch_end,
            "on_train_epoch_end": on_train_epoch_end,
            "on_validation_end": on_validation_end,
        }[hook],
    )
    return SaveThenCrash()


def _params(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _assert_same_params(a, b):
    assert a.keys() == b.keys()
    for key in a:
        torch.testing.assert_close(a[key], b[key], rtol=0, atol=0)


def test_checkpoint_has_lightning_layout_and_loads_weights_only(tmp_path):
    model, trainer = fit("ours", trainer_cfg=dict(max_epochs=1))
    path = tmp_path / "end.ckpt"
    trainer.save_checkpoint(path)
    checkpoint = torch.load(path, weights_only=True)
    for key in (
        "epoch",
        "global_step",
        "pytorch-lightning_version",
        "state_dict",
        "loops",
        "callbacks",
        "optimizer_states",
        "lr_schedulers",
    ):
        assert key in checkpoint
    assert checkpoint["global_step"] == 6 and checkpoint["epoch"] == 1
    fit_loop = checkpoint["loops"]["fit_loop"]
    assert fit_loop["epoch_progress"]["current"]["completed"] == 1
    assert (
        fit_loop["epoch_loop.automatic_optimization.optim_progress"]["optimizer"]["step"]["total"][
            "completed"
        ]
        == 6
    )


@pytest.mark.parametrize(
    "hook,step,trainer_cfg",
    [
        ("on_train_batch_end", 4, dict(max_epochs=3)),  # mid-epoch
        ("on_train_epoch_end", 6, dict(max_epochs=3)),  # epoch end
        ("on_train_epoch_end", 12, dict(max_epochs=4)),  # epoch end, plateau scheduler pending
        ("on_validation_end", 10, dict(max_epochs=3, val_check_interval=4)),  # mid-epoch validation
        (
            "on_train_batch_end",
            5,
            dict(max_epochs=3, accumulate_grad_batches=2),
        ),  # inside accumulation
    ],
    ids=["mid_epoch", "epoch_end", "epoch_end_plateau", "mid_epoch_validation", "accumulating"],
)
def test_interrupted_run_resumes_to_identical_weights(tmp_path, hook, step, trainer_cfg):
    scheduler = "plateau" if trainer_cfg["max_epochs"] == 4 else "step"
    cfg = dict(model_cfg=dict(scheduler=scheduler, lr=0.2), trainer_cfg=trainer_cfg, shuffle=True)
    full, full_trainer = fit("ours", **cfg)
    path = tmp_path / "interrupted.ckpt"
    L = engine("ours")
    with pytest.raises(_Interrupt):
        fit("ours", **cfg, callbacks=[_stopper(L, step, path, hook)])
    # a fresh process would start from another random state: prove the checkpoint carries it
    torch.manual_seed(12345)
    resumed, resumed_trainer = fit("ours", **cfg, seed=999, ckpt_path=path)
    _assert_same_params(_params(full), _params(resumed))
    assert resumed_trainer.global_step == full_trainer.global_step
    assert resumed_trainer.current_epoch == full_trainer.current_epoch
    n = len(resumed.losses)
    assert n > 0 and resumed.losses == full.losses[-n:]


@pytest.mark.lightning
@pytest.mark.parametrize(
    "hook,step", [("on_train_batch_end", 4), ("on_train_epoch_end", 6)], ids=["mid", "end"]
)
def test_our_checkpoint_resumes_in_lightning_like_its_own(tmp_path, hook, step):
    """Lightning resuming our file behaves exactly as Lightning resuming its own file."""
    cfg = dict(model_cfg=dict(scheduler="step"), trainer_cfg=dict(max_epochs=3))
    results = {}
    for producer in ("ours", "lightning"):
        path = tmp_path / f"{producer}.ckpt"
        with pytest.raises(_Interrupt):
            fit(producer, **cfg, callbacks=[_stopper(engine(producer), step, path, hook)])
        model, trainer = fit("lightning", **cfg, ckpt_path=path)
        results[producer] = (
            model.losses,
            _params(model),
            trainer.global_step,
            trainer.current_epoch,
        )
    assert results["ours"][0] == results["lightning"][0]
    _assert_same_params(results["ours"][1], results["lightning"][1])
    assert results["ours"][2:] == results["lightning"][2:]


@pytest.mark.lightning
def test_lightning_checkpoint_resumes_on_ours_like_on_lightning(tmp_path):
    cfg = dict(model_cfg=dict(scheduler="epoch"), trainer_cfg=dict(max_epochs=3))
    path = tmp_path / "lightning.ckpt"
    with pytest.raises(_Interrupt):
        fit(
            "lightning",
            **cfg,
            callbacks=[_stopper(engine("lightning"), 12, path, "on_train_epoch_end")],
        )
    theirs, their_trainer = fit("lightning", **cfg, ckpt_path=path)
    ours, our_trainer = fit("ours", **cfg, ckpt_path=path)
    assert ours.losses == theirs.losses and len(ours.losses) == 6
    _assert_same_params(_params(ours), _params(theirs))
    assert (our_trainer.global_step, our_trainer.current_epoch) == (their_trainer.global_step, 3)


def _deterministic_model(name: str):
    """make_model without dropout, seeded: with shuffle=False nothing random is left, so a
    resumed run must continue the uninterrupted one exactly even from a checkpoint that carries
    no random state (Lightning's)."""
    torch.manual_seed(7)
    model = make_model(engine(name))
    model.net[2].p = 0.0
    return model


@pytest.mark.lightning
def test_lightning_mid_epoch_checkpoint_resumes_on_ours(tmp_path):
    cfg = dict(trainer_cfg=dict(max_epochs=2), shuffle=False)
    path = tmp_path / "lightning_mid.ckpt"
    stopper = _stopper(engine("lightning"), 3, path)
    with pytest.raises(_Interrupt):
        fit("lightning", **cfg, model=_deterministic_model("lightning"), callbacks=[stopper])
    uninterrupted, _ = fit("lightning", **cfg, model=_deterministic_model("lightning"))
    ours, trainer = fit("ours", **cfg, model=_deterministic_model("ours"), ckpt_path=path)
    assert trainer.global_step == 12 and trainer.current_epoch == 2
    # the 3 batches already done are skipped, not replayed, and weights and momentum come from
    # the file: the rest is the uninterrupted run. (Lightning itself, resuming its own file
    # mid-epoch without a stateful loader, restarts the loader: its losses are not compared.)
    assert ours.losses == uninterrupted.losses[3:]
    _assert_same_params(_params(ours), _params(uninterrupted))


@pytest.mark.lightning
def test_load_from_checkpoint_both_ways(tmp_path):
    results = {}
    for producer in ("ours", "lightning"):
        L = engine(producer)

        class WithHparams(L.LightningModule):
            def __init__(self, hidden: int = 4, lr: float = 0.1, name: str = "x"):
                super().__init__()
                self.save_hyperparameters()
                self.layer = torch.nn.Linear(6, hidden)
                self.out = torch.nn.Linear(hidden, 1)

            def training_step(self, batch, batch_idx):
                x, y = batch
                return torch.nn.functional.mse_loss(self.out(self.layer(x)), y)

            def configure_optimizers(self):
                return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)

        model = WithHparams(hidden=5, lr=0.2, name="run")
        _, trainer = fit(producer, model=model, trainer_cfg=dict(max_epochs=1), with_val=False)
        path = tmp_path / f"{producer}.ckpt"
        trainer.save_checkpoint(path)
        results[producer] = (path, _params(model))
        assert torch.load(path, weights_only=True)["hyper_parameters"] == {
            "hidden": 5,
            "lr": 0.2,
            "name": "run",
        }
    for producer, (path, params) in results.items():
        for loader in ("ours", "lightning"):
            L = engine(loader)

            class WithHparams(L.LightningModule):
                def __init__(self, hidden: int = 4, lr: float = 0.1, name: str = "x"):
                    super().__init__()
                    self.save_hyperparameters()
                    self.layer = torch.nn.Linear(6, hidden)
                    self.out = torch.nn.Linear(hidden, 1)

            loaded = WithHparams.load_from_checkpoint(path)
            assert loaded.hparams.hidden == 5 and loaded.hparams["name"] == "run"
            _assert_same_params(_params(loaded), params)


def test_resume_from_model_checkpoint_last_ckpt_matches_uninterrupted(tmp_path):
    """The usual way to resume: ModelCheckpoint(save_last=True) wrote last.ckpt at validation end."""
    L = engine("ours")
    cfg = dict(model_cfg=dict(scheduler="plateau"), shuffle=True)
    full, _ = fit("ours", **cfg, trainer_cfg=dict(max_epochs=4))

    def checkpointing(max_epochs):
        callback = L.callbacks.ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_last=True)
        return (
            dict(max_epochs=max_epochs, enable_checkpointing=True, callbacks=[callback]),
            callback,
        )

    trainer_cfg, _ = checkpointing(2)
    first, _ = fit("ours", **cfg, trainer_cfg=trainer_cfg)
    assert (tmp_path / "last.ckpt").exists()
    trainer_cfg, callback = checkpointing(4)
    resumed, trainer = fit(
        "ours", **cfg, seed=3, trainer_cfg=trainer_cfg, ckpt_path=tmp_path / "last.ckpt"
    )
    assert first.losses + resumed.losses == full.losses
    _assert_same_params(_params(full), _params(resumed))
    assert trainer.current_epoch == 4 and callback.best_model_path


def test_fit_ckpt_path_last(tmp_path):
    L = engine("ours")

    def cfg(max_epochs):
        callback = L.callbacks.ModelCheckpoint(dirpath=tmp_path, save_last=True)
        return dict(max_epochs=max_epochs, enable_checkpointing=True, callbacks=[callback])

    first, _ = fit("ours", trainer_cfg=cfg(1), ckpt_path="last")  # nothing yet: starts fresh
    # another seed: only the checkpoint's random state can make the second epoch match
    resumed, trainer = fit("ours", seed=3, trainer_cfg=cfg(2), ckpt_path="last")
    uninterrupted, _ = fit("ours", trainer_cfg=dict(max_epochs=2))
    assert len(first.losses) == 6 and len(resumed.losses) == 6 and trainer.current_epoch == 2
    assert first.losses + resumed.losses == uninterrupted.losses
    _assert_same_params(_params(resumed), _params(uninterrupted))
