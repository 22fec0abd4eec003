"""Cases of patterns/device_moves.py: `.to(device)` and `.cuda()` are the Trainer's."""

CONVERTS = {
    # the Trainer moves the batch, not a tensor the step reads from elsewhere: that move stays
    "move_of_data_that_is_not_the_batch_kept": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        class_weights = torch.ones(2)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                w = class_weights.to(device)
                optimizer.zero_grad()
                loss = (criterion(model(x), y) * w[0]).mean()
                loss.backward()
                optimizer.step()
        """,
        ["x, y = batch\n        w = self.class_weights.to(self.device)"],
        ["x.to(", "y.to("],
    ),
    # a second loader's batch the step draws itself (refilled when its iterator runs out):
    # the Trainer delivers only the first loader's batch, so the script's move of the
    # second one stays, and the moves of names bound from the Trainer's batch go
    "move_of_a_batch_drawn_from_another_iterator_kept": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        target_iter = iter(target_loader)
        for epoch in range(2):
            for xs, ys in source_loader:
                try:
                    (xt,) = next(target_iter)
                except StopIteration:
                    target_iter = iter(target_loader)
                    (xt,) = next(target_iter)
                xs, ys = xs.to(device), ys.to(device)
                xt = xt.to(device)
                optimizer.zero_grad()
                loss = criterion(model(xs), ys) + model(xt).pow(2).mean()
                loss.backward()
                optimizer.step()
        """,
        ["xt = xt.to(self.device)"],
        ["xs.to(", "ys.to("],
    ),
    # names bound from the batch only (a view of it, a model's output) still lose their moves;
    # one bound from a script function's result keeps its move
    "moves_follow_the_batch_through_the_steps_bindings": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        for epoch in range(2):
            for batch in loader:
                inputs = batch["x"].view(-1, 4)
                labels = batch["y"]
                inputs, labels = inputs.to(device), labels.to(device)
                extra = make_noise(inputs.shape)
                extra = extra.to(device)
                optimizer.zero_grad()
                out = model(inputs + extra)
                loss = criterion(out.to(device), labels)
                loss.backward()
                optimizer.step()
        """,
        ["extra = extra.to(self.device)"],
        ["inputs.to(", "labels.to(", "out.to("],
    ),
    # a batch object of a plain class (a collate_fn's `Batch(src, trg)`): the Trainer moves
    # tensors, collections, namedtuples, dataclasses and objects with a `to` method, not a plain
    # object's attributes -- the moves of what is read through an attribute stay
    "move_of_a_batch_objects_attribute_kept": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        for epoch in range(2):
            for i, batch in enumerate(loader):
                src = batch.src.to(device)
                trg = batch.trg
                trg = trg.to(device)
                optimizer.zero_grad()
                loss = criterion(model(src), trg)
                loss.backward()
                optimizer.step()
        """,
        ["src = batch.src.to(self.device)", "trg = trg.to(self.device)"],
        [],
    ),
    # the CIFAR speed-run style: the device goes, the memory format stays (dropping it changed
    # the convolutions' results, and the layout's speed on a GPU)
    "memory_format_kept_when_the_device_goes": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Net().to(device).to(memory_format=torch.channels_last)
        for epoch in range(2):
            for x, y in loader:
                x = x.to(device, memory_format=torch.channels_last, non_blocking=True)
                y = y.to(device, non_blocking=True)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        [
            "model = Net().to(memory_format=torch.channels_last)",
            "x = x.to(memory_format=torch.channels_last)",
        ],
        [".to(device", "y.to("],
    ),
    # a step loop's batches are its iteration numbers: every tensor it moves came from elsewhere
    "step_loop_slicing_data_keeps_its_moves": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        data = torch.randn(100, 4)
        targets = torch.randint(0, 2, (100,))
        model = model.to(device)
        for it in range(0, 100, 10):
            xb = data[it : it + 10].to(device)
            yb = targets[it : it + 10].to(device)
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
        """,
        [
            "xb = self.data[it : it + 10].to(self.device)",
            "yb = self.targets[it : it + 10].to(self.device)",
        ],
        ["model.to(", ".to(device)"],
    ),
    "dict_batch_comprehension_stripped": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        for epoch in range(2):
            for batch in loader:
                batch = {k: v.to(device) for k, v in batch.items()}
                optimizer.zero_grad()
                loss = criterion(model(batch["x"]), batch["y"])
                loss.backward()
                optimizer.step()
        """,
        ['loss = self.criterion(self(batch["x"]), batch["y"])'],
        [".to("],
    ),
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
    # ... and so is another module the LightningModule holds (a frozen teacher), when the
    # script placed it and code after the loop uses it
    "frozen_teacher_put_back_after_fit": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        teacher = torch.nn.Linear(4, 2).to(device)
        teacher.eval()
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
                with torch.no_grad():
                    soft = teacher(x).softmax(1)
                optimizer.zero_grad()
                loss = criterion(model(x), soft)
                loss.backward()
                optimizer.step()
        print(check_accuracy(loader, teacher))
        """,
        ["trainer.fit(lit_model, loader)\nteacher.to(device)\nprint(check_accuracy(loader, teacher))"],
        [],
    ),
    # an EMA copy of the placed model, updated each step and sampled from on the device
    # after training (the DDPM scripts'): on the device it was copied on
    "ema_copy_put_back_after_fit": (
        """
        import copy

        device = "cuda" if torch.cuda.is_available() else "cpu"
        model.to(device)
        ema = copy.deepcopy(model).eval().requires_grad_(False)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                with torch.no_grad():
                    for e, p in zip(ema.parameters(), model.parameters()):
                        e.lerp_(p, 0.1)
        print(ema(torch.randn(3, 4, device=device)))
        """,
        ["trainer.fit(lit_model, loader)\nema.to(device)\nprint(ema("],
        [],
    ),
    # the model used after fit on tensors the script placed before: no device name read
    # after fit, the model goes back where `.to(DEVICE)` put it
    "model_put_back_for_tensors_placed_before_fit": (
        """
        DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
        probe_x = torch.randn(8, 4).to(DEVICE)
        probe_y = torch.randint(0, 2, (8,)).to(DEVICE)
        model = model.to(DEVICE)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(DEVICE), y.to(DEVICE)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        print((model(probe_x).argmax(1) == probe_y).float().mean().item())
        """,
        ["trainer.fit(lit_model, loader)\nmodel.to(DEVICE)\nprint((model(probe_x)"],
        [],
    ),
    # a loss holding class weights on the device, used again after training
    "weighted_criterion_put_back_after_fit": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        weights = torch.tensor([1.0, 3.0])
        criterion = nn.CrossEntropyLoss(weight=weights.to(device))
        model.to(device)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        x, y = next(iter(loader))
        print(criterion(model(x.to(device)), y.to(device)).item())
        """,
        ["trainer.fit(lit_model, loader)\nmodel.to(device)\ncriterion.to(device)\n"],
        [],
    ),
    # a copy made before the model was placed stays on the CPU in the script: not moved
    "copy_made_before_placement_stays": (
        """
        import copy

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        frozen = copy.deepcopy(model).requires_grad_(False)
        model.to(device)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y) + 0.0 * sum(p.sum() for p in frozen.parameters())
                loss.backward()
                optimizer.step()
        print(frozen(torch.randn(2, 4)))
        """,
        ["trainer.fit(lit_model, loader)\nprint(frozen("],
        ["frozen.to("],
    ),
    # a teacher built as a module and placed under the script's own flag: back on the
    # device the Trainer's accelerator follows
    "teacher_placed_under_a_flag_put_back_after_fit": (
        """
        import sys

        use_gpu = len(sys.argv) > 1
        teacher = nn.Linear(4, 2)
        if use_gpu:
            teacher = teacher.cuda()
            model.cuda()
        for epoch in range(2):
            for x, y in loader:
                if use_gpu:
                    x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                loss = criterion(model(x), y) + teacher(x).mean()
                loss.backward()
                optimizer.step()
        probe = torch.randn(2, 4)
        print(teacher(probe.cuda() if use_gpu else probe))
        """,
        ['trainer.fit(lit_model, loader)\nteacher.to("cuda" if use_gpu else "cpu")\n'],
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
    # the nn.Transformer tutorial: a mask made by a function of the script, and validation
    # tensors the epoch binds itself -- the Trainer moves neither, so their moves stay
    "moves_of_epoch_tensors_kept": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        X_val, y_val = torch.randn(4, 4), torch.randint(0, 2, (4,))


        def square_mask(n):
            return torch.triu(torch.full((n, n), float("-inf")), diagonal=1)


        for epoch in range(2):
            mask = square_mask(4).to(device)
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x) + mask[0, :2].clamp(min=0), y)
                loss.backward()
                optimizer.step()
            X_val = X_val.to(device)
            print(criterion(model(X_val), y_val.to(device)).item())
        """,
        [
            "mask = square_mask(4).to(self.device)",
            "self.X_val = self.X_val.to(self.device)",
            "y_val.to(self.device)",
        ],
        ["x.to(", "y.to("],
    ),
}

UNCHANGED = {
    # a module the LightningModule holds, used after fit, placed where the conversion cannot
    # say (`.cuda(0)`, the model moved only under an `if`): fit hands it back on the CPU
    "held_module_device_unknown_after_fit": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        teacher = nn.Linear(4, 2)
        teacher.cuda(0)
        if torch.cuda.is_available():
            model.to(device)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y) + teacher(x).mean()
                loss.backward()
                optimizer.step()
        print(teacher(torch.randn(2, 4).cuda(0)))
        """,
        "TL112",
    ),
}
