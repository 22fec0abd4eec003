"""Cases of patterns/data_parallel.py: DataParallel wrappers go; DDP scripts are refused."""

CONVERTS = {
    "wrapper_rebinding_the_model": (
        """
        model = nn.DataParallel(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                opt.step()
        """,
        ["lit_model = LitModel(model, criterion)"],
        ["DataParallel("],
    ),
    "wrapper_under_another_name": (
        """
        parallel = nn.DataParallel(model)
        opt = torch.optim.SGD(parallel.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(parallel(x), y)
                loss.backward()
                opt.step()
        """,
        ["loss = self.criterion(self(x), y)", "self.model.parameters()"],
        ["parallel"],
    ),
    "wrap_beside_other_statements_in_an_if": (
        """
        import torch.backends.cudnn as cudnn

        if torch.cuda.is_available():
            model = nn.DataParallel(model)
            cudnn.benchmark = True
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["if torch.cuda.is_available():\n    cudnn.benchmark = True\n"],
        ["DataParallel("],
    ),
    "conditional_wrap_moved_to_cuda_in_one_statement": (
        """
        use_cuda = torch.cuda.is_available()
        if use_cuda:
            model = nn.DataParallel(model).cuda()
        for epoch in range(2):
            for x, y in loader:
                if use_cuda:
                    x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        [
            'accelerator="cuda" if use_cuda else "cpu"',
            "devices=torch.cuda.device_count() if use_cuda else 1",
            '"ddp" if use_cuda and torch.cuda.device_count() > 1 else "auto"',
        ],
        ["DataParallel(", "use_cuda and use_cuda", ".cuda()"],
    ),
}

UNCHANGED = {
    "conditional_ddp_wrap": (
        """
        from torch.nn.parallel import DistributedDataParallel as DDP

        ddp = False
        if ddp:
            model = DDP(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                opt.step()
        """,
        "TL115",
    ),
    "wrapper_used_after_the_loop": (
        """
        parallel = nn.DataParallel(model)
        opt = torch.optim.SGD(parallel.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(parallel(x), y)
                loss.backward()
                opt.step()
        print(parallel)
        """,
        "TL112",
    ),
}
