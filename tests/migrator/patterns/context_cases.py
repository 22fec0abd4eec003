"""Cases of shapes/context.py and shapes/enclosing.py: where a loop may stand, and the
`with` blocks kept around the Trainer statements that replace it."""

CONVERTS = {
    "temporary_directory_holding_the_best_weights": (
        """
        import os
        from tempfile import TemporaryDirectory

        best_loss = float("inf")
        with TemporaryDirectory() as tempdir:
            best_path = os.path.join(tempdir, "best.pt")
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                if loss.item() < best_loss:
                    best_loss = loss.item()
                    torch.save(model.state_dict(), best_path)
            model.load_state_dict(torch.load(best_path))
        print(best_loss)
        """,
        [
            """
            with TemporaryDirectory() as tempdir:
                best_path = os.path.join(tempdir, "best.pt")
                lit_model = LitModel(model, criterion, best_loss, best_path)
            """,
            """
                trainer.fit(lit_model, loader)
                best_loss = lit_model.best_loss
                model.load_state_dict(torch.load(best_path))
            print(best_loss)
            """,
            "torch.save(self.model.state_dict(), self.best_path)",
        ],
        ["for epoch", "optimizer.step()"],
    ),
    "log_file_in_main_written_per_epoch": (
        """
        def main():
            net = nn.Linear(4, 2)
            adam = torch.optim.Adam(net.parameters(), lr=0.01)
            with open("log.csv", "w") as log:
                log.write("epoch,loss\\n")
                for epoch in range(2):
                    for x, y in loader:
                        adam.zero_grad()
                        loss = criterion(net(x), y)
                        loss.backward()
                        adam.step()
                    log.write(f"{epoch},{loss.item()}\\n")
                log.write("done\\n")


        main()
        """,
        [
            'as log:\n        log.write("epoch,loss\\n")\n        lit_model = LitModel(net, log)',
            'trainer.fit(lit_model, loader)\n        log.write("done\\n")',
            'self.log_.write(f"{epoch},{self.loss.item()}\\n")',
        ],
        ["for epoch"],
    ),
    "nested_withs_with_code_between": (
        """
        import contextlib

        with contextlib.suppress(FileNotFoundError):
            steps = 0
            with open("log.txt", "w") as log:
                for epoch in range(2):
                    for x, y in loader:
                        optimizer.zero_grad()
                        loss = criterion(model(x), y)
                        loss.backward()
                        optimizer.step()
                        steps += 1
                    print(epoch, file=log)
                print(steps, file=log)
            print("done", steps)
        """,
        [
            """
            with contextlib.suppress(FileNotFoundError):
                steps = 0
                with open("log.txt", "w") as log:
                    lit_model = LitModel(model, criterion, steps, log)
            """,
            'steps = lit_model.steps\n        print(steps, file=log)\n    print("done", steps)',
        ],
        ["for epoch"],
    ),
    "with_under_name_main": (
        """
        if __name__ == "__main__":
            with open("log.txt", "w") as log:
                for epoch in range(2):
                    for x, y in loader:
                        optimizer.zero_grad()
                        loss = criterion(model(x), y)
                        loss.backward()
                        optimizer.step()
                    print(epoch, loss.item(), file=log)
        """,
        [
            """
            if __name__ == "__main__":
                with open("log.txt", "w") as log:
                    lit_model = LitModel(model, criterion, log)
            """
        ],
        ["for epoch"],
    ),
    "progress_bar_inside_a_kept_with": (
        """
        from tqdm import tqdm

        with open("log.txt", "w") as log:
            with tqdm(total=2 * len(loader)) as pbar:
                for epoch in range(2):
                    for x, y in loader:
                        optimizer.zero_grad()
                        loss = criterion(model(x), y)
                        loss.backward()
                        optimizer.step()
                        pbar.update(1)
            print("done", file=log)
        """,
        [
            """
            with open("log.txt", "w") as log:
                lit_model = LitModel(model, criterion)
            """,
            'trainer.fit(lit_model, loader)\n    print("done", file=log)',
        ],
        ["tqdm", "pbar"],
    ),
    "test_pass_inside_the_with_after_the_loop": (
        """
        test_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
        with open("log.txt", "w") as log:
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                print(epoch, file=log)
            correct = 0
            with torch.no_grad():
                for x, y in test_loader:
                    correct += (model(x).argmax(1) == y).sum().item()
            print(correct / len(test_loader.dataset), file=log)
        """,
        ["trainer.fit(lit_model, loader)\n    trainer.test(lit_model, test_loader)\n"],
        ["test_loader:"],
    ),
    # the pass would be replaced inside the `with` and its report removed outside it
    "test_pass_straddling_the_end_of_the_with_left_as_written": (
        """
        test_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
        with open("log.txt", "w") as log:
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                print(epoch, file=log)
            correct = 0
            with torch.no_grad():
                for x, y in test_loader:
                    correct += (model(x).argmax(1) == y).sum().item()
        print(correct / len(test_loader.dataset))
        """,
        ["trainer.fit(lit_model, loader)\n    correct = 0\n    with torch.no_grad():"],
        ["trainer.test"],
    ),
    "two_loops_in_one_with": (
        """
        head = nn.Linear(4, 2)
        head_optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
        with open("log.txt", "w") as log:
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
            print("head only", file=log)
            for epoch in range(2):
                for x, y in loader:
                    head_optimizer.zero_grad()
                    loss = criterion(head(x), y)
                    loss.backward()
                    head_optimizer.step()
        """,
        [
            'trainer.fit(lit_model, loader)\n    print("head only", file=log)\n'
            "    lit_model2 = LitModel2(head, criterion)"
        ],
        ["for epoch"],
    ),
    "interrupt_guard_inside_a_with": (
        """
        with open("log.txt", "w") as log:
            try:
                for epoch in range(2):
                    for x, y in loader:
                        optimizer.zero_grad()
                        loss = criterion(model(x), y)
                        loss.backward()
                        optimizer.step()
                    print(epoch, file=log)
            except KeyboardInterrupt:
                print("stopped early", file=log)
        """,
        ["as log:\n    try:\n        lit_model = LitModel(model, criterion, log)"],
        ["for epoch"],
    ),
}

UNCHANGED = {
    "async_with": (
        """
        import contextlib


        async def main():
            async with contextlib.AsyncExitStack():
                for epoch in range(2):
                    for x, y in loader:
                        optimizer.zero_grad()
                        loss = criterion(model(x), y)
                        loss.backward()
                        optimizer.step()
        """,
        "TL103",
    ),
    "under_no_grad": (
        """
        with torch.no_grad():
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
        """,
        "TL103",
    ),
    "set_grad_enabled_among_other_managers": (
        """
        with open("log.txt", "w") as log, torch.set_grad_enabled(True):
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                print(epoch, file=log)
        """,
        "TL103",
    ),
    "under_ddp_join": (
        """
        from torch.distributed.algorithms.join import Join

        with Join([model]):
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
        """,
        "TL103",
    ),
    "progress_bar_holding_other_statements": (
        """
        from tqdm import tqdm

        with tqdm(total=2 * len(loader)) as pbar:
            pbar.set_description("training")
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    pbar.update(1)
        """,
        "TL103",
    ),
    "with_inside_try": (
        """
        try:
            with open("log.txt", "w") as log:
                for epoch in range(2):
                    for x, y in loader:
                        optimizer.zero_grad()
                        loss = criterion(model(x), y)
                        loss.backward()
                        optimizer.step()
                    print(epoch, file=log)
        except OSError:
            print("no log")
        """,
        "TL103",
    ),
}

UNCHANGED.update(
    {
        # the nested function holds a whole run (its own epoch loop): no per-epoch helper
        "run_in_a_function_nested_in_main": (
            """
            def main():
                def fit(epochs):
                    for epoch in range(epochs):
                        for x, y in loader:
                            optimizer.zero_grad()
                            loss = criterion(model(x), y)
                            loss.backward()
                            optimizer.step()

                fit(2)


            main()
            """,
            "TL103",
        ),
    }
)
