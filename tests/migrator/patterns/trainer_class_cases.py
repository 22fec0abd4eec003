"""Cases of shapes/trainer_class.py and trainer_inline.py: a hand-written trainer class,
inlined where the script creates and runs it (TL170), or refused with a precise code."""

_RUNNER = """
class Runner:
    def __init__(self, net, data, lr=0.1):
        self.net = net
        self.data = data
        self.opt = torch.optim.SGD(net.parameters(), lr=lr)

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.data:
                self.opt.zero_grad()
                loss = criterion(self.net(x), y)
                loss.backward()
                self.opt.step()
"""

# `track()` rebinds `self.best`: carried back by its calls, refused where it cannot come back
_TRACKING = """
class Runner:
    def __init__(self, net, data):
        self.net = net
        self.data = data
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
        self.best = float("inf")

    def train_epoch(self):
        for x, y in self.data:
            self.opt.zero_grad()
            loss = criterion(self.net(x), y)
            loss.backward()
            self.opt.step()
        return loss.item()

    def track(self, loss):
        if loss < self.best:
            self.best = loss
        return loss

"""

# `self.step` first set by fit(), then counted by train_step(): set for sure, or not
_STEP_COUNTER = """
class Runner:
    def __init__(self, net, data):
        self.net = net
        self.data = data
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

    def train_step(self, x, y):
        self.opt.zero_grad()
        loss = criterion(self.net(x), y)
        loss.backward()
        self.opt.step()
        self.step += 1

    def fit(self, resume):
        {first}
        for epoch in range(2):
            for x, y in self.data:
                self.train_step(x, y)
        print(self.step)


runner = Runner(model, loader)
runner.fit(False)
"""

# validate() keeps `self.best`: carried back, unless a decorator would see what it returns
_VALIDATE = """
{imports}

class Runner:
    def __init__(self, net, data):
        self.net = net
        self.data = data
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
        self.best = float("inf")

    @{decorator}
    def validate(self):
        loss = sum(criterion(self.net(x), y).item() for x, y in self.data)
        if loss < self.best:
            self.best = loss
        return loss

    def fit(self):
        for epoch in range(2):
            for x, y in self.data:
                self.opt.zero_grad()
                loss = criterion(self.net(x), y)
                loss.backward()
                self.opt.step()
            val = self.validate()
            print(val, self.best)


runner = Runner(model, loader)
runner.fit()
"""

# the time-series repos' experiment class: a factory method for the optimizer, one instance
# per repetition of the experiment
_EXPERIMENT = """
class Exp:
    def __init__(self, net, data, lr):
        self.net = net
        self.data = data
        self.lr = lr

    def _select_optimizer(self):
        return torch.optim.SGD(self.net.parameters(), lr=self.lr)

    def train(self, epochs):
        opt = self._select_optimizer()
        for epoch in range(epochs):
            for x, y in self.data:
                opt.zero_grad()
                loss = criterion(self.net(x), y)
                loss.backward()
                opt.step()
        return self.net


"""

# `self.net = network` given the caller's `net`: one object under one name, unless something
# rebinds either (the caller's name, the class's attribute, the constructor's parameter)
_SHARED = """
class Runner:
    def __init__(self, network, data, sgd):
        self.net = {stored}
        self.data = data
        self.opt = sgd

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.data:
                self.opt.zero_grad()
                loss = criterion(self.net(x), y)
                loss.backward()
                self.opt.step()
        print(self.net.weight.sum())


def main():
    net = nn.Linear(4, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    runner = Runner(net, loader, opt)
    {between}
    runner.fit(2)
    print(net.weight.sum(), opt)


main()
"""

_WRAPS_ITS_MODEL = """
class Runner:
    def __init__(self, model, data):
        self.data = data
        self.model = nn.Sequential(model, nn.ReLU())
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def fit(self):
        for epoch in range(2):
            for x, y in self.data:
                self.opt.zero_grad()
                loss = criterion(self.model(x), y)
                loss.backward()
                self.opt.step()


def main():
    model = nn.Linear(4, 2)
    runner = Runner(model, loader)
    runner.fit(){after}


main()
"""

# minGPT's `Trainer.get_default_config()`: a config factory that never sees an instance
_STATIC_CONFIG = """
class Runner:
    {decorator}
    def get_default_config({first}):
        {body}

    def __init__(self, net, data, config):
        self.net = net
        self.data = data
        self.opt = torch.optim.SGD(net.parameters(), lr=config["lr"])
        {init}

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.data:
                self.opt.zero_grad()
                loss = criterion(self.net(x), y)
                loss.backward()
                self.opt.step()


config = Runner.get_default_config()
runner = Runner(model, loader, config)
runner.fit(2)
"""


def _static(decorator="@staticmethod", first="", body='return {"lr": 0.1}', init=""):
    return _STATIC_CONFIG.format(decorator=decorator, first=first, body=body, init=init)


CONVERTS = {
    # `reset()` sets `self.seen` before any read: called before `__init__` sets it, it needs
    # no value of it (was refused, TL173, when every carried attribute was a parameter)
    "state_helper_sets_an_attribute_init_sets_after_a_call": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.reset()
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

            def reset(self):
                self.seen = 0

            def fit(self):
                for epoch in range(2):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()
                        self.seen += len(x)


        runner = Runner(model, loader)
        runner.fit()
        """,
        ["def reset():\n    seen = 0\n    return seen", "seen = reset()"],
        ["class Runner"],
    ),
    # `__init__` calls `build()`, which sets the optimizer before anything reads it: the
    # function needs no value of it, only gives it back (StarGAN's `build_model()`)
    "init_calls_a_builder_setting_attributes_first": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.lr = 0.1
                self.build()

            def build(self):
                self.opt = torch.optim.SGD(self.net.parameters(), lr=self.lr)

            def fit(self):
                for epoch in range(2):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()


        runner = Runner(model, loader)
        runner.fit()
        """,
        ["def build(net, lr):\n    opt = torch.optim.SGD(", "opt = build(self.model, self.hparams.lr)"],
        ["class Runner", "runner."],
    ),
    # a helper rebinding `self.start` returns it, also from its bare early `return` (a bare
    # `return` has no space after the keyword: given a value it must get one, not a TL900)
    "helper_with_a_bare_early_return_carries_back": (
        """
        import os


        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                self.start = 0

            def resume(self, path):
                if not os.path.isfile(path):
                    print("no checkpoint")
                    return
                self.start = torch.load(path)["epoch"] + 1

            def fit(self):
                for epoch in range(self.start, 3):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()


        runner = Runner(model, loader)
        runner.resume("last.pth")
        runner.fit()
        """,
        [
            'print("no checkpoint")\n        return start\n',
            'start = resume(start, "last.pth")',
            "max_epochs=3 - start",
        ],
        ["class Runner", "runner."],
    ),
    "attribute_is_the_callers_object_of_the_same_name": (
        _SHARED.format(stored="network", between="print(net)"),
        ["lit_model = LitModel(net)", "    print(net)\n", "print(net.weight.sum(), opt)"],
        ["class Runner", "network = net", "net = net"],
    ),
    # `self.model = f(model)`: inlined, the caller's `model` names f(model) from then on,
    # which nothing reads (the tutorial series' `self.model = DDP(model)`)
    "parameter_rebound_by_init_and_unread_after": (
        _WRAPS_ITS_MODEL.format(after=""),
        ["    model = nn.Sequential(model, nn.ReLU())", "lit_model = LitModel(model)"],
        ["Runner("],
    ),
    "module_level_instance_run_once": (
        _RUNNER + """

runner = Runner(model, loader)
runner.fit(2)
""",
        ["epochs = 2", "lr = 0.1", "trainer.fit(lit_model, loader)"],
        ["class Runner", "runner.", "self.opt.step()", "net = model", "data = loader"],
    ),
    "name_rebound_after_creation_is_copied_first": (
        _RUNNER + """

runner = Runner(model, loader)
model = torch.nn.Linear(4, 2)
runner.fit(2)
""",
        ["net = model\nlr = 0.1\nmodel = torch.nn.Linear(4, 2)", "LitModel(net, criterion, lr)"],
        ["class Runner"],
    ),
    "helper_method_gets_the_attributes_it_reads": (
        """
        class Trainer:
            def __init__(self, model, loader, criterion):
                self.model = model
                self.loader = loader
                self.criterion = criterion
                self.adam = torch.optim.Adam(model.parameters(), lr=1e-3)

            def train_epoch(self):
                total = 0.0
                for x, y in self.loader:
                    self.adam.zero_grad()
                    loss = self.criterion(self.model(x), y)
                    loss.backward()
                    self.adam.step()
                    total += loss.item()
                return total / len(self.loader)

            def fit(self, epochs):
                for epoch in range(epochs):
                    mean_loss = self.train_epoch()
                    print(epoch, mean_loss)


        trainer = Trainer(model, loader, criterion)
        trainer.fit(2)
        """,
        ["def training_step(self, batch, batch_idx):", "max_epochs=epochs"],
        ["def train_epoch", "class Trainer:", "trainer.fit(2)"],
    ),
    # `self.masks = masks` given the caller's `masks`: one object. A method reading it in an
    # assignment's target (`s[self.masks[0]] = 0.0`) or setting an item of it rebinds nothing
    "attribute_read_or_mutated_in_a_target_is_still_the_callers_object": (
        """
        class Trainer:
            def __init__(self, model, loader, masks):
                self.model = model
                self.loader = loader
                self.masks = masks
                self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

            def fit(self):
                for epoch in range(2):
                    for x, y in self.loader:
                        self.optimizer.zero_grad()
                        loss = criterion(self.model(x), y)
                        loss.backward()
                        self.optimizer.step()
                    scores = self.model.weight.detach().clone()
                    scores[self.masks[0]] = 0.0
                    self.masks[1] = epoch
                    print(scores.sum().item())


        def main():
            masks = [0, -1]
            trainer = Trainer(model, loader, masks)
            trainer.fit()
            print(masks)


        main()
        """,
        [
            "scores[self.masks[0]] = 0.0\n        self.masks[1] = epoch",
            "lit_model = LitModel(model, masks)",
            "    print(masks)\n",
        ],
        ["class Trainer:", "Trainer(model, loader, masks)"],
    ),
    "returned_history_and_attribute_read_after_fit": (
        """
        class Trainer:
            def __init__(self, model, loader):
                self.model = model
                self.loader = loader
                self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                self.history = []
                self.best = float("inf")

            def fit(self):
                for epoch in range(2):
                    for x, y in self.loader:
                        self.optimizer.zero_grad()
                        loss = criterion(self.model(x), y)
                        loss.backward()
                        self.optimizer.step()
                    self.history.append(loss.item())
                    if loss.item() < self.best:
                        self.best = loss.item()
                return self.history


        def main():
            trainer = Trainer(nn.Linear(4, 2), loader)
            history = trainer.fit()
            print(history, trainer.best)


        main()
        """,
        ["history = []", "best = lit_model.best", "print(history, best)"],
        ["trainer.best", "return self.history", "    history = history"],
    ),
    "other_method_called_by_the_script_becomes_a_function": (
        """
        class Trainer:
            def __init__(self, model, train_loader, test_loader):
                self.model = model
                self.train_loader = train_loader
                self.test_loader = test_loader
                self.sgd = torch.optim.SGD(model.parameters(), lr=0.1)

            def test(self):
                correct = 0
                with torch.no_grad():
                    for x, y in self.test_loader:
                        correct += (self.model(x).argmax(1) == y).sum().item()
                return correct / len(self.test_loader.dataset)

            def fit(self, epochs):
                for epoch in range(epochs):
                    for x, y in self.train_loader:
                        self.sgd.zero_grad()
                        loss = criterion(self.model(x), y)
                        loss.backward()
                        self.sgd.step()


        trainer = Trainer(model, loader, loader)
        trainer.fit(2)
        print("accuracy", trainer.test())
        """,
        ["def test(model, test_loader):", 'print("accuracy", test(model, loader))'],
        ["trainer.test()", "class Trainer"],
    ),
    "created_and_run_in_one_statement": (
        _RUNNER + "\n\nRunner(model, loader).fit(2)\n",
        ["epochs = 2\nlit_model = LitModel(model, criterion, lr)"],
        ["Runner("],
    ),
    "method_never_called_is_removed_with_the_class": (
        """
        class Engine:
            def __init__(self, model, loader, *, steps_per_log=2):
                self.model = model
                self.loader = loader
                self.steps_per_log = steps_per_log
                self.sgd = torch.optim.SGD(model.parameters(), lr=0.1)

            def save(self, path):
                torch.save(self.model.state_dict(), path)

            def run(self, epochs):
                for epoch in range(epochs):
                    for i, (x, y) in enumerate(self.loader):
                        self.sgd.zero_grad()
                        loss = criterion(self.model(x), y)
                        loss.backward()
                        self.sgd.step()
                        if i % self.steps_per_log == 0:
                            print(loss.item())


        if __name__ == "__main__":
            engine = Engine(model, loader, steps_per_log=1)
            engine.run(epochs=2)
        """,
        ["steps_per_log = 1", "if batch_idx % self.hparams.steps_per_log == 0:"],
        ["def save", "class Engine"],
    ),
    "helper_rebinds_an_attribute": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                self.seen = 0

            def train_epoch(self):
                for x, y in self.data:
                    self.opt.zero_grad()
                    loss = criterion(self.net(x), y)
                    loss.backward()
                    self.opt.step()
                    self.seen += len(x)

            def fit(self):
                for epoch in range(2):
                    self.train_epoch()


        runner = Runner(model, loader)
        runner.fit()
        print(runner.seen)
        """,
        # returned by train_epoch, assigned back where it was called (trainer_state.py)
        ["self.train_epoch_seen += len(x)", "seen = lit_model.seen\nprint(seen)"],
        ["def train_epoch", "runner."],
    ),
    "method_called_by_the_script_rebinds_an_attribute": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                self.frozen = False

            def freeze(self):
                for p in self.net.parameters():
                    p.requires_grad_(False)
                self.frozen = True

            def fit(self):
                for epoch in range(2):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()


        runner = Runner(model, loader)
        runner.fit()
        runner.freeze()
        print(runner.frozen)
        """,
        ["frozen = True\n    return frozen", "frozen = freeze(model, frozen)\nprint(frozen)"],
        ["runner."],
    ),
    "step_counter_of_a_train_step_method": (
        """
        class Runner:
            def __init__(self, net, data, log_every=2):
                self.net = net
                self.data = data
                self.log_every = log_every
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                self.global_step = 0

            def train_step(self, x, y):
                self.opt.zero_grad()
                loss = criterion(self.net(x), y)
                loss.backward()
                self.opt.step()
                self.global_step += 1
                return loss.item()

            def fit(self, epochs):
                for epoch in range(epochs):
                    for x, y in self.data:
                        loss = self.train_step(x, y)
                        if self.global_step % self.log_every == 0:
                            print(self.global_step, loss)
                return self.global_step


        runner = Runner(model, loader)
        steps = runner.fit(2)
        print(steps, runner.global_step)
        """,
        ["train_step_global_step += 1", "global_step = lit_model.global_step_"],
        ["def train_step", "class Runner"],
    ),
    "epoch_attribute_set_from_the_loop_variable": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                self.epoch = 0

            def report(self, loss):
                print(f"epoch {self.epoch}: {loss:.4f}")

            def fit(self, epochs):
                for epoch in range(epochs):
                    self.epoch = epoch
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()
                    self.report(loss.item())


        runner = Runner(model, loader)
        runner.fit(2)
        """,
        ["def report(epoch, loss):"],
        ["class Runner", "self.epoch = epoch"],
    ),
    "state_helper_value_and_attribute_both_come_back": (
        _TRACKING
        + """
    def fit(self):
        for epoch in range(2):
            loss = self.train_epoch()
            loss = self.track(loss)
            print(loss, self.best)


runner = Runner(model, loader)
runner.fit()
print(runner.best)
""",
        ["self.loss, self.best = track(self.best, self.loss)", "return loss, best"],
        ["class Runner", "runner."],
    ),
    "state_helper_returning_a_tuple": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                self.steps = 0

            def train_step(self, x, y):
                self.opt.zero_grad()
                out = self.net(x)
                loss = criterion(out, y)
                loss.backward()
                self.opt.step()
                self.steps += 1
                return loss.item(), out.argmax(1)

            def fit(self):
                for epoch in range(2):
                    for x, y in self.data:
                        loss, pred = self.train_step(x, y)
                        print(self.steps, loss, pred.tolist())


        runner = Runner(model, loader)
        runner.fit()
        """,
        # the helper's own tuple stays one value: `return (loss.item(), out.argmax(1)), steps`
        ["(loss, pred), self.steps = (", "), train_step_steps"],
        ["class Runner"],
    ),
    "snapshot_loaded_in_init_sets_the_first_epoch": (
        """
        import os


        class Runner:
            def __init__(self, net, data, snapshot_path):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                self.epochs_run = 0
                if os.path.exists(snapshot_path):
                    self._load_snapshot(snapshot_path)

            def _load_snapshot(self, path):
                snapshot = torch.load(path)
                self.net.load_state_dict(snapshot["MODEL_STATE"])
                self.epochs_run = snapshot["EPOCHS_RUN"]
                print(f"resuming at epoch {self.epochs_run}")

            def train(self, max_epochs):
                for epoch in range(self.epochs_run, max_epochs):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()


        runner = Runner(model, loader, "snapshot.pt")
        runner.train(3)
        """,
        [
            # `_load_snapshot` sets `self.epochs_run` before reading it: not a parameter
            "        epochs_run = _load_snapshot(model, snapshot_path)",
            "    return epochs_run\n",
        ],
        ["class Runner"],
    ),
    "step_counter_set_first_thing_in_fit": (
        _STEP_COUNTER.format(first="self.step = 0"),
        ["train_step_step += 1", "print(step)"],
        ["class Runner"],
    ),
    "best_kept_by_a_no_grad_validate": (
        _VALIDATE.format(imports="from torch import no_grad", decorator="no_grad()"),
        ["@no_grad()\ndef validate(net, data, best):", "return loss, best"],
        ["class Runner"],
    ),
    # read after the loop, the attribute is not the loop variable: a name of its own
    "epoch_attribute_read_after_the_loop": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                self.epoch = 0

            def save(self, path):
                torch.save({"model": self.net.state_dict(), "epoch": self.epoch}, path)

            def fit(self, epochs):
                for epoch in range(epochs):
                    self.epoch = epoch
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()
                self.save("last.pt")


        runner = Runner(model, loader)
        runner.fit(2)
        print(runner.epoch)
        """,
        [
            "self.runner_epoch = epoch",
            "runner_epoch = lit_model.runner_epoch\nsave(model, runner_epoch, \"last.pt\")",
            "print(runner_epoch)",
        ],
        ["class Runner"],
    ),
    # a new instance, a new model per iteration: a fit per iteration, the optimizer from the
    # factory method (a function once inlined) called in configure_optimizers
    # the static config factory stays, in a class of its own; the rest is inlined
    "static_config_factory_kept_in_the_class": (
        _static(),
        [
            "class Runner:\n    @staticmethod\n    def get_default_config():",
            "config = Runner.get_default_config()",
            "trainer.fit(lit_model, loader)",
        ],
        ["def fit", "runner.", "def __init__(self, net, data, config)"],
    ),
    # read through `self` by the inlined code: through the class
    "static_method_read_through_self": (
        _static(init='self.lr = self.get_default_config()["lr"]'),
        ['lr = Runner.get_default_config()["lr"]'],
        ["self.get_default_config"],
    ),
    # a class method reaching the class only through another kept member
    "class_method_calling_a_static_one": (
        _static(decorator="@classmethod", first="cls", body="return cls.defaults()").replace(
            "    def __init__",
            '    @staticmethod\n    def defaults():\n        return {"lr": 0.1}\n\n    def __init__',
        ),
        ["        return cls.defaults()", "config = Runner.get_default_config()"],
        ["def fit"],
    ),
    # `net, data = self.net, self.data` first thing in fit(): the locals are the attributes
    "run_locals_bound_to_their_attributes": (
        _RUNNER.replace(
            "        for epoch in range(epochs):\n            for x, y in self.data:",
            "        net, data = self.net, self.data\n"
            "        for epoch in range(epochs):\n            for x, y in data:",
        ).replace("self.net(x)", "net(x)")
        + """

runner = Runner(model, loader)
runner.fit(2)
""",
        ["trainer.fit(lit_model, loader)"],
        ["net, data = net, data", "class Runner"],
    ),
    # minGPT's `self.model = self.model.to(self.device)`: the object it was given, moved in place
    "attribute_moved_in_place_is_the_callers_object": (
        _RUNNER.replace(
            "        self.data = data\n",
            "        self.data = data\n        self.net = self.net.to(\"cpu\")\n",
        ).replace("(self, net, data", "(self, model, data").replace("self.net", "self.model").replace(
            "self.model = net", "self.model = model"
        ).replace("opt = torch.optim.SGD(net.", "opt = torch.optim.SGD(model.")
        + """

runner = Runner(model, loader)
runner.fit(2)
print(model.weight.sum())
""",
        ["lit_model = LitModel(model", "print(model.weight.sum())"],
        ["class Runner"],
    ),
    # minGPT's `self.optimizer = None` in __init__, bound by fit() before anything reads it
    "placeholder_attribute_dropped": (
        _RUNNER.replace(
            "        self.opt = torch.optim.SGD(net.parameters(), lr=lr)\n",
            "        self.lr = lr\n        self.opt = None\n",
        ).replace(
            "    def fit(self, epochs):\n",
            "    def fit(self, epochs):\n"
            "        self.opt = torch.optim.SGD(self.net.parameters(), lr=self.lr)\n",
        )
        + """

runner = Runner(model, loader)
runner.fit(2)
""",
        ["opt = torch.optim.SGD(self.model.parameters()"],
        ["opt = None", "class Runner"],
    ),
    # a function's own `runner` (a parameter) is not the instance: its reads stay
    "function_parameter_named_like_the_instance": (
        _RUNNER
        + """

def show(runner):
    print(runner.history, [runner.lr for runner in [runner]])


runner = Runner(model, loader)
runner.fit(2)
show(other)
""",
        ["def show(runner):\n    print(runner.history, [runner.lr for runner in [runner]])"],
        ["class Runner"],
    ),
    "experiment_created_per_iteration": (
        _EXPERIMENT
        + """for ii in range(2):
    torch.manual_seed(ii)
    exp = Exp(nn.Linear(4, 2), loader, 0.1)
    exp.train(2)
    print(ii)
""",
        [
            "def _select_optimizer(net, lr):",
            "opt = _select_optimizer(self.model, self.hparams.lr)",
            "for ii in range(2):\n    torch.manual_seed(ii)\n    net = nn.Linear(4, 2)",
            "max_epochs=epochs)\n    trainer.fit(lit_model, loader)\n    print(ii)",
        ],
        ["class Exp", "exp."],
    ),
}

UNCHANGED = {
    # `build()` reads `self.opt` before setting it, and `__init__` has not set it yet
    "init_calls_a_builder_reading_what_it_sets": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.build()

            def build(self):
                print(self.opt)
                self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

            def fit(self):
                for epoch in range(2):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()


        runner = Runner(model, loader)
        runner.fit()
        """,
        "TL173",
    ),
    "caller_rebinds_the_name_the_attribute_shares": (
        _SHARED.format(stored="network", between="net = nn.Linear(4, 2)"),
        "TL174",
    ),
    "constructor_wraps_the_object_it_is_given": (
        _SHARED.format(stored="nn.Sequential(network)", between="print(net)"),
        "TL174",
    ),
    "module_function_rebinds_the_name_the_attribute_shares": (
        """
        class Runner:
            def __init__(self, network, data, sgd):
                self.net = network
                self.data = data
                self.opt = sgd

            def fit(self, epochs):
                for epoch in range(epochs):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()
                    report()


        def report():
            global net
            net = nn.Linear(4, 2)


        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        runner = Runner(net, loader, opt)
        runner.fit(2)
        print(net.weight.sum())
        """,
        "TL174",
    ),
    "nested_function_rebinds_the_name_the_attribute_shares": (
        _SHARED.format(
            stored="network",
            between="def reset():\n        nonlocal net\n        net = nn.Linear(4, 2)\n\n    reset()",
        ),
        "TL174",
    ),
    "parameter_rebound_by_init_and_read_after": (
        _WRAPS_ITS_MODEL.format(after="\n    print(model.weight)"),
        "TL174",
    ),
    "created_twice": (
        _RUNNER + """

first = Runner(model, loader)
first.fit(1)
second = Runner(model, loader, lr=0.01)
second.fit(1)
""",
        "TL171",
    ),
    "run_twice": (
        _RUNNER + """

runner = Runner(model, loader)
runner.fit(1)
runner.fit(1)
""",
        "TL171",
    ),
    "instance_passed_to_a_function": (
        _RUNNER + """

runner = Runner(model, loader)
runner.fit(2)
print(vars(runner))
""",
        "TL172",
    ),
    "attribute_set_from_outside": (
        _RUNNER + """

runner = Runner(model, loader)
runner.data = loader
runner.fit(2)
""",
        "TL172",
    ),
    "self_handed_to_other_code": (
        """
        class Runner:
            def __init__(self, net, data, hooks):
                self.net = net
                self.data = data
                self.hooks = hooks
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

            def fit(self):
                for epoch in range(2):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()
                    for hook in self.hooks:
                        hook(self)


        runner = Runner(model, loader, [print])
        runner.fit()
        """,
        "TL172",
    ),
    "state_helper_called_inside_an_expression": (
        _TRACKING
        + """
    def fit(self):
        for epoch in range(2):
            print(self.track(self.train_epoch()), self.best)


runner = Runner(model, loader)
runner.fit()
""",
        "TL173",
    ),
    "state_helper_called_from_a_nested_function": (
        _TRACKING
        + """
    def fit(self):
        def step():
            self.track(self.train_epoch())

        for epoch in range(2):
            step()


runner = Runner(model, loader)
runner.fit()
""",
        "TL173",
    ),
    "state_helper_called_inside_try": (
        _TRACKING
        + """
    def fit(self):
        for epoch in range(2):
            loss = self.train_epoch()
            try:
                self.track(loss)
            except ValueError:
                pass


runner = Runner(model, loader)
runner.fit()
""",
        "TL173",
    ),
    "state_helper_result_assigned_to_the_attribute_it_rebinds": (
        _TRACKING
        + """
    def fit(self):
        for epoch in range(2):
            self.best = self.track(self.train_epoch())


runner = Runner(model, loader)
runner.fit()
""",
        "TL173",
    ),
    "state_helper_without_return_assigned": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                self.seen = 0

            def count(self, x):
                self.seen += len(x)

            def fit(self):
                for epoch in range(2):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()
                        done = self.count(x)


        runner = Runner(model, loader)
        runner.fit()
        """,
        "TL173",
    ),
    "loop_variable_named_like_an_attribute_set_elsewhere": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                self.epoch = 0

            def fit(self):
                for epoch in range(2):
                    self.epoch = epoch
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()
                self.epoch = -1
                print(epoch)


        runner = Runner(model, loader)
        runner.fit()
        """,
        "TL174",
    ),
    "step_counter_set_in_fit_under_a_condition": (
        _STEP_COUNTER.format(first="if not resume:\n            self.step = 0"),
        "TL173",
    ),
    "state_helper_with_a_decorator_of_its_own": (
        _VALIDATE.format(imports="import functools", decorator="functools.lru_cache(maxsize=None)"),
        "TL173",
    ),
    "loop_variable_named_like_an_attribute_a_helper_rebinds": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                self.epoch = 0

            def skip_ahead(self):
                self.epoch += 1

            def fit(self):
                for epoch in range(3):
                    self.epoch = epoch
                    self.skip_ahead()
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()
                    print(epoch, self.epoch)


        runner = Runner(model, loader)
        runner.fit()
        """,
        "TL174",
    ),
    "fit_returns_early": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

            def fit(self, target):
                for epoch in range(5):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()
                    if loss.item() < target:
                        return epoch
                return None


        runner = Runner(model, loader)
        runner.fit(0.1)
        """,
        "TL173",
    ),
    "default_computed_when_the_class_was_defined": (
        """
        LR = 0.1


        class Runner:
            def __init__(self, net, data, lr=LR * 2):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=lr)

            def fit(self):
                for epoch in range(2):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()


        runner = Runner(model, loader)
        LR = 0.5
        runner.fit()
        """,
        "TL173",
    ),
    "decorated_run_method": (
        """
        import functools


        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

            @functools.lru_cache(maxsize=None)
            def fit(self):
                for epoch in range(2):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()


        runner = Runner(model, loader)
        runner.fit()
        """,
        "TL173",
    ),
    "attribute_named_like_a_script_name": (
        _RUNNER + """

opt = "sgd"
runner = Runner(model, loader)
runner.fit(2)
print(opt)
""",
        "TL174",
    ),
    "script_rebinds_a_name_the_class_was_given": (
        _RUNNER + """

net = torch.nn.Linear(4, 2)
runner = Runner(net, loader)
net = torch.nn.Linear(4, 2)
runner.fit(2)
""",
        "TL174",
    ),
    "init_local_named_like_an_attribute": (
        """
        class Runner:
            def __init__(self, net, data):
                opt = "sgd"
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                print(opt)

            def fit(self):
                for epoch in range(2):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()


        runner = Runner(model, loader)
        runner.fit()
        """,
        "TL174",
    ),
    "parameter_read_after_the_attribute_changed_it": (
        """
        class Runner:
            def __init__(self, net, data, lr):
                self.net = net
                self.data = data
                self.lr = lr * 10
                self.opt = torch.optim.SGD(net.parameters(), lr=lr)

            def fit(self):
                for epoch in range(2):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()


        runner = Runner(model, loader, 0.01)
        runner.fit()
        """,
        "TL174",
    ),
    # a class method creating an instance: the plain methods it would need are inlined
    "class_method_creating_an_instance": (
        _static(decorator="@classmethod", first="cls", body="return cls(model, loader, {})"),
        "TL133",
    ),
    # a static method reading training state through the class's name
    "static_method_reading_a_plain_method": (
        _static(body="return Runner.fit"),
        "TL133",
    ),
    "property": (
        _static(decorator="@property", first="self", body="return self.net"),
        "TL133",
    ),
    # an attribute named like the static method hides it from the instance (a method read
    # without a call)
    "attribute_hiding_a_static_method": (
        _static(init="self.get_default_config = None"),
        "TL172",
    ),
    # the loop is in a static method: a function of its own, not the trainer's run method
    "training_loop_in_a_static_method": (
        """
class Runner:
    def __init__(self, net):
        self.net = net

    @staticmethod
    def train(net, data, opt):
        for epoch in range(2):
            for x, y in data:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()


runner = Runner(model)
Runner.train(model, loader, optimizer)
""",
        "TL133",
    ),
    "class_with_a_base": (
        _RUNNER.replace("class Runner:", "class Runner(dict):") + """

runner = Runner(model, loader)
runner.fit(2)
""",
        "TL133",
    ),
    "class_attribute": (
        _RUNNER.replace("class Runner:", "class Runner:\n    epochs = 2\n") + """

runner = Runner(model, loader)
runner.fit(2)
""",
        "TL133",
    ),
    # one instance per iteration, read after the loop: which iteration's attributes
    "instance_created_in_a_loop_read_after_it": (
        _EXPERIMENT
        + """for ii in range(2):
    exp = Exp(nn.Linear(4, 2), loader, 0.1)
    exp.train(2)
print(exp.net)
""",
        "TL171",
    ),
    # a `while` loop over experiments is no loop over runs
    "experiment_created_in_a_while_loop": (
        _EXPERIMENT
        + """ii = 0
while ii < 2:
    exp = Exp(nn.Linear(4, 2), loader, 0.1)
    exp.train(2)
    ii += 1
""",
        "TL171",
    ),
}

# chargpt's `Trainer(config.trainer, ...)` with the instance named `trainer`: `config.trainer`
# is an attribute of the config, no use of the instance
CONVERTS["attribute_spelled_like_the_instance"] = (
    _RUNNER
    + """

class Settings:
    runner = 0.1


settings = Settings()
runner = Runner(model, loader, settings.runner)
runner.fit(2)
""",
    ["lr = settings.runner", "trainer.fit(lit_model, loader)"],
    ["runner = Runner("],
)

# an Engine bundling model, optimizer and device whose `train()` is one epoch: the script's
# own epoch loop calls it, so every method becomes a function given the attributes it reads
_ENGINE = """
class Engine:
    def __init__(self, net, opt, device):
        self.net = net
        self.opt = opt
        self.device = device

    @staticmethod
    def loss_fn(out, y):
        return criterion(out, y)

    def train(self, data):
        self.net.train()
        total = 0.0
        for x, y in data:
            x, y = x.to(self.device), y.to(self.device)
            self.opt.zero_grad()
            loss = self.loss_fn(self.net(x), y)
            loss.backward()
            self.opt.step()
            total += loss.item()
        return total / len(data)

    def evaluate(self, data):
        self.net.eval()
        with torch.no_grad():
            return sum(self.loss_fn(self.net(x), y).item() for x, y in data)


"""

CONVERTS["epoch_method_called_by_the_scripts_epoch_loop"] = (
    _ENGINE
    + """eng = Engine(model, optimizer, "cpu")
for epoch in range(2):
    train_loss = eng.train(loader)
    valid_loss = eng.evaluate(loader)
    print(epoch, train_loss, valid_loss)
""",
    [
        "loss = Engine.loss_fn(self(x), y)",
        "valid_loss = evaluate(self.model, self.trainer.train_dataloader)",
        "trainer.fit(lit_model, loader",
    ],
    ["eng.", "eng = Engine(", "opt.step()", "def train("],
)
CONVERTS["epoch_method_called_per_epoch_in_a_function"] = (
    _ENGINE
    + """def main():
    eng = Engine(model, optimizer, device="cpu")
    for epoch in range(2):
        loss = eng.train(loader)
        print(epoch, loss)


main()
""",
    ["loss = Engine.loss_fn(self(x), y)", "trainer.fit(lit_model, loader"],
    ["eng.", "eng = Engine("],
)
# the same engine going on training fold after fold: a loop over runs whose optimizer is built
# once, before it (each fit would restart its state)
UNCHANGED["epoch_method_called_per_epoch_per_fold"] = (
    _ENGINE
    + """eng = Engine(model, optimizer, "cpu")
for fold in range(2):
    for epoch in range(2):
        loss = eng.train(loader)
        print(fold, epoch, loss)
""",
    "TL193",
)
# called from a function defined in the loop: when it runs is not the loop's to say
UNCHANGED["epoch_method_called_from_a_lambda_in_the_loop"] = (
    _ENGINE
    + """eng = Engine(model, optimizer, "cpu")
for epoch in range(2):
    run = lambda: eng.train(loader)
    print(run())
""",
    "TL171",
)
# the epoch method called by two loops: the second goes on with the same optimizer
UNCHANGED["epoch_method_called_by_two_loops"] = (
    _ENGINE
    + """eng = Engine(model, optimizer, "cpu")
for epoch in range(2):
    eng.train(loader)
for epoch in range(2):
    eng.train(loader)
""",
    "TL171",
)

# a Solver run only under `if config.mode == "train":`: the method becomes a function called
# there, the `if` kept (decided at run time, as in the script)
_SOLVER = _RUNNER.replace("class Runner:", "class Solver:")
CONVERTS["run_method_called_under_an_if"] = (
    _SOLVER
    + """
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--mode", default="train")
config = parser.parse_args([])
solver = Solver(model, loader)
if config.mode == "train":
    solver.fit(2)
""",
    ['if config.mode == "train":\n    fit(', "trainer.fit(lit_model, data)"],
    ["solver.", "Solver("],
)
UNCHANGED["run_method_chosen_by_getattr"] = (
    _SOLVER
    + """
solver = Solver(model, loader)
getattr(solver, "fit")(2)
""",
    "TL171",
)
UNCHANGED["run_method_called_under_an_if_and_again"] = (
    _SOLVER
    + """
solver = Solver(model, loader)
if model is not None:
    solver.fit(2)
solver.fit(1)
""",
    "TL171",
)


# the class's side of these clashes is renamed first now (shapes/trainer_clashes.py, TL159):
# each converts, identical on both targets (the renamed attribute names the class's object,
# the script's name its own)
for _name, _fragment in (
    ("constructor_wraps_the_object_it_is_given", "runner_net = nn.Sequential(net)"),
    ("module_function_rebinds_the_name_the_attribute_shares", "runner_net = net"),
    ("parameter_rebound_by_init_and_read_after", "runner_model = nn.Sequential(model, nn.ReLU())"),
    ("loop_variable_named_like_an_attribute_a_helper_rebinds", "def skip_ahead(runner_epoch):"),
    ("attribute_named_like_a_script_name", "runner_opt = torch.optim.SGD("),
    ("init_local_named_like_an_attribute", "runner_opt = torch.optim.SGD("),
    ("parameter_read_after_the_attribute_changed_it", "runner_lr = lr * 10"),
):
    CONVERTS[_name] = (UNCHANGED.pop(_name)[0], [_fragment], [])
# renamed, the next cause shows: the script's `net` rebound after `opt` was built on it (the
# optimizer trains the first object, TL106), a closure's `nonlocal` write (TL117), the run
# method's loop variable read after its loop (TL112)
UNCHANGED["caller_rebinds_the_name_the_attribute_shares"] = (
    UNCHANGED["caller_rebinds_the_name_the_attribute_shares"][0],
    "TL106",
)
UNCHANGED["nested_function_rebinds_the_name_the_attribute_shares"] = (
    UNCHANGED["nested_function_rebinds_the_name_the_attribute_shares"][0],
    "TL117",
)
UNCHANGED["loop_variable_named_like_an_attribute_set_elsewhere"] = (
    UNCHANGED["loop_variable_named_like_an_attribute_set_elsewhere"][0],
    "TL112",
)

# every experiment given the one model built before the loop, each building its own optimizer:
# one fit per iteration goes on training that model, as the script's runs did
CONVERTS["experiment_per_iteration_given_one_model"] = (
    _EXPERIMENT
    + """for ii in range(2):
    exp = Exp(model, loader, 0.1)
    exp.train(2)
""",
    ["for ii in range(2):", "lit_model = LitModel(model, criterion, lr)"],
    ["exp.train(2)"],
)

# the script reads the attribute before the run binds the optimizer to it: it reads the
# placeholder (None), another object than the optimizer the run builds and the module steps
CONVERTS["placeholder_read_before_the_run"] = (
    _RUNNER.replace(
        "        self.opt = torch.optim.SGD(net.parameters(), lr=lr)\n",
        "        self.lr = lr\n        self.opt = None\n",
    ).replace(
        "    def fit(self, epochs):\n",
        "    def fit(self, epochs):\n"
        "        self.opt = torch.optim.SGD(self.net.parameters(), lr=self.lr)\n",
    )
    + """

runner = Runner(model, loader)
print(runner.opt)
runner.fit(2)
""",
    ["opt = None\nprint(opt)", "trainer.fit(lit_model, loader)"],
    ["runner.fit(2)"],
)
