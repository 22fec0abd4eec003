"""Cases of patterns/step_sequence.py: zero_grad / backward / step, once per batch."""

CONVERTS = {
    "zero_grad_first": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ['loss = self.criterion(self(x), y)\n        self.log("train_loss", loss)\n'],
        ["zero_grad", "backward", ".step()"],
    ),
    "zero_grad_after_step_on_the_model": (
        """
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                model.zero_grad()
        """,
        ["return loss"],
        ["zero_grad"],
    ),
    "loss_rebound_after_backward_is_captured": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                loss = loss.item()
        """,
        ["step_loss = loss\n        loss = loss.item()", "return step_loss"],
        [],
    ),
}

UNCHANGED = {
    "no_zero_grad": (
        """
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL105",
    ),
    "zero_grad_between_backward_and_step": (
        """
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.zero_grad()
                optimizer.step()
        """,
        "TL105",
    ),
}

# backward() on an expression: the value it was called on is bound where it was computed
# and returned; later code still reads the script's own names
CONVERTS["backward_on_the_mean_of_per_sample_losses"] = (
    """
    per_sample = nn.CrossEntropyLoss(reduction="none")
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            losses = per_sample(model(x), y)
            losses.mean().backward()
            optimizer.step()
            print(losses.max().item())
    """,
    [
        "train_loss = losses.mean()\n        print(losses.max().item())\n"
        '        self.log("train_loss", train_loss)\n        return train_loss'
    ],
    [".backward()"],
)
CONVERTS["backward_on_the_criterion_call"] = (
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
    """,
    ["train_loss = self.criterion(self(x), y)", "return train_loss"],
    [".backward()"],
)
