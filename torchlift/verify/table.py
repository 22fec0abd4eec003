"""The side-by-side table `migrate --verify` prints: step, original loss, converted loss, diff."""

from __future__ import annotations

from torchlift.verify.compare import losses_close, relative_difference

HEADER = f"{'step':>6}  {'original loss':>16}  {'converted loss':>16}  {'rel. diff':>9}"


def format_table(original: list[float], converted: list[float], rtol: float) -> str:
    """One row per step either run recorded; rows beyond rtol are marked with `<-`."""
    rows = [HEADER]
    for index in range(max(len(original), len(converted))):
        a = original[index] if index < len(original) else None
        b = converted[index] if index < len(converted) else None
        if a is None or b is None:
            diff, mark = "", "  <- missing"
        else:
            diff = f"{relative_difference(a, b):.1e}" if a != b else "0"
            mark = "" if losses_close(a, b, rtol) else "  <-"
        rows.append(f"{index + 1:>6}  {_value(a):>16}  {_value(b):>16}  {diff:>9}{mark}")
    return "\n".join(rows)


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.9g}"
