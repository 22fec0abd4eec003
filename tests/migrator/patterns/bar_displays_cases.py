"""Cases of patterns/bar_displays.py: a bar around the loop, updated inside the script's passes."""

# the torchaudio tutorials: `with tqdm(total=n_epoch) as pbar:` around the epoch loop, the
# `train()` / `test()` helpers advancing it by a fraction per batch
_HELPERS = """
from tqdm import tqdm


def train(model, epoch):
    model.train()
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        {train_display}


def test(model, epoch):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in val_loader:
            correct += (model(x).argmax(1) == y).sum().item()
            {test_display}
    print(epoch, correct)


step = 1 / (len(loader) + len(val_loader))
with tqdm(total=2) as pbar:
    for epoch in range(2):
        train(model, epoch)
        test(model, epoch)
"""

CONVERTS = {
    "updated_in_the_train_and_test_helpers": (
        _HELPERS.format(train_display="pbar.update(step)", test_display="pbar.update(step)"),
        ["trainer.fit(lit_model, loader, val_loader)", "def validation_step(self, batch"],
        ["pbar", "with tqdm"],
    ),
    "redrawn_under_an_if_of_each_pass": (
        _HELPERS.format(
            train_display='if i % 2 == 0:\n            pbar.set_description(f"epoch {epoch}")',
            test_display="if correct > 0:\n                pbar.refresh()",
        ),
        ["loss = self.criterion(self(x), y)\n        self.log("],
        ["pbar", "if batch_idx % 2 == 0", "pass"],
    ),
    # `write` is tqdm's classmethod: the same line, through the bar's class
    "write_goes_to_the_bar_class": (
        _HELPERS.format(
            train_display="pbar.update(step)", test_display='pbar.write(f"correct: {correct}")'
        ),
        ['tqdm.write(f"correct: {self.correct}")'],
        ["pbar"],
    ),
    # milesial's Pytorch-UNet: a bar made each epoch, around the batch loop only, counted by
    # hand (before: TL101 "no batch loop found in the epoch loop")
    "bar_around_the_batch_loop_inside_the_epoch": (
        """
        from tqdm import tqdm

        for epoch in range(2):
            model.train()
            with tqdm(total=len(loader.dataset), desc=f"Epoch {epoch}", unit="img") as pbar:
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    pbar.update(x.shape[0])
                    pbar.set_postfix(**{"loss (batch)": loss.item()})
            print(epoch)
        """,
        ['self.log("train_loss", loss, prog_bar=True)', "def on_train_epoch_end(self):"],
        ["pbar", "with tqdm"],
    ),
}

UNCHANGED = {
    # the bar's count read into the script's logic: no bar exists under the Trainer
    "count_read_by_the_test_helper": (
        _HELPERS.format(
            train_display="pbar.update(step)",
            test_display='if pbar.n > 1:\n                print("late")',
        ),
        "TL104",
    ),
    "passed_to_a_function": (
        "def show(bar, value):\n    bar.set_postfix(acc=value)\n\n\n"
        + _HELPERS.format(train_display="pbar.update(step)", test_display="show(pbar, correct)"),
        "TL104",
    ),
    # dropping the call would drop the effect of what its argument calls
    "display_argument_with_an_effect": (
        "seen = []\n\n\ndef counted(k):\n    seen.append(k)\n    return k\n\n\n"
        + _HELPERS.format(
            train_display="pbar.update(step)", test_display="pbar.update(counted(step))"
        ),
        "TL104",
    ),
    # the bar's count read by the epoch's code: no bar exists under the Trainer
    "bar_around_the_batch_loop_read_after_it": (
        """
        from tqdm import tqdm

        for epoch in range(2):
            with tqdm(total=len(loader.dataset)) as pbar:
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    pbar.update(x.shape[0])
                    if pbar.n > 4:
                        print("late")
        """,
        "TL104",
    ),
    # a bar given the loader is a `with` of the epoch: it makes the loader's iterator
    "bar_given_the_loader_around_the_batch_loop": (
        """
        from tqdm import tqdm

        for epoch in range(2):
            with tqdm(loader) as pbar:
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    pbar.update(1)
        """,
        "TL101",
    ),
}
