"""Upgraded Trainer calls are accepted by the real engines and mean what the 1.x flags meant.

For random combinations of 1.x flags (the CPU-meaningful ones, with literal values), the
upgraded call is executed against real Lightning 2.6 and against torchlift.runtime: it must
construct (no `unexpected keyword argument`), run on the CPU as gpus=0/None did in 1.x, and
carry the precision, limits and switches the 1.x flags asked for.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from torchlift.migrator import migrate_source

FLAGS = {
    "gpus": st.sampled_from([0, None, "0"]),
    "precision": st.sampled_from([32, 16, "16", "bf16", 64]),
    "checkpoint_callback": st.booleans(),
    "progress_bar_refresh_rate": st.sampled_from([0, None, 5]),
    "weights_summary": st.sampled_from([None, "top"]),
    "terminate_on_nan": st.booleans(),
    "replace_sampler_ddp": st.booleans(),
    "max_steps": st.sampled_from([None, 7]),
    "reload_dataloaders_every_epoch": st.booleans(),
    "amp_backend": st.just("native"),
    "track_grad_norm": st.just(-1),
    "stochastic_weight_avg": st.just(False),
    "auto_lr_find": st.just(False),
    "resume_from_checkpoint": st.just(None),
}
EXPECTED_PRECISION = {32: "32-true", 64: "64-true", 16: "bf16-mixed", "16": "bf16-mixed"}
EXPECTED_PRECISION["bf16"] = "bf16-mixed"  # "16-mixed" on a CPU is bf16 autocast, as on Lightning


def one_x_call(flags: dict) -> str:
    arguments = ", ".join(f"{name}={value!r}" for name, value in flags.items())
    return f"import pytorch_lightning as pl\ntrainer = pl.Trainer({arguments}, logger=False)\n"


def construct(flags: dict, target: str, root):
    result = migrate_source(one_x_call(flags), path="train.py", target=target)
    assert result.changed and not [f for f in result.findings if f.severity == "warning"], [
        str(f) for f in result.findings
    ]
    namespace: dict = {}
    code = result.output.replace("logger=False", f"logger=False, default_root_dir={str(root)!r}")
    # the upgraded script's own lines, run as that script would run them
    exec(compile(code, "train.py", "exec"), namespace)  # noqa: S102
    return namespace["trainer"]


def check_meaning(trainer, flags: dict) -> None:
    assert trainer.strategy.root_device.type == "cpu"
    assert trainer.precision == EXPECTED_PRECISION[flags["precision"]]
    assert trainer.max_steps == (-1 if flags["max_steps"] is None else flags["max_steps"])
    assert trainer.reload_dataloaders_every_n_epochs == int(flags["reload_dataloaders_every_epoch"])
    has_checkpoint = trainer.checkpoint_callback is not None
    assert has_checkpoint == flags["checkpoint_callback"]
    assert (trainer.progress_bar_callback is not None) == (flags["progress_bar_refresh_rate"] != 0)
    if flags["progress_bar_refresh_rate"] == 5:
        assert trainer.progress_bar_callback.refresh_rate == 5


@pytest.mark.lightning
@given(st.fixed_dictionaries(FLAGS))
def test_upgraded_flags_construct_on_lightning(tmp_path_factory, flags):
    trainer = construct(flags, "lightning", tmp_path_factory.mktemp("pl"))
    check_meaning(trainer, flags)
    assert trainer._detect_anomaly == flags["terminate_on_nan"]


@given(st.fixed_dictionaries(FLAGS))
def test_upgraded_flags_construct_on_the_runtime(tmp_path_factory, flags):
    trainer = construct(flags, "runtime", tmp_path_factory.mktemp("rt"))
    check_meaning(trainer, flags)
