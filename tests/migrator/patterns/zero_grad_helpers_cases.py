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

# a step function of its own (`d_step(x)`) calling the helper with the optimizers it zeroes,
# the generator's step under `if i % n_critic == 0:`: a trainer class's `self.reset_grad()`
# once the class is inlined (its attributes become parameters)
_STEP_FUNCTIONS = """
optimizer_d = torch.optim.Adam(net_d.parameters())
optimizer_g = torch.optim.Adam(net_g.parameters())
n_critic = 2


def reset_grad(d_opt, g_opt):
    d_opt.zero_grad()
    g_opt.zero_grad()


for epoch in range(2):
    for i, (x, _) in enumerate(loader):
        d_loss = net_d(x).mean() - net_d(net_g(x).detach()).mean()
        reset_grad({call_args})
        d_loss.backward()
        optimizer_d.step()
        if i % n_critic == 0:
            g_loss = -net_d(net_g(x)).mean()
            reset_grad(optimizer_d, optimizer_g)
            g_loss.backward()
            optimizer_g.step()
"""

CONVERTS["reset_grad_given_the_optimizers_also_under_an_if"] = (
    _HEADER + _STEP_FUNCTIONS.format(call_args="optimizer_d, optimizer_g"),
    [
        "optimizer_d.zero_grad()\n        optimizer_g.zero_grad()\n"
        "        self.manual_backward(d_loss)",
        "if batch_idx % self.hparams.n_critic == 0:",
        "optimizer_d.zero_grad()\n            optimizer_g.zero_grad()\n"
        "            self.manual_backward(g_loss)",
    ],
    ["reset_grad", "d_opt", "g_opt"],
)
CONVERTS["reset_grad_given_the_optimizers_by_keyword"] = (
    _HEADER + _STEP_FUNCTIONS.format(call_args="g_opt=optimizer_g, d_opt=optimizer_d"),
    [
        "optimizer_d.zero_grad()\n        optimizer_g.zero_grad()\n"
        "        self.manual_backward(d_loss)",
    ],
    ["reset_grad", "d_opt", "g_opt"],
)

# a global the helper reads (`optimizer_g`) that the function holding the loop binds as a local
# of its own is another object there: the call stays a call, reading the global as it did
CONVERTS["helper_reading_a_global_the_loop_function_shadows"] = (
    _HEADER
    + """
optimizer_g = torch.optim.Adam(net_g.parameters())


def reset_grad(opt):
    opt.zero_grad()
    optimizer_g.zero_grad()


def train():
    optimizer_d = torch.optim.Adam(net_d.parameters())
    optimizer_g = torch.optim.SGD(net_g.parameters(), lr=0.1)
    for epoch in range(2):
        for x, _ in loader:
            d_loss = net_d(x).mean() - net_d(net_g(x).detach()).mean()
            reset_grad(optimizer_d)
            d_loss.backward()
            optimizer_d.step()
            g_loss = -net_d(net_g(x)).mean()
            reset_grad(optimizer_d)
            g_loss.backward()
            optimizer_g.step()


train()
""",
    ["reset_grad(optimizer_d)\n        self.manual_backward(d_loss)"],
    [],
)
