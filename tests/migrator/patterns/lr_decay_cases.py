"""Cases of patterns/lr_decay.py: learning rates set by hand on optimizer.param_groups."""

_LOOP = """
{before}
for epoch in range(3):
    {epoch_start}
    for x, y in loader:
        {step_start}
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        {step_end}
    {epoch_end}
"""


def _loop(before="pass", epoch_start="pass", step_start="pass", step_end="pass", epoch_end="pass"):
    return _LOOP.format(
        before=before,
        epoch_start=epoch_start,
        step_start=step_start,
        step_end=step_end,
        epoch_end=epoch_end,
    )


_SET = "for group in optimizer.param_groups:\n{indent}    group['lr'] = lr"

CONVERTS = {
    "epoch_formula_scaled_by_the_optimizer_lr": (
        _loop(epoch_start="lr = 0.1 * 0.5 ** epoch\n    " + _SET.format(indent="    ")),
        ["optimizer, lambda epoch: 0.5**epoch", '"interval": "epoch"'],
        ["param_groups", "on_train_epoch_start"],
    ),
    "distinct_milestones": (
        _loop(
            epoch_start="if epoch in (1, 2):\n"
            "        for group in optimizer.param_groups:\n"
            "            group['lr'] *= 0.1"
        ),
        ["MultiStepLR(", "optimizer, milestones=(1, 2), gamma=0.1"],
        ["param_groups"],
    ),
    "group_rate_scaled_at_epoch_end": (
        _loop(epoch_end="for group in optimizer.param_groups:\n        group['lr'] *= 0.9"),
        ["ExponentialLR(optimizer, gamma=0.9)"],
        ["param_groups", "on_train_epoch_end"],
    ),
    # the optimizer's lr= is 0.1, not `lr`: ExponentialLR would not scale the same variable
    "rate_variable_not_the_optimizer_lr_kept": (
        _loop(before="lr = 0.1", epoch_end="lr = lr * 0.8\n    " + _SET.format(indent="    ")),
        ["self.lr = self.lr * 0.8", 'checkpoint["lr"] = self.lr'],
        ["ExponentialLR"],
    ),
    "warmup_counted_per_step": (
        _loop(
            before="step = 0",
            step_start="lr = 0.1 * min(1, (step + 1) / 4)\n        "
            + _SET.format(indent="        "),
            step_end="step += 1",
        ),
        ["optimizer, lambda step: min(1, (step + 1) / 4)", '"interval": "step"'],
        ["param_groups", "step = 0", "step += 1"],
    ),
    "first_group_set_by_index": (
        _loop(epoch_start="optimizer.param_groups[0]['lr'] = 0.1 * 0.5 ** epoch"),
        ["optimizer, lambda epoch: 0.5**epoch"],
        ["param_groups"],
    ),
    # kept where the script wrote it: no scheduler repeats the same floats
    "milestones_listed_twice_kept": (
        _loop(
            epoch_start="if epoch in [1, 1]:\n"
            "        for group in optimizer.param_groups:\n"
            "            group['lr'] *= 0.1"
        ),
        ["def on_train_epoch_start(self):", 'group["lr"] *= 0.1'],
        ["MultiStepLR"],
    ),
    "formula_not_scaled_by_the_optimizer_lr_kept": (
        _loop(epoch_start="lr = 0.05 * 0.5 ** epoch\n    " + _SET.format(indent="    ")),
        ["def on_train_epoch_start(self):", "self.optimizers().param_groups"],
        ["LambdaLR", "on_save_checkpoint"],
    ),
    "rate_for_the_next_step_set_after_the_step_kept": (
        _loop(
            before="it = 0",
            step_end="it += 1\n        lr = 0.1 * min(1, (it + 1) / 4)\n        "
            + _SET.format(indent="        "),
        ),
        ["self.it += 1", 'checkpoint["it"] = self.it', 'self.it = checkpoint["it"]'],
        ["LambdaLR"],
    ),
    "first_group_set_by_index_kept_and_checkpointed": (
        _loop(before="lr = 0.1", epoch_end="lr /= 2\n    optimizer.param_groups[0]['lr'] = lr"),
        ['self.optimizers().param_groups[0]["lr"] = self.lr', 'checkpoint["lr"] = self.lr'],
        ["ExponentialLR"],
    ),
    "divided_rate_kept_and_checkpointed": (
        _loop(before="lr = 0.1", epoch_end="lr /= 2\n    " + _SET.format(indent="    ")),
        [
            "self.lr /= 2",
            'checkpoint["lr"] = self.lr',
            'self.lr = checkpoint["lr"]',
        ],
        ["ExponentialLR"],
    ),
    # a decision on training results: the carried values it reads (`best`, `lr`) are saved
    # in the checkpoint, the epoch's own `loss` is computed again after a resume
    "halved_when_the_loss_stalls_kept_and_checkpointed": (
        _loop(
            before="lr, best = 0.1, float('inf')",
            epoch_end="if loss.item() > best:\n"
            "        lr *= 0.5\n"
            "        " + _SET.format(indent="        ") + "\n"
            "    best = min(best, loss.item())",
        ),
        ['checkpoint["best"] = self.best', 'checkpoint["lr"] = self.lr', "self.lr *= 0.5"],
        ["ReduceLROnPlateau", "ExponentialLR"],
    ),
    # word_language_model's annealing: lr /= 4 when the validation loss did not improve
    "annealed_when_validation_stops_improving_kept_and_checkpointed": (
        _loop(
            before="lr, best_val_loss = 20.0, None",
            epoch_end="val_loss = criterion(model(x), y).item()\n"
            "    if not best_val_loss or val_loss < best_val_loss:\n"
            "        torch.save(model, 'model.pt')\n"
            "        best_val_loss = val_loss\n"
            "    else:\n"
            "        lr /= 4.0\n"
            "        " + _SET.format(indent="        "),
        ),
        [
            'checkpoint["best_val_loss"] = self.best_val_loss',
            'self.best_val_loss = checkpoint["best_val_loss"]',
            'checkpoint["lr"] = self.lr',
            "self.lr /= 4.0",
        ],
        ["ExponentialLR", 'checkpoint["val_loss"]'],
    ),
    # set from the epoch's own last loss: nothing carried, the optimizer's state holds the rate
    "rate_following_the_loss_kept": (
        _loop(
            epoch_end="for group in optimizer.param_groups:\n"
            "        group['lr'] = 0.1 * min(1.0, loss.item())"
        ),
        ["def on_train_epoch_end(self):", "min(1.0,"],
        ["on_save_checkpoint"],
    ),
}

UNCHANGED = {
    "rate_following_a_list_the_loss_extends": (
        _loop(
            before="history = []",
            epoch_start="for group in optimizer.param_groups:\n"
            "        group['lr'] = 0.1 * 0.5 ** len(history)",
            epoch_end="if loss.item() > 0.5:\n        history.append(loss.item())",
        ),
        "TL185",
    ),
    # the rate follows `history`, which the loop changes in place (not rebinds): saving the
    # object in the checkpoint would not restore what else holds it
    "annealed_against_a_history_the_loop_extends": (
        _loop(
            before="lr, history = 0.1, []",
            epoch_end="val_loss = loss.item()\n"
            "    if history and val_loss > min(history):\n"
            "        lr /= 4.0\n"
            "        " + _SET.format(indent="        ") + "\n"
            "    history.append(val_loss)",
        ),
        "TL185",
    ),
}
