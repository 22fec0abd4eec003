"""Cases of shapes/runs.py: a loop over training runs (folds, seeds, a sweep) around the epoch
loop, kept, with one LightningModule, Trainer and fit per iteration."""

CONVERTS = {
    "seed_sweep_results_appended_after_each_run": (
        """
        results = []
        for seed in [0, 1]:
            torch.manual_seed(seed)
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
            results.append(loss.item())
        print(sum(results) / len(results))
        """,
        [
            """
            for seed in [0, 1]:
                torch.manual_seed(seed)
                net = nn.Linear(4, 2)
                lit_model = LitModel(net, criterion)
                trainer = L.Trainer(accelerator="cpu", devices=1, max_epochs=2)
                trainer.fit(lit_model, loader)
                loss = lit_model.loss
                results.append(loss.item())
            """,
            "torch.optim.SGD(self.model.parameters(), lr=0.1)",
        ],
        ["opt.step()", "for epoch"],
    ),
    "learning_rate_of_the_sweep_is_a_constructor_argument": (
        """
        best = {}
        for lr in [0.1, 0.01]:
            net = nn.Linear(4, 2)
            opt = torch.optim.Adam(net.parameters(), lr=lr)
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
            best[lr] = loss.item()
        """,
        [
            "lit_model = LitModel(net, criterion, lr)",
            "torch.optim.Adam(self.model.parameters(), lr=self.lr)",
        ],
        ["opt.zero_grad()"],
    ),
    "counter_read_by_the_next_run_is_carried_back": (  # a global step across the runs
        """
        step = 0
        for fold in range(2):
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
                    step += 1
        """,
        [
            """
            for fold in range(2):
                net = nn.Linear(4, 2)
                lit_model = LitModel(net, criterion, step)
                trainer = L.Trainer(accelerator="cpu", devices=1, max_epochs=2)
                trainer.fit(lit_model, loader)
                step = lit_model.step
            """,
        ],
        [],
    ),
    "nested_sweeps_in_main": (
        """
        def main():
            scores = {}
            for seed in range(2):
                for wd in [0.0, 1e-4]:
                    torch.manual_seed(seed)
                    net = nn.Linear(4, 2)
                    opt = torch.optim.SGD(net.parameters(), lr=0.1, weight_decay=wd)
                    for epoch in range(2):
                        for x, y in loader:
                            opt.zero_grad()
                            loss = criterion(net(x), y)
                            loss.backward()
                            opt.step()
                    scores[seed, wd] = loss.item()
            print(scores)


        main()
        """,
        [
            "lit_model = LitModel(net, wd)",
            "opt = torch.optim.SGD(self.model.parameters(), lr=0.1, weight_decay=self.wd)",
            "loss = lit_model.loss",
        ],
        ["opt.step()"],
    ),
    "fold_skipped_log_file_per_fold_and_del_after": (  # Kaggle: `continue`, `del`, gc
        """
        import gc

        scores = []
        for fold in range(3):
            if fold == 1:
                continue
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            with open(f"log_{fold}.txt", "w") as log:
                for epoch in range(2):
                    for x, y in loader:
                        opt.zero_grad()
                        loss = criterion(net(x), y)
                        loss.backward()
                        opt.step()
                    print(epoch, loss.item(), file=log)
            scores.append(loss.item())
            del net, opt
            gc.collect()
        """,
        [
            """
            for fold in range(3):
                if fold == 1:
                    continue
                net = nn.Linear(4, 2)
                with open(f"log_{fold}.txt", "w") as log:
                    lit_model = LitModel(net, criterion, log)
                    trainer = L.Trainer(accelerator="cpu", devices=1, max_epochs=2)
                    trainer.fit(lit_model, loader)
                    loss = lit_model.loss
                    opt = trainer.optimizers[0]
                scores.append(loss.item())
                del net, opt
            """,
            "print(epoch, self.loss.item(), file=self.log_)",
        ],
        ["opt.step()"],
    ),
    "runs_calling_a_function_holding_the_epoch_loop": (  # its loop converts where it stands
        """
        def run(lr):
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=lr)
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        for lr in [0.1, 0.01]:
            run(lr)
        """,
        [
            """
            def run(lr):
                net = nn.Linear(4, 2)
                lit_model = LitModel(net, lr)
                trainer = L.Trainer(accelerator="cpu", devices=1, max_epochs=2)
                trainer.fit(lit_model, loader)


            for lr in [0.1, 0.01]:
                run(lr)
            """,
        ],
        ["opt.step()"],
    ),
    # a learning-rate sweep calling `train(net, opt)`: the caller builds both in each run,
    # so each call (one fit) trains its own model with its own optimizer
    "function_given_model_and_optimizer_built_per_run": (
        """
        def train(net, opt):
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
            return loss.item()


        results = {}
        for lr in [0.1, 0.01]:
            torch.manual_seed(0)
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=lr)
            results[lr] = train(net, opt)
        """,
        [
            """
            def train(net, opt):
                lit_model = LitModel(net, opt)
                trainer = L.Trainer(accelerator="cpu", devices=1, max_epochs=2)
                trainer.fit(lit_model, loader)
            """,
            "results[lr] = train(net, opt)",
        ],
        ["opt.step()"],
    ),
    # Kaggle's `train_loop(fold)`: the scheduler built by a helper choosing it by name and
    # stepped under an `if` on the setting: the optimizer and scheduler stay where each run
    # builds them, handed to the module, which steps the scheduler where the script did
    "scheduler_by_name_kept_where_each_run_builds_it": (
        """
        def get_scheduler(name, optimizer):
            if name == "plateau":
                return torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
            return torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)


        def run(fold):
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            scheduler = get_scheduler("step", opt)
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
                if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
                    scheduler.step(loss.item())
                else:
                    scheduler.step()


        for fold in range(2):
            run(fold)
        """,
        [
            "lit_model = LitModel(net, opt, scheduler)",
            "self.scheduler.step()",
            "return self.opt",
        ],
        ["opt.step()"],
    ),
    # the rate read after the epoch's step (`lr = optimizer.param_groups[0]["lr"]` for the
    # print): the optimizer and its scheduler stay where each run builds them
    "rate_read_after_the_step_kept_where_each_run_builds_it": (
        """
        def run(fold):
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=1)
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
                scheduler.step()
                lr = opt.param_groups[0]["lr"]
                print(fold, epoch, lr)


        for fold in range(2):
            run(fold)
        """,
        [
            "lit_model = LitModel(net, opt, scheduler, fold)",
            'lr = self.opt.param_groups[0]["lr"]',
            "return self.opt",
        ],
        ["opt.step()"],
    ),
    # the epoch loop calls a per-epoch helper holding the batch loop: the fold loop around it
    # is a loop over runs all the same (a Kaggle notebook's `train_one_epoch(...)`)
    "fold_loop_around_an_epoch_loop_calling_a_helper": (
        """
        def train_one_epoch(net, opt):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()


        for fold in range(2):
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                train_one_epoch(net, opt)
        """,
        ["for fold in range(2):", "trainer.fit(lit_model, loader)"],
        ["opt.step()", "for epoch"],
    ),
    # bound in each run to the model built once before the loop: the same object, each run
    # going on training it with its own optimizer, one fit per run given that object
    "model_named_again_in_each_run": (
        """
        for seed in [0, 1]:
            net = model.to("cpu")
            net = net.to("cpu")
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
        """,
        ["lit_model = LitModel(net, criterion)", "torch.optim.SGD(self.model.parameters(), lr=0.1)"],
        ["opt.step()"],
    ),
    "model_built_per_seed_around_the_learning_rates": (  # each lr goes on training it
        """
        for seed in [0, 1]:
            torch.manual_seed(seed)
            net = nn.Linear(4, 2)
            for lr in [0.1, 0.01]:
                opt = torch.optim.SGD(net.parameters(), lr=lr)
                for epoch in range(2):
                    for x, y in loader:
                        opt.zero_grad()
                        loss = criterion(net(x), y)
                        loss.backward()
                        opt.step()
        """,
        ["torch.optim.SGD(self.model.parameters(), lr=self.lr)", "trainer.fit(lit_model, loader)"],
        ["opt.step()"],
    ),
    "function_given_the_model_called_per_fold": (  # each call trains the same model on
        """
        def run(fold, net):
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = nn.Linear(4, 2)
        for fold in range(2):
            run(fold, net)
        """,
        ["lit_model = LitModel(net)", "torch.optim.SGD(self.model.parameters(), lr=0.1)"],
        ["opt.step()"],
    ),
    # the model every run goes on training leaves the run in eval mode: its `train()` stays
    "model_carried_across_runs_keeps_its_train_call": (
        """
        for lr in [0.1, 0.01]:
            opt = torch.optim.SGD(model.parameters(), lr=lr)
            for epoch in range(2):
                model.train()
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    opt.step()
            model.eval()
            print(model(torch.ones(1, 4)))
        """,
        ["self.model.train()"],
        ["opt.step()"],
    ),
}

UNCHANGED = {
    # kept in the script (its rate read after the step), but built once before the runs:
    # every run would go on with the previous one's optimizer state
    "kept_optimizer_built_once_before_the_runs": (
        """
        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=1)


        def run(fold):
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
                scheduler.step()
                print(fold, opt.param_groups[0]["lr"])


        for fold in range(2):
            run(fold)
        """,
        "TL193",
    ),
    "model_and_optimizer_built_once_before_the_folds": (  # continued training
        """
        for fold, (tr_idx, va_idx) in enumerate([([0, 1], [2]), ([1, 2], [0])]):
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
        """,
        "TL193",
    ),
    "sweep_stopping_on_a_good_result": (
        """
        for lr in [0.1, 0.01, 0.001]:
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=lr)
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
            if loss.item() < 0.5:
                break
        """,
        "TL193",
    ),
    "for_else_on_the_runs": (
        """
        for seed in [0, 1]:
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
        else:
            print("done")
        """,
        "TL193",
    ),
    # the optimizer the function is given is built once, before the runs: each call goes on
    # with the state the previous one left
    "function_given_an_optimizer_built_before_the_runs": (
        """
        def train(net, opt):
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for fold in range(2):
            train(net, opt)
        """,
        "TL193",
    ),
    # rebuilt only in some runs: the others go on with the previous run's objects
    "function_given_objects_rebuilt_under_a_condition": (
        """
        def train(net, opt):
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        for fold in range(3):
            if fold != 1:
                net = nn.Linear(4, 2)
                opt = torch.optim.SGD(net.parameters(), lr=0.1)
            train(net, opt)
        """,
        "TL193",
    ),
    # the same, left by a `break` ("train fold 0 first"): a sweep stopping early
    "fold_loop_around_an_epoch_helper_left_by_break": (
        """
        def train_one_epoch(net, opt):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()


        for fold in range(3):
            if fold > 0:
                break
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                train_one_epoch(net, opt)
        """,
        "TL193",
    ),
}
