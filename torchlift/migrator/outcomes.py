"""File-level outcomes: converted, nothing to convert, already Lightning, internal error.

These are the engine's own codes; every loop-level refusal belongs to the shape or pattern
that recognises it (see registry.py).
"""

from __future__ import annotations

import re

from .rule import Rule

# `class X(L.LightningModule):` / `(LightningDataModule)`, bases possibly over several lines
_LIGHTNING_CLASS = re.compile(
    r"^[ \t]*class[ \t]+\w+[ \t]*\([^)]*?\bLightning(?:Data)?Module\b", re.M
)
_LOOP = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:for|while)[ \t(]", re.M)


def uses_lightning_text(text: str) -> bool:
    """A class subclassing LightningModule / LightningDataModule: already Lightning (TL003).
    Read from the text, so it answers before (and without) any parse."""
    return "Lightning" in text and _LIGHTNING_CLASS.search(text) is not None


def why_no_training_loop(text: str, step_function: tuple[str, int, int] | None = None) -> str:
    """TL002's message, with the reason: what a training loop needs that the file lacks.
    `step_function`: (name, def line, loop line) of a per-batch function calling backward()."""
    if step_function is not None:
        name, defined, loop = step_function
        why = (
            f"`.backward()` is called in `{name}()` (line {defined}), which the loop at line "
            f"{loop} calls: a per-batch step function is not inlined; move its "
            "zero_grad/backward/step into the batch loop"
        )
    elif "backward(" not in text:
        why = "nothing calls `.backward()`"
    elif _LOOP.search(text) is None:
        why = "`.backward()` is called, but the file has no `for`/`while` loop"
    else:
        why = "no `for`/`while` loop calls `.backward()`"
    return f"no training loop found ({why}); file left unchanged"


CONVERTED = Rule(
    "TL001",
    "training loop converted to a LightningModule + Trainer",
    """The loop was understood completely: its step became `training_step`, its epoch-level
    code became hooks, the optimizer moved to `configure_optimizers`, and the loop itself was
    replaced by `L.Trainer(...).fit(...)`. The message names the generated class and any note
    on a behaviour Lightning adds (for example a last partial accumulation group).""",
    """Review the diff, then check the numbers with `migrate --verify train.py`: it runs both
    scripts with the same seed and compares the loss of every step.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
    converts=True,
)

NO_TRAINING_LOOP = Rule(
    "TL002",
    "no training loop found; file left unchanged",
    """The migrator converts loops that call `.backward()`. The message says what was
    missing: no `.backward(` call at all, or no `for`/`while` loop around the one there is.
    Modules with only a model, a dataset or helpers are left as they are.""",
    """Nothing, if the file is not a training script. If it is, check that the training step
    calls `loss.backward()` inside `for epoch in range(...)` around `for batch in loader`.""",
    """
    import torch

    x = torch.randn(3, requires_grad=True)
    (x * 2).sum().backward()
    print(x.grad)
    """,
    uses_header=False,
)

ALREADY_LIGHTNING = Rule(
    "TL003",
    "file already uses Lightning; left unchanged",
    """A class in the file subclasses `LightningModule` or `LightningDataModule`: the script
    is already written for a Lightning trainer (or was migrated before), so migrating it
    again changes nothing. This is what makes `migrate` idempotent.""",
    """Nothing. To convert another loop of the same file, move it to its own script.""",
    """
    import lightning.pytorch as L


    class Classifier(L.LightningModule):
        def training_step(self, batch, batch_idx):
            return self.net(batch).sum()
    """,
    uses_header=False,
)

ALIAS_TAKEN = Rule(
    "TL118",
    "the names `L` and `pl` (the Lightning import alias) are both used in this file",
    """The converted script reaches Lightning through `import ... as L` (`L.Trainer`,
    `L.LightningModule`), or `as pl` when the script has a name `L` of its own (a sequence
    length). A file using both names has no alias left that would not shadow one of them.""",
    """Rename your `L` or `pl` (for example to `length` or `plot`), then migrate again.""",
    """
    L = 3
    pl = 2
    for epoch in range(L * pl):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

INTERNAL_ERROR = Rule(
    "TL900",
    "internal error while converting; file left unchanged (please report)",
    """The migrator itself failed on this file. Nothing was written; the message names the
    exception and where it happened.""",
    """Please report it with the smallest script that shows it. The file is unchanged, so
    nothing needs undoing.""",
)

RULES = (CONVERTED, NO_TRAINING_LOOP, ALREADY_LIGHTNING, ALIAS_TAKEN, INTERNAL_ERROR)
