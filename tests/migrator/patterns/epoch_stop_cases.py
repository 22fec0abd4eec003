"""Cases of patterns/epoch_stop.py: a `break` of the epoch loop -> trainer.should_stop."""

CONVERTS = {
    "patience_counter": (
        """
        best, bad_epochs = float("inf"), 0
        for epoch in range(5):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if loss.item() < best:
                best, bad_epochs = loss.item(), 0
            else:
                bad_epochs += 1
                if bad_epochs >= 2:
                    break
        """,
        [
            "def on_train_epoch_end(self):",
            "self.bad_epochs += 1",
            "self.trainer.should_stop = True",
        ],
        ["break"],
    ),
    "target_reached": (
        """
        for epoch in range(5):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if loss.item() < 0.01:
                print("target reached")
                break
        """,
        ['print("target reached")\n            self.trainer.should_stop = True'],
        ["break"],
    ),
}

UNCHANGED = {
    "code_after_the_break": (
        """
        for epoch in range(5):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if loss.item() < 0.01:
                break
            print(f"epoch {epoch} done")
        """,
        "TL136",
    ),
    "break_before_the_batch_loop": (
        """
        for epoch in range(5):
            if epoch > 2:
                break
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL107",
    ),
}
