"""Cases of patterns/helper_globals.py: per-epoch helpers that declare `global` names."""

CONVERTS = {
    "module_level_loop_carries_the_global_back": (
        """
        best = 0.0


        def evaluate(epoch):
            global best
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            best = max(best, loss.item())


        for epoch in range(2):
            evaluate(epoch)
        print(best)
        """,
        ["self.best = max(self.best, self.loss.item())", "best = lit_model.best"],
        ["global best", "def evaluate"],
    ),
    "loop_in_a_function_keeps_the_module_global": (
        """
        steps_done = 0


        def train_epoch(net, data, opt):
            global steps_done
            for x, y in data:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
                steps_done += 1


        def main():
            net = nn.Linear(4, 2)
            data = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                train_epoch(net, data, opt)
            print(steps_done)


        main()
        """,
        ["global steps_done\n        x, y = batch", "steps_done += 1"],
        ["self.steps_done", "def train_epoch"],
    ),
}

UNCHANGED = {
    "global_shadowed_by_a_local_of_the_function": (
        """
        best = 0.0


        def evaluate(epoch):
            global best
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            best = max(best, loss.item())


        def main():
            best = None
            for epoch in range(2):
                evaluate(epoch)
            print(best)


        main()
        """,
        "TL130",
    ),
    "global_read_by_another_function_while_training": (
        """
        best = 0.0


        def report():
            print("best so far", best)


        def evaluate(epoch):
            global best
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            best = max(best, loss.item())
            report()


        for epoch in range(2):
            evaluate(epoch)
        """,
        "TL130",
    ),
    "global_inside_a_block_of_the_helper": (
        """
        best = 0.0


        def evaluate(epoch):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if epoch > 0:
                global best
                best = loss.item()


        for epoch in range(2):
            evaluate(epoch)
        """,
        "TL130",
    ),
}
