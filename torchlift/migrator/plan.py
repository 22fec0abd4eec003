"""The plan gathered for one training loop: what the transform needs, nothing more.

A plan is only built when every part of the loop was understood (see gather_loops.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst


@dataclass
class EvalPlan:
    """A validation or test pass: `with torch.no_grad(): for batch in loader: ...`."""

    loader: str
    target: cst.BaseAssignTargetExpression
    index: str | None
    before: list[cst.BaseStatement]  # -> on_*_epoch_start
    body: list[cst.BaseStatement]  # -> *_step
    after: list[cst.BaseStatement]  # -> epoch-end hook
    anchor: cst.CSTNode  # outermost statement of the pass (for removal when after training)


@dataclass
class LoopPlan:
    epoch_loop: cst.For
    container: cst.CSTNode  # Module, or the IndentedBlock of a function / `if __name__` body
    in_function: bool
    epoch_var: str | None
    epoch_start: cst.BaseExpression | None  # None: epochs counted from 0
    max_epochs: cst.BaseExpression
    # training
    train_loader: str
    train_target: cst.BaseAssignTargetExpression
    train_index: str | None
    train_body: list[cst.BaseStatement]
    loss_name: str
    pre_train: list[cst.BaseStatement]
    post_train: list[cst.BaseStatement]
    # bindings
    model: str
    model_class: str | None
    forward_params: cst.Parameters | None
    optimizer: str
    optimizer_stmt: cst.SimpleStatementLine
    scheduler: str | None = None
    scheduler_stmt: cst.SimpleStatementLine | None = None
    scheduler_interval: str = "epoch"
    device_names: set[str] = field(default_factory=set)
    clip: tuple[cst.BaseExpression, str] | None = None  # (value, "norm" | "value")
    precision: str | None = None
    validation: EvalPlan | None = None
    test: EvalPlan | None = None
    # statements of the container to delete / strip of device moves
    remove_stmts: list[cst.CSTNode] = field(default_factory=list)
    strip_stmts: list[cst.CSTNode] = field(default_factory=list)
    # filled by resolve_names
    init_args: list[str] = field(default_factory=list)
    state: set[str] = field(default_factory=set)
    rebind_after: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    inlined_helpers: list[str] = field(default_factory=list)
    index_start: dict = field(default_factory=dict)  # index name -> start expression
    loss_capture: str | None = None  # name holding the loss when the loop rebinds `loss`
    device_after: str | None = None  # device name code after the loop still uses
    break_flag: bool = False
    accumulate: cst.BaseExpression | None = None  # accumulate_grad_batches
    scheduler_monitor: str | None = None  # logged metric a ReduceLROnPlateau follows
    precision_enabled: cst.BaseExpression | None = None  # autocast(enabled=...) expression
    scaler: str | None = None  # GradScaler name (its construction is removed)
    test_stmts: list = field(default_factory=list)  # container statements of the test pass
    test_rebind: list = field(default_factory=list)  # names the test pass sets, read later
    model_aliases: set = field(default_factory=set)  # names of a DataParallel wrapper
    optim_after: list = field(default_factory=list)  # optimizer/scheduler read after the loop
    loader_args: list = field(
        default_factory=list
    )  # loaders configure_optimizers reads  # `break` after optimizer.step(): end the epoch early
