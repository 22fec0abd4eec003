"""Lightning 1.x -> 2.x, row by row of Lightning's upgrade guide (rule codes TL2xx).

    upgrade_lightning(text, path, target) -> MigrationResult | None

None when the file does not import Lightning or has nothing of 1.x in it (the engine then
answers as before). Otherwise every row family gathers its edits and findings over one
parsed module (qualified names from the file's imports), the edits are applied in one pass,
the Lightning imports are pointed at `--target`, and the output is compiled before it is
returned. Rows that cannot be applied mechanically are warnings at their line; the rest of
the file is still upgraded. Code outside rewritten nodes keeps its bytes.

Row families, each owning its codes (`RULES`) and one visitor:
    trainer_flags      Trainer(gpus=..., distributed_backend=..., precision=16, ...)
    epoch_end_hooks    *_epoch_end(outputs), on_epoch_*, 1.x hook signatures
    calls_and_imports  fit(train_dataloader=), running_sanity_check, pl.metrics, sync_dist_op
    callbacks          ModelCheckpoint(filepath=, period=), EarlyStopping, ProgressBar, ...
    retarget           the import lines (1.x module paths, the --target engine)
"""

from __future__ import annotations

import ast
import re

_MENTIONS_LIGHTNING = re.compile(r"\b(?:pytorch_lightning|lightning)\b")


def mentions_lightning(text: str) -> bool:
    """Whether the file may import Lightning (a regex: no parse needed to answer)."""
    return _MENTIONS_LIGHTNING.search(text) is not None


def upgrade_lightning(text: str, path: str, target_module: str, tree: ast.Module):
    """The upgrade of a file importing Lightning, or None when there is nothing to upgrade.
    `tree` is CPython's ast of `text` (the engine has it already)."""
    if _MENTIONS_LIGHTNING.search(text) is None:  # most files stop at this regex
        return None
    from .pipeline import FAMILIES, upgrade
    from .triggers import index

    found = index(tree)
    if not any(family.may_apply(found) for family in FAMILIES):
        return None  # 2.x code: no libcst parse

    try:
        return upgrade(text, path, target_module)
    except Exception as exc:  # noqa: BLE001 - never a traceback for the user: keep the file
        from ..result import Finding, MigrationResult

        message = (
            f"internal error while upgrading ({type(exc).__name__}: {exc}); file left unchanged"
        )
        return MigrationResult(path, text, text, [Finding(path, 1, 0, "TL900", message, "warning")])
