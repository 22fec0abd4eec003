"""Cases of patterns/whole_eval_loaders.py: in a DataParallel -> DDP conversion each evaluation
loader gets a one-replica DistributedSampler (every process evaluates all of it, in order);
loaders that cannot get one are refused (TL143)."""

_WRAP = """
        if torch.cuda.device_count() > 1:
            model = nn.DataParallel(model)
        model = model.cuda()
"""

_LOOP = """
        for epoch in range(2):
            model.train()
            for x, y in loader:
                x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            model.eval()
            correct = 0
            with torch.no_grad():
                for x, y in val_loader:
                    x, y = x.cuda(), y.cuda()
                    correct += (model(x).argmax(1) == y).sum().item()
            print(correct)
"""

CONVERTS = {
    "validation_loader_gets_a_one_replica_sampler": (
        _WRAP
        + """
        val_set = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
        val_loader = DataLoader(val_set, batch_size=4, shuffle=False)
        """
        + _LOOP,
        [
            "sampler=torch.utils.data.DistributedSampler(",
            "val_set, num_replicas=1, rank=0, shuffle=False",
        ],
        ["val_loader = DataLoader(val_set, batch_size=4, shuffle=False)"],
    ),
    "dataset_class_of_the_script": (
        """
        class Points(torch.utils.data.Dataset):
            def __len__(self):
                return 8

            def __getitem__(self, i):
                return torch.ones(4) * i, i % 2


        """
        + _WRAP
        + """
        points = Points()
        val_loader = DataLoader(points, batch_size=4)
        """
        + _LOOP,
        ["points, num_replicas=1, rank=0, shuffle=False"],
        [],
    ),
    "test_pass_after_training": (
        _WRAP
        + """
        test_set = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
        test_loader = DataLoader(test_set, batch_size=4)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in test_loader:
                x, y = x.cuda(), y.cuda()
                correct += (model(x).argmax(1) == y).sum().item()
        print(correct)
        """,
        ["test_set, num_replicas=1, rank=0, shuffle=False", "trainer.test(lit_model, test_loader)"],
        [],
    ),
    "keyword_dict_of_known_keys": (
        _WRAP
        + """
        use_cuda = torch.cuda.is_available()
        kwargs = {"num_workers": 1, "pin_memory": True} if use_cuda else {}
        val_set = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
        val_loader = DataLoader(val_set, batch_size=4, **kwargs)
        """
        + _LOOP,
        ["**kwargs", "val_set, num_replicas=1, rank=0, shuffle=False"],
        [],
    ),
    "one_device_script_keeps_its_loader": (
        """
        model = model.cuda()
        val_set = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
        val_loader = DataLoader(val_set, batch_size=4)
        """
        + _LOOP,
        ["val_loader = DataLoader(val_set, batch_size=4)"],
        ["DistributedSampler"],
    ),
}

UNCHANGED = {
    "keyword_dict_that_may_shuffle": (
        _WRAP
        + """
        use_cuda = torch.cuda.is_available()
        kwargs = {"num_workers": 1, "shuffle": True} if use_cuda else {}
        val_set = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
        val_loader = DataLoader(val_set, batch_size=4, **kwargs)
        """
        + _LOOP,
        "TL143",
    ),
    "keyword_dict_updated_later": (
        _WRAP
        + """
        kwargs = {"num_workers": 1}
        kwargs.update(extra)
        val_set = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
        val_loader = DataLoader(val_set, batch_size=4, **kwargs)
        """
        + _LOOP,
        "TL143",
    ),
    "dataset_built_inline_drawing_random_numbers": (
        _WRAP
        + """
        val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
        """
        + _LOOP,
        "TL143",
    ),
    "loader_from_a_function": (
        _WRAP
        + """
        def make_loader():
            return DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))


        val_loader = make_loader()
        """
        + _LOOP,
        "TL143",
    ),
    "shuffling_loader": (
        _WRAP
        + """
        val_set = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
        val_loader = DataLoader(val_set, batch_size=4, shuffle=True)
        """
        + _LOOP,
        "TL143",
    ),
    "own_sampler": (
        _WRAP
        + """
        val_set = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
        val_loader = DataLoader(
            val_set, batch_size=4, sampler=torch.utils.data.SequentialSampler(val_set)
        )
        """
        + _LOOP,
        "TL143",
    ),
}
