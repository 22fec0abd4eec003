"""The reasons a training loop is left unconverted (TL1xx), one rule per cause.

Each example is a loop (after rule.EXAMPLE_HEADER) that the migrator refuses with that code;
tests/migrator/test_rules.py migrates every one of them.
"""

from __future__ import annotations

from .rule import Rule

NOT_AN_EPOCH_LOOP = Rule(
    "TL101",
    "loop with backward() is not an epoch loop over range(...) around a batch loop",
    """The converted shape is `for epoch in range(N):` (or `range(a, b)`, `trange`, `tqdm(range
    (N))`) around one `for batch in loader:` loop. An outer loop over something else, a range
    with a step, or a batch loop with no epoch loop around it has no `max_epochs` to give the
    Trainer.""",
    """Write the epoch loop as `for epoch in range(num_epochs):`. A single pass over the data
    can be wrapped in `for epoch in range(1):`.""",
    """
    for epoch in range(0, 10, 2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

WHILE_LOOP = Rule(
    "TL102",
    "`while` training loops are not converted",
    """A `while` loop stops on a condition the migrator cannot turn into `max_epochs` or
    `max_steps` with the same number of steps.""",
    """Count epochs with `for epoch in range(N):`; if the loop stops on a metric, convert with
    a fixed N first and add an `EarlyStopping` callback by hand.""",
    """
    step = 0
    while step < 10:
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            step += 1
    """,
)

PLACEMENT = Rule(
    "TL103",
    "training loop is not at module level, in a function body or under `if __name__`",
    """The loop is replaced by the Trainer call where it stands, so it must sit directly at
    module level, in a function's body or under `if __name__ == "__main__":` -- not inside
    a `with`, `try`, another loop or any other block.""",
    """Move the loop out of the block (for example open the log file inside the loop, or put
    the loop in a `main()` function).""",
    """
    with open("log.txt", "w") as log:
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
    """,
)

NOT_A_LOADER = Rule(
    "TL104",
    "batch loop does not iterate a loader name (enumerate/tqdm of a name are accepted)",
    """The Trainer draws batches from a DataLoader it is given, so the batch loop must iterate
    a loader bound to a name: `for batch in loader`, `enumerate(loader)`, `tqdm(loader)`.
    Manual batching (`range` over indices, `zip` of tensors) has no loader to hand over.""",
    """Wrap the tensors in `DataLoader(TensorDataset(x, y), batch_size=...)` and iterate it.""",
    """
    data = torch.randn(8, 4)
    for epoch in range(2):
        for i in range(0, 8, 4):
            optimizer.zero_grad()
            loss = model(data[i : i + 4]).sum()
            loss.backward()
            optimizer.step()
    """,
)

STEP_SEQUENCE = Rule(
    "TL105",
    "optimizer step sequence not understood (zero_grad/backward/step)",
    """Lightning runs `zero_grad`, `backward` and `optimizer.step` itself, once per batch and
    in that order. The loop must call each exactly once per batch in an order with the same
    effect: no missing `zero_grad()` (gradients would accumulate), no `step()` before
    `backward()`, clipping between them, one optimizer.""",
    """Call `optimizer.zero_grad()`, `loss.backward()` and `optimizer.step()` once per batch.
    Several optimizers (GANs) need manual optimization, written by hand.""",
    """
    for epoch in range(2):
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

BINDING = Rule(
    "TL106",
    "model, optimizer or scheduler binding not understood",
    """`configure_optimizers` rebuilds the optimizer (and scheduler) from the statement that
    created it, and the LightningModule wraps the model the optimizer trains. Each must be
    bound once, by a plain assignment before the loop, and not used before it (that use
    would then see a different object).""",
    """Bind `model = ...`, `optimizer = torch.optim.X(model.parameters(), ...)` and the
    scheduler once, right before the loop, and use them only in and after the loop.""",
    """
    print(optimizer)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

CONTROL_FLOW = Rule(
    "TL107",
    "loop body uses control flow that cannot be kept faithfully (break/continue/return)",
    """Lightning calls `training_step` once per batch and cannot skip the rest of a step or
    leave the epoch from inside it the way `continue`, `return` or a `break` before the
    optimizer step do. (A `break` after `optimizer.step()` is converted: it ends the epoch.
    A `return` inside a function defined in the loop is that function's own.)""",
    """Filter the data in the dataset or sampler instead of `continue`; move a `break` after
    `optimizer.step()`; use `max_steps` or an `EarlyStopping` callback by hand.""",
    """
    for epoch in range(2):
        for x, y in loader:
            if x.sum() > 0:
                continue
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

UNPASSABLE_NAME = Rule(
    "TL108",
    "loop code reads a name that cannot be passed to the LightningModule",
    """Names the loop reads become `__init__` arguments of the LightningModule, bound where
    the loop was. A name imported inside the function, bound only after the loop, or a batch
    index read outside its own step has no value there to pass.""",
    """Import at module level, bind the name before the loop, and keep the batch index inside
    the batch loop.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y) * scale
            loss.backward()
            optimizer.step()
    scale = 1.0
    """,
)

EPOCH_STATEMENT = Rule(
    "TL109",
    "epoch-level statement cannot be placed in a Lightning hook faithfully",
    """Code around the batch loop moves to `on_train_epoch_start` / `on_train_epoch_end`, and
    code after `optimizer.step()` runs in Lightning before the step. Code whose place changes
    its result (a loop before the batch loop, reading the model right after the step, a
    scheduler stepped before training) is refused.""",
    """Move such code to the end of the epoch (after the batch loop), or read the model at the
    start of the next step.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            print(model.weight.sum())
    """,
)

EVAL_SHAPE = Rule(
    "TL110",
    "evaluation loop shape not understood",
    """Validation and test passes become `validation_step` / `test_step` when they are one
    `for batch in loader` under `torch.no_grad()` or `torch.inference_mode()`, over another
    loader than the training one, without nested loops over data.""",
    """Write the pass as `with torch.no_grad(): for x, y in val_loader: ...` after the batch
    loop.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        for x, y in loader:
            print(criterion(model(x), y).item())
    """,
)

HELPER_SHAPE = Rule(
    "TL111",
    "training helper function shape not understood",
    """A helper called once per epoch (`train(model, loader, optimizer, epoch)`) is inlined
    into the epoch loop before converting. That needs plain parameters (no *args/**kwargs),
    arguments that are names, attributes or constants, a single `return` at the end, and no
    functions defined inside.""",
    """Pass plain names to the helper (bind an expression to a name first) and return once,
    at its end.""",
    """
    def train(model, loader, optimizer, *extra):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()


    for epoch in range(2):
        train(model, loader, optimizer)
    """,
)

NOT_CARRIED_BACK = Rule(
    "TL112",
    "code after the loop reads a name the loop wrote that cannot be carried back",
    """Values the loop leaves behind (an accumulator, the last loss) are read back from the
    LightningModule after `trainer.fit`. The epoch counter and a DataParallel wrapper have no
    such value: the Trainer owns them.""",
    """Record what you need in a variable inside the loop (`last_epoch = epoch`), or read
    `trainer.current_epoch` after converting.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    print("stopped at", epoch)
    """,
)

MIXED_PRECISION = Rule(
    "TL113",
    "mixed precision / gradient scaling pattern not understood",
    """`with torch.autocast(...)` around the forward pass and a `GradScaler` used as
    `scaler.scale(loss).backward()`, `scaler.step(optimizer)`, `scaler.update()` become
    `Trainer(precision="16-mixed")` (or "bf16-mixed"). Other uses of the scaler or autocast
    arguments have no Trainer equivalent.""",
    """Use the standard autocast + GradScaler recipe of the PyTorch AMP docs, with the scaler
    used only inside the batch loop.""",
    """
    scaler = torch.amp.GradScaler()
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
    """,
)

ACCUMULATION = Rule(
    "TL114",
    "gradient accumulation or conditional backward not understood",
    """`Trainer(accumulate_grad_batches=N)` replaces `if (i + 1) % N == 0: optimizer.step();
    optimizer.zero_grad()` when the loss is divided by N (Lightning divides it). A backward
    that only runs on some batches, twice per batch, or on an expression is not a fixed
    accumulation.""",
    """Divide the loss by N before `backward()`, step under `if (i + 1) % N == 0:`, and call
    `backward()` unconditionally on a loss variable.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            if loss.item() > 0:
                loss.backward()
                optimizer.step()
    """,
)

DISTRIBUTED = Rule(
    "TL115",
    "DistributedDataParallel scripts are not converted yet",
    """A script wrapping its model in `DistributedDataParallel` starts its own processes and
    process group; the Trainer does both (`strategy="ddp"`), so the conversion would have to
    remove the launcher, the sampler and the process group too.""",
    """Convert the single-process version of the script, then run it with
    `Trainer(strategy="ddp", devices=N)` or under `torchrun`.""",
    """
    import torch
    from torch.nn.parallel import DistributedDataParallel

    model = DistributedDataParallel(torch.nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
    """,
    uses_header=False,
)

REBINDS_OWNED_NAME = Rule(
    "TL116",
    "the loop rebinds the model, a loader, the device or the epoch counter",
    """The Trainer owns the model, the loaders, the device and the epoch counter once the loop
    is converted; a loop that assigns to one of them changes something the Trainer would not
    see.""",
    """Use another name for the new value (`batch_loader = ...`), or build it before the
    loop.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        loader = DataLoader(loader.dataset, batch_size=2)
    """,
)

GLOBAL_STATEMENT = Rule(
    "TL117",
    "the function holding the loop uses `global` or `nonlocal`",
    """Names declared `global` or `nonlocal` in the function around the loop live outside it;
    moving the loop's code into a LightningModule would cut that link.""",
    """Pass the value in and return it instead of declaring it global.""",
    """
    best = None


    def main():
        global best
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            best = loss.item()


    main()
    """,
)

LOCAL_DEFINITION = Rule(
    "TL119",
    "a function or class defined in the loop is used by another step or hook",
    """A `def` or `class` inside the epoch loop moves with the code around it into one hook;
    the other hooks and steps cannot see it there.""",
    """Define the function at module level (or before the loop): it is then available to
    every hook.""",
    """
    for epoch in range(2):
        def scaled(value):
            return value * 0.5

        for x, y in loader:
            optimizer.zero_grad()
            loss = scaled(criterion(model(x), y))
            loss.backward()
            optimizer.step()
    """,
)

RULES = (
    NOT_AN_EPOCH_LOOP,
    WHILE_LOOP,
    PLACEMENT,
    NOT_A_LOADER,
    STEP_SEQUENCE,
    BINDING,
    CONTROL_FLOW,
    UNPASSABLE_NAME,
    EPOCH_STATEMENT,
    EVAL_SHAPE,
    HELPER_SHAPE,
    NOT_CARRIED_BACK,
    MIXED_PRECISION,
    ACCUMULATION,
    DISTRIBUTED,
    REBINDS_OWNED_NAME,
    GLOBAL_STATEMENT,
    LOCAL_DEFINITION,
)
