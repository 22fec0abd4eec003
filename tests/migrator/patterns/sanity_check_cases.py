"""Cases of patterns/sanity_check.py: a converted validation pass turns the sanity check off."""

CONVERTS = {
    "validation_pass_without_sanity_check": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            with torch.no_grad():
                for x, y in val_loader:
                    print(criterion(model(x), y).item())
        """,
        ["max_epochs=2, num_sanity_val_steps=0)"],
        [],
    ),
    "no_validation_keeps_the_default": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["max_epochs=2)"],
        ["num_sanity_val_steps"],
    ),
}
