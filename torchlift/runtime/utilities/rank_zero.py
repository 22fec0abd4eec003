"""Run things once per job: on the process whose global rank is zero."""

from __future__ import annotations

import functools
import logging
import os
import warnings
from typing import Any, Callable, TypeVar

T = TypeVar("T")
log = logging.getLogger("torchlift.runtime")


def _rank_from_environment() -> int:
    # Launchers set one of these before the script starts; the DDP strategy overwrites
    # `rank_zero_only.rank` once the process group exists.
    for key in ("RANK", "LOCAL_RANK", "SLURM_PROCID", "JSM_NAMESPACE_RANK"):
        if key in os.environ:
            return int(os.environ[key])
    return 0


def rank_zero_only(fn: Callable[..., T]) -> Callable[..., T | None]:
    """Decorator: call `fn` on global rank zero only; other ranks get None."""

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> T | None:
        if rank_zero_only.rank == 0:
            return fn(*args, **kwargs)
        return None

    return wrapped


rank_zero_only.rank = _rank_from_environment()  # type: ignore[attr-defined]


@rank_zero_only
def rank_zero_info(*args: Any, **kwargs: Any) -> None:
    log.info(*args, **kwargs)


@rank_zero_only
def rank_zero_warn(message: str, category: type[Warning] = UserWarning, stacklevel: int = 4) -> None:
    warnings.warn(message, category, stacklevel=stacklevel)


@rank_zero_only
def rank_zero_print(*args: Any, **kwargs: Any) -> None:
    print(*args, **kwargs)
