"""Cases of patterns/eval_shapes.py: evaluation loops without an outer no_grad."""

_EPOCH = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
for epoch in range(2):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    {evaluation}
"""

CONVERTS = {
    "loop_without_no_grad": (
        _EPOCH.format(evaluation="""total = 0.0
    for x, y in val_loader:
        total += criterion(model(x), y).item()
    print(total)"""),
        [
            "def validation_step(self, batch, batch_idx):\n        x, y = batch\n"
            "        self.total += self.criterion(self(x), y).item()",
            "trainer.fit(lit_model, loader, val_loader)",
        ],
        ["no_grad"],
    ),
    "no_grad_only_around_the_forward": (
        _EPOCH.format(evaluation="""hits = 0
    for x, y in val_loader:
        with torch.no_grad():
            out = model(x)
        hits += (out.argmax(1) == y).sum().item()
    print(hits)"""),
        ["out = self(x)\n        self.hits += (out.argmax(1) == y).sum().item()"],
        ["no_grad"],
    ),
    "loop_over_a_list_after_training_is_epoch_code": (
        _EPOCH.format(evaluation="""metric_names = ["a", "b"]
    for name in metric_names:
        print(name, loss.item())"""),
        ["def on_train_epoch_end(self):"],
        ["validation_step", "no_grad"],
    ),
    # "What is torch.nn really?": the validation pass as a list comprehension over the loader
    "comprehension_pass_in_a_call": (
        _EPOCH.format(
            evaluation="""model.eval()
    with torch.no_grad():
        losses, nums = zip(*[(criterion(model(x), y).item(), len(x)) for x, y in val_loader])
    print(epoch, sum(losses) / sum(nums))"""
        ),
        [
            "self.outputs = []",
            "self.outputs.append((self.criterion(self(x), y).item(), len(x)))",
            "losses, nums = zip(*self.outputs)",
        ],
        ["for x, y in val_loader]"],
    ),
    "comprehension_pass_assigned_as_is": (
        _EPOCH.format(
            evaluation="""model.eval()
    with torch.no_grad():
        losses = [criterion(model(x), y).item() for x, y in val_loader]
    print(epoch, sum(losses) / len(losses))"""
        ),
        ["self.losses = []", "self.losses.append(self.criterion(self(x), y).item())"],
        ["for x, y in val_loader]"],
    ),
}

UNCHANGED = {
    "input_gradients_in_the_evaluation_loop": (
        _EPOCH.format(evaluation="""for x, y in val_loader:
        x.requires_grad_()
        (grad,) = torch.autograd.grad(criterion(model(x), y), x)
        print(grad.abs().mean().item())"""),
        "TL145",
    ),
    "grad_attribute_read_in_the_evaluation_loop": (
        _EPOCH.format(evaluation="""for x, y in val_loader:
        print(criterion(model(x), y).item(), model.weight.grad)"""),
        "TL145",
    ),
    # the comprehension's own `x` is not the loop's: a later read of `x` (the last training
    # batch) would read the last validation batch once the comprehension is a loop
}

# a comprehension pass whose names code after it reads (the training loop's last `x`): not a
# validation_step; it stays epoch code, run in the eval mode the script gave it (eval_mode.py)
CONVERTS["comprehension_pass_names_read_after"] = (
    _EPOCH.format(
        evaluation="""model.eval()
    with torch.no_grad():
        losses = [criterion(model(x), y).item() for x, y in val_loader]
    print(epoch, sum(losses) / len(losses), x.shape)"""
    ),
    [
        "self.model.eval()\n        with torch.no_grad():\n            losses = [",
        "print(epoch, sum(losses) / len(losses), self.x.shape)",
    ],
    ["def validation_step"],
)
