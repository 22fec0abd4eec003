"""Batch iteration for the loops.

Batches are fetched exactly when the loop needs them, like a plain `for batch in loader` (no
prefetch), so a dataset that draws random numbers per item interleaves them with the model's
dropout exactly as the original script did. Only a loader without `len()` is read one batch
ahead: that is the one way to know its last batch (for epoch-end validation and schedulers).
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

_MISSING = object()


def sized_len(loader: Any) -> Optional[int]:
    try:
        return len(loader)
    except (TypeError, NotImplementedError):
        return None


class BatchFetcher:
    def __init__(self, loader: Any, limit: float) -> None:
        self.loader = loader
        self.limit = limit  # int, or float("inf")
        self.sized = sized_len(loader) is not None
        self.iterator: Optional[Iterator] = None
        self.fetched = 0
        self.done = False
        self._ahead: Any = _MISSING

    def start(self, skip: int = 0) -> None:
        """`iter(loader)` (draws from torch's RNG, as every DataLoader does) and skip `skip` batches."""
        self.iterator = iter(self.loader)
        self.fetched = 0
        self.done = self.limit == 0
        self._ahead = _MISSING
        for _ in range(skip):
            next(self.iterator)
            self.fetched += 1
        if not self.sized:
            self._read_ahead()
        if self.fetched >= self.limit:
            self.done = True

    def _read_ahead(self) -> None:
        try:
            self._ahead = next(self.iterator)  # type: ignore[arg-type]
        except StopIteration:
            self._ahead = _MISSING
            self.done = True

    def __next__(self) -> Any:
        if self.done:
            raise StopIteration
        if self.sized:
            batch = next(self.iterator)  # type: ignore[arg-type]
            self.fetched += 1
            if self.fetched >= self.limit:
                self.done = True
            return batch
        batch = self._ahead
        self.fetched += 1
        if self.fetched >= self.limit:
            self.done = True
        else:
            self._read_ahead()
        return batch
