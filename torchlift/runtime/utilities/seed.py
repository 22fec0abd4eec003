"""Mirror of `lightning.pytorch.utilities.seed`."""

from torchlift.runtime.seed import isolate_rng, reset_seed, seed_everything

__all__ = ["isolate_rng", "reset_seed", "seed_everything"]
