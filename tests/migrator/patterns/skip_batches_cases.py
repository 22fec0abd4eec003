"""Cases of patterns/skip_batches.py: `continue` before backward() -> training_step returns None."""

CONVERTS = {
    "continue_before_backward": (
        """
        for epoch in range(2):
            for x, y in loader:
                if y.sum() == 0:
                    continue
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["if y.sum() == 0:\n            return None"],
        ["continue"],
    ),
    "zero_grad_before_continue": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                if not torch.isfinite(loss):
                    continue
                loss.backward()
                optimizer.step()
        """,
        ["return None"],
        ["continue"],
    ),
    "inner_loop_continue_is_its_own": (
        """
        for epoch in range(2):
            for x, y in loader:
                kept = []
                for row in x:
                    if row.sum() > 100:
                        continue
                    kept.append(row)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["continue\n"],
        ["return None"],
    ),
}

UNCHANGED = {
    "continue_after_backward": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                if loss.item() > 10:
                    continue
                optimizer.step()
        """,
        "TL135",
    ),
    "continue_with_per_step_scheduler": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
        for epoch in range(2):
            for x, y in loader:
                if y.sum() == 0:
                    continue
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                scheduler.step()
        """,
        "TL135",
    ),
}

# code after the step reading the model runs in on_train_batch_end, which Lightning calls for
# a batch whose training_step returned None too: the script's `continue` skipped it
UNCHANGED["continue_with_model_read_after_the_step"] = (
    """
    seen = 0
    for epoch in range(2):
        for i, (x, y) in enumerate(loader):
            if i == 1:
                continue
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            seen += 1
            print(seen, model.weight.sum().item())
    """,
    "TL135",
)
