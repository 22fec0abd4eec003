"""Cases of patterns/bar_with.py: `with tqdm(loader) as bar:` around the batch loop."""

_BAR = """
from tqdm import tqdm

for epoch in range(2):
    with tqdm(loader, unit="batch") as tepoch:
        for x, y in tepoch:
            tepoch.set_description(f"Epoch {{epoch}}")
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            tepoch.set_postfix(loss=loss.item(){more})
{after}"""

CONVERTS = {
    "with_bar_iterated_by_the_batch_loop": (
        _BAR.format(more="", after="    print(epoch, loss.item())\n"),
        ["trainer.fit(lit_model, loader)", 'self.log("train_loss", self.loss, prog_bar=True)'],
        ["tepoch", "tqdm", "set_description"],
    ),
    "with_bar_of_an_enumerated_loader": (
        """
        from tqdm import tqdm

        for epoch in range(2):
            with tqdm(enumerate(loader), total=len(loader)) as bar:
                for i, (x, y) in bar:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    bar.set_postfix(step=i, loss=loss.item())
        """,
        ["trainer.fit(lit_model, loader)"],
        ["bar =", "bar.", "tqdm"],
    ),
}

UNCHANGED = {
    # the bar's count is read: no bar exists once the Trainer iterates the loader
    "with_bar_count_read": (
        _BAR.format(more="", after="        print(tepoch.n)\n"),
        "TL104",
    ),
    "with_bar_handed_on": (
        _BAR.format(more="", after="        report(tepoch)\n"),
        "TL104",
    ),
    "with_bar_read_after_the_epoch_loop": (
        _BAR.format(more="", after="print(tepoch.total)\n"),
        "TL104",
    ),
}
