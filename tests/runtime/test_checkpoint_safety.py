"""Checkpoints are data: loading one never runs code, and writing one never publishes half a file."""

from __future__ import annotations

import multiprocessing
import os
import pickle

import pytest
import torch
from runtime_engines import fit, loaders, make_model

import torchlift.runtime as L
from torchlift.runtime.errors import MisconfigurationException
from torchlift.runtime.trainer.checkpoint import load_checkpoint_file, save_checkpoint_file

_MARKER_ENV = "TORCHLIFT_TEST_PAYLOAD_MARKER"


def _touch_marker():  # what a malicious checkpoint would run while being unpickled
    open(os.environ[_MARKER_ENV], "w").close()


class _Payload:
    def __reduce__(self):
        return (_touch_marker, ())


@pytest.fixture
def crafted_checkpoint(tmp_path, monkeypatch):
    """A file in Lightning's layout whose unpickling calls a function (the classic attack)."""
    marker = tmp_path / "payload-ran"
    monkeypatch.setenv(_MARKER_ENV, str(marker))
    path = tmp_path / "evil.ckpt"
    with open(path, "wb") as handle:
        torch.save({"state_dict": {}, "epoch": 0, "global_step": 0, "x": _Payload()}, handle)
    assert not marker.exists()
    return path, marker


def test_fit_ckpt_path_runs_no_code(crafted_checkpoint):
    path, marker = crafted_checkpoint
    with pytest.raises(MisconfigurationException, match="weights_only=False") as error:
        fit("ours", trainer_cfg=dict(max_epochs=1), ckpt_path=path)
    assert "arbitrary code" in str(error.value)
    assert not marker.exists()


def test_load_from_checkpoint_runs_no_code(crafted_checkpoint):
    path, marker = crafted_checkpoint
    module_class = type(make_model(L))
    with pytest.raises(MisconfigurationException, match="weights_only=False"):
        module_class.load_from_checkpoint(path)
    assert not marker.exists()


def test_validate_and_predict_ckpt_path_run_no_code(crafted_checkpoint):
    path, marker = crafted_checkpoint
    model = make_model(L)
    _, loader = loaders()
    trainer = L.Trainer(logger=False, enable_progress_bar=False, enable_model_summary=False)
    for run in (trainer.validate, trainer.predict):
        with pytest.raises(MisconfigurationException, match="weights_only=False"):
            run(model, loader, ckpt_path=path)
    assert not marker.exists()


def test_explicit_opt_in_is_honoured(crafted_checkpoint):
    """weights_only=False is the user's explicit, documented choice for a trusted file."""
    path, marker = crafted_checkpoint
    load_checkpoint_file(path, weights_only=False)
    assert marker.exists()


def test_empty_checkpoint_is_one_clear_error(tmp_path):
    empty = tmp_path / "empty.ckpt"
    empty.write_bytes(b"")
    with pytest.raises(MisconfigurationException, match="is not a checkpoint"):
        fit("ours", trainer_cfg=dict(max_epochs=1), ckpt_path=empty)


def _write_many(path: str, seed: int, count: int) -> None:
    torch.manual_seed(seed)
    for _ in range(count):
        save_checkpoint_file({"state_dict": {"w": torch.randn(20_000)}, "seed": seed}, path)


def test_concurrent_writers_publish_only_whole_checkpoints(tmp_path):
    """Two trainers sharing a dirpath: every read sees one writer's complete file."""
    path = tmp_path / "last.ckpt"
    save_checkpoint_file({"state_dict": {"w": torch.zeros(20_000)}, "seed": -1}, path)
    context = multiprocessing.get_context("spawn")
    writers = [
        context.Process(target=_write_many, args=(str(path), seed, 40)) for seed in (1, 2)
    ]
    for writer in writers:
        writer.start()
    reads = 0
    while any(writer.is_alive() for writer in writers) or reads == 0:
        checkpoint = torch.load(path, weights_only=True)
        assert checkpoint["state_dict"]["w"].shape == (20_000,)
        reads += 1
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.ckpt"]  # no temp file left


def test_failed_write_leaves_no_temp_file(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", refuse)
    with pytest.raises(OSError, match="No space"):
        save_checkpoint_file({"state_dict": {}}, tmp_path / "a.ckpt")
    assert list(tmp_path.iterdir()) == []


def test_payload_is_refused_by_plain_torch_load_too(crafted_checkpoint):
    """The reference behaviour we match: torch's own safe loader refuses the same file."""
    path, marker = crafted_checkpoint
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path, weights_only=True)
    assert not marker.exists()
