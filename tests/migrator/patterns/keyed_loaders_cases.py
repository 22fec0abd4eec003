"""Cases of patterns/keyed_loaders.py: batch loops and evaluation passes over
`<dict>["<key>"]` of a dict of loaders bound once and never changed."""

_LOADERS = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
loaders = {"train": loader, "val": val_loader}
"""

_EPOCHS = """
for epoch in range(2):
    model.train()
    for x, y in loaders["train"]:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in loaders["val"]:
            total += criterion(model(x), y).item()
    print(total / len(loaders["val"]))
"""

_TUTORIAL = _LOADERS + _EPOCHS

_SETS = """
sets = {
    "train": TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))),
    "val": TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))),
}
"""

_IN_A_FUNCTION = (
    _SETS
    + """
loaders = {x: DataLoader(sets[x], batch_size=4, shuffle=x == "train") for x in ["train", "val"]}
sizes = {x: len(sets[x]) for x in ["train", "val"]}


def train_model(model, criterion, optimizer, num_epochs=2):
    for epoch in range(num_epochs):
        running = 0.0
        for x, y in loaders["train"]:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item() * x.size(0)
        print("train", running / sizes["train"])
    return model


model = train_model(model, criterion, optimizer)
"""
)

_GIVEN = (
    _SETS
    + """

def fit(net, opt, dataloaders, epochs):
    for epoch in range(epochs):
        for x, y in dataloaders["train"]:
            opt.zero_grad()
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()


def main():
    net = nn.Linear(4, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    dls = {x: DataLoader(sets[x], batch_size=4) for x in ["train", "val"]}
    fit(net, opt, dls, 2)


main()
"""
)

CONVERTS = {
    "dict_display_of_loader_names": (
        _TUTORIAL,
        [
            'trainer.fit(lit_model, loaders["train"], loaders["val"])',
            "def validation_step(self, batch, batch_idx):",
            # the same dict, unchanged: its entry is the loader the Trainer iterates
            'self.print(self.total / len(self.loaders["val"]))',
        ],
        ['in loaders["train"]', 'in loaders["val"]'],
    ),
    "dict_call_of_keywords": (
        _TUTORIAL.replace(
            'loaders = {"train": loader, "val": val_loader}',
            "loaders = dict(train=loader, val=val_loader)",
        ),
        ['trainer.fit(lit_model, loaders["train"], loaders["val"])'],
        ['in loaders["train"]'],
    ),
    "module_comprehension_read_by_the_training_function": (
        _IN_A_FUNCTION,
        [
            'trainer.fit(lit_model, loaders["train"])',
            'print("train", self.running / sizes["train"])',
        ],
        ['in loaders["train"]'],
    ),
    "dict_given_by_the_only_caller": (
        _GIVEN,
        ['trainer.fit(lit_model, dataloaders["train"])'],
        ['in dataloaders["train"]'],
    ),
    "enumerated_entry_and_its_length": (
        _LOADERS
        + """
for epoch in range(2):
    for i, (x, y) in enumerate(loaders["train"]):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if i == len(loaders["train"]) - 1:
            print(epoch, loss.item())
""",
        [
            'trainer.fit(lit_model, loaders["train"])',
            'if batch_idx == len(self.loaders["train"]) - 1:',
        ],
        ["enumerate"],
    ),
    # a loop over another dict's entry that holds no loader is not this pattern's
    "metrics_dict_entry_iterated_after_the_pass": (
        _TUTORIAL.replace("loss.backward()", "loss.backward()\n        history['train'].append(1)")
        .replace("for epoch in range(2):", "history = {'train': []}\nfor epoch in range(2):")
        .replace(
            'print(total / len(loaders["val"]))',
            "for value in history['train']:\n        print(value)",
        ),
        ['trainer.fit(lit_model, loaders["train"], loaders["val"])', "for value in"],
        [],
    ),
}

UNCHANGED = {
    "item_stored_into_the_dict": (
        _TUTORIAL.replace(
            'loaders = {"train": loader, "val": val_loader}',
            'loaders = {"train": loader, "val": val_loader}\nloaders["train"] = val_loader',
        ),
        "TL104",
    ),
    "dict_updated_after_training": (_TUTORIAL + "loaders.update(test=val_loader)\n", "TL104"),
    "dict_handed_to_code_of_another_module": (
        _TUTORIAL.replace(
            "for epoch in range(2):",
            "import helpers\nhelpers.prepare(loaders)\nfor epoch in range(2):",
        ),
        "TL104",
    ),
    "dict_changed_by_a_function_of_the_file": (
        _TUTORIAL.replace(
            "for epoch in range(2):",
            "def swap():\n    loaders['train'] = val_loader\n\n\nfor epoch in range(2):",
        ).replace('print(total / len(loaders["val"]))', "swap()"),
        "TL104",
    ),
    "dict_rebound_each_epoch": (
        _TUTORIAL.replace(
            "    model.train()\n",
            '    model.train()\n    loaders = {"train": loader, "val": val_loader}\n',
            1,
        ),
        "TL104",
    ),
    "key_that_is_not_a_literal": (
        _TUTORIAL.replace('loaders["train"]', "loaders[split]").replace(
            "for epoch in range(2):", 'split = "train"\nfor epoch in range(2):'
        ),
        "TL104",
    ),
    "entry_that_is_not_a_loader": (
        _TUTORIAL.replace(
            'loaders = {"train": loader, "val": val_loader}',
            'loaders = {"train": list(loader), "val": val_loader}',
        ),
        "TL104",
    ),
    "dict_built_by_a_function": (
        _TUTORIAL.replace(
            'loaders = {"train": loader, "val": val_loader}',
            'def make():\n    return {"train": loader, "val": val_loader}\n\n\nloaders = make()',
        ),
        "TL104",
    ),
    "dict_passed_as_an_expression": (
        _GIVEN.replace("fit(net, opt, dls, 2)", "fit(net, opt, dict(dls), 2)"),
        "TL104",
    ),
}
