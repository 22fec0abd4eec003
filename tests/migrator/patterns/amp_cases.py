"""Cases of patterns/amp.py: autocast + GradScaler -> Trainer(precision=...)."""

_AMP = """
scaler = torch.amp.GradScaler()
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast({args}):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
"""

CONVERTS = {
    "fp16": (
        _AMP.format(args='"cuda"'),
        [
            'L.Trainer(accelerator="cpu", devices=1, max_epochs=2, precision="16-mixed")',
            "loss = self.criterion(self(x), y)",
        ],
        ["scaler", "autocast"],
    ),
    "bf16_enabled_flag": (
        _AMP.format(args='"cpu", dtype=torch.bfloat16, enabled=True'),
        ['precision="bf16-mixed" if True else "32-true"'],
        ["GradScaler"],
    ),
}

UNCHANGED = {
    "scaler_without_autocast": (
        """
        scaler = torch.amp.GradScaler()
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
        """,
        "TL113",
    ),
    "autocast_cache_argument": (
        _AMP.format(args='"cuda", cache_enabled=False'),
        "TL113",
    ),
}
