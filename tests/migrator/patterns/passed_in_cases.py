"""Cases of patterns/passed_in.py: a training function given its model, optimizer, loader."""

_COURSE_FIT = """
        def fit(epochs, lr, model, train_loader, opt_func=torch.optim.SGD):
            optimizer = opt_func(model.parameters(), lr)
            for epoch in range(epochs):
                for x, y in train_loader:
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    optimizer.zero_grad()

"""

_TRAIN_UNDER_FLAG = """
        def train(net, opt, loader, params):
            for epoch in range(2):
                for x, y in loader:
                    if params.cuda:
                        x, y = x.cuda(), y.cuda()
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()

"""

_DEVICE_HELPERS = """
        def get_default_device():
            if torch.cuda.is_available():
                return torch.device("cuda")
            return torch.device("cpu")


        def to_device(data, device):
            if isinstance(data, (list, tuple)):
                return [to_device(x, device) for x in data]
            return data.to(device, non_blocking=True)

"""

_HF_TRAIN = """
        import argparse


        def train(cfg, net, train_loader):
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in train_loader:
                    x, y = x.to(cfg.device), y.to(cfg.device)
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
{extra}

        def main():
            args = argparse.Namespace()
            args.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            model.to(args.device)
            data = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
            train(args, model, data)
{after}

        main()
"""

CONVERTS = {
    # the W&B report's pipeline: `train` is also a parameter of a data helper and a local of
    # another function; Python's scopes make those other names, not the training function
    "name_of_the_function_reused_in_other_scopes": (
        """
        def get_data(n=8, train=True):
            n = n * 2 if train else n
            return TensorDataset(torch.randn(n, 4), torch.randint(0, 2, (n,)))


        def make():
            train, test = get_data(train=True), get_data(train=False)
            return DataLoader(train, batch_size=4), DataLoader(test, batch_size=4)


        def train(net, opt, loader):
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = torch.nn.Linear(4, 2)
        opt = torch.optim.Adam(net.parameters(), lr=0.01)
        train_loader, test_loader = make()
        train(net, opt, train_loader)
        """,
        ["def train(net, opt, loader):", "trainer.fit(lit_model, loader)"],
        [],
    ),
    # LLMs-from-scratch's create_dataloader_v1: the helper binds its loader, then returns it
    "loader_bound_in_a_helper_then_returned": (
        """
        def create_loader(n, batch_size=4, shuffle=True):
            dataset = TensorDataset(torch.randn(n, 4), torch.randint(0, 2, (n,)))
            dataloader = DataLoader(dataset, batch_size=batch_size, shuffle=shuffle)
            return dataloader


        def train(loader, net, opt, epochs):
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = torch.nn.Linear(4, 2)
        opt = torch.optim.Adam(net.parameters(), lr=0.01)
        train_loader = create_loader(8)
        train(train_loader, net, opt, 2)
        """,
        ["trainer.fit(lit_model, loader)"],
        [],
    ),
    "train_function_given_model_optimizer_loader": (
        """
        def fit(net, opt, data, epochs, device):
            for epoch in range(epochs):
                for x, y in data:
                    x, y = x.to(device), y.to(device)
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        def main():
            device = torch.device("cpu")
            net = torch.nn.Linear(4, 2)
            opt = torch.optim.Adam(net.parameters(), lr=0.01)
            data = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
            fit(net, opt, data, epochs=2, device=device)


        main()
        """,
        [
            "def __init__(self, net, opt):",
            "def configure_optimizers(self):\n        return self.opt\n",
            "lit_model = LitModel(net, opt)",
            "trainer.fit(lit_model, data)",
            "def fit(net, opt, data, epochs, device):",
        ],
        ["x.to(device)", "torch.optim.Adam(self"],
    ),
    "train_function_called_for_two_models": (
        """
        def fit(net, opt, data):
            for epoch in range(2):
                for x, y in data:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        small = torch.nn.Linear(4, 2)
        small_opt = torch.optim.SGD(small.parameters(), lr=0.1)
        fit(small, small_opt, loader)
        wide = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Linear(16, 2))
        wide_opt = torch.optim.Adam(wide.parameters())
        fit(wide, wide_opt, loader)
        """,
        ["lit_model = LitModel(net, opt)", "fit(small, small_opt, loader)", "fit(wide, wide_opt"],
        ["opt.step()"],
    ),
    # d2l's load_array: the loader comes from a helper of the file returning a DataLoader
    "train_function_given_a_loader_built_by_a_helper": (
        """
        def load_array(arrays, batch_size):
            return DataLoader(TensorDataset(*arrays), batch_size, shuffle=True)


        def train(net, train_iter, updater):
            for epoch in range(2):
                for x, y in train_iter:
                    updater.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    updater.step()


        train_iter = load_array((torch.randn(8, 4), torch.randint(0, 2, (8,))), 4)
        train(model, train_iter, optimizer)
        """,
        ["trainer.fit(lit_model, train_iter)"],
        [],
    ),
    # models given by the caller, optimizers built inside (the seq2seq tutorial's train()):
    # the accelerator is where the caller put the models, the module's `device`
    "models_given_optimizers_built_inside": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


        def get_loader(n):
            return DataLoader(TensorDataset(torch.randn(n, 4), torch.randint(0, 2, (n,))), 4)


        def train(loader, net, epochs, lr=0.01):
            opt = torch.optim.Adam(net.parameters(), lr=lr)
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = torch.nn.Linear(4, 2).to(device)
        train_loader = get_loader(8)
        train(train_loader, net, 2)
        """,
        [
            "L.Trainer(accelerator=device.type, devices=1, max_epochs=epochs)",
            "torch.optim.Adam(self.model.parameters(), lr=self.lr)",
        ],
        [],
    ),
    # d2l's train_ch6(net, ..., device): the model placed inside, the optimizer built inside,
    # the device chosen by the call's `try_gpu()` (a choice whose parameter keeps its default)
    "device_given_as_a_device_choice_call": (
        """
        def try_gpu(i=0):
            if torch.cuda.device_count() >= i + 1:
                return torch.device(f"cuda:{i}")
            return torch.device("cpu")


        def train(net, loader, epochs, lr, device):
            net.to(device)
            opt = torch.optim.SGD(net.parameters(), lr=lr)
            for epoch in range(epochs):
                for x, y in loader:
                    x, y = x.to(device), y.to(device)
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        train(model, loader, 2, 0.1, try_gpu())
        """,
        ["accelerator=torch.device(device).type,", "devices=1,"],
        ["x.to(device)", "opt.step()"],
    ),
    # a distillation repo: the caller places the model only under its flag, and the function
    # moves its batches under the same flag: the Trainer reads the function's condition
    "model_placed_under_the_callers_condition_and_batches_under_the_functions": (
        _TRAIN_UNDER_FLAG
        + """
        def main(params):
            teacher = make_net().cuda() if params.cuda else make_net()
            teacher_optimizer = torch.optim.Adam(teacher.parameters(), lr=0.01)
            loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
            train(teacher, teacher_optimizer, loader, params)
        """,
        ['accelerator="cuda" if params.cuda else "cpu",'],
        ['accelerator="cuda",', "x.cuda()"],
    ),
    "model_placed_in_an_if_of_the_caller": (
        _TRAIN_UNDER_FLAG
        + """
        def main(params):
            teacher = make_net()
            if params.cuda:
                teacher.cuda()
            teacher_optimizer = torch.optim.Adam(teacher.parameters(), lr=0.01)
            loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
            train(teacher, teacher_optimizer, loader, params)
        """,
        ['accelerator="cuda" if params.cuda else "cpu",'],
        ['accelerator="cuda",'],
    ),
    # a book's training_loop(...): the loader rebuilt unshuffled after the call, for the
    # evaluation that follows: that binding does not reach the call
    "loader_rebound_after_the_call": (
        """
        def training_loop(n_epochs, optimizer, model, loss_fn, train_loader):
            for epoch in range(1, n_epochs + 1):
                for imgs, labels in train_loader:
                    loss = loss_fn(model(imgs), labels)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()


        if __name__ == "__main__":
            train_dl = DataLoader(dataset, batch_size=8, shuffle=True)
            net = torch.nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=1e-2)
            training_loop(3, opt, net, torch.nn.CrossEntropyLoss(), train_dl)
            train_dl = DataLoader(dataset, batch_size=8, shuffle=False)
            print(len(train_dl))
        """,
        ["trainer.fit(lit_model, train_loader)"],
        ["optimizer.step()"],
    ),
    # course notebooks: the optimizer class is a parameter, its default used by the one call
    "optimizer_class_parameter_left_to_its_default": (
        _COURSE_FIT
        + """
        fit(2, 0.1, model, loader)
        """,
        [
            "lit_model = LitModel(model, lr, opt_func)",
            "optimizer = self.opt_func(self.model.parameters(), self.lr)",
        ],
        ["optimizer.step()"],
    ),
    # ... or passed, directly or through a name the caller binds once
    "optimizer_class_parameter_passed_by_a_name": (
        _COURSE_FIT
        + """
        opt_func = torch.optim.Adam
        fit(2, 0.01, model, loader, opt_func=opt_func)
        """,
        ["optimizer = self.opt_func(self.model.parameters(), self.lr)"],
        ["optimizer.step()"],
    ),
    # the model placed by a device helper of the file, on a device chosen by another one
    "model_placed_by_a_device_helper": (
        _DEVICE_HELPERS
        + _COURSE_FIT
        + """
        device = get_default_device()
        to_device(model, device)
        fit(2, 0.1, model, loader, torch.optim.Adam)
        """,
        ["L.Trainer(accelerator=device.type, devices=1, max_epochs=epochs)"],
        ["optimizer.step()"],
    ),
    # a course notebook's `model = None` placeholders above "YOUR CODE HERE"
    "none_placeholders_rebound_before_the_call": (
        """
        def train(net, opt, epochs=1):
            for e in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = None
        opt = None
        # *****START OF YOUR CODE*****
        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        train(net, opt, epochs=2)
        """,
        ["trainer.fit(lit_model, loader)"],
        ["opt.step()"],
    ),
    "model_placed_on_an_attribute_of_an_object_passed": (  # the Hugging Face examples
        _HF_TRAIN.format(extra="", after=""),
        ["accelerator=torch.device(cfg.device).type", "trainer.fit(lit_model, train_loader)"],
        ["opt.step()"],
    ),
    # read before it is rebound (two values): the call sees the binding reaching it
    "none_placeholder_read_before_it_is_rebound": (
        """
        def train(net, opt, epochs=1):
            for e in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = None
        opt = None
        print(opt)
        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        train(net, opt, epochs=2)
        """,
        ["print(opt)", "lit_model = LitModel(net, opt)"],
        ["opt.step()"],
    ),
    # a notebook cell per learning rate, each binding a fresh model and optimizer before its
    # call; and a recipe resuming from a checkpoint into new objects: each call sees the
    # bindings right before it
    "names_bound_again_before_a_second_call": (
        """
        def train(net, opt, epochs=1):
            for e in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        train(net, opt, epochs=2)
        state = (net.state_dict(), opt.state_dict())
        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        net.load_state_dict(state[0])
        opt.load_state_dict(state[1])
        train(net, opt, epochs=1)
        """,
        ["lit_model = LitModel(net, opt)", "train(net, opt, epochs=1)"],
        ["opt.step()"],
    ),
}

UNCHANGED = {
    # a function of the caller named like the training function: its call is not a call of
    # the training function, and the module-level one is never called
    "training_function_shadowed_in_the_caller": (
        """
        def train(net, opt, loader):
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        def main():
            def train(net, opt, loader):
                print("dry run")

            net = torch.nn.Linear(4, 2)
            opt = torch.optim.Adam(net.parameters(), lr=0.01)
            loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
            train(net, opt, loader)


        main()
        """,
        "TL132",
    ),
    # the module rebinds the name in a function declaring it global
    "training_function_rebound_through_global": (
        """
        def train(net, opt, loader):
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        def disable():
            global train
            train = print


        net = torch.nn.Linear(4, 2)
        opt = torch.optim.Adam(net.parameters(), lr=0.01)
        loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
        disable()
        train(net, opt, loader)
        """,
        "TL132",
    ),
    "helper_returns_a_name_rebound_to_other_than_a_loader": (
        """
        def create_loader(n, as_list=False):
            dataloader = DataLoader(TensorDataset(torch.randn(n, 4), torch.randint(0, 2, (n,))))
            if as_list:
                dataloader = list(dataloader)
            return dataloader


        def train(loader, net, opt, epochs):
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = torch.nn.Linear(4, 2)
        opt = torch.optim.Adam(net.parameters(), lr=0.01)
        train_loader = create_loader(8)
        train(train_loader, net, opt, 2)
        """,
        "TL132",
    ),
    # rebound under a condition after the placeholder: which value the call sees is not one
    # statement
    "optimizer_rebound_under_a_condition_before_the_call": (
        """
        def train(net, opt, epochs=1):
            for e in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = nn.Linear(4, 2)
        opt = None
        if torch.cuda.is_available():
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
        train(net, opt, epochs=2)
        """,
        "TL132",
    ),
    # a lambda (or a partial) for the optimizer class: what it builds is not read
    "optimizer_class_parameter_given_a_lambda": (
        _COURSE_FIT
        + """
        fit(2, 0.1, model, loader, opt_func=lambda params, lr: torch.optim.SGD(params, lr))
        """,
        "TL106",
    ),
    # one call passes an optimizer class, another a scheduler class
    "optimizer_class_parameter_given_a_scheduler": (
        _COURSE_FIT
        + """
        fit(2, 0.1, model, loader)
        fit(2, 0.1, model, loader, torch.optim.lr_scheduler.StepLR)
        """,
        "TL106",
    ),
    # placed on a device local to the caller, read at run time: the function cannot name it
    "model_given_placed_on_a_device_the_function_cannot_name": (
        """
        def train(loader, net, epochs):
            opt = torch.optim.Adam(net.parameters(), lr=0.01)
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        def main(args):
            device = torch.device(args.device)
            net = torch.nn.Linear(4, 2).to(device)
            loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
            train(loader, net, 2)
        """,
        "TL132",
    ),
    # placed only under the caller's flag, and the function moves nothing itself: refused
    "model_placed_under_a_condition_the_function_cannot_read": (
        """
        def train(net, opt, loader):
            for epoch in range(2):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        def main(params):
            teacher = make_net().cuda() if params.cuda else make_net()
            teacher_optimizer = torch.optim.Adam(teacher.parameters(), lr=0.01)
            loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
            train(teacher, teacher_optimizer, loader)
        """,
        "TL132",
    ),
    # rebound in the loop that makes the call: the next call is given the new loader
    "loader_rebound_in_the_loop_around_the_call": (
        """
        def training_loop(n_epochs, optimizer, model, loss_fn, train_loader):
            for epoch in range(1, n_epochs + 1):
                for imgs, labels in train_loader:
                    loss = loss_fn(model(imgs), labels)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()


        train_dl = DataLoader(dataset, batch_size=8, shuffle=True)
        for bs in (8, 16):
            net = torch.nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=1e-2)
            training_loop(3, opt, net, torch.nn.CrossEntropyLoss(), train_dl)
            train_dl = DataLoader(dataset, batch_size=bs, shuffle=True)
        """,
        "TL132",
    ),
    "train_function_never_called_here": (
        """
        def fit(net, opt, data):
            for epoch in range(2):
                for x, y in data:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
        """,
        "TL132",
    ),
    "optimizer_built_in_the_call": (
        """
        def fit(net, opt, data):
            for epoch in range(2):
                for x, y in data:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        fit(model, torch.optim.SGD(model.parameters(), lr=0.1), loader)
        """,
        "TL132",
    ),
    "optimizer_of_another_model": (
        """
        def fit(net, opt, data):
            for epoch in range(2):
                for x, y in data:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        other = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(other.parameters(), lr=0.1)
        fit(model, opt, loader)
        """,
        "TL132",
    ),
    "function_passed_as_a_callback": (
        """
        def fit(net, opt, data):
            for epoch in range(2):
                for x, y in data:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        runner = fit
        fit(model, optimizer, loader)
        """,
        "TL132",
    ),
    "the_function_sets_the_attribute_it_is_placed_on": (
        _HF_TRAIN.format(extra="            cfg.device = torch.device(\"cpu\")", after=""),
        "TL132",
    ),
    "the_caller_sets_the_attribute_again": (
        _HF_TRAIN.format(extra="", after="            args.device = torch.device(\"cpu\")"),
        "TL132",
    ),
    # the call in an `except` block: the `try` body may have rebound the name before failing
    "optimizer_rebound_in_the_try_body_before_a_handler_calling": (
        """
        def train(net, opt, epochs=1):
            for e in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        try:
            opt = torch.optim.Adam(net.parameters(), lr=0.1)
            opt.load_state_dict(torch.load("opt.pt"))
        except FileNotFoundError:
            train(net, opt, epochs=2)
        """,
        "TL132",
    ),
}
