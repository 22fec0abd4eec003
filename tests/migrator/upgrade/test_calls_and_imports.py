"""Calls, attributes and module paths: noop inputs, (1.x, 2.x) pairs, reported rows."""

import pytest
from upgrade_helpers import HEADER, assert_pair, assert_reported, codes, upgrade

NOOP = [
    "trainer = pl.Trainer()\ntrainer.fit(model, train_dataloaders=loader)\n",
    "trainer = pl.Trainer()\ntrainer.test(model, dataloaders=loader)\n",
    "loader.fit(train_dataloader=1)\n",  # not a trainer
    "class M(pl.LightningModule):\n    def f(self):\n        self.log('a', 1, reduce_fx='sum')\n",
]

PAIRS = {
    "cli_seed_default": (
        (
            "from pytorch_lightning.utilities.cli import LightningCLI\n"
            "cli = LightningCLI(M, seed_everything_default=None)\n"
        ),
        (
            "from pytorch_lightning.cli import LightningCLI\n"
            "cli = LightningCLI(M, seed_everything_default=False)\n"
        ),
    ),
    "profiled_functions": (
        "p = pl.profilers.PyTorchProfiler(profiled_functions=['a'])\n",
        "p = pl.profilers.PyTorchProfiler(record_functions=['a'])\n",
    ),
    "fit_keyword": (
        "trainer = pl.Trainer()\ntrainer.fit(model, train_dataloader=loader)\n",
        "trainer = pl.Trainer()\ntrainer.fit(model, train_dataloaders=loader)\n",
    ),
    "test_keyword": (
        "trainer = pl.Trainer()\ntrainer.test(model, test_dataloaders=loader)\n",
        "trainer = pl.Trainer()\ntrainer.test(model, dataloaders=loader)\n",
    ),
    "validate_keyword": (
        "trainer = pl.Trainer()\ntrainer.validate(model, val_dataloaders=loader)\n",
        "trainer = pl.Trainer()\ntrainer.validate(model, dataloaders=loader)\n",
    ),
    "sanity_check": (
        (
            "class M(pl.LightningModule):\n"
            "    def f(self):\n        return self.trainer.running_sanity_check\n"
        ),
        (
            "class M(pl.LightningModule):\n"
            "    def f(self):\n        return self.trainer.sanity_checking\n"
        ),
    ),
    "sync_dist_op": (
        (
            "class M(pl.LightningModule):\n"
            "    def f(self, v):\n        self.log('v', v, sync_dist=True, sync_dist_op='sum')\n"
        ),
        (
            "class M(pl.LightningModule):\n"
            "    def f(self, v):\n        self.log('v', v, sync_dist=True, reduce_fx='sum')\n"
        ),
    ),
}

REPORTED = {
    "write_predictions": (
        "class M(pl.LightningModule):\n    def f(self, p):\n        self.write_predictions(p)\n",
        "TL237",
    ),
    "self_datamodule": (
        "class M(pl.LightningModule):\n    def f(self):\n        return self.datamodule.x\n",
        "TL237",
    ),
    "model_size": (
        "class M(pl.LightningModule):\n    def f(self):\n        return self.model_size\n",
        "TL237",
    ),
    "weights_save_path_read": (
        "trainer = pl.Trainer()\nprint(trainer.weights_save_path)\n",
        "TL217",
    ),
    "reset_loaders": ("trainer = pl.Trainer()\ntrainer.reset_train_val_dataloaders()\n", "TL237"),
    "lr_schedulers": ("trainer = pl.Trainer()\nprint(trainer.lr_schedulers)\n", "TL237"),
    "pick_single_gpu": (
        (
            "from pytorch_lightning.tuner.auto_gpu_select import pick_single_gpu\n"
            "gpu = pick_single_gpu(exclude_gpus=[])\n"
        ),
        "TL237",
    ),
    "profiler_output_filename": (
        "p = pl.profiler.SimpleProfiler(output_filename='p.txt')\n",
        "TL235",
    ),
    "tune": ("trainer = pl.Trainer()\ntrainer.tune(model)\n", "TL210"),
    "from_argparse_args": ("trainer = pl.Trainer.from_argparse_args(args)\n", "TL237"),
    "summarize": (
        "class M(pl.LightningModule):\n    def f(self):\n        self.summarize()\n",
        "TL237",
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


def test_module_paths_renamed_under_every_target():
    source = (
        "from pytorch_lightning.core.lightning import LightningModule\n"
        "from pytorch_lightning.metrics import Accuracy\n"
        "acc = Accuracy(task='binary')\n"
    )
    expected = {
        "pytorch_lightning": "from pytorch_lightning.core.module import LightningModule\n",
        "lightning": "from lightning.pytorch.core.module import LightningModule\n",
        "runtime": "from torchlift.runtime.core.module import LightningModule\n",
    }
    for target, first in expected.items():
        result = upgrade(source, target)
        assert result.output == first + (
            "from torchmetrics import Accuracy\nacc = Accuracy(task='binary')\n"
        ), target
        assert {"TL234", "TL233"} <= set(codes(result, "info"))


def test_metrics_attribute_becomes_torchmetrics():
    result = upgrade(HEADER + "m = pl.metrics.MeanSquaredError()\n")
    assert result.output == HEADER + "import torchmetrics\n\nm = torchmetrics.MeanSquaredError()\n"


def test_classification_metric_without_task_is_reported():
    result = upgrade("from pytorch_lightning.metrics import Accuracy\nacc = Accuracy()\n")
    assert "TL233" in codes(result, "warning")


def test_profiler_keeps_lightning_imports_for_the_runtime():
    source = "from pytorch_lightning.profiler import SimpleProfiler\n"
    result = upgrade(source, "runtime")
    assert result.output == "from pytorch_lightning.profilers import SimpleProfiler\n"
    assert "TL251" in codes(result, "warning") and "TL235" in codes(result, "info")


def test_file_without_1x_constructs_is_left_to_the_engine():
    source = HEADER + "trainer = pl.Trainer(max_epochs=1)\n"
    result = upgrade(source, "runtime")
    assert result.output == source
    assert not [c for c in codes(result) if c.startswith("TL2")]


def test_dotted_import_keeps_the_lightning_root():
    source = "import pytorch_lightning.callbacks\nt = pytorch_lightning.Trainer(gpus=0)\n"
    result = upgrade(source, "runtime")
    assert result.output == (
        'import pytorch_lightning.callbacks\nt = pytorch_lightning.Trainer(accelerator="cpu")\n'
    )
    assert "TL251" in codes(result, "warning")


def test_bare_root_import_follows_the_target():
    source = "import pytorch_lightning\nt = pytorch_lightning.Trainer(gpus=0)\n"
    result = upgrade(source, "lightning")
    assert result.output == (
        "import lightning.pytorch as pytorch_lightning\n"
        't = pytorch_lightning.Trainer(accelerator="cpu")\n'
    )


def test_summarize_outside_a_lightning_module_is_not_lightnings():
    source = HEADER + "class Report:\n    def f(self):\n        return self.summarize()\n"
    assert upgrade(source).findings == upgrade(source.replace("summarize", "other")).findings


def test_a_datamodule_attribute_the_module_sets_itself_is_its_own():
    source = HEADER + (
        "class M(pl.LightningModule):\n"
        "    def __init__(self, dm):\n        super().__init__()\n        self.datamodule = dm\n"
        "    def f(self):\n        return self.datamodule.x\n"
    )
    result = upgrade(source)
    assert result.output == source and "TL237" not in codes(result)
