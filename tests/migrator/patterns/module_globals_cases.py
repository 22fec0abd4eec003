"""Cases of patterns/module_globals.py: names the function holding the loop declares global."""

CONVERTS = {
    "global_config_read_and_counter_written": (
        """
        config = None
        seen = 0


        def main():
            global config, seen
            config = {"log_every": 2}
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                for i, (x, y) in enumerate(loader):
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
                    seen += 1
                    if i % config["log_every"] == 0:
                        print(seen, loss.item())


        main()
        """,
        [
            "def training_step(self, batch, batch_idx):\n        global seen\n",
            'if batch_idx % config["log_every"] == 0:',
            "global config, seen\n    config = ",
            "LitModel(net)",
        ],
        ["self.seen", "self.config"],
    ),
}

UNCHANGED = {
    "model_declared_global": (
        """
        net = None


        def main():
            global net
            net = torch.nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        main()
        """,
        "TL131",
    ),
    "global_declared_inside_a_block": (
        """
        best = None


        def main(save):
            if save:
                global best
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                best = loss.item()


        main(True)
        """,
        "TL117",
    ),
}

# a counter a function of the script rebinds through `global` (the DQN tutorial's
# `steps_done` in `select_action()`): read as the module's variable, never a copy
CONVERTS["global_rebound_by_a_called_function"] = (
    """
    seen = 0


    def bump():
        global seen
        seen += 1


    for epoch in range(2):
        for x, y in loader:
            bump()
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        print("epoch", epoch, "seen", seen)
    """,
    ['print("epoch", epoch, "seen", seen)'],
    ["self.hparams.seen", "self.seen", "def __init__(self, model, criterion, seen)"],
)
