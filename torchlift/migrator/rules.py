"""Rule codes the migrator reports. Stable: users grep for them and the CLI lists them."""

from __future__ import annotations

from .result import Finding
from .static_check import RULES as STATIC_CHECK_RULES

CONVERTED = "TL001"  # a converted loop, and every change its conversion made

RULES: dict[str, str] = {
    "TL001": "training loop converted to a LightningModule + Trainer",
    "TL002": "no training loop found; file left unchanged",
    "TL003": "file already uses Lightning; left unchanged",
    "TL101": "loop with backward() is not an epoch loop over range(...) around a batch loop",
    "TL102": "`while` training loops are not converted",
    "TL103": "training loop is not at module level, in a function body or under `if __name__`",
    "TL104": "batch loop does not iterate a loader name (enumerate/tqdm of a name are accepted)",
    "TL105": "optimizer step sequence not understood (zero_grad/backward/step)",
    "TL106": "optimizer, scheduler or loss binding not understood",
    "TL107": "loop body uses control flow that cannot be kept faithfully (break/continue/return)",
    "TL108": "loop code reads a name that cannot be passed to the LightningModule",
    "TL109": "epoch-level statement cannot be placed in a Lightning hook faithfully",
    "TL110": "evaluation loop shape not understood",
    "TL111": "training helper function shape not understood",
    "TL112": "code after the loop reads a name the loop wrote that cannot be carried back",
    "TL113": "mixed precision / gradient scaling pattern not understood",
    "TL114": "gradient accumulation or conditional backward not understood",
    **STATIC_CHECK_RULES,
    "TL900": "internal error while converting; file left unchanged (please report)",
}


class Unsupported(Exception):
    """Raised inside gathering when a loop cannot be planned; becomes a warning Finding."""

    def __init__(self, code: str, reason: str, node=None):
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.node = node


def make_finding(path: str, line: int, column: int, code: str, message: str, severity: str):
    return Finding(path, line, column, code, message, severity)
