"""Cases of patterns/sample_lists.py: a batch loop over a Python list of samples, rewritten
over the list's positions (the Trainer iterates the numbers, the step takes the sample)."""

_MAKE_DATA = """
def make_data(n):
    data = []
    for _ in range(n):
        data.append((torch.randn(1, 4), torch.randint(0, 2, (1,))))
    return data


training_data = make_data(4)
"""

_LOOP = """
for epoch in range(2):
    {before}
    for {target} in {iterator}:
        model.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
"""


def _loop(before="pass", target="x, y", iterator="training_data"):
    return _MAKE_DATA + _LOOP.format(before=before, target=target, iterator=iterator)


CONVERTS = {
    # the NLP tutorials' list of (sentence, tags) samples, one per step
    "loop_over_a_list_display_of_samples": (
        """
        training_data = [(torch.randn(1, 4), torch.tensor([0])), (torch.randn(1, 4), torch.tensor([1]))]
        for epoch in range(2):
            for x, y in training_data:
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        [
            "range(len(training_data)), batch_size=None, generator=torch.Generator()",
            "x, y = self.training_data[sample_index]",
        ],
        ["trainer.fit(lit_model, training_data)"],
    ),
    "loop_over_a_list_a_function_builds": (
        _loop(),
        ["x, y = self.training_data[sample_index]", "trainer.fit(lit_model, batch_indices)"],
        [],
    ),
    # enumerate's index is the position
    "enumerated_list": (
        _loop(target="i, (x, y)", iterator="enumerate(training_data)"),
        ["i = batch", "x, y = self.training_data[i]"],
        ["sample_index"],
    ),
    # the step changes its sample in place: the list's own sample, as in the script
    "sample_changed_in_place_by_the_step": (
        _MAKE_DATA
        + """
for epoch in range(2):
    for x, y in training_data:
        x.mul_(0.5)
        model.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
""",
        ["x, y = self.training_data[sample_index]", "x.mul_(0.5)"],
        [],
    ),
    # a test pass over a list of samples after training stays as written (`trainer.test`
    # would take the list for several loaders)
    "test_pass_over_a_list_left_as_written": (
        _loop()
        + """
test_data = make_data(2)
correct = 0
with torch.no_grad():
    for x, y in test_data:
        correct += (model(x).argmax(1) == y).sum().item()
print(correct)
""",
        ["with torch.no_grad():\n    for x, y in test_data:\n        correct += (model(x)"],
        ["trainer.test("],
    ),
}

UNCHANGED = {
    # changed by the epoch loop: the positions are counted once, before `fit`, and what the
    # change does to them is not followed
    "list_shuffled_by_the_epoch_loop": (
        "import random\n" + _loop(before="random.shuffle(training_data)"),
        "TL104",
    ),
    "list_grown_by_the_epoch_loop": (
        _loop(before="training_data.append(training_data[0])"),
        "TL104",
    ),
    "list_rebound_by_the_epoch_loop": (
        _loop(before="training_data = training_data[1:]"),
        "TL104",
    ),
    # zip(...) is an iterator: no length, no positions
    "loop_over_a_zip_of_lists": (
        """
        xs = [torch.randn(1, 4) for _ in range(4)]
        ys = [torch.randint(0, 2, (1,)) for _ in range(4)]
        training_data = zip(xs, ys)
        for epoch in range(2):
            for x, y in training_data:
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL104",
    ),
    # validation over a list of samples: `fit` would take it for several loaders
    "validation_over_a_list_of_samples": (
        """
        val_data = [(torch.randn(1, 4), torch.tensor([0]))]
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            with torch.no_grad():
                for x, y in val_data:
                    print(criterion(model(x), y).item())
        """,
        "TL110",
    ),
}
