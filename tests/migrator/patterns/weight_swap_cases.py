"""Cases of patterns/weight_swap.py: averaged (EMA) weights swapped into the model for the
validation pass and back, as on_validation_epoch_start / on_validation_epoch_end, or refused
(TL137) where the hooks could not swap them as the script did."""

_TORCH_EMA = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


class ExponentialMovingAverage:
    def __init__(self, parameters, decay):
        self.decay = decay
        self.shadow_params = [p.clone().detach() for p in parameters]
        self.collected_params = None

    @torch.no_grad()
    def update(self, parameters):
        for s_param, param in zip(self.shadow_params, parameters):
            s_param.sub_((1.0 - self.decay) * (s_param - param))

    def copy_to(self, parameters):
        for s_param, param in zip(self.shadow_params, parameters):
            param.data.copy_(s_param.data)

    def store(self, parameters):
        self.collected_params = [p.clone() for p in parameters]

    def restore(self, parameters):
        for c_param, param in zip(self.collected_params, parameters):
            param.data.copy_(c_param.data)


ema = ExponentialMovingAverage(model.parameters(), decay=0.9)
best = float("inf")
for epoch in range(2):
    model.train()
    train_loss = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        ema.update(model.parameters())
        train_loss += loss.item()
    train_loss /= len(loader)
{swap_in}
    model.eval()
    val_loss = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            val_loss += criterion(model(x), y).item()
{during}
{swap_out}
    print(epoch, train_loss, val_loss)
"""

_STORE = """    ema.store(model.parameters())
    ema.copy_to(model.parameters())"""
_SAVE_BEST = """    if val_loss < best:
        best = val_loss
        torch.save(model.state_dict(), "best_ema.pt")"""
_RESTORE = "    ema.restore(model.parameters())"


def _torch_ema(swap_in=_STORE, during=_SAVE_BEST, swap_out=_RESTORE, header=""):
    source = _TORCH_EMA.replace("{swap_in}", swap_in).replace("{during}", during)
    return header + source.replace("{swap_out}", swap_out)


# the widespread hand-written EMA class: shadow and backup dicts, the model held inside
_SHADOW_CLASS = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


class EMA:
    def __init__(self, model, decay):
        self.model = model
        self.decay = decay
        self.shadow = {}
        self.backup = {}

    def register(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                self.shadow[name] = param.data.clone()

    def update(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                new_average = (1.0 - self.decay) * param.data + self.decay * self.shadow[name]
                self.shadow[name] = new_average.clone()

    def apply_shadow(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                self.backup[name] = param.data.clone()
                param.data = self.shadow[name]

    def restore(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                param.data = self.backup[name]
        self.backup = {}


ema = EMA(model, 0.99)
ema.register()
for epoch in range(2):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        ema.update()
    ema.apply_shadow()
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in val_loader:
            correct += (model(x).argmax(1) == y).sum().item()
    print(f"epoch {epoch} ema acc {correct / 4:.3f}")
    ema.restore()
"""

# an EMA copy of the model, its weights loaded into the model for validation
_STATE_DICT_SWAP = """
import copy

val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
ema_model = copy.deepcopy(model)
for epoch in range(2):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            for e, p in zip(ema_model.parameters(), model.parameters()):
                e.mul_(0.9).add_(p.detach(), alpha=0.1)
    backup = copy.deepcopy(model.state_dict())
    model.load_state_dict(ema_model.state_dict())
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            total += criterion(model(x), y).item()
    model.load_state_dict(backup)
    print(epoch, total)
"""

CONVERTS = {
    # torch_ema's store / copy_to before the pass: swapped in in on_validation_epoch_start;
    # the training loss computed before the swap runs in on_train_epoch_end, so the code after
    # the pass does too (eval_metrics), the best checkpoint of the EMA weights and the restore
    # after it, in the script's order, before Lightning's checkpoint of that epoch
    "store_copy_to_restore_around_validation": (
        _torch_ema(),
        [
            "def on_validation_epoch_start(self):\n"
            "        self.ema.store(self.model.parameters())\n"
            "        self.ema.copy_to(self.model.parameters())\n"
            "        self.val_loss = 0.0",
            "def on_train_epoch_end(self):\n"
            "        epoch = self.current_epoch\n"
            "        self.train_loss /= len(self.trainer.train_dataloader)\n"
            "        if self.val_loss < self.best:\n"
            "            self.best = self.val_loss\n"
            '            torch.save(self.model.state_dict(), "best_ema.pt")\n'
            "        self.ema.restore(self.model.parameters())\n"
            "        print(epoch, self.train_loss, self.val_loss)",
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            "        self.ema.update(self.model.parameters())",
            "inference_mode=False",
        ],
        [],
    ),
    # a print of the training loss (computed before the swap) inside the swapped region: the
    # loss is computed before the swap, in on_validation_epoch_start; what follows the pass
    # reads what training computed, so it stays in on_train_epoch_end (eval_metrics)
    "training_loss_printed_while_swapped": (
        _torch_ema(during="    print(epoch, train_loss, val_loss)"),
        [
            "def on_validation_epoch_start(self):\n"
            "        self.train_loss /= len(self.trainer.train_dataloader)\n"
            "        self.ema.store(self.model.parameters())\n"
            "        self.ema.copy_to(self.model.parameters())\n"
            "        self.val_loss = 0.0",
            "def on_train_epoch_end(self):\n"
            "        epoch = self.current_epoch\n"
            "        print(epoch, self.train_loss, self.val_loss)\n"
            "        self.ema.restore(self.model.parameters())",
        ],
        [],
    ),
    # no restore: the weights stay swapped (a script evaluating and then training from the
    # averaged weights); the swap still runs right before the pass
    "swapped_in_and_kept": (
        _torch_ema(swap_in="    ema.copy_to(model.parameters())", during="", swap_out=""),
        [
            "def on_validation_epoch_start(self):\n"
            "        self.val_loss = 0.0\n"
            "        self.ema.copy_to(self.model.parameters())",
        ],
        [],
    ),
    # the hand-written class holding the model: `ema.apply_shadow()` / `ema.restore()`, and
    # the print while swapped, at the pass's own epoch end
    "hand_written_ema_class_apply_shadow_restore": (
        _SHADOW_CLASS,
        [
            "def on_validation_epoch_start(self):\n"
            "        self.ema.apply_shadow()\n"
            "        self.correct = 0",
            "def on_validation_epoch_end(self):\n"
            "        epoch = self.current_epoch\n"
            '        self.print(f"epoch {epoch} ema acc {self.correct / 4:.3f}")\n'
            '        self.log("ema_acc", self.correct / 4)\n'
            "        self.ema.restore()",
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n        self.ema.update()",
            "inference_mode=False",
        ],
        [],
    ),
    # state dicts: the model's copied, the EMA copy's loaded, the copy loaded back
    "state_dict_backup_and_load": (
        _STATE_DICT_SWAP,
        [
            "def on_validation_epoch_start(self):\n"
            "        self.total = 0.0\n"
            "        self.backup = copy.deepcopy(self.model.state_dict())\n"
            "        self.model.load_state_dict(self.ema_model.state_dict())",
            "def on_validation_epoch_end(self):\n"
            "        epoch = self.current_epoch\n"
            "        self.model.load_state_dict(self.backup)\n"
            "        self.print(epoch, self.total)",
        ],
        [],
    ),
}

UNCHANGED = {
    # BatchNorm statistics recomputed with the averaged weights over the training loader:
    # an iterator of a loader and the model run in train mode before the pass
    "batch_norm_statistics_updated_after_the_swap": (
        _torch_ema(
            swap_in=_STORE + "\n    torch.optim.swa_utils.update_bn(loader, model)",
        ),
        "TL137",
    ),
    # early stopping inside the swapped region leaves with the averaged weights in the model
    "break_while_swapped": (
        _torch_ema(during="    if val_loss > 10:\n        break"),
        "TL137",
    ),
    # a swap drawing random numbers (noise added to the averaged weights)
    "swap_drawing_random_numbers": (
        _torch_ema(swap_in=_STORE + "\n    model.weight.data.add_(torch.randn(2, 4) * 0.01)"),
        "TL137",
    ),
    # epoch code before the swap reads the weights the swap changes: it would run after the
    # pass, with the averaged weights back out only if the restore restores exactly
    # ... also through a function of the script reading the model as a global
    "raw_weights_read_by_a_function_before_the_swap": (
        _torch_ema(
            swap_in="    log_weights()\n" + _STORE,
            header="\ndef log_weights():\n    print(model.weight.sum().item())\n\n",
        ),
        "TL137",
    ),
    "raw_weights_saved_before_the_swap": (
        _torch_ema(swap_in='    torch.save(model.state_dict(), "raw.pt")\n' + _STORE),
        "TL137",
    ),
}
