"""Pattern: a loader read in a hook is read as the Trainer's loader of the loop running then.

    for epoch in range(N):
        ...batch loop over train_loader...
        for x, y in test_loader: ...             -> validation_step: `test_loader` validated
        print(val_loss / len(test_loader))       -> `len(self.trainer.val_dataloaders)`
    for x, y in test_loader: ...                 -> test_step (trainer.test(..., test_loader))
    print(hits / len(test_loader))               -> `len(self.trainer.test_dataloaders)`

The Trainer holds each loader only while its loop runs: during `fit` the training and validation
loaders (`self.trainer.test_dataloaders` is None), during `test` only the test loader (on
Lightning `train_dataloader` and `val_dataloaders` are None there). So one name of the script
maps by the role it plays in each hook (emit/module_class.py): a loader validated over during
training and tested on after it is `val_dataloaders` in the training and validation hooks and
`test_dataloaders` in the test hooks — the same object either way.

Refused (TL152) at the line of the read: a loader the Trainer does not hold in the loop whose
hook reads it — the test loader read by training or validation code, the training or
validation loader read by the test pass (the conversion would read None).
"""

from __future__ import annotations

import libcst as cst

from ..analysis.names import collect_names, variable_uses
from ..resolve_names import pieces_of
from ..rule import Rule

LOADER_OUT_OF_ITS_LOOP = Rule(
    "TL152",
    "a loader read where the Trainer does not hold it",
    """The Trainer holds each dataloader only while its own loop runs: the training and
    validation loaders during `fit`, the test loader during `test`. Code moved into a training or
    validation hook that reads the test loader (e.g. `len(test_loader)`), or code of the test
    pass that reads the training or validation loader, would read None there
    (`self.trainer.test_dataloaders` while fitting, `self.trainer.train_dataloader` while
    testing on Lightning).""",
    """Compute what you need of that loader before the loop (`n_test = len(test_loader)`) and
    read that value, or iterate the loader the pass really runs over.""",
    """
    test_loader = DataLoader(TensorDataset(torch.randn(6, 4), torch.randint(0, 2, (6,))))
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        print(epoch, len(test_loader))
    hits = 0
    with torch.no_grad():
        for x, y in test_loader:
            hits += (model(x).argmax(1) == y).sum().item()
    print(hits)
    """,
)

RULES = (LOADER_OUT_OF_ITS_LOOP,)

_TEST_HOOKS = ("on_test_epoch_start", "test_step", "on_test_epoch_end")


def clean(ctx, plan) -> None:
    """Block each read of a loader in a hook of a loop that does not hold it."""
    if plan.test is None:
        return
    fitted = {plan.train_loader}
    if plan.validation is not None:
        fitted |= {plan.validation.loader, *plan.validation.more_loaders}
    tested = {plan.test.loader}
    pieces = pieces_of(plan)
    pieces.pop("configure_optimizers")  # reads the loaders the script passed in
    for hook, piece in pieces.items():
        testing = hook in _TEST_HOOKS
        foreign = (fitted - tested) if testing else (tested - fitted)
        for node in piece:
            if node is None or isinstance(node, cst.BaseExpression):
                continue  # a batch target binds, it reads no loader
            for name in sorted(collect_names(node).reads & foreign):
                ctx.block(
                    LOADER_OUT_OF_ITS_LOOP, _why(name, testing), _read(plan, node, name, testing)
                )
                break


def _read(plan, node, name: str, testing: bool) -> cst.CSTNode:
    """The script's own read of `name`, for its line: the test pass's statements were rewritten
    (its prints), the script's section of them was not; elsewhere the name itself."""
    stmts = plan.test_stmts if testing else []
    written = [use for stmt in stmts for use in variable_uses(stmt, name)]
    uses = variable_uses(node, name)
    return (written or uses or [node])[0]


def _why(name: str, testing: bool) -> str:
    if testing:
        return (
            f"the test pass reads `{name}`, a loader of the training run: the Trainer does "
            "not hold it while testing"
        )
    return (
        f"code moved into the training run reads `{name}`, the loader the conversion tests "
        "on after it: the Trainer holds it only while testing"
    )
