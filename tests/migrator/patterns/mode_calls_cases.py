"""Cases of patterns/mode_calls.py: model.train() / model.eval() are the Trainer's."""

CONVERTS = {
    "train_and_eval_calls": (
        """
        for epoch in range(2):
            model.train()
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            model.eval()
            print(epoch)
        """,
        ["def on_train_epoch_end(self):\n        epoch = self.current_epoch\n        print(epoch)"],
        [".train()", ".eval()"],
    ),
    "train_with_a_mode_argument_is_kept": (
        """
        for epoch in range(2):
            model.train(True)
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["self.model.train(True)"],
        [],
    ),
}

UNCHANGED = {}
