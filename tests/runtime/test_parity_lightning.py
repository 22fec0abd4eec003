"""Same LightningModule, same seed: our runtime and real Lightning give the same per-step losses
(rtol 1e-6) — the acceptance list of the runtime issue, one case per configuration."""

from __future__ import annotations

import os

import pytest
import torch
from runtime_engines import engine, fit, loaders

pytestmark = pytest.mark.lightning

CASES = {
    "plain": dict(with_val=False, trainer_cfg=dict(max_epochs=2)),
    "validation": dict(trainer_cfg=dict(max_epochs=2)),
    "sched_epoch": dict(model_cfg=dict(scheduler="epoch"), trainer_cfg=dict(max_epochs=3)),
    "sched_step_freq2": dict(
        model_cfg=dict(scheduler="step", freq=2), trainer_cfg=dict(max_epochs=2)
    ),
    "plateau": dict(model_cfg=dict(scheduler="plateau", lr=0.2), trainer_cfg=dict(max_epochs=4)),
    "clip_norm": dict(trainer_cfg=dict(max_epochs=2, gradient_clip_val=0.05)),
    "clip_value": dict(
        trainer_cfg=dict(max_epochs=2, gradient_clip_val=0.01, gradient_clip_algorithm="value")
    ),
    "accumulate": dict(n=56, trainer_cfg=dict(max_epochs=2, accumulate_grad_batches=3)),
    "bf16_mixed": dict(
        model_cfg=dict(optimizer="adam"), trainer_cfg=dict(max_epochs=2, precision="bf16-mixed")
    ),
    "precision_64": dict(trainer_cfg=dict(max_epochs=2, precision=64)),
    # on CPU Lightning runs "16-mixed" as bf16 autocast without a GradScaler (it warns): so must we
    "16_mixed_on_cpu": dict(
        model_cfg=dict(optimizer="adam"), trainer_cfg=dict(max_epochs=2, precision="16-mixed")
    ),
    "max_steps": dict(trainer_cfg=dict(max_steps=9, max_epochs=-1)),
    "limit_train_batches": dict(
        trainer_cfg=dict(max_epochs=3, limit_train_batches=4, limit_val_batches=1)
    ),
    "val_check_interval": dict(
        trainer_cfg=dict(max_epochs=2, val_check_interval=2, num_sanity_val_steps=1)
    ),
    "manual_two_optimizers": dict(gan=True, with_val=False, trainer_cfg=dict(max_epochs=2)),
    "batch_start_returns_-1": dict(
        model_cfg=dict(skip_from=3, scheduler="epoch"), trainer_cfg=dict(max_epochs=3)
    ),
    "check_val_every_n_epoch_none": dict(
        n=40,
        trainer_cfg=dict(max_epochs=3, val_check_interval=7, check_val_every_n_epoch=None),
    ),
}


def _same(ours, theirs):
    assert len(ours) == len(theirs) and len(ours) > 0
    torch.testing.assert_close(torch.tensor(ours), torch.tensor(theirs), rtol=1e-6, atol=0)


@pytest.mark.parametrize("case", sorted(CASES))
def test_losses_match_lightning(case):
    kwargs = CASES[case]
    ours_model, ours_trainer = fit("ours", **kwargs)
    their_model, their_trainer = fit("lightning", **kwargs)
    _same(ours_model.losses, their_model.losses)
    if hasattr(their_model, "val_losses"):
        _same(ours_model.val_losses or [0.0], their_model.val_losses or [0.0])
    assert ours_trainer.global_step == their_trainer.global_step
    assert ours_trainer.current_epoch == their_trainer.current_epoch
    ours_params = dict(ours_model.named_parameters())
    for name, param in their_model.named_parameters():  # assert_close also checks the dtype
        torch.testing.assert_close(ours_params[name], param, rtol=1e-6, atol=1e-7)
    for key in ("train_loss_epoch", "val_loss"):
        if key in their_trainer.callback_metrics:
            torch.testing.assert_close(
                ours_trainer.callback_metrics[key],
                their_trainer.callback_metrics[key],
                rtol=1e-6,
                atol=1e-7,
            )


@pytest.mark.parametrize(
    "es_kwargs",
    [
        dict(monitor="val_loss", patience=1, min_delta=0.02),
        dict(monitor="train_loss_epoch", patience=0, min_delta=0.05, check_on_train_epoch_end=True),
    ],
    ids=["val_loss", "train_epoch"],
)
def test_early_stopping_stops_at_the_same_epoch(es_kwargs):
    runs = {}
    for name in ("ours", "lightning"):
        L = engine(name)
        stopper = L.callbacks.EarlyStopping(**es_kwargs)
        model, trainer = fit(name, trainer_cfg=dict(max_epochs=30), callbacks=[stopper])
        runs[name] = (
            model.losses,
            trainer.current_epoch,
            trainer.global_step,
            stopper.stopped_epoch,
        )
    assert runs["ours"][1] < 30  # it did stop early
    assert runs["ours"][1:] == runs["lightning"][1:]
    _same(runs["ours"][0], runs["lightning"][0])


def test_defaults_run_and_match(tmp_path):
    """Default callbacks and logger (checkpointing, progress bar, TensorBoard) change no number."""
    runs = {}
    for name in ("ours", "lightning"):
        root = tmp_path / name
        model, trainer = fit(
            name,
            trainer_cfg=dict(
                max_epochs=2,
                logger=None,
                enable_checkpointing=None,
                enable_progress_bar=None,
                default_root_dir=str(root),
                log_every_n_steps=2,
            ),
        )
        runs[name] = (model.losses, trainer)
    _same(runs["ours"][0], runs["lightning"][0])
    ours, theirs = runs["ours"][1], runs["lightning"][1]
    assert type(ours.logger).__name__ == type(theirs.logger).__name__
    assert type(ours.checkpoint_callback).__name__ == "ModelCheckpoint"
    assert type(ours.progress_bar_callback).__name__ == "TQDMProgressBar"
    assert os.path.relpath(
        ours.checkpoint_callback.best_model_path, tmp_path / "ours"
    ) == os.path.relpath(theirs.checkpoint_callback.best_model_path, tmp_path / "lightning")
    assert sorted(ours.logged_metrics) == sorted(theirs.logged_metrics)


def _logging_run(name, tmp_path):
    L = engine(name)

    class Logs(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(6, 1)

        def training_step(self, batch, batch_idx):
            loss = torch.nn.functional.mse_loss(self.layer(batch[0]), batch[1])
            self.log("a", loss)
            self.log("b", loss * 2, on_step=False, on_epoch=True, prog_bar=True)
            self.log("c", loss * 3, on_step=True, on_epoch=True, reduce_fx="max", prog_bar=True)
            self.log_dict({"d": float(batch_idx), "e": batch_idx}, on_epoch=True, logger=False)
            return {"loss": loss, "extra": batch_idx}

        def on_train_batch_end(self, outputs, batch, batch_idx):
            assert set(outputs) == {"loss", "extra"} and outputs["extra"] == batch_idx

        def validation_step(self, batch, batch_idx):
            loss = torch.nn.functional.mse_loss(self.layer(batch[0]), batch[1])
            self.log("v", loss, prog_bar=True)
            self.log("vs", loss, on_step=True)

        def on_train_epoch_end(self):
            self.log("te", torch.tensor(1.5))

        def on_validation_epoch_end(self):
            self.log("ve", 2.5, prog_bar=True)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    L.seed_everything(5, verbose=False)
    train, val = loaders(n=20)  # 8, 8, 4: batch-size weighting matters
    logger = L.loggers.CSVLogger(save_dir=str(tmp_path / name))
    trainer = L.Trainer(
        max_epochs=2,
        logger=logger,
        log_every_n_steps=1,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(Logs(), train, val)

    def plain(metrics):
        return {k: (v.item() if isinstance(v, torch.Tensor) else v) for k, v in metrics.items()}

    return (
        plain(trainer.callback_metrics),
        plain(trainer.progress_bar_metrics),
        plain(trainer.logged_metrics),
    )


def test_logged_metric_names_and_values_match_lightning(tmp_path):
    ours = _logging_run("ours", tmp_path)
    theirs = _logging_run("lightning", tmp_path)
    for kind, mine, reference in zip(("callback", "progress bar", "logged"), ours, theirs):
        assert sorted(mine) == sorted(reference), kind
        assert mine == pytest.approx(reference, rel=1e-6), kind
