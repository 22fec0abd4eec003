"""What a rule is: a stable code with its explanation, and the refusal that carries one.

A rule is defined once, by the module that reports it (see registry.py); `rules.py` builds the
table every other part reads, and `migrate --explain CODE` prints `Rule.explain()`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

# What every example starts from, unless it says otherwise: `migrate --explain` prints it once
# above the example, and the rule tests prepend it before migrating the example.
EXAMPLE_HEADER = """\
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Linear(4, 2)
loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
"""


@dataclass(frozen=True)
class Rule:
    """One rule code. `title` is the line of the rules table; `example` is a script (after
    EXAMPLE_HEADER when `uses_header`) that the migrator reports with this code."""

    code: str
    title: str
    explanation: str
    fix: str
    example: str | None = None  # None: cannot be shown by an example (internal error)
    uses_header: bool = True
    converts: bool = False  # the example is converted (not refused)

    def example_source(self) -> str | None:
        """The whole example script, as the migrator sees it."""
        if self.example is None:
            return None
        body = textwrap.dedent(self.example).lstrip("\n")
        return EXAMPLE_HEADER + body if self.uses_header else body

    def explain(self) -> str:
        """The text of `migrate --explain CODE`."""
        parts = [f"{self.code}: {self.title}", "", _para(self.explanation)]
        if self.example is not None:
            outcome = "converted" if self.converts else f"left unchanged, reported as {self.code}"
            parts += ["", f"Example ({outcome}):"]
            if self.uses_header:
                parts.append("    # model, loader, optimizer, criterion bound as usual, then:")
            parts.append(textwrap.indent(textwrap.dedent(self.example).strip("\n"), "    "))
        parts += ["", "What you can do:", _para(self.fix)]
        return "\n".join(parts) + "\n"


def _para(text: str) -> str:
    return textwrap.fill(" ".join(text.split()), width=88)


class Unsupported(Exception):
    """Raised while planning a loop that cannot be converted faithfully; becomes a warning
    Finding with the rule's code and this precise reason."""

    def __init__(self, rule: Rule, reason: str, node=None):
        super().__init__(reason)
        self.rule = rule
        self.code = rule.code
        self.reason = reason
        self.node = node


class Refused(Exception):
    """Every reason a loop cannot be converted (each an Unsupported), found in one pass."""

    def __init__(self, blockers: list[Unsupported]):
        super().__init__("; ".join(b.reason for b in blockers))
        self.blockers = blockers
