"""Epoch-end hooks and 1.x hook signatures: noop inputs, (1.x, 2.x) pairs, reported rows."""

import pytest
from upgrade_helpers import HEADER, assert_pair, assert_reported, codes, upgrade

NOOP = [
    # already 2.x
    (
        "class M(pl.LightningModule):\n"
        "    def on_validation_epoch_end(self):\n        pass\n"
        "    def on_train_batch_end(self, outputs, batch, batch_idx):\n        pass\n"
    ),
    # not a LightningModule: its methods are its own business
    "class M:\n    def validation_epoch_end(self, outputs):\n        pass\n",
]

PAIRS = {
    "validation_outputs_kept": (
        (
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.layer = 1\n"
            "\n"
            "    def validation_step(self, batch, batch_idx):\n"
            "        # the loss of this batch\n"
            "        return self.loss(batch)\n"
            "\n"
            "    def validation_epoch_end(self, outs):\n"
            '        """Mean loss."""\n'
            "        self.log('val', sum(outs))\n"
        ),
        (
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.validation_step_outputs = []\n"
            "        self.layer = 1\n"
            "\n"
            "    def validation_step(self, batch, batch_idx):\n"
            "        # the loss of this batch\n"
            "        self.validation_step_outputs.append(self.loss(batch))\n"
            "        return self.validation_step_outputs[-1]\n"
            "\n"
            "    def on_validation_epoch_end(self):\n"
            '        """Mean loss."""\n'
            "        outs, self.validation_step_outputs = self.validation_step_outputs, []\n"
            "        self.log('val', sum(outs))\n"
        ),
    ),
    "training_outputs_are_1x_dicts": (
        (
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        loss = self.loss(batch)\n"
            "        if loss is None:\n"
            "            return None\n"
            "        return loss\n"
            "\n"
            "    def training_epoch_end(self, outputs):\n"
            "        print(outputs[0]['loss'])\n"
        ),
        (
            "class M(pl.LightningModule):\n"
            "    def __init__(self, *args, **kwargs):\n"
            "        super().__init__(*args, **kwargs)\n"
            "        self.training_step_outputs = []\n"
            "\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        loss = self.loss(batch)\n"
            "        if loss is None:\n"
            "            return None\n"
            '        self.training_step_outputs.append({"loss": loss.detach()})\n'
            "        return loss\n"
            "\n"
            "    def on_train_epoch_end(self):\n"
            "        outputs, self.training_step_outputs = self.training_step_outputs, []\n"
            "        print(outputs[0]['loss'])\n"
        ),
    ),
    "long_generated_line_formatted_by_black": (
        (
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "\n"
            "    def validation_step(self, batch, batch_idx):\n"
            "        return {'val_loss': self.criterion(self.network(batch[0]), batch[1]), 'n': 1}\n"
            "\n"
            "    def validation_epoch_end(self, outputs):\n"
            "        pass\n"
        ),
        (
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.validation_step_outputs = []\n"
            "\n"
            "    def validation_step(self, batch, batch_idx):\n"
            "        self.validation_step_outputs.append(\n"
            '            {"val_loss": self.criterion(self.network(batch[0]), batch[1]), "n": 1}\n'
            "        )\n"
            "        return self.validation_step_outputs[-1]\n"
            "\n"
            "    def on_validation_epoch_end(self):\n"
            "        outputs, self.validation_step_outputs = self.validation_step_outputs, []\n"
            "        pass\n"
        ),
    ),
    "training_dict_literal": (
        (
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        return {'loss': self.l, 'acc': acc}\n"
            "    def training_epoch_end(self, outputs):\n"
            "        pass\n"
        ),
        (
            "class M(pl.LightningModule):\n"
            "    def __init__(self, *args, **kwargs):\n"
            "        super().__init__(*args, **kwargs)\n"
            "        self.training_step_outputs = []\n"
            "\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        self.training_step_outputs.append({'loss': self.l.detach(), 'acc': acc})\n"
            "        return {'loss': self.l, 'acc': acc}\n"
            "    def on_train_epoch_end(self):\n"
            "        outputs, self.training_step_outputs = self.training_step_outputs, []\n"
            "        pass\n"
        ),
    ),
    "batch_end_dataloader_idx": (
        (
            "class M(pl.LightningModule):\n"
            "    def on_train_batch_end(self, outputs, batch, batch_idx, dataloader_idx):\n"
            "        pass\n"
        ),
        (
            "class M(pl.LightningModule):\n"
            "    def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            "        pass\n"
        ),
    ),
    "optimizer_step_1x_signature": (
        (
            "class M(pl.LightningModule):\n"
            "    def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_idx,\n"
            "                       optimizer_closure, on_tpu=False, using_native_amp=False,\n"
            "                       using_lbfgs=False):\n"
            "        optimizer.step(closure=optimizer_closure)\n"
        ),
        (
            "class M(pl.LightningModule):\n"
            "    def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_closure):\n"
            "        optimizer.step(closure=optimizer_closure)\n"
        ),
    ),
    "callback_on_load_checkpoint": (
        (
            "class C(pl.Callback):\n"
            "    def on_load_checkpoint(self, checkpoint):\n"
            "        self.state = checkpoint['s']\n"
        ),
        (
            "class C(pl.Callback):\n"
            "    def on_load_checkpoint(self, trainer, pl_module, checkpoint):\n"
            "        self.state = checkpoint['s']\n"
        ),
    ),
}

REPORTED = {
    "on_train_epoch_end_outputs": (
        "class M(pl.LightningModule):\n    def on_train_epoch_end(self, outputs):\n        pass\n",
        "TL221",
    ),
    "callback_on_train_epoch_end_outputs": (
        (
            "class C(pl.Callback):\n"
            "    def on_train_epoch_end(self, trainer, pl_module, outputs):\n        pass\n"
        ),
        "TL221",
    ),
    "datamodule_on_save": (
        "class D(pl.LightningDataModule):\n    def on_save(self, checkpoint):\n        pass\n",
        "TL227",
    ),
    "on_epoch_end": (
        "class M(pl.LightningModule):\n    def on_epoch_end(self):\n        pass\n",
        "TL222",
    ),
    "several_optimizers": (
        (
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx, optimizer_idx):\n        pass\n"
        ),
        "TL226",
    ),
    "step_end_removed": (
        "class M(pl.LightningModule):\n    def validation_step_end(self, out):\n        pass\n",
        "TL227",
    ),
    "dataloader_idx_read": (
        (
            "class M(pl.LightningModule):\n"
            "    def on_train_batch_end(self, outputs, batch, batch_idx, dataloader_idx):\n"
            "        print(dataloader_idx)\n"
        ),
        "TL223",
    ),
    "training_return_not_understood": (
        (
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n        return self.f(batch)\n"
            "    def training_epoch_end(self, outputs):\n        pass\n"
        ),
        "TL221",
    ),
    "both_hooks_defined": (
        (
            "class M(pl.LightningModule):\n"
            "    def validation_step(self, batch, batch_idx):\n        return 1\n"
            "    def validation_epoch_end(self, outputs):\n        pass\n"
            "    def on_validation_epoch_end(self):\n        pass\n"
        ),
        "TL221",
    ),
    "several_val_loaders": (
        (
            "class M(pl.LightningModule):\n"
            "    def validation_step(self, batch, batch_idx, dataloader_idx=0):\n        return 1\n"
            "    def validation_epoch_end(self, outputs):\n        pass\n"
        ),
        "TL221",
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


def test_subclass_of_a_module_of_this_file_is_a_module():
    source = HEADER + (
        "class Base(pl.LightningModule):\n    pass\n"
        "class M(Base):\n    def on_epoch_start(self):\n        pass\n"
    )
    assert "TL222" in codes(upgrade(source), "warning")
