"""Cases of patterns/helpers.py: per-epoch helpers inlined, and removed once unused."""

CONVERTS = {
    "train_helper_returning_the_mean_loss": (
        """
        def train_epoch(model, loader, optimizer):
            total = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item()
            return total / len(loader)


        for epoch in range(2):
            mean = train_epoch(model, loader, optimizer)
            print(epoch, mean)
        """,
        [
            "def on_train_epoch_start(self):\n        self.total = 0.0",
            "mean = self.total / len(self.trainer.train_dataloader)",
        ],
        ["def train_epoch"],
    ),
    "batch_index_read_after_the_loop_and_reused_by_the_eval_helper": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


        def train(epoch):
            total = 0.0
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item()
            print(epoch, total / (i + 1))


        def test():
            hits = 0
            with torch.no_grad():
                for i, (x, y) in enumerate(val_loader):
                    hits += (model(x).argmax(1) == y).sum().item()
            print(hits)


        for epoch in range(2):
            train(epoch)
            test()
        """,
        [
            "def training_step(self, batch, batch_idx):\n        self.i = batch_idx\n",
            "print(epoch, self.total / (self.i + 1))",
        ],
        ["def train(", "self.i = i"],
    ),
    # a default string argument read in an f-string: `f"{""}"` is a syntax error before 3.12
    "string_default_read_in_an_f_string_is_requoted": (
        """
        def train_epoch(model, loader, optimizer, header="", tag='train'):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            print(f"{header} {tag} done", f'{tag!r}')


        for epoch in range(2):
            train_epoch(model, loader, optimizer)
        """,
        ["print(f\"{''} {'train'} done\", f'{\"train\"!r}')"],
        ["def train_epoch"],
    ),
    "expression_arguments_bound_first_in_the_order_python_evaluates_them": (
        """
        def train(model, loader, optimizer, epoch, log_every):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if i % log_every == 0:
                    print(epoch, i, loss.item())


        for epoch in range(2):
            train(model, loader, optimizer, log_every=len(loader) // 2, epoch=epoch + 1)
        """,
        [
            # keyword order is evaluation order; `epoch` is the loop's: the prefixed name
            "self.log_every = len(self.trainer.train_dataloader) // 2\n"
            "        self.train_epoch = epoch + 1",
            "print(self.train_epoch, batch_idx, loss.item())",
        ],
        ["def train("],
    ),
    "parameter_rebound_by_the_helper_gets_its_own_local": (
        """
        scale = 1.0


        def train(model, loader, optimizer, scale):
            scale = scale * 0.5
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y) * scale
                loss.backward()
                optimizer.step()


        for epoch in range(2):
            train(model, loader, optimizer, scale)
        """,
        # inlined as `scale = scale * 0.5`, it would halve the script's `scale` every epoch
        ["self.train_scale = self.hparams.scale\n        self.train_scale = self.train_scale * 0.5"],
        ["self.scale = self.scale * 0.5"],
    ),
    # the epoch's own pass after `model.eval()` (a statement the conversion removes): after it
    # `i` is the pass's last index, not the training helper's; Lightning runs the epoch's end
    # after the validation pass, which carries its index
    "batch_index_read_after_an_inline_eval_pass_reusing_it": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


        def train_one_epoch():
            last_loss = 0.0
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                last_loss = loss.item()
            return last_loss


        for epoch in range(2):
            model.train()
            avg_loss = train_one_epoch()
            running_vloss = 0.0
            model.eval()
            with torch.no_grad():
                for i, (x, y) in enumerate(val_loader):
                    running_vloss += criterion(model(x), y)
            print("train", avg_loss, "valid", running_vloss / (i + 1))
        """,
        [
            "def validation_step(self, batch, batch_idx):\n        self.i = batch_idx",
            "(self.i + 1)",
        ],
        ["def training_step(self, batch, batch_idx):\n        self.i"],
    ),
    # test() prints its own last index: the validation step's, carried to the epoch's end
    "batch_index_read_after_the_eval_pass_reusing_it": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


        def train(epoch):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


        def test():
            with torch.no_grad():
                for i, (x, y) in enumerate(val_loader):
                    model(x)
            print("batches", i + 1)


        for epoch in range(2):
            train(epoch)
            test()
        """,
        ["def validation_step(self, batch, batch_idx):\n        self.i = batch_idx"],
        ["def training_step(self, batch, batch_idx):\n        self.i"],
    ),
}

UNCHANGED = {
    "string_argument_with_both_quotes_read_in_an_f_string": (
        """
        def train_epoch(model, loader, optimizer, header="it's"):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            print(f"{header} done")


        for epoch in range(2):
            train_epoch(model, loader, optimizer)
        """,
        "TL111",
    ),
    # ... read before the pass too: two meanings of `i` in one hook
    "batch_index_read_before_and_after_an_inline_eval_pass": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


        def train_one_epoch():
            last_loss = 0.0
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                last_loss = loss.item()
            return last_loss


        for epoch in range(2):
            model.train()
            avg_loss = train_one_epoch()
            print("batches", i + 1)
            running_vloss = 0.0
            model.eval()
            with torch.no_grad():
                for i, (x, y) in enumerate(val_loader):
                    running_vloss += criterion(model(x), y)
            print("train", avg_loss, "valid", running_vloss / (i + 1))
        """,
        "TL108",
    ),
    "helper_with_star_args": (
        """
        def train(model, loader, optimizer, *extra):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


        for epoch in range(2):
            train(model, loader, optimizer)
        """,
        "TL111",
    ),
    "helper_returning_early": (
        """
        def train(model, loader, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if len(loader) == 0:
                return None
            return loss


        for epoch in range(2):
            last = train(model, loader, optimizer)
        """,
        "TL111",
    ),
    "default_that_is_an_expression_shared_by_every_call": (
        """
        class Stats:
            def __init__(self):
                self.steps = 0


        def train(model, loader, optimizer, stats=Stats()):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                stats.steps += 1


        for epoch in range(2):
            train(model, loader, optimizer)
        """,
        "TL111",
    ),
    "loader_argument_built_every_epoch": (
        """
        def make_loader(epoch):
            return DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))


        def train(model, data_loader, optimizer):
            for x, y in data_loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


        for epoch in range(2):
            train(model, make_loader(epoch), optimizer)
        """,
        "TL116",
    ),
}
