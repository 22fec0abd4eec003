"""What a callback writes into `trainer.callback_metrics` is seen by the callbacks after it."""

import pytest
import torch
from runtime_engines import QUIET, engine, engines, loaders, make_model


@pytest.mark.parametrize("name", engines())
def test_a_metric_written_by_one_callback_is_read_by_the_next(name):
    L = engine(name)
    seen = []

    class Writer(L.Callback):
        def on_train_epoch_end(self, trainer, pl_module):
            trainer.callback_metrics["custom"] = torch.tensor(float(trainer.current_epoch))
            trainer.callback_metrics.update(other=torch.tensor(7.0))

    class Reader(L.Callback):
        def on_train_epoch_end(self, trainer, pl_module):
            metrics = trainer.callback_metrics
            seen.append((float(metrics["custom"]), float(metrics["other"])))

    L.seed_everything(0)
    train, _ = loaders()
    trainer = L.Trainer(max_epochs=2, callbacks=[Writer(), Reader()], **QUIET)
    trainer.fit(make_model(L), train)
    assert seen == [(0.0, 7.0), (1.0, 7.0)]
