"""Callbacks: noop inputs, (1.x, 2.x) pairs, reported rows."""

import pytest
from upgrade_helpers import HEADER, assert_pair, assert_reported, codes, upgrade

NOOP = [
    'cb = pl.callbacks.ModelCheckpoint(dirpath="c", filename="{epoch}", every_n_epochs=1)\n',
    'cb = pl.callbacks.EarlyStopping(monitor="val_loss")\n',
    'cb = pl.callbacks.EarlyStopping("val_loss")\n',
    "cb = pl.callbacks.TQDMProgressBar(refresh_rate=2)\n",
]

PAIRS = {
    "filepath_split": (
        'cb = pl.callbacks.ModelCheckpoint(filepath="ckpts/model-{epoch:02d}", period=2)\n',
        (
            'cb = pl.callbacks.ModelCheckpoint(dirpath="ckpts", filename="model-{epoch:02d}", '
            "every_n_epochs=2)\n"
        ),
    ),
    "every_n_val_epochs": (
        "cb = pl.callbacks.ModelCheckpoint(every_n_val_epochs=3)\n",
        "cb = pl.callbacks.ModelCheckpoint(every_n_epochs=3)\n",
    ),
    "progress_bar_attribute": (
        "cb = pl.callbacks.ProgressBar(refresh_rate=5)\n",
        "cb = pl.callbacks.TQDMProgressBar(refresh_rate=5)\n",
    ),
}

REPORTED = {
    "filepath_computed": ("cb = pl.callbacks.ModelCheckpoint(filepath=f)\n", "TL241"),
    "prefix": ('cb = pl.callbacks.ModelCheckpoint(prefix="a")\n', "TL243"),
    "early_stopping_monitor": (
        "cb = pl.callbacks.EarlyStopping(patience=3)\n",
        "TL244",
    ),
    "gpu_stats": ("cb = pl.callbacks.GPUStatsMonitor()\n", "TL246"),
    "ddp_plugin": ("p = pl.plugins.DDPPlugin(find_unused_parameters=False)\n", "TL247"),
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


def test_imported_progress_bar_renamed_with_its_uses():
    source = "from pytorch_lightning.callbacks import ProgressBar\nbar = ProgressBar()\n"
    result = upgrade(source)
    assert result.output == (
        "from pytorch_lightning.callbacks import TQDMProgressBar\nbar = TQDMProgressBar()\n"
    )


def test_subclassing_progress_bar_is_2x_code_and_stays():
    source = (
        "from lightning.pytorch.callbacks import ProgressBar\nclass Bar(ProgressBar):\n    pass\n"
    )
    assert upgrade(source, "lightning").output == source


def test_progress_bar_both_instantiated_and_subclassed_is_reported():
    source = (
        "from pytorch_lightning.callbacks import ProgressBar\n"
        "class Bar(ProgressBar):\n    pass\n"
        "bar = ProgressBar(refresh_rate=2)\n"
    )
    assert_reported(source, "TL245")


def test_aliased_progress_bar_import_renames_the_imported_name_only():
    source = (
        "from pytorch_lightning.callbacks import ProgressBar as Bar\nbar = Bar(refresh_rate=2)\n"
    )
    assert upgrade(source).output == (
        "from pytorch_lightning.callbacks import TQDMProgressBar as Bar\nbar = Bar(refresh_rate=2)\n"
    )
