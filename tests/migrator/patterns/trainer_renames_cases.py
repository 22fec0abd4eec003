"""Cases of shapes/trainer_renames.py: a trainer class's `__init__` parameter named like a
name of the script that the call gives another object (minGPT's `Trainer(config.trainer,
...)`) renamed `<instance>_<name>` before the class is inlined (TL158); kept (and refused by
the inliner, TL174) when code outside the class could read the attribute by its old name."""

_RUNNER = """
class Runner:
    def __init__(self, config, net, data):
        self.config = config
        self.net = net
        self.data = data
        self.opt = torch.optim.SGD(net.parameters(), lr=config["lr"])

    def fit(self):
        config = self.config
        for epoch in range(config["epochs"]):
            for x, y in self.data:
                self.opt.zero_grad()
                loss = criterion(self.net(x), y)
                loss.backward()
                self.opt.step()
{methods}

config = {{"trainer": {{"lr": 0.1, "epochs": 2}}, "name": "run"}}
{script}
runner.fit()
{after}
"""


def _case(script='runner = Runner(config["trainer"], model, loader)', after="", methods=""):
    return _RUNNER.format(script=script, after=after, methods=methods)


CONVERTS = {
    # the class's `config` (parameter, attribute, the run method's local) is not the script's
    "parameter_named_like_the_scripts_config": (
        _case(after='print(config["name"])'),
        [
            'runner_config = config["trainer"]',
            'lr=self.runner_config["lr"]',
            'max_epochs=runner_config["epochs"]',
            'print(config["name"])',
        ],
        ["config = self.config", '\nconfig = config["trainer"]'],
    ),
    # given by keyword, and read by the script after the run as the instance's attribute
    "keyword_argument_and_a_read_of_the_attribute": (
        _case(
            script='runner = Runner(model, loader, config=config["trainer"])'.replace(
                "model, loader, config", "net=model, data=loader, config"
            ),
            after="print(runner.config)",
        ),
        ['runner_config = config["trainer"]', "print(runner_config)"],
        ["runner.config"],
    ),
    # given the script's own `config`: one object, nothing renamed
    "parameter_given_the_scripts_name_itself": (
        _case(script="runner = Runner(config, model, loader)")
        .replace('config["lr"]', 'config["trainer"]["lr"]')
        .replace('config["epochs"]', 'config["trainer"]["epochs"]'),
        ['max_epochs=config["trainer"]["epochs"]'],
        ["runner_config"],
    ),
}

# a function given the instance reads `r.config`: given the attribute first (TL157), it then
# reads the renamed name
CONVERTS["attribute_read_by_a_function_given_the_instance"] = (
    _case(after="\n\ndef report(r):\n    print(r.config)\n\n\nreport(runner)"),
    ['runner_config = config["trainer"]', "report(runner_config)"],
    ["report(runner)"],
)

UNCHANGED = {
    # another object's `.config` read outside the class: whether it reaches the instance is
    # not told, so nothing is renamed
    "another_objects_attribute_of_that_name": (
        _case(after="print(settings.config)"),
        "TL174",
    ),
    # a method declares the name global: which `config` it means is the script's
    "method_declaring_the_name_global": (
        _case(methods="\n    def show(self):\n        global config\n        print(config)\n"),
        "TL174",
    ),
}
