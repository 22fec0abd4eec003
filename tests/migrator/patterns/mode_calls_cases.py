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
    "train_kept_when_the_model_was_evaluated_before_the_loop": (
        """
        model.eval()
        print(criterion(model(torch.randn(4, 4)), torch.zeros(4, dtype=torch.long)))
        for epoch in range(2):
            model.train()
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["def on_train_epoch_start(self):\n        self.model.train()"],
        [],
    ),
    "train_kept_when_a_helper_received_the_model_before_the_loop": (
        """
        def evaluate(net):
            net.eval()

        evaluate(model)
        for epoch in range(2):
            model.train()
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["self.model.train()"],
        [],
    ),
    # an evaluation helper run at each epoch's end leaves the model in eval mode: the next
    # epoch's `model.train()` puts it back (Lightning does not)
    "train_kept_when_an_epoch_end_helper_evaluates_the_model": (
        """
        def evaluate(net):
            net.eval()
            return 0.0


        for epoch in range(2):
            model.train()
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            print(evaluate(model))
        """,
        ["def on_train_epoch_start(self):\n        self.model.train()"],
        [],
    ),
    # a model the training function is given: its caller evaluated it first (course notebooks)
    "train_kept_when_the_caller_evaluated_the_given_model": (
        """
        def evaluate(net):
            net.eval()


        def fit(net, epochs):
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(epochs):
                net.train()
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        history = [evaluate(model)]
        fit(model, 2)
        """,
        ["def on_train_epoch_start(self):\n        self.model.train()"],
        [],
    ),
    "train_dropped_when_no_caller_touches_the_given_model": (
        """
        def fit(net, epochs):
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(epochs):
                net.train()
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        fit(model, 2)
        """,
        ["trainer.fit(lit_model, loader)"],
        [".train()"],
    ),
    # a method of the script's model class switching to eval mode at each epoch's end: the
    # next epoch would train in eval mode (dropout off) without the script's model.train()
    "train_kept_when_a_model_method_evaluates_at_epoch_end": (
        """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Sequential(nn.Dropout(0.5), nn.Linear(4, 2))

            def forward(self, x):
                return self.fc(x)

            def evaluate(self, x):
                self.eval()
                with torch.no_grad():
                    return self(x).sum().item()


        net = Net()
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for epoch in range(2):
            net.train()
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
            print(net.evaluate(torch.randn(4, 4)))
        """,
        ["def on_train_epoch_start(self):\n        self.model.train()"],
        [],
    ),
}

# a model from a library (`from_pretrained` returns one in eval mode) may not start in train
# mode: the script's train() stays; a module a factory of the file builds does
_BUILT = """
{build}
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    for x, y in loader:
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
"""
CONVERTS["train_kept_for_a_model_a_library_builds"] = (
    _BUILT.format(build="from zoo import build_model\n\nmodel = build_model()"),
    ["def on_train_epoch_start(self):\n        self.model.train()"],
    [],
)
CONVERTS["train_dropped_for_a_model_a_factory_of_the_file_builds"] = (
    _BUILT.format(
        build="def build_model(width):\n    net = nn.Linear(4, width)\n    return net\n\n\n"
        "model = build_model(2)"
    ),
    ["trainer.fit(lit_model, loader)"],
    [".train()"],
)

UNCHANGED = {}
