"""`Checkpoint`: the base class the trainer recognises as "a checkpointing callback"."""

from __future__ import annotations

from torchlift.runtime.callbacks.callback import Callback


class Checkpoint(Callback):
    """Subclass this so `Trainer(enable_checkpointing=True)` does not add a default `ModelCheckpoint`."""
