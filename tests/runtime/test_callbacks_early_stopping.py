"""EarlyStopping: stop epoch, counters and state, checked against Lightning's callback."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torchlift.runtime.callbacks import EarlyStopping
from torchlift.runtime.errors import MisconfigurationException

try:
    from callback_fakes import FakeTrainer, simulate_fit
except ImportError:  # tests/ turned into a package
    from .callback_fakes import FakeTrainer, simulate_fit

lightning_callbacks = pytest.importorskip("lightning.pytorch.callbacks")


def _outcome(callback, trainer) -> dict:
    state = callback.state_dict()
    state["best_score"] = float(state["best_score"])
    return {"state": state, "should_stop": trainer.should_stop, "epoch": trainer.current_epoch}


def _run_both(tmp_path, values, trainer_kwargs=None, **kwargs):
    results = []
    for cls in (EarlyStopping, lightning_callbacks.EarlyStopping):
        callback = cls(monitor="val_loss", **kwargs)
        trainer = FakeTrainer(tmp_path, **(trainer_kwargs or {}))
        simulate_fit(callback, trainer, [{"val_loss": v} for v in values])
        results.append(_outcome(callback, trainer))
    return results


@pytest.mark.lightning
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(patience=2),
        dict(patience=1, mode="max"),
        dict(patience=3, min_delta=0.05),
        dict(patience=5, stopping_threshold=0.25),
        dict(patience=5, divergence_threshold=0.85),
        dict(patience=5, check_finite=False),
        dict(patience=2, check_on_train_epoch_end=False),
    ],
)
def test_stop_epoch_matches_lightning(tmp_path, kwargs):
    values = [0.9, 0.5, 0.52, 0.49, 0.6, 0.3, 0.31, float("nan"), 0.2, 0.9, 0.95, 0.97]
    ours, theirs = _run_both(tmp_path, values, **kwargs)
    assert ours == theirs


@pytest.mark.lightning
@settings(max_examples=20)
@given(
    values=st.lists(
        st.sampled_from([0.1, 0.2, 0.25, 0.3, 0.5, float("inf")]), min_size=1, max_size=10
    ),
    patience=st.integers(0, 3),
    min_delta=st.sampled_from([0.0, 0.05, -0.05]),
    mode=st.sampled_from(["min", "max"]),
)
def test_stopping_property_matches_lightning(tmp_path_factory, values, patience, min_delta, mode):
    tmp_path = tmp_path_factory.mktemp("es")
    ours, theirs = _run_both(tmp_path, values, patience=patience, min_delta=min_delta, mode=mode)
    assert ours == theirs


def test_patience_stops_after_n_checks_without_improvement(tmp_path):
    stopper = EarlyStopping(monitor="val_loss", patience=2)
    trainer = FakeTrainer(tmp_path)
    simulate_fit(stopper, trainer, [{"val_loss": v} for v in (1.0, 0.8, 0.9, 0.85, 0.1)])
    assert trainer.should_stop
    assert stopper.stopped_epoch == 3
    assert stopper.best_score == pytest.approx(0.8)
    assert stopper.stopping_reason.name == "PATIENCE_EXHAUSTED"


def test_checks_after_validation_when_validation_is_not_every_epoch(tmp_path):
    stopper = EarlyStopping(monitor="val_loss", patience=1)
    trainer = FakeTrainer(tmp_path, check_val_every_n_epoch=2)
    stopper.setup(trainer, None, "fit")
    assert stopper._check_on_train_epoch_end is False


@pytest.mark.lightning
@pytest.mark.parametrize("kwargs", [dict(monitor="a"), dict(monitor="b", mode="max")])
def test_state_key_matches_lightning(kwargs):
    assert (
        EarlyStopping(**kwargs).state_key == lightning_callbacks.EarlyStopping(**kwargs).state_key
    )


@pytest.mark.lightning
def test_state_dict_interchanges_with_lightning(tmp_path):
    ours = EarlyStopping(monitor="val_loss", patience=3)
    simulate_fit(ours, FakeTrainer(tmp_path), [{"val_loss": v} for v in (0.5, 0.6, 0.7)])
    theirs = lightning_callbacks.EarlyStopping(monitor="val_loss", patience=3)
    theirs.load_state_dict(ours.state_dict())
    assert theirs.wait_count == ours.wait_count == 2
    back = EarlyStopping(monitor="val_loss", patience=3)
    back.load_state_dict(theirs.state_dict())
    assert back.state_dict() == ours.state_dict()


def test_strict_missing_metric_raises_naming_available_keys(tmp_path):
    stopper = EarlyStopping(monitor="val_acc")
    with pytest.raises(RuntimeError, match="`val_acc` which is not available.*`val_loss`"):
        simulate_fit(stopper, FakeTrainer(tmp_path), [{"val_loss": 0.1}])


def test_non_strict_missing_metric_is_ignored(tmp_path):
    stopper = EarlyStopping(monitor="val_acc", strict=False, patience=0)
    trainer = FakeTrainer(tmp_path)
    simulate_fit(stopper, trainer, [{"val_loss": 0.1}] * 3)
    assert not trainer.should_stop


def test_bad_mode_is_a_clear_error():
    with pytest.raises(MisconfigurationException, match="`mode` can be min, max, got avg"):
        EarlyStopping(monitor="x", mode="avg")


def test_no_check_during_sanity_or_outside_fit(tmp_path):
    stopper = EarlyStopping(monitor="val_loss", patience=0, check_on_train_epoch_end=False)
    trainer = FakeTrainer(tmp_path)
    trainer.callback_metrics["val_loss"] = torch.tensor(float("nan"))
    trainer.sanity_checking = True
    stopper.on_validation_end(trainer, None)
    trainer.sanity_checking = False
    trainer.state.fn = "validate"
    stopper.on_validation_end(trainer, None)
    assert not trainer.should_stop
