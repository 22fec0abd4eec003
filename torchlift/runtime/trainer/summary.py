"""The model table Lightning prints at fit start (`enable_model_summary=True`)."""

from __future__ import annotations

import sys

import torch


def _human(count: int) -> str:
    for unit, size in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return str(count)


def summarize(module: torch.nn.Module) -> str:
    rows = [("", "Name", "Type", "Params", "Mode")]
    for index, (name, child) in enumerate(module.named_children()):
        params = sum(p.numel() for p in child.parameters())
        rows.append(
            (
                str(index),
                name,
                type(child).__name__,
                _human(params),
                "train" if child.training else "eval",
            )
        )
    widths = [max(len(row[col]) for row in rows) for col in range(5)]
    lines = [
        " | ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows
    ]
    rule = "-" * max(len(line) for line in lines)
    trainable = sum(p.numel() for p in module.parameters() if p.requires_grad)
    total = sum(p.numel() for p in module.parameters())
    size_mb = sum(p.numel() * p.element_size() for p in module.parameters()) / 1e6
    lines = [lines[0], rule, *lines[1:], rule]
    lines += [
        f"{_human(trainable):<10}Trainable params",
        f"{_human(total - trainable):<10}Non-trainable params",
        f"{_human(total):<10}Total params",
        f"{size_mb:<10.3f}Total estimated model params size (MB)",
    ]
    return "\n".join(lines)


def print_summary(module: torch.nn.Module) -> None:
    print(summarize(module), file=sys.stderr)
