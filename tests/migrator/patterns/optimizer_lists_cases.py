"""Cases of patterns/optimizer_lists.py: lists of the optimizers and of their schedulers
(pix2pix's `self.optimizers` / `self.schedulers`) as `self.optimizers()` /
`self.lr_schedulers()` under manual optimization, or left to TL106."""

_GAN = """
G = nn.Linear(4, 4)
D = nn.Linear(4, 1)
opt_G = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_D = torch.optim.Adam(D.parameters(), lr=1e-3)
optimizers = [opt_G, opt_D]
schedulers = [torch.optim.lr_scheduler.StepLR(o, step_size=1, gamma=0.5) for o in optimizers]
for epoch in range(2):
    for x, _ in loader:
        opt_D.zero_grad()
        loss_D = D(G(x).detach()).mean() - D(x).mean()
        loss_D.backward()
        opt_D.step()
        opt_G.zero_grad()
        loss_G = -D(G(x)).mean()
        loss_G.backward()
        opt_G.step()
    old_lr = optimizers[0].param_groups[0]["lr"]
    for scheduler in schedulers:
        scheduler.step()
    print(epoch, old_lr, len(schedulers))
"""

CONVERTS = {
    "lists_read_in_the_epoch": (
        _GAN,
        [
            "optimizers = [opt_G, opt_D]",
            "schedulers = [\n            torch.optim.lr_scheduler.StepLR(o, step_size=1, gamma=0.5)",
            "return optimizers, schedulers",
            'old_lr = self.optimizers()[0].param_groups[0]["lr"]',
            "for scheduler in self.lr_schedulers():",
            "print(epoch, old_lr, len(self.lr_schedulers()))",
        ],
        ["self.optimizers = ", "def __init__(self, G, D, optimizers"],
    ),
}

UNCHANGED = {
    # `self.optimizers()` is in the order the optimizers are built: G, then D
    "list_in_another_order": (_GAN.replace("[opt_G, opt_D]", "[opt_D, opt_G]"), "TL106"),
    "list_read_after_the_loop": (_GAN + "print(optimizers[1])\n", "TL106"),
    "scheduler_list_grown": (
        _GAN.replace(
            "for epoch in range(2):",
            "schedulers.append(torch.optim.lr_scheduler.StepLR(opt_G, 2))\nfor epoch in range(2):",
        ),
        "TL106",
    ),
    "list_item_set_in_the_loop": (
        _GAN.replace(
            "    old_lr = optimizers[0]", "    optimizers[0] = opt_D\n    old_lr = optimizers[0]"
        ),
        "TL106",
    ),
}
