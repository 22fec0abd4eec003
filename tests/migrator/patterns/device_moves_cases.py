"""Cases of patterns/device_moves.py: `.to(device)` and `.cuda()` are the Trainer's."""

CONVERTS = {
    # Lightning's fit hands the model back on the CPU: later code that reaches the model and
    # the device only through the script's functions gets it put back where it was
    "model_put_back_for_a_function_moving_batches_after_fit": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model.to(device)


        def check_accuracy(loader, net):
            correct = 0
            with torch.no_grad():
                for x, y in loader:
                    x, y = x.to(device), y.to(device)
                    correct += (net(x).argmax(1) == y).sum().item()
            return correct


        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        print(check_accuracy(loader, model))
        """,
        ["trainer.fit(lit_model, loader)\nmodel.to(device)\nprint(check_accuracy(loader, model))"],
        [],
    ),
    "model_put_back_for_a_function_reading_the_global_model": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model.to(device)


        def batches(loader):
            return [(x.to(device), y) for x, y in loader]


        def evaluate(pairs):
            return sum(criterion(model(x), y).item() for x, y in pairs)


        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        print(evaluate(batches(loader)))
        """,
        ["trainer.fit(lit_model, loader)\nmodel.to(device)\n"],
        [],
    ),
    "batch_and_model_moves": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model.to(device)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["x, y = batch\n        loss = self.criterion(self(x), y)"],
        [".to(device)", "device = torch.device"],
    ),
    "device_factory_becomes_self_device": (
        """
        device = "cpu"
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                noise = torch.randn(x.shape, device=device)
                loss = criterion(model(x + noise), y)
                loss.backward()
                optimizer.step()
        """,
        ["noise = torch.randn(x.shape, device=self.device)"],
        [],
    ),
    # a name holding a device *string* stays a string where the script reads it as one
    # (`torch.device("cuda") == "cuda"` is False; `torch.amp.autocast(device_type=self.device)`
    # raised: it takes only a str)
    "device_type_string_read_as_its_type": (
        """
        device_type = "cuda" if torch.cuda.is_available() else "cpu"
        device = torch.device(device_type)
        model.to(device)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                noise = torch.zeros(x.shape, device=device_type)
                loss = criterion(model(x + noise), y)
                if device_type == "cuda":
                    torch.cuda.synchronize()
                loss.backward()
                optimizer.step()
        """,
        [
            'if self.device.type == "cuda":',
            "noise = torch.zeros(x.shape, device=self.device)",
        ],
        ["self.device =="],
    ),
    "device_string_with_index_read_as_str": (
        """
        device = "cuda:0" if torch.cuda.is_available() else "cpu"
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                print("on", device, torch.ones(1).to(device))
        """,
        ['print("on", str(self.device), torch.ones(1).to(self.device))'],
        [],
    ),
}

UNCHANGED = {}
