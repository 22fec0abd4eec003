"""Cases of patterns/zero_grad_helpers.py: `reset_grad()` helpers zeroing the optimizers."""

_GAN = """
optimizer_d = torch.optim.Adam(net_d.parameters())
optimizer_g = torch.optim.Adam(net_g.parameters())


def reset_grad():
{body}


for epoch in range(2):
    for x, _ in loader:
        d_loss = net_d(x).mean() - net_d(net_g(x)).mean()
        reset_grad()
        d_loss.backward()
        optimizer_d.step()
        g_loss = -net_d(net_g(x)).mean()
        reset_grad()
        g_loss.backward()
        optimizer_g.step()
"""

_HEADER = """
net_d = nn.Linear(4, 1)
net_g = nn.Linear(4, 4)
"""

CONVERTS = {
    # the yunjey GAN tutorial: the calls become the zero_grad() statements, the helper goes
    "reset_grad_of_both_optimizers": (
        _HEADER + _GAN.format(body="    optimizer_d.zero_grad()\n    optimizer_g.zero_grad()"),
        [
            "optimizer_d.zero_grad()\n        optimizer_g.zero_grad()\n"
            "        self.manual_backward(d_loss)",
            "optimizer_d.zero_grad()\n        optimizer_g.zero_grad()\n"
            "        self.manual_backward(g_loss)",
        ],
        ["reset_grad"],
    ),
}

UNCHANGED = {
    # a helper doing more than zeroing stays a call, which would read optimizers that moved
    # into configure_optimizers: the static check refuses the conversion
    "helper_that_also_prints": (
        _HEADER
        + _GAN.format(
            body='    optimizer_d.zero_grad()\n    optimizer_g.zero_grad()\n    print("zeroed")'
        ),
        "TL150",
    ),
}
