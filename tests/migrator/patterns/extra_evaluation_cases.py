"""Cases of patterns/extra_evaluation.py: a second evaluation pass in the epoch is refused."""

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

CONVERTS = {
    "one_evaluation_helper_call": (
        _EPOCH.replace("{evaluation}", "acc = evaluate(model, val_loader)\n    print(acc)"),
        ["def validation_step(self, batch, batch_idx):"],
        ["def evaluate("],
    ),
}

UNCHANGED = {
    "model_and_ema_copy_evaluated": (
        _EPOCH.replace(
            "{evaluation}",
            "acc = evaluate(model, val_loader)\n    ema_acc = evaluate(ema, val_loader)\n"
            "    print(acc, ema_acc)",
        ),
        "TL179",
    ),
    "two_passes_under_no_grad": (
        _EPOCH.replace(
            "{evaluation}",
            "with torch.no_grad():\n        for x, y in val_loader:\n"
            "            print(criterion(model(x), y).item())\n"
            "    with torch.no_grad():\n        for x, y in val_loader:\n"
            "            print(criterion(ema(x), y).item())",
        ),
        "TL179",
    ),
}
