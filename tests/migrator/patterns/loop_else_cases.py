"""Cases of patterns/loop_else.py: the batch loop's `else` block is epoch code after it."""

CONVERTS = {
    "else_block_after_the_batch_loop": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
        for epoch in range(2):
            running = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                running += loss.item()
            else:
                total = 0.0
                with torch.no_grad():
                    for x, y in val_loader:
                        total += criterion(model(x), y).item()
                print(running, total)
        """,
        [
            "def validation_step(self, batch, batch_idx):",
            "print(self.running, self.total)",
            "trainer.fit(lit_model, loader, val_loader)",
        ],
        ["else:"],
    ),
    "else_block_of_prints_only": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            else:
                # end of the epoch
                print(epoch, loss.item())
        """,
        ["def on_train_epoch_end(self):", "# end of the epoch"],
        ["else:"],
    ),
}

UNCHANGED = {
    # the `else` runs only when no `break` ended the epoch: Lightning has no such branch
    "else_block_after_a_batch_loop_that_breaks": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if loss.item() < 0.1:
                    break
            else:
                print("full epoch")
        """,
        "TL107",
    ),
}
