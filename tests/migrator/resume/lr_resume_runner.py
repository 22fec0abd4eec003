"""Run a converted script with its Trainer replaced by a resume check, and record the
learning rate of every optimizer step (usage: lr_resume_runner.py SCRIPT ENGINE OUT.json).

`ENGINE` is the module the script imports as `L` (torchlift.runtime or lightning.pytorch).
Its `Trainer` is replaced, before the script runs, by one whose `fit` trains three ways from
copies of the module the script built: uninterrupted for two more epochs than the script
asks, and, for each stop in STOPS, that many epochs, a checkpoint, and a fresh copy resumed
from it up to the same end. A fresh copy stands for a new process: only what the checkpoint
holds carries over.
"""

from __future__ import annotations

import copy
import importlib
import json
import runpy
import sys

STOPS = (1, 2)
EXTRA_EPOCHS = 2  # train past the script's end so a decay due later acts after a resume


def main(script: str, engine: str, out: str) -> None:
    L = importlib.import_module(engine)
    real_trainer = L.Trainer

    class LrLog(L.Callback):
        def __init__(self) -> None:
            self.lrs: list = []

        def on_before_optimizer_step(self, trainer, pl_module, optimizer) -> None:
            self.lrs.append([trainer.global_step, [g["lr"] for g in optimizer.param_groups]])

    class ResumeCheck:
        def __init__(self, **kwargs) -> None:
            self.kwargs = kwargs

        def trainer(self, log, epochs):
            quiet = dict(enable_checkpointing=False, enable_progress_bar=False, logger=False)
            return real_trainer(
                **{**self.kwargs, **quiet, "max_epochs": epochs, "callbacks": [log]}
            )

        def fit(self, model, *args, **kwargs) -> None:
            total = self.kwargs["max_epochs"] + EXTRA_EPOCHS
            copies = [copy.deepcopy(model) for _ in range(2 * len(STOPS))]
            full = LrLog()
            self.trainer(full, total).fit(model, *args, **kwargs)
            runs = {"full": full.lrs}
            for stop in STOPS:
                first, resumed = LrLog(), LrLog()
                trainer = self.trainer(first, stop)
                trainer.fit(copies.pop(), *args, **kwargs)
                path = f"stop{stop}.ckpt"
                trainer.save_checkpoint(path)
                self.trainer(resumed, total).fit(copies.pop(), *args, ckpt_path=path, **kwargs)
                runs[f"stop{stop}"] = first.lrs + resumed.lrs
            with open(out, "w") as handle:
                json.dump(runs, handle)

    L.Trainer = ResumeCheck
    sys.argv = [script]  # the script parses its own (empty) command line
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main(*sys.argv[1:])
