"""Cases of patterns/extra_evaluation.py (and merge_passes.py): a second evaluation pass in the
epoch runs as a second validation dataloader, or is refused (TL179) when code between the
passes would move in a way that could show."""

_EPOCH = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
ema = nn.Linear(4, 2)


@torch.no_grad()
def evaluate(net, data):
    net.eval()
    hits = 0
    for x, y in data:
        hits += (net(x).argmax(1) == y).sum().item()
    return hits


for epoch in range(2):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    {evaluation}
"""

_TWO_PASSES = """with torch.no_grad():
        for x, y in val_loader:
            print(criterion(model(x), y).item())
    {between}
    with torch.no_grad():
        for {target} in val_loader:
            print(criterion(ema({first}), {second}).item())"""


def _two_passes(between="pass", target="x, y"):
    first, second = target.split(", ")
    return _EPOCH.replace(
        "{evaluation}",
        _TWO_PASSES.format(between=between, target=target, first=first, second=second),
    )


_GATHERING = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
averaged = torch.optim.swa_utils.AveragedModel(model)


@torch.inference_mode()
def evaluate(net, data):
    net.eval()
    outs, ys = [], []
    for x, y in data:
        outs.append(net(x))
        ys.append(y)
    outs, ys = torch.cat(outs), torch.cat(ys)
    top = outs.argmax(1)
    return (top == ys).float().mean().item()


for epoch in range(2):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        averaged.update_parameters(model)
    acc = evaluate(model, val_loader)
    ema_acc = evaluate({copy}, val_loader)
    print(acc, ema_acc)
"""


CONVERTS = {
    "one_evaluation_helper_call": (
        _EPOCH.replace("{evaluation}", "acc = evaluate(model, val_loader)\n    print(acc)"),
        ["def validation_step(self, batch, batch_idx):"],
        ["def evaluate("],
    ),
    # the helper evaluates the model, then the copy: one validation loop per pass, the loader
    # iterated twice in the script's order; the copy's accumulator set up with the model's,
    # `acc` computed after both passes (it reads only the first's count)
    "model_and_ema_copy_evaluated": (
        _EPOCH.replace(
            "{evaluation}",
            "acc = evaluate(model, val_loader)\n    ema_acc = evaluate(ema, val_loader)\n"
            "    print(acc, ema_acc)",
        ),
        [
            "def on_validation_epoch_start(self):\n"
            "        self.hits = 0\n"
            "        self.evaluate_hits = 0",
            "def validation_step(self, batch, batch_idx, dataloader_idx=0):\n"
            "        x, y = batch\n"
            "        if dataloader_idx == 0:\n"
            "            self.hits += (self(x).argmax(1) == y).sum().item()\n"
            "        else:\n"
            "            self.evaluate_hits += (self.ema(x).argmax(1) == y).sum().item()",
            "trainer.fit(lit_model, loader, [val_loader, val_loader])",
        ],
        ["def evaluate("],
    ),
    "two_passes_under_no_grad": (
        _two_passes(),
        ["if dataloader_idx == 0:", "[val_loader, val_loader]"],
        [],
    ),
    # the second pass's batch names become the first's: the step unpacks one batch
    "second_pass_with_its_own_batch_names": (
        _two_passes(target="inputs, labels"),
        ["print(self.criterion(self.ema(x), y).item())"],
        ["inputs", "labels"],
    ),
    # `len(val_loader)` is the first dataloader's (a list holds both now)
    "loader_length_read_between_the_passes": (
        _two_passes(between="n_batches = len(val_loader)\n    print(n_batches)"),
        ["len(self.trainer.val_dataloaders[0])"],
        [],
    ),
    # a validation and a test loader evaluated every epoch: `[val_loader, test_loader]`
    "validation_then_test_loader_each_epoch": (
        _two_passes()
        .replace(
            "for x, y in val_loader:\n            print(criterion(ema",
            "for x, y in other:\n            print(criterion(ema",
        )
        .replace(
            "ema = nn.Linear(4, 2)",
            "ema = nn.Linear(4, 2)\nother = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))",
        ),
        ["trainer.fit(lit_model, loader, [val_loader, other])"],
        [],
    ),
    # the training loader evaluated too (a training accuracy in eval mode): Lightning's
    # second validation dataloader is the same loader object
    "second_pass_over_the_training_loader": (
        _two_passes().replace(
            "for x, y in val_loader:\n            print(criterion(ema(x), y).item())",
            "for x, y in loader:\n            print(criterion(ema(x), y).item())",
        ),
        ["trainer.fit(lit_model, loader, [val_loader, loader])"],
        [],
    ),
    # one helper per pass, leaving the model in train mode and setting eval again: between
    # the passes it is not run, and Lightning keeps it in eval mode from one dataloader to
    # the next
    "mode_round_trip_between_the_passes": (
        _EPOCH.replace(
            "    return hits\n",
            "    net.train()\n    return hits\n",
        ).replace(
            "{evaluation}",
            "train_hits = evaluate(model, loader)\n    val_hits = evaluate(model, val_loader)\n"
            "    print(train_hits / len(loader), val_hits)",
        ),
        [
            "trainer.fit(lit_model, loader, [loader, val_loader])",
            "len(self.trainer.train_dataloader)",
        ],
        ["train()", "def evaluate("],
    ),
    # open_clip's style: the helper gathers the outputs in lists and computes its metric
    # from them after the loop (`torch.cat`, `argmax`: no random draw, nothing the second
    # pass reads), once for the model and once for the AveragedModel's copy
    # (`averaged.module`, switched to eval mode before both passes)
    "outputs_gathered_then_computed_after_each_pass": (
        _GATHERING.replace("{copy}", "averaged.module"),
        [
            "self.evaluate_outs.append(self.averaged.module(x))",
            "trainer.fit(lit_model, loader, [val_loader, val_loader])",
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            "        self.averaged.update_parameters(self.model)",
        ],
        ["def evaluate("],
    ),
}

UNCHANGED = {
    # the gathered outputs passed on to a function of the script between the passes: it may
    # change what the second pass reads
    "gathered_outputs_handed_to_a_script_function": (
        _GATHERING.replace("{copy}", "averaged.module").replace(
            "    outs, ys = torch.cat(outs), torch.cat(ys)\n",
            "    outs, ys = torch.cat(outs), torch.cat(ys)\n    record(outs)\n",
        ).replace("@torch.inference_mode()", "def record(t):\n    t.zero_()\n\n\n@torch.inference_mode()"),
        "TL179",
    ),
    # could draw random numbers between the passes, before the second iter(val_loader)
    "a_call_between_the_passes": (
        _two_passes(between="noise = torch.randn(4)"),
        "TL179",
    ),
    # the model's mode switched between the passes would hold for both once merged: the
    # second pass would run in eval mode, the script's in train mode
    "model_switched_between_the_passes": (
        _two_passes(between="model.train()"),
        "TL179",
    ),
    # between the round trip's two switches the model runs: in train mode in the script
    "model_run_between_a_mode_round_trip": (
        _two_passes(between="model.train()\n    model(torch.ones(1, 4))\n    model.eval()"),
        "TL179",
    ),
    # the second pass would see the first's final value of a name it rebinds
    "a_statement_between_sharing_a_name_with_the_second_pass": (
        _two_passes(between="y = 0"),
        "TL179",
    ),
    "three_passes": (
        _EPOCH.replace(
            "{evaluation}",
            "a = evaluate(model, val_loader)\n    b = evaluate(ema, val_loader)\n"
            "    c = evaluate(ema, val_loader)\n    print(a, b, c)",
        ),
        "TL179",
    ),
    "break_in_the_second_pass": (
        _two_passes().replace(
            "print(criterion(ema(x), y).item())",
            "print(criterion(ema(x), y).item())\n            break",
        ),
        "TL179",
    ),
    "break_in_the_first_pass": (
        _two_passes().replace(
            "print(criterion(model(x), y).item())",
            "print(criterion(model(x), y).item())\n            break",
        ),
        "TL179",
    ),
}
