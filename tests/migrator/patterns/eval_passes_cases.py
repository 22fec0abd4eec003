"""Cases of patterns/eval_passes.py: validation and test passes under no_grad."""

_VAL = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    {validation}
"""

CONVERTS = {
    # a test pass over a Python list of samples stays as written after `fit`: `trainer.test`
    # takes a list for several loaders (real Lightning then asks for `dataloader_idx`)
    "test_pass_over_a_list_of_samples_left_as_written": (
        """
        test_samples = [(torch.randn(1, 4), torch.tensor([0])) for _ in range(3)]
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        correct = 0
        with torch.no_grad():
            for x, y in test_samples:
                correct += (model(x).argmax(1) == y).sum().item()
        print(correct)
        """,
        ["trainer.fit(lit_model, loader)", "with torch.no_grad():\n    for x, y in test_samples:"],
        ["trainer.test("],
    ),
    "validation_with_an_accumulator": (
        _VAL.format(validation="""total = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            total += criterion(model(x), y).item()
    print(total)"""),
        [
            "def on_validation_epoch_start(self):\n        self.total = 0.0",
            "self.total += self.criterion(self(x), y).item()",
            "trainer.fit(lit_model, loader, val_loader)",
        ],
        ["no_grad"],
    ),
    "test_pass_after_training": (
        _VAL.format(validation="pass") + """
with torch.no_grad():
    for x, y in val_loader:
        print(criterion(model(x), y).item())
""",
        ["def test_step(self, batch, batch_idx):", "trainer.test(lit_model, val_loader)"],
        [],
    ),
}

# the model rebound after training (a fresh Net() given the saved weights, or not): the
# LightningModule holds the trained object, so the test pass must stay on the new one
KEPT_TEST_PASS = {
    "test_pass_of_a_model_rebound_after_training": (
        _VAL.format(validation="pass") + """
torch.save(model.state_dict(), "m.pth")
model = Net()
model.load_state_dict(torch.load("m.pth"))
correct = 0
with torch.no_grad():
    for x, y in val_loader:
        correct += (model(x).argmax(1) == y).sum().item()
print(correct)
""",
        ["trainer.fit(lit_model, loader)", "correct += (model(x).argmax(1) == y).sum().item()"],
        ["test_step", "trainer.test"],
    ),
    "test_pass_right_after_the_model_is_rebound": (
        _VAL.format(validation="pass") + """
model = Net()
with torch.no_grad():
    for x, y in val_loader:
        print(criterion(model(x), y).item())
""",
        ["trainer.fit(lit_model, loader)", "print(criterion(model(x), y).item())"],
        ["test_step", "trainer.test"],
    ),
    # its setup draws from torch's generator: it would run in on_test_epoch_start, after
    # Lightning has created the test loader's iterator (which draws its seed)
    "test_pass_whose_setup_draws": (
        _VAL.format(validation="pass") + """
noise = torch.randn(4)
with torch.no_grad():
    for x, y in val_loader:
        print(criterion(model(x + noise), y).item())
""",
        ["trainer.fit(lit_model, loader)", "noise = torch.randn(4)\nwith torch.no_grad():"],
        ["test_step", "trainer.test"],
    ),
}
CONVERTS.update(KEPT_TEST_PASS)

CONVERTS.update(
    {
        # the training loader evaluated each epoch (a training loss or accuracy in eval
        # mode): Lightning validates over the same loader object after the epoch, and its
        # `iter()` draws its seed where the script's did
        "validation_over_the_training_loader": (
            _VAL.format(validation="""with torch.no_grad():
        for x, y in loader:
            print(criterion(model(x), y).item())"""),
            ["trainer.fit(lit_model, loader, loader)", "def validation_step"],
            [],
        ),
    }
)

UNCHANGED = {}
