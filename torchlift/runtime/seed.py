"""`seed_everything` and `isolate_rng`, with Lightning 2.x's semantics.

`isolate_rng` is what keeps the pre-training sanity check from shifting a run's random stream:
torch's (CPU and CUDA), numpy's and Python's generators are restored exactly on exit.
"""

from __future__ import annotations

import contextlib
import os
import random
from typing import Any, Iterator

import torch

from torchlift.runtime.utilities.rank_zero import rank_zero_info, rank_zero_warn

MAX_SEED = 4294967295  # numpy accepts uint32 seeds only
MIN_SEED = 0


def _numpy():
    # numpy is optional for torch; import lazily so `import torchlift.runtime` stays cheap.
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy ships with every torch wheel we test on
        return None
    return numpy


def seed_everything(seed: int | None = None, workers: bool = False, verbose: bool = True) -> int:
    """Seed python, numpy and torch (all devices); export PL_GLOBAL_SEED like Lightning does."""
    if seed is None:
        env_seed = os.environ.get("PL_GLOBAL_SEED")
        if env_seed is None:
            seed = 0
            rank_zero_warn(f"No seed found, seed set to {seed}")
        else:
            try:
                seed = int(env_seed)
            except ValueError:
                seed = 0
                rank_zero_warn(f"Invalid seed found: {env_seed!r}, seed set to {seed}")
    elif not isinstance(seed, int):
        seed = int(seed)
    if not MIN_SEED <= seed <= MAX_SEED:
        raise ValueError(
            f"seed_everything: seed={seed} is out of bounds; accepted: {MIN_SEED}..{MAX_SEED}"
        )
    if verbose:
        rank_zero_info(f"Seed set to {seed}")
    os.environ["PL_GLOBAL_SEED"] = str(seed)
    random.seed(seed)
    np = _numpy()
    if np is not None:
        np.random.seed(seed)
    torch.manual_seed(seed)  # also seeds every CUDA device
    os.environ["PL_SEED_WORKERS"] = f"{int(workers)}"
    return seed


def pl_worker_init_function(worker_id: int, rank: int | None = None) -> None:
    """The `worker_init_fn` added to loaders after `seed_everything(workers=True)`: each
    worker of each rank gets its own, reproducible torch / python / numpy seeds (Lightning's
    function, same seeds)."""
    global_rank = rank if rank is not None else int(os.environ.get("RANK", 0))
    base_seed = torch.initial_seed() - worker_id
    seeds = _generate_seed_sequence(base_seed, worker_id, global_rank, count=4)
    torch.manual_seed(seeds[0])
    random.seed((seeds[1] << 32) | seeds[2])
    np = _numpy()
    if np is not None:
        np.random.seed(
            np.random.SeedSequence([base_seed, worker_id, global_rank]).generate_state(4)
        )


def _generate_seed_sequence(base_seed: int, worker_id: int, global_rank: int, count: int) -> list:
    """MurmurHash3's finalizer on (base seed, worker, rank), then Knuth's LCG (as Lightning)."""
    mask = (1 << 64) - 1
    combined = (base_seed << 32) | (worker_id << 16) | global_rank
    combined ^= combined >> 33
    combined = (combined * 0xFF51AFD7ED558CCD) & mask
    combined ^= combined >> 33
    combined = (combined * 0xC4CEB9FE1A85EC53) & mask
    combined ^= combined >> 33
    seeds = []
    for _ in range(count):
        combined = (combined * 6364136223846793005 + 1) & mask
        seeds.append(combined)
    return seeds


def auto_add_worker_init_fn(dataloader: Any, rank: int) -> None:
    """After `seed_everything(workers=True)`, a loader without its own `worker_init_fn` gets
    `pl_worker_init_function` (Lightning's `_auto_add_worker_init_fn`)."""
    if not hasattr(dataloader, "worker_init_fn"):
        return
    if int(os.environ.get("PL_SEED_WORKERS", 0)) and dataloader.worker_init_fn is None:
        import functools

        dataloader.worker_init_fn = functools.partial(pl_worker_init_function, rank=rank)


def reset_seed() -> None:
    """Re-apply the seed exported by `seed_everything` (used by spawned ranks)."""
    seed = os.environ.get("PL_GLOBAL_SEED")
    if seed is None:
        return
    workers = os.environ.get("PL_SEED_WORKERS", "0")
    seed_everything(int(seed), workers=bool(int(workers)), verbose=False)


def collect_rng_states(include_cuda: bool = True) -> dict[str, Any]:
    """Snapshot of every global generator (plain types + tensors, so `weights_only` loads it)."""
    np = _numpy()
    states: dict[str, Any] = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if np is not None:
        kind, keys, pos, has_gauss, cached = np.random.get_state()
        states["numpy"] = (kind, torch.from_numpy(keys.astype("int64")), pos, has_gauss, cached)
    if include_cuda and torch.cuda.is_available() and torch.cuda.is_initialized():
        states["torch.cuda"] = torch.cuda.get_rng_state_all()
    return states


def restore_rng_states(states: dict[str, Any]) -> None:
    torch.set_rng_state(states["torch"])
    version, internal, gauss = states["python"]
    random.setstate((version, tuple(internal), gauss))
    np = _numpy()
    if np is not None and "numpy" in states:
        kind, keys, pos, has_gauss, cached = states["numpy"]
        keys = keys.numpy() if isinstance(keys, torch.Tensor) else np.asarray(keys)
        np.random.set_state((kind, keys.astype("uint32"), pos, has_gauss, cached))
    if "torch.cuda" in states and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["torch.cuda"])


@contextlib.contextmanager
def isolate_rng(include_cuda: bool = True) -> Iterator[None]:
    """Run the body, then put torch's, numpy's and Python's random state back as it was."""
    states = collect_rng_states(include_cuda)
    try:
        yield
    finally:
        restore_rng_states(states)
