"""Qualified names of expressions, resolved through the file's imports (TorchFix's habit):
`optim.SGD` with `from torch import optim` is `torch.optim.SGD`, whatever the spelling."""

from __future__ import annotations

import builtins

import libcst as cst
from libcst.helpers import get_full_name_for_node

# progress bars around a loader or a range: looked through, Lightning draws its own
# torch's grad modes, as decorators or context managers
GRAD_MODES = frozenset(
    {
        "torch.no_grad",
        "torch.inference_mode",
        "torch.set_grad_enabled",
        "torch.autograd.no_grad",
        "torch.autograd.inference_mode",
        "torch.autograd.set_grad_enabled",
        "torch.autograd.grad_mode.no_grad",
        "torch.autograd.grad_mode.inference_mode",
        "torch.autograd.grad_mode.set_grad_enabled",
    }
)
# decorators that only set torch's grad mode around a call: the arguments reach the function
# and its result the caller unchanged (`@torch.set_grad_enabled(flag)` takes a mode: left out)
NO_GRAD_DECORATORS = frozenset(q for q in GRAD_MODES if not q.endswith(".set_grad_enabled"))
GRAD_MODE_DECORATORS = NO_GRAD_DECORATORS | {
    "torch.enable_grad",
    "torch.autograd.enable_grad",
    "torch.autograd.grad_mode.enable_grad",
}


def is_grad_mode_decorator(ctx, decorator: cst.Decorator, kinds=GRAD_MODE_DECORATORS) -> bool:
    """`@torch.no_grad()`, `@torch.inference_mode()`, `@torch.enable_grad()` (or without the
    call; one of `kinds`), by qualified name."""
    called = decorator.decorator
    plain = called.func if isinstance(called, cst.Call) and not called.args else called
    return bool(ctx.qualnames(plain) & kinds)


TQDM = frozenset(
    {
        "tqdm.tqdm",
        "tqdm.auto.tqdm",
        "tqdm.autonotebook.tqdm",
        "tqdm.asyncio.tqdm",
        "tqdm.asyncio.tqdm_asyncio",
        "tqdm.notebook.tqdm",
        "tqdm.std.tqdm",
        "tqdm.rich.tqdm",
    }
)
# the bars whose __init__ calls iter() on what they wrap: tqdm.asyncio.tqdm_asyncio, which
# tqdm.auto.tqdm is (or, in a notebook, derives from): one more iterator of a loader per bar
# (patterns/bar_draws.py). tqdm.std's, tqdm.notebook's and tqdm.autonotebook's do not.
ITERATING_BARS = frozenset({"tqdm.auto.tqdm", "tqdm.asyncio.tqdm", "tqdm.asyncio.tqdm_asyncio"})
TRANGE = frozenset({"tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange", "tqdm.std.trange"})

# deprecated aliases torch still runs, each the very function it names (torch 2.x's
# `clip_grad_norm` warns and calls `clip_grad_norm_`): a call of one is read as the other too,
# so every pattern knowing the current name knows the old spelling
SAME_FUNCTIONS = {
    "torch.nn.utils.clip_grad_norm": "torch.nn.utils.clip_grad_norm_",
    "torch.nn.utils.clip_grad.clip_grad_norm": "torch.nn.utils.clip_grad.clip_grad_norm_",
}


class Qualnames:
    def __init__(self, imports: dict[str, str]) -> None:
        self.imports = imports  # bound name -> qualified name (inputs.import_table)

    def of(self, node: cst.CSTNode) -> set[str]:
        dotted = get_full_name_for_node(node)
        if not dotted:
            return set()
        head, _, rest = dotted.partition(".")
        if head in self.imports:
            qualified = self.imports[head] + ("." + rest if rest else "")
            same = SAME_FUNCTIONS.get(qualified)
            return {qualified} if same is None else {qualified, same}
        if not rest and hasattr(builtins, head):
            return {f"builtins.{head}"}
        return set()

    def of_call(self, node: cst.CSTNode) -> set[str]:
        """The qualified names of the function `node` calls (empty when not a call)."""
        return self.of(node.func) if isinstance(node, cst.Call) else set()

    def alias(self, qualified: str) -> str | None:
        """The name the file imports the module `qualified` as (`torch`), or None: generated
        code spells its calls through it."""
        return next((name for name, q in self.imports.items() if q == qualified), None)
