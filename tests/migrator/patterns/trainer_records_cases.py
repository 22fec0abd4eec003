"""Cases of shapes/trainer_records.py: a function given the trainer instance only to read its
attributes is given those attributes (TL157), or refused (TL172)."""

_RUNNER = """
class Runner:
    def __init__(self, net, data, verbose):
        self.net = net
        self.data = data
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
        if verbose:
            self.prefix = "epoch"
        else:
            self.prefix = ""

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.data:
                self.opt.zero_grad()
                self.loss = criterion(self.net(x), y)
                self.loss.backward()
                self.opt.step()
            report(self, epoch)


def report(runner, epoch):
    {body}


runner = Runner(model, loader, True)
runner.fit(2)
{after}
"""


def _case(
    body="print(runner.prefix, epoch, runner.net.weight.norm().item())", after="report(runner, 2)"
):
    return _RUNNER.format(body=body, after=after)


CONVERTS = {
    # `self.prefix` is set by both branches of an `if`: there for sure when report() is called
    "function_given_the_attributes_it_reads": (
        _case(),
        [
            "def report(prefix, net, epoch):\n    print(prefix, epoch, net.weight.norm().item())",
            "report(self.prefix, self.model, epoch)",
            "report(prefix, model, 2)",
        ],
        ["report(self, epoch)", "report(runner"],
    ),
}

UNCHANGED = {
    "function_sets_an_attribute": (
        _case(body="runner.prefix = str(epoch)"),
        "TL172",
    ),
    "function_calls_a_method": (
        _case(body="runner.fit(1)"),
        "TL172",
    ),
    # `loss` is set by fit(): called before it, the function would not have read it
    "attribute_not_set_for_sure_by_init": (
        _case(body="if epoch > 5:\n        print(runner.loss.item())"),
        "TL172",
    ),
    "function_local_named_like_the_attribute": (
        _case(body="prefix = runner.prefix + ':'\n    print(prefix, epoch)"),
        "TL172",
    ),
    "instance_given_by_keyword": (
        _case(after="report(epoch=2, runner=runner)"),
        "TL172",
    ),
    "function_passes_the_instance_on": (
        _case(body="print(vars(runner), epoch)"),
        "TL172",
    ),
}
