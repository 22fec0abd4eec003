"""Cases of patterns/amp_device.py: an autocast for one device type -> mixed precision only
where the Trainer's accelerator is that type."""

CONVERTS = {
    "cuda_autocast_on_a_device_chosen_by_availability": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model.to(device)
        scaler = torch.cuda.amp.GradScaler()
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                with torch.cuda.amp.autocast():
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
        """,
        [
            'accelerator="cuda" if torch.cuda.is_available() else "cpu"',
            'precision="16-mixed" if torch.cuda.is_available() else "32-true"',
        ],
        ["GradScaler"],
    ),
    "autocast_flag_beside_the_condition": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        import os
        use_amp = os.environ.get("AMP") == "1"
        model.to(device)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                with torch.autocast("cuda", enabled=use_amp):
                    loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ['precision="16-mixed" if use_amp and torch.cuda.is_available() else "32-true"'],
        [],
    ),
    "device_from_a_flag_compared": (
        """
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--device", default="cpu")
        args = parser.parse_args()
        model.to(args.device)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(args.device), y.to(args.device)
                optimizer.zero_grad()
                with torch.autocast(device_type="cuda", dtype=torch.float16):
                    loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ['precision="16-mixed" if torch.device(args.device).type == "cuda" else "32-true"'],
        [],
    ),
    "cpu_autocast_on_the_cpu_unchanged": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ['accelerator="cpu"', 'precision="bf16-mixed"'],
        ["32-true"],
    ),
    "scaler_read_after_fit_off_the_gpu": (
        """
        device = "cuda" if torch.cuda.is_available() else "cpu"
        model.to(device)
        scaler = torch.amp.GradScaler("cuda")
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                with torch.autocast("cuda"):
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
        torch.save({"scaler": scaler.state_dict()}, "amp.pt")
        """,
        [
            "scaler = (\n    trainer.precision_plugin.scaler\n    if torch.cuda.is_available()\n"
            '    else torch.amp.GradScaler("cuda")\n)',
        ],
        [],
    ),
}

UNCHANGED = {
    "cuda_autocast_for_a_model_never_placed": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                with torch.autocast("cuda"):
                    loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL113",
    ),
}
