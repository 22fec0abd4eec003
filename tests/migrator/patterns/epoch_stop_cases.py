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
        ["break", "should_stop = True\n            return"],
    ),
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
        [
            "self.trainer.should_stop = True\n            return\n"
            '        print(f"epoch {epoch} done")',
        ],
        ["break"],
    ),
    "lr_adjusted_after_a_patience_break": (
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
                    print("Early stopping")
                    break
            for group in optimizer.param_groups:
                group["lr"] = 0.1 * 0.5 ** (epoch + 1)
            print("Updating learning rate")
        """,
        [
            "self.trainer.should_stop = True\n                return\n"
            "        for group in self.optimizers().param_groups:",
            'print("Updating learning rate")',
        ],
        ["break", "LambdaLR"],
    ),
    "scheduler_stepped_after_the_break": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
        for epoch in range(5):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if loss.item() < 0.01:
                break
            scheduler.step()
        """,
        [
            "self.trainer.should_stop = True\n            return\n        self.scheduler.step()",
            "return self.optimizer",
        ],
        ["break", '"interval"'],
    ),
    "two_breaks_with_code_between": (
        """
        for epoch in range(5):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if loss.item() < 0.01:
                break
            print("not yet")
            if loss.item() > 100:
                break
        """,
        [
            "self.trainer.should_stop = True\n            return\n        print(",
            "if self.loss.item() > 100:\n            self.trainer.should_stop = True",
        ],
        ["break", "should_stop = True\n            return\n\n"],
    ),
}

UNCHANGED = {
    "validation_pass_after_the_break": (
        """
        for epoch in range(5):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if loss.item() < 0.01:
                break
            val_loss = 0.0
            with torch.no_grad():
                for x, y in val_loader:
                    val_loss += criterion(model(x), y).item()
            print(f"epoch {epoch} val loss {val_loss:.4f}")
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
