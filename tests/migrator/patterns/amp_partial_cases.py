"""Cases of patterns/amp_partial.py: an autocast region around part of a step."""

_TEACHER = """
teacher = nn.Linear(4, 2)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.no_grad():
            soft = teacher(x).softmax(-1)
        with torch.autocast("cpu", dtype=torch.bfloat16{enabled}):
            out = model(x){more}
        loss = criterion(out.float(), y) + (out.float().softmax(-1) - soft).abs().mean()
        loss.backward()
        optimizer.step()
        print(loss.item())
"""

_FULL_STEP = (
    "def training_step(self, batch, batch_idx):\n"
    "        # the script autocast only its region below: Lightning would autocast all the step\n"
    "        with torch.autocast(self.device.type, enabled=False):\n"
)

CONVERTS = {
    # the teacher's forward and the loss ran in float32 in the script: Lightning's autocast
    # around the whole step would run them in bfloat16
    "teacher_and_loss_outside_the_region": (
        _TEACHER.format(enabled="", more=""),
        [
            'precision="bf16-mixed"',
            _FULL_STEP,
            'with torch.autocast("cpu", dtype=torch.bfloat16):\n                out = self(x)\n',
            "loss = (\n                self.criterion(out.float(), y)",
            'self.log("train_loss", loss)\n            return loss',
        ],
        [],
    ),
    # the region's flag keeps turning it on and off as written
    "region_turned_on_by_a_flag": (
        "import sys\n\nuse_amp = len(sys.argv) > 1\n"
        + _TEACHER.format(enabled=", enabled=use_amp", more=""),
        [
            'precision="bf16-mixed" if use_amp else "32-true"',
            _FULL_STEP,
            'with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.use_amp):',
        ],
        [],
    ),
    # the loss computed outside the region on its bfloat16 outputs: in bfloat16, as written
    "loss_outside_the_region": (
        """
        for epoch in range(2):
            for x, y in loader:
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    out = model(x)
                loss = criterion(out, y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        """,
        [_FULL_STEP, "loss = self.criterion(out, y)"],
        [],
    ),
    # what runs outside the region only reads and prints: Lightning's autocast changes none
    # of it, the region's body is the step's (patterns/amp.py)
    "bookkeeping_outside_the_region": (
        """
        total = 0.0
        for epoch in range(2):
            for x, y in loader:
                x = x.view(x.size(0), -1).float()
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = criterion(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item() * len(x)
                print(f"loss {loss.item():.4f}")
        """,
        [
            "def training_step(self, batch, batch_idx):\n        x, y = batch\n",
            "loss = self.criterion(self(x), y)",
        ],
        ["enabled=False", "with torch.autocast"],
    ),
    # an evaluation autocasting only its forward: the loss it prints was float32 -> bfloat16
    "validation_loss_outside_its_region": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
        for epoch in range(2):
            for x, y in loader:
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = criterion(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            with torch.no_grad():
                for x, y in val_loader:
                    with torch.autocast("cpu", dtype=torch.bfloat16):
                        out = model(x)
                    print(criterion(out, y).item())
        """,
        [
            "def validation_step(self, batch, batch_idx):\n"
            "        # the script autocast only its region below: Lightning would autocast all "
            "the step\n"
            "        with torch.autocast(self.device.type, enabled=False):\n"
            "            x, y = batch\n"
            '            with torch.autocast("cpu", dtype=torch.bfloat16):\n'
            "                out = self(x)\n"
            "            print(self.criterion(out, y).item())",
            "def training_step(self, batch, batch_idx):\n        x, y = batch\n",
        ],
        [],
    ),
}

UNCHANGED = {
    # Lightning runs backward after training_step, without autocast; the script ran it in
    # the region, after computing outside it
    "backward_inside_a_partial_region": (
        _TEACHER.format(
            enabled="", more="\n            loss = criterion(out, y)\n            loss.backward()"
        ).replace(
            "        loss = criterion(out.float(), y) + (out.float().softmax(-1) - soft).abs().mean()\n"
            "        loss.backward()\n",
            "",
        ),
        "TL113",
    ),
    # a region statement after the optimizer step: on_train_batch_end, without autocast
    "region_code_after_the_step": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    print(model(x).sum().item())
        """,
        "TL113",
    ),
}
