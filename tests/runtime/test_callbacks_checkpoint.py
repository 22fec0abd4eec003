"""ModelCheckpoint: file names, top-k bookkeeping and state, checked against Lightning's callback.

Both callbacks are driven through the same hook sequence by a fake trainer (callback_fakes.py), so
each decision (which file is written, kept, deleted; best score; last.ckpt) can be compared.
"""

from __future__ import annotations

import math
import os
from datetime import timedelta

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torchlift.runtime.callbacks import ModelCheckpoint
from torchlift.runtime.errors import MisconfigurationException

try:
    from callback_fakes import FakeTrainer, simulate_fit
except ImportError:  # tests/ turned into a package
    from .callback_fakes import FakeTrainer, simulate_fit

lightning_callbacks = pytest.importorskip("lightning.pytorch.callbacks")


def _both(tmp_path, **kwargs):
    ours = ModelCheckpoint(dirpath=tmp_path / "ours", **kwargs)
    theirs = lightning_callbacks.ModelCheckpoint(dirpath=tmp_path / "theirs", **kwargs)
    return ours, theirs


def _base(path: str) -> str:
    return os.path.basename(path) if path else path


def _outcome(callback, trainer) -> dict:
    files = sorted(os.listdir(callback.dirpath)) if os.path.isdir(callback.dirpath) else []
    score = callback.best_model_score
    return {
        "files": files,
        "saved": [(_base(p), step) for p, step in trainer.saved],
        "best": _base(callback.best_model_path),
        "score": None if score is None else float(score),
        "kth": _base(callback.kth_best_model_path),
        "kth_value": float(callback.kth_value),
        "last": _base(callback.last_model_path),
        "best_k": sorted((_base(p), float(v)) for p, v in callback.best_k_models.items()),
    }


def _run_both(tmp_path, metrics, steps_per_epoch=3, trainer_kwargs=None, **kwargs):
    ours, theirs = _both(tmp_path, **kwargs)
    results = []
    for callback, name in ((ours, "ours"), (theirs, "theirs")):
        trainer = FakeTrainer(tmp_path / name, **(trainer_kwargs or {}))
        simulate_fit(callback, trainer, metrics, steps_per_epoch=steps_per_epoch)
        results.append(_outcome(callback, trainer))
    return results


# --- file names ------------------------------------------------------------------------------
@pytest.mark.lightning
@pytest.mark.parametrize(
    "filename, auto_insert",
    [
        (None, True),
        ("{epoch}", True),
        ("{epoch:03d}", True),
        ("{epoch}-{val_loss:.2f}", True),
        ("{epoch}-{val_loss:.2f}-{other:.3f}", True),
        ("epoch={epoch}-validation_loss={val_loss:.2f}", False),
        ("{missing:d}", True),
        ("sample-{epoch:02d}-{val_loss:.2f}", True),
        ("{val_loss}-{val_loss_ema:.1f}", True),
        ("epoch{epoch:02d}-val_loss{val/loss:.2f}", False),
        ("{step}", True),
    ],
)
def test_format_checkpoint_name_matches_lightning(tmp_path, filename, auto_insert):
    metrics = {
        "epoch": torch.tensor(5),
        "step": torch.tensor(120),
        "val_loss": torch.tensor(0.123456),
        "val_loss_ema": torch.tensor(2.25),
        "other": torch.tensor(7.0),
        "val/loss": torch.tensor(1.5),
    }
    kwargs = dict(filename=filename, auto_insert_metric_name=auto_insert)
    ours, theirs = _both(tmp_path, **kwargs)
    for ver in (None, 1, 3):
        for prefix in (None, "pre"):
            got = ours.format_checkpoint_name(dict(metrics), ver=ver, prefix=prefix)
            want = theirs.format_checkpoint_name(dict(metrics), ver=ver, prefix=prefix)
            assert _base(got) == _base(want)
    assert ours.format_checkpoint_name(dict(metrics), "last") == os.path.join(
        ours.dirpath, "last.ckpt"
    )


def test_default_names_documented_examples(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, filename="{epoch}-{val_loss:.2f}")
    assert _base(ckpt.format_checkpoint_name({"epoch": 2, "val_loss": 0.123456})) == (
        "epoch=2-val_loss=0.12.ckpt"
    )
    assert _base(ModelCheckpoint(filename="{step}").format_checkpoint_name({"step": 0})) == (
        "step=0.ckpt"
    )
    assert (
        ModelCheckpoint().format_checkpoint_name({"epoch": 1, "step": 4}) == "epoch=1-step=4.ckpt"
    )


# --- decisions, against Lightning -----------------------------------------------------------
CONFIGS = [
    dict(monitor="val_loss", save_top_k=2, filename="{epoch}-{val_loss:.2f}"),
    dict(monitor="val_loss", save_top_k=1, mode="max"),
    dict(monitor="val_loss", save_top_k=-1, save_last=True),
    dict(monitor="val_loss", save_top_k=3, filename="fixed"),  # name collisions -> -v1, -v2
    dict(monitor="val_loss", save_top_k=0, save_last=True),
    dict(monitor=None, save_top_k=1, save_last=True),
    dict(monitor=None, save_top_k=-1),
    dict(monitor="val_loss", save_top_k=2, every_n_epochs=2),
    dict(monitor="val_loss", save_top_k=2, every_n_train_steps=2),
    dict(monitor=None, save_top_k=-1, every_n_train_steps=4, save_last=True),
    dict(monitor="val_loss", save_top_k=2, save_on_train_epoch_end=False),
    dict(monitor="val_loss", save_top_k=1, save_last="link"),
    dict(monitor="val_loss", save_top_k=2, save_weights_only=True, enable_version_counter=False),
]


@pytest.mark.lightning
@pytest.mark.parametrize(
    "config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items())
)
def test_decisions_match_lightning(tmp_path, config):
    metrics = [{"val_loss": v} for v in (0.9, 0.5, 0.7, 0.5, 0.3, 0.8, float("nan"), 0.2)]
    ours, theirs = _run_both(tmp_path, metrics, **config)
    assert ours == theirs


@pytest.mark.lightning
@settings(max_examples=20)
@given(
    values=st.lists(
        st.sampled_from([0.1, 0.2, 0.3, 0.5, 1.0, float("nan"), float("inf")]),
        min_size=1,
        max_size=7,
    ),
    top_k=st.sampled_from([-1, 0, 1, 2, 3]),
    mode=st.sampled_from(["min", "max"]),
    save_last=st.sampled_from([None, True]),
    every=st.sampled_from([(None, None), (1, None), (2, None), (None, 2), (None, 5)]),
    steps=st.integers(1, 4),
)
def test_topk_property_matches_lightning(
    tmp_path_factory, values, top_k, mode, save_last, every, steps
):
    tmp_path = tmp_path_factory.mktemp("ckpt")
    ours, theirs = _run_both(
        tmp_path,
        [{"val_loss": v} for v in values],
        steps_per_epoch=steps,
        monitor="val_loss",
        save_top_k=top_k,
        mode=mode,
        save_last=save_last,
        every_n_epochs=every[0],
        every_n_train_steps=every[1],
        filename="{epoch}-{val_loss:.1f}",
    )
    assert ours == theirs


@pytest.mark.lightning
def test_no_validation_saves_at_train_epoch_end(tmp_path):
    ours, theirs = _run_both(
        tmp_path,
        [{}, {}, {}],
        trainer_kwargs=dict(num_val_batches=[0]),
        monitor="train_loss",
        save_top_k=2,
    )
    assert ours == theirs
    assert ours["files"] == ["epoch=1-step=6.ckpt", "epoch=2-step=9.ckpt"]


@pytest.mark.lightning
def test_val_every_two_epochs_saves_after_validation(tmp_path):
    metrics = [{"val_loss": v} for v in (0.5, 0.4, 0.3, 0.6)]
    kwargs = dict(trainer_kwargs=dict(check_val_every_n_epoch=2), monitor="val_loss", save_top_k=1)
    ours, theirs = _run_both(tmp_path, metrics, **kwargs)
    assert ours == theirs


def test_best_model_tracking(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=2, filename="{epoch}")
    trainer = FakeTrainer(tmp_path)
    simulate_fit(ckpt, trainer, [{"val_loss": v} for v in (0.9, 0.5, 0.7, 0.4)])
    assert sorted(os.listdir(tmp_path)) == ["epoch=1.ckpt", "epoch=3.ckpt"]
    assert _base(ckpt.best_model_path) == "epoch=3.ckpt"
    assert ckpt.best_model_score == pytest.approx(0.4)
    assert _base(ckpt.kth_best_model_path) == "epoch=1.ckpt"
    assert float(ckpt.kth_value) == pytest.approx(0.5)


def test_missing_monitor_after_validation_raises_clear_error(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_acc")
    trainer = FakeTrainer(tmp_path)
    with pytest.raises(MisconfigurationException, match="could not find the monitored key"):
        simulate_fit(ckpt, trainer, [{"val_loss": 0.1}])


def test_missing_monitor_without_validation_only_warns(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_acc")
    trainer = FakeTrainer(tmp_path, num_val_batches=[0])
    with pytest.warns(UserWarning, match="could not find the monitored key"):
        simulate_fit(ckpt, trainer, [{}])
    assert os.listdir(tmp_path) == []


# --- state ----------------------------------------------------------------------------------
@pytest.mark.lightning
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        dict(monitor="val_loss", mode="max"),
        dict(every_n_train_steps=10),
        dict(every_n_epochs=3, monitor="acc"),
        dict(train_time_interval=timedelta(minutes=5)),
    ],
)
def test_state_key_matches_lightning(kwargs):
    ours = ModelCheckpoint(**kwargs)
    theirs = lightning_callbacks.ModelCheckpoint(**kwargs)
    assert ours.state_key == theirs.state_key


@pytest.mark.lightning
def test_state_dict_round_trips_through_lightning(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=2, save_last=True)
    simulate_fit(ckpt, FakeTrainer(tmp_path), [{"val_loss": v} for v in (0.3, 0.2, 0.4)])
    state = ckpt.state_dict()
    theirs = lightning_callbacks.ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=2)
    assert set(state) == set(theirs.state_dict())
    theirs.load_state_dict(state)
    assert theirs.best_model_path == ckpt.best_model_path
    assert theirs.best_k_models == ckpt.best_k_models
    assert theirs.last_model_path == ckpt.last_model_path
    # and back: Lightning's state restores ours
    restored = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=2)
    restored.load_state_dict(theirs.state_dict())
    assert restored.best_model_score == ckpt.best_model_score
    assert restored.kth_best_model_path == ckpt.kth_best_model_path
    # plain types and tensors only: loads under torch.load(weights_only=True)
    torch.save(state, tmp_path / "state.pt")
    assert torch.load(tmp_path / "state.pt", weights_only=True)["best_model_path"] == (
        ckpt.best_model_path
    )


def test_load_state_dict_from_other_dirpath_keeps_only_best_path(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path / "a", monitor="val_loss")
    simulate_fit(ckpt, FakeTrainer(tmp_path), [{"val_loss": 0.3}])
    moved = ModelCheckpoint(dirpath=tmp_path / "b", monitor="val_loss")
    with pytest.warns(UserWarning, match="dirpath has changed"):
        moved.load_state_dict(ckpt.state_dict())
    assert moved.best_model_path == ckpt.best_model_path
    assert moved.best_model_score is None


# --- configuration errors --------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(save_top_k=-2), "save_top_k=-2"),
        (dict(mode="avg"), "`mode` can be min, max"),
        (dict(every_n_epochs=-1), "every_n_epochs=-1"),
        (dict(every_n_train_steps=-3), "every_n_train_steps=-3"),
        (dict(every_n_epochs=1, every_n_train_steps=2), "mutually exclusive"),
        (dict(save_top_k=3), "No quantity for top_k to track"),
    ],
)
def test_bad_arguments_raise_one_clear_error(kwargs, message):
    with pytest.raises(MisconfigurationException, match=message):
        ModelCheckpoint(**kwargs)


def test_default_dirpath_follows_logger_or_root(tmp_path):
    from torchlift.runtime.loggers import CSVLogger

    logger = CSVLogger(tmp_path / "logs", name="exp", version=3)
    ckpt = ModelCheckpoint()
    ckpt.setup(FakeTrainer(tmp_path, loggers=[logger]), None, "fit")
    assert ckpt.dirpath == os.path.join(str(tmp_path / "logs"), "exp", "version_3", "checkpoints")
    bare = ModelCheckpoint()
    bare.setup(FakeTrainer(tmp_path), None, "fit")
    assert bare.dirpath == os.path.join(str(tmp_path), "checkpoints")


def test_nothing_saved_outside_fit_or_during_sanity_check(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, every_n_train_steps=1)
    trainer = FakeTrainer(tmp_path)
    trainer.global_step = 5
    trainer.sanity_checking = True
    ckpt.on_validation_end(trainer, None)
    trainer.sanity_checking = False
    trainer.state.fn = "validate"
    ckpt.on_train_batch_end(trainer, trainer.lightning_module, None, None, 0)
    assert trainer.saved == []


def test_to_yaml_writes_scores(tmp_path):
    yaml = pytest.importorskip("yaml")
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=2, filename="{epoch}")
    simulate_fit(ckpt, FakeTrainer(tmp_path), [{"val_loss": v} for v in (0.5, 0.25)])
    ckpt.to_yaml()
    scores = yaml.safe_load((tmp_path / "best_k_models.yaml").read_text())
    assert {_base(k): v for k, v in scores.items()} == {"epoch=0.ckpt": 0.5, "epoch=1.ckpt": 0.25}
    assert not math.isnan(sum(scores.values()))
