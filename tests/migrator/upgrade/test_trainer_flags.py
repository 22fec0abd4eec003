"""Trainer flags: inputs that must not change, (1.x, 2.x) pairs, rows only reported."""

import pytest
from upgrade_helpers import HEADER, assert_pair, assert_reported, codes, upgrade

NOOP = [
    'trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp")\n',
    'trainer = pl.Trainer(precision="16-mixed", max_steps=-1)\n',
    "trainer = pl.Trainer(max_epochs=3)\n",
    "trainer = Trainer(gpus=2)\n",  # not Lightning's Trainer: nothing imported
]

PAIRS = {
    "seed_snippet": (
        "trainer = pl.Trainer(gpus=2, distributed_backend='ddp')\n",
        'trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp")\n',
    ),
    "gpus_all": (
        "t = pl.Trainer(gpus=-1)\n",
        't = pl.Trainer(accelerator="gpu", devices=-1)\n',
    ),
    "gpus_ids_string": (
        't = pl.Trainer(gpus="0,1")\n',
        't = pl.Trainer(accelerator="gpu", devices=[0, 1])\n',
    ),
    "gpus_count_string": (
        't = pl.Trainer(gpus="3")\n',
        't = pl.Trainer(accelerator="gpu", devices=3)\n',
    ),
    "gpus_list": (
        "t = pl.Trainer(gpus=[0])\n",
        't = pl.Trainer(accelerator="gpu", devices=[0])\n',
    ),
    "gpus_zero_is_cpu": (
        "t = pl.Trainer(gpus=0, max_epochs=1)\n",
        't = pl.Trainer(accelerator="cpu", max_epochs=1)\n',
    ),
    "gpus_none_is_cpu": (
        "t = pl.Trainer(gpus=None)\n",
        't = pl.Trainer(accelerator="cpu")\n',
    ),
    "accelerator_named_strategy": (
        "t = pl.Trainer(gpus=4, accelerator='ddp_spawn')\n",
        't = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp_spawn")\n',
    ),
    "hardware_accelerator_kept": (
        't = pl.Trainer(accelerator="gpu", gpus=2)\n',
        't = pl.Trainer(accelerator="gpu", devices=2)\n',
    ),
    "ddp_cpu": (
        "t = pl.Trainer(num_processes=2, distributed_backend='ddp_cpu')\n",
        't = pl.Trainer(accelerator="cpu", devices=2, strategy="ddp")\n',
    ),
    "backend_and_accelerator_both_1x": (
        "t = pl.Trainer(gpus=2, accelerator='ddp', distributed_backend='ddp')\n",
        't = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp")\n',
    ),
    "tpu_cores": (
        "t = pl.Trainer(tpu_cores=8)\n",
        't = pl.Trainer(accelerator="tpu", devices=8)\n',
    ),
    "precision": (
        "t = pl.Trainer(precision=16, amp_backend='native', amp_level='O2')\n",
        't = pl.Trainer(precision="16-mixed")\n',
    ),
    "bf16": (
        't = pl.Trainer(precision="bf16")\n',
        't = pl.Trainer(precision="bf16-mixed")\n',
    ),
    "renamed_flags": (
        "t = pl.Trainer(checkpoint_callback=False, replace_sampler_ddp=False, max_steps=None)\n",
        "t = pl.Trainer(enable_checkpointing=False, use_distributed_sampler=False, max_steps=-1)\n",
    ),
    "terminate_on_nan": (
        "t = pl.Trainer(terminate_on_nan=True)\n",
        "t = pl.Trainer(detect_anomaly=True)\n",
    ),
    "defaults_removed": (
        "t = pl.Trainer(max_epochs=1, stochastic_weight_avg=False, auto_lr_find=False, track_grad_norm=-1)\n",
        "t = pl.Trainer(max_epochs=1)\n",
    ),
    "progress_bar_off": (
        "t = pl.Trainer(progress_bar_refresh_rate=0)\n",
        "t = pl.Trainer(enable_progress_bar=False)\n",
    ),
    "progress_bar_rate_new_callbacks": (
        "t = pl.Trainer(progress_bar_refresh_rate=20, max_epochs=1)\n",
        "t = pl.Trainer(callbacks=[pl.callbacks.TQDMProgressBar(refresh_rate=20)], max_epochs=1)\n",
    ),
    "callbacks_list_extended": (
        "t = pl.Trainer(callbacks=[cb], weights_summary='full')\n",
        "t = pl.Trainer(callbacks=[cb, pl.callbacks.ModelSummary(max_depth=-1)])\n",
    ),
    "summary_off": (
        "t = pl.Trainer(weights_summary=None)\n",
        "t = pl.Trainer(enable_model_summary=False)\n",
    ),
    "reload_every_epoch": (
        "t = pl.Trainer(reload_dataloaders_every_epoch=True)\n",
        "t = pl.Trainer(reload_dataloaders_every_n_epochs=1)\n",
    ),
    "resume_moves_to_fit": (
        (
            "def main(model):\n"
            "    trainer = pl.Trainer(resume_from_checkpoint='last.ckpt', max_epochs=2)\n"
            "    trainer.fit(model)\n"
        ),
        (
            "def main(model):\n"
            "    trainer = pl.Trainer(max_epochs=2)\n"
            "    trainer.fit(model, ckpt_path='last.ckpt')\n"
        ),
    ),
    "one_flag_per_line": (
        "t = pl.Trainer(\n    gpus=1,\n    max_epochs=3,\n)\n",
        't = pl.Trainer(\n    accelerator="gpu",\n    devices=1,\n    max_epochs=3,\n)\n',
    ),
}

REPORTED = {
    "gpus_and_devices": ("t = pl.Trainer(gpus=2, devices=2)\n", "TL201"),
    "checkpoint_callback_object": ("t = pl.Trainer(checkpoint_callback=ckpt)\n", "TL205"),
    "gpus_not_literal": ("t = pl.Trainer(gpus=args.gpus)\n", "TL201"),
    "dp_removed": ("t = pl.Trainer(gpus=2, accelerator='dp')\n", "TL202"),
    "apex": ("t = pl.Trainer(amp_backend='apex')\n", "TL203"),
    "resume_without_fit": (
        "t = pl.Trainer(resume_from_checkpoint='a.ckpt')\n",
        "TL204",
    ),
    "swa_needs_lrs": ("t = pl.Trainer(stochastic_weight_avg=True)\n", "TL209"),
    "auto_lr_find": ("t = pl.Trainer(auto_lr_find=True)\n", "TL210"),
    "track_grad_norm": ("t = pl.Trainer(track_grad_norm=2)\n", "TL211"),
    "flush_logs": ("t = pl.Trainer(flush_logs_every_n_steps=50)\n", "TL215"),
    "weights_save_path": ("t = pl.Trainer(weights_save_path='w')\n", "TL217"),
    "accumulate_schedule": (
        "t = pl.Trainer(accumulate_grad_batches={0: 1, 4: 2})\n",
        "TL218",
    ),
    "truncated_bptt": ("t = pl.Trainer(truncated_bptt_steps=5)\n", "TL219"),
    "callbacks_not_a_list": (
        "t = pl.Trainer(callbacks=cbs, progress_bar_refresh_rate=5)\n",
        "TL206",
    ),
}


@pytest.mark.parametrize("source", NOOP)
def test_noop(source):
    result = upgrade(HEADER + source)
    assert result.output == HEADER + source
    assert not [c for c in codes(result) if c.startswith("TL2")]


@pytest.mark.parametrize("name", PAIRS)
def test_pair(name):
    before, after = PAIRS[name]
    assert_pair(HEADER + before, HEADER + after)


@pytest.mark.parametrize("name", REPORTED)
def test_reported(name):
    source, code = REPORTED[name]
    assert_reported(HEADER + source, code)


def test_another_module_called_pl_is_not_lightning():
    source = "import other as pl\ntrainer = pl.Trainer(gpus=2)\n"
    assert upgrade(source).output == source


def test_reported_row_does_not_stop_the_rest():
    source = HEADER + "t = pl.Trainer(gpus=0, track_grad_norm=2)\n"
    result = upgrade(source)
    assert result.output == HEADER + 't = pl.Trainer(accelerator="cpu", track_grad_norm=2)\n'
    assert "TL211" in codes(result, "warning") and "TL201" in codes(result, "info")


def test_from_import_gets_the_callback_imported_from_the_target():
    source = "from pytorch_lightning import Trainer\nt = Trainer(progress_bar_refresh_rate=3)\n"
    result = upgrade(source, "lightning")
    assert result.output == (
        "from lightning.pytorch import Trainer\n"
        "from lightning.pytorch.callbacks import TQDMProgressBar\n\n"
        "t = Trainer(callbacks=[TQDMProgressBar(refresh_rate=3)])\n"
    )


def test_runtime_lacks_model_summary_so_the_row_is_reported():
    result = upgrade(HEADER + "t = pl.Trainer(weights_summary='full', gpus=0)\n", "runtime")
    assert "TL207" in codes(result, "warning")
    assert result.output == (
        "import torchlift.runtime as pl\nt = pl.Trainer(weights_summary='full', accelerator=\"cpu\")\n"
    )
