"""Cases of patterns/step_grad_mode.py: `with torch.no_grad():` around the optimizer's step."""

CONVERTS = {
    "no_grad_around_the_step_goes": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                with torch.no_grad():
                    optimizer.step()
        """,
        ["trainer.fit(lit_model, loader)", "return loss"],
        ["no_grad", "optimizer.step()"],
    ),
    "zero_grad_in_the_block_too": (
        """
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                with torch.no_grad():
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        ["trainer.fit(lit_model, loader)"],
        ["no_grad", "optimizer.step()"],
    ),
}

UNCHANGED = {
    # a differentiable optimizer steps with grad: the block does change it
    "differentiable_optimizer": (
        """
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, differentiable=True)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                with torch.no_grad():
                    optimizer.step()
        """,
        "TL114",
    ),
    # something else under no_grad with the step: not this pattern's
    "other_code_in_the_block": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                with torch.no_grad():
                    optimizer.step()
                    model.weight.clamp_(-1, 1)
        """,
        "TL114",
    ),
}
