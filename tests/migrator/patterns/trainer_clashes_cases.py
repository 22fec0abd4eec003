"""Cases of shapes/trainer_clashes.py: an attribute or a method of a trainer class whose
spelling would mean two things once the class is inlined (a local of the run method named
like an attribute, a loop variable named like a method, a script name named like an
attribute) renamed `<instance>_<name>` before inlining (TL159); kept, and refused by the
inliner (TL174), where the file reads names by their spelling (`exec`, `eval`,
`globals()`), or where the name is neither an attribute nor a method."""

_ROLLOUT = """
class Runner:
    def __init__(self, net, data):
        self.net = net
        self.data = data
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
        self.x = torch.zeros(4)

    def update(self, x, y):
        self.opt.zero_grad()
        loss = criterion(self.net(x), y)
        loss.backward()
        self.opt.step()
        return loss.item()

    def fit(self, epochs):
        for update in range(epochs):
            for x, y in self.data:
                loss = self.update(x, y)
            print(update, loss, self.x.sum().item())
{extra}

{script}
"""


def _rollout(extra="", script="runner = Runner(model, loader)\nrunner.fit(2)"):
    return _ROLLOUT.format(extra=extra, script=script)


CONVERTS = {
    # `self.x` and the batch's `x`; the method `update()` and the loop variable `update`
    "attribute_and_method_named_like_locals": (
        _rollout(),
        [
            "runner_x = torch.zeros(4)",
            "print(update, self.loss, self.runner_x.sum().item())",
        ],
        ["self.x =", "def update("],
    ),
    # `Runner(...).fit()`: no instance name, the class's name lowered
    "created_and_run_at_once": (
        _rollout(script="Runner(model, loader).fit(2)"),
        ["runner_x = torch.zeros(4)", "self.runner_x.sum()"],
        ["def update("],
    ),
    # the method `show()` and the script's flag `show`: the method, a function once inlined,
    # renamed; the flag kept
    "method_named_like_a_script_name": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

            def show(self, epoch, value):
                print(f"epoch {epoch}: {value:.4f}")

            def fit(self, epochs):
                for epoch in range(epochs):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()
                    if show:
                        self.show(epoch, loss.item())


        show = True
        runner = Runner(model, loader)
        runner.fit(2)
        """,
        ["def runner_show(epoch, value):", "runner_show(epoch, self.loss.item())"],
        ["def show("],
    ),
    # the script's `opt`, a string, and the class's `self.opt`: the attribute renamed, read
    # after the run through the instance
    "attribute_named_like_a_script_name": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

            def fit(self, epochs):
                for epoch in range(epochs):
                    for x, y in self.data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()


        opt = "sgd"
        runner = Runner(model, loader)
        runner.fit(2)
        print(opt, runner.opt.param_groups[0]["lr"])
        """,
        ['print(opt, runner_opt.param_groups[0]["lr"])'],
        ["runner.opt"],
    ),
    # `getattr` with a computed name reaches another object: the inliner refuses `self` or
    # the instance handed to a function (TL172)
    "getattr_of_another_object": (
        _rollout(
            script='runner = Runner(model, loader)\nrunner.fit(2)\nkey = "we" + "ight"\n'
            "print(getattr(model, key).shape)"
        ),
        ["runner_x = torch.zeros(4)", "print(getattr(model, key).shape)"],
        ["self.x ="],
    ),
    # the fresh name is taken by the script: the next free one
    "fresh_name_taken": (
        _rollout(
            script="runner_x = 1\nrunner = Runner(model, loader)\nrunner.fit(2)\nprint(runner_x)"
        ),
        ["runner_x_2 = torch.zeros(4)", "print(runner_x)"],
        ["self.x ="],
    ),
}

UNCHANGED = {
    # `exec` could reach the attribute or the method by its spelling: nothing renamed
    "exec_reads_names_by_spelling": (
        _rollout(script='runner = Runner(model, loader)\nrunner.fit(2)\nexec("print(1)")'),
        "TL174",
    ),
    # `eval` of a string
    "eval_reads_names_by_spelling": (
        _rollout(script='runner = Runner(model, loader)\nrunner.fit(2)\nprint(eval("1 + 1"))'),
        "TL174",
    ),
    # `globals()` maps names by their spelling
    "globals_read": (
        _rollout(script="runner = Runner(model, loader)\nrunner.fit(2)\nprint(len(globals()))"),
        "TL174",
    ),
    # a parameter of the run method named like a parameter of `__init__`: no attribute nor
    # method to rename
    "run_parameter_named_like_an_init_parameter": (
        """
        class Runner:
            def __init__(self, net, data):
                self.net = net
                self.data = data
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

            def fit(self, data):
                for epoch in range(2):
                    for x, y in data:
                        self.opt.zero_grad()
                        loss = criterion(self.net(x), y)
                        loss.backward()
                        self.opt.step()


        runner = Runner(model, loader)
        runner.fit(loader)
        """,
        "TL174",
    ),
}
