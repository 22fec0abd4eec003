"""Compare two traced runs: per-step losses, then the final values of the trained tensors."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Comparison:
    """How the converted run's numbers relate to the original's."""

    outcome: str  # "identical" | "close" | "diverged"
    steps: int  # steps compared (both runs recorded them)
    max_rel: float = 0.0  # largest relative difference seen among compared losses
    step: int | None = None  # first differing step (1-based), when diverged on losses
    detail: str = ""  # what differed, for the verdict line

    @property
    def equal(self) -> bool:
        return self.outcome in ("identical", "close")


def relative_difference(a: float, b: float) -> float:
    if a == b or (math.isnan(a) and math.isnan(b)):
        return 0.0
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return math.inf
    return abs(a - b) / max(abs(a), abs(b))


def losses_close(a: float, b: float, rtol: float) -> bool:
    # An absolute floor far below rtol keeps losses that are ~0 from failing on rounding noise.
    return relative_difference(a, b) <= rtol or abs(a - b) <= rtol * 1e-3


def compare_runs(original, converted, rtol: float) -> Comparison:
    """original / converted: TracedRun-like objects with `losses` and `params`."""
    a, b = original.losses, converted.losses
    shared = min(len(a), len(b))
    diffs = [relative_difference(x, y) for x, y in zip(a, b)]
    max_rel = max(diffs, default=0.0)
    for index, (x, y) in enumerate(zip(a, b)):
        if not losses_close(x, y, rtol):
            detail = (
                f"original {x:.9g} vs converted {y:.9g} "
                f"(relative difference {diffs[index]:.2e} > rtol {rtol:g})"
            )
            return Comparison("diverged", shared, max_rel, index + 1, detail)
    if len(a) != len(b):
        detail = f"the original recorded {len(a)} training steps and the converted script {len(b)}"
        return Comparison("diverged", shared, max_rel, shared + 1, detail)
    other_ranks = _compare_other_ranks(original, converted, rtol)
    if other_ranks is not None:
        return other_ranks
    params = compare_params(original.params, converted.params, rtol)
    if params is not None and not params[0]:
        return Comparison("diverged", shared, max_rel, None, params[1])
    exact = all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b))
    if exact and (params is None or params[2]):
        return Comparison("identical", shared, 0.0, None, params[1] if params else "")
    detail = params[1] if params is not None else ""
    return Comparison("close", shared, max_rel, None, detail)


def _compare_other_ranks(original, converted, rtol: float) -> Comparison | None:
    """DDP runs: every rank's losses, as rank 0's (None when they all agree)."""
    a = getattr(original, "rank_losses", None) or {}
    b = getattr(converted, "rank_losses", None) or {}
    if sorted(a) != sorted(b):
        detail = f"the original ran {len(a) + 1} processes and the converted script {len(b) + 1}"
        return Comparison("diverged", len(original.losses), 0.0, None, detail)
    for rank in sorted(a):
        for index, (x, y) in enumerate(zip(a[rank], b[rank])):
            if not losses_close(x, y, rtol):
                detail = f"rank {rank}: original {x:.9g} vs converted {y:.9g}"
                return Comparison("diverged", len(a[rank]), 0.0, index + 1, detail)
        if len(a[rank]) != len(b[rank]):
            detail = (
                f"rank {rank}: the original recorded {len(a[rank])} training steps and the "
                f"converted script {len(b[rank])}"
            )
            return Comparison("diverged", len(a[rank]), 0.0, None, detail)
        if rtol == 0.0 and any(x != y for x, y in zip(a[rank], b[rank])):
            return Comparison("close", len(a[rank]), 0.0, None, f"rank {rank} within rtol")
    return None


def compare_params(original, converted, rtol: float):
    """(equal within rtol, description, bit-identical), or None when a run has no record.

    Tensors are matched in the order the autograd graph reached them; if that order differs
    (a wrapper reached the same parameters another way) they are matched by shape and value.
    """
    if original is None or converted is None:
        return None
    if len(original) != len(converted):
        return (
            False,
            f"the original trained {len(original)} tensors and the converted script "
            f"{len(converted)}",
            False,
        )
    if all(_same_shape(x, y) and _tensors_close(x, y, rtol) for x, y in zip(original, converted)):
        pairs = list(zip(original, converted))
    else:
        pairs = _match_by_value(original, converted, rtol)
        if pairs is None:
            worst = _worst_pair(original, converted)
            return False, f"final parameters differ ({worst})", False
    identical = all(_tensors_equal(x, y) for x, y in pairs)
    max_rel = max((_max_rel(x, y) for x, y in pairs), default=0.0)
    count = sum(x.numel() for x, _ in pairs)
    text = f"final parameters: {len(pairs)} tensors, {count} values, " + (
        "identical" if identical else f"max relative difference {max_rel:.2e}"
    )
    return True, text, identical


def _same_shape(x, y) -> bool:
    return tuple(x.shape) == tuple(y.shape) and x.dtype == y.dtype


def _tensors_close(x, y, rtol: float) -> bool:
    import torch

    if x.is_floating_point() or x.is_complex():
        x, y = x.double(), y.double()
        return bool(torch.allclose(x, y, rtol=rtol, atol=rtol * 1e-3, equal_nan=True))
    return bool(torch.equal(x, y))


def _tensors_equal(x, y) -> bool:
    import torch

    return bool(torch.equal(x, y)) or (
        x.is_floating_point() and bool(torch.allclose(x, y, rtol=0, atol=0, equal_nan=True))
    )


def _max_rel(x, y) -> float:
    if not x.is_floating_point() or x.numel() == 0:
        return 0.0
    x, y = x.double(), y.double()
    scale = x.abs().clamp_min(y.abs()).clamp_min(1e-30)
    rel = ((x - y).abs() / scale).nan_to_num(0.0)
    return float(rel.max())


def _match_by_value(original, converted, rtol: float):
    unused = list(converted)
    pairs = []
    for x in original:
        for j, y in enumerate(unused):
            if _same_shape(x, y) and _tensors_close(x, y, rtol):
                pairs.append((x, unused.pop(j)))
                break
        else:
            return None
    return pairs


def _worst_pair(original, converted) -> str:
    for index, (x, y) in enumerate(zip(original, converted)):
        if not _same_shape(x, y):
            return (
                f"tensor {index + 1}: shape {tuple(x.shape)} in the original, "
                f"{tuple(y.shape)} in the converted script"
            )
    rel = max(
        ((_max_rel(x, y), i) for i, (x, y) in enumerate(zip(original, converted))),
        default=(0.0, 0),
    )
    return f"tensor {rel[1] + 1} of shape {tuple(original[rel[1]].shape)}: max relative diff {rel[0]:.2e}"
