"""Cases of shapes/trainer_bases.py: a trainer class whose one base class is defined in the
same file flattened into one class before it is inlined (TL340): the subclass's methods win,
the base's others are copied, the base's `__init__` body runs in place of
`super().__init__(...)`, another overridden base method reached with `super().name(...)` is
kept as `<base>_<name>`. Refused (TL133, naming the base) where the two classes could be told
apart: an abstract method the subclass does not define, the base used elsewhere, a base of
the base, two bases, private `__names`, class-level code."""

_PAIR = """
class BaseRunner{base_bases}:
    def __init__(self, net, data):
        self.net = net
        self.data = data
{base_extra}
    def fit(self, epochs):
        for epoch in range(epochs):
            loss = self.run_epoch()
            self.report(epoch, loss)

    def report(self, epoch, loss):
        print(epoch, loss)


class Runner(BaseRunner):
    def __init__(self, net, data, lr):
        {init_call}
        self.opt = torch.optim.SGD(net.parameters(), lr=lr)

    def run_epoch(self):
        for x, y in self.data:
            self.opt.zero_grad()
            loss = criterion(self.net(x), y)
            loss.backward()
            self.opt.step()
        return loss.item()
{extra}

{script}
"""


def _pair(
    base_bases="",
    base_extra="",
    init_call="super().__init__(net, data)",
    extra="",
    script="runner = Runner(model, loader, 0.1)\nrunner.fit(2)",
):
    return _PAIR.format(
        base_bases=base_bases,
        base_extra=base_extra,
        init_call=init_call,
        extra=extra,
        script=script,
    )


_ABSTRACT = """
    @abstractmethod
    def run_epoch(self):
        raise NotImplementedError
"""

CONVERTS = {
    # the pytorch-template pair: the base's epoch loop and the subclass's batch loop
    "base_init_body_runs_in_place_of_super_init": (
        _pair(),
        ["L.Trainer(", "print(epoch, loss)"],
        ["class BaseRunner", "class Runner", "super().__init__(net, data)"],
    ),
    # an `@abstractmethod` the subclass defines: only a mark without ABCMeta
    "abstract_method_defined_by_the_subclass": (
        _pair(base_extra=_ABSTRACT),
        ["L.Trainer(", "print(epoch, loss)"],
        ["class BaseRunner", "raise NotImplementedError"],
    ),
    # the base's parameters given other names: bound first, then the base's body
    "base_parameters_bound_to_the_call_arguments": (
        _pair(init_call="super().__init__(model, data=loader)")
        .replace("def __init__(self, net, data, lr)", "def __init__(self, model, loader, lr)")
        .replace("SGD(net.parameters()", "SGD(model.parameters()"),
        ["L.Trainer(", "net = model", "data = loader"],
        ["class BaseRunner", "super().__init__(model"],
    ),
    # the base's `__init__` rebinds a parameter the subclass passes as itself and reads
    # after the call: its body is not moved there; kept as a method, called on `self`
    "base_init_rebinding_a_passed_name_kept_as_a_method": (
        _pair(init_call="super().__init__(net, data)\n        print(net)").replace(
            "self.net = net\n", "net = net.double()\n        self.net = net\n", 1
        ),
        ["def baserunner_init(", "L.Trainer("],
        ["class BaseRunner", "super().__init__(net"],
    ),
    # an overridden method reaching the base's with `super().report(...)`: the base's kept
    # under a name of its own, called on `self`
    "overridden_method_calling_the_base_one": (
        _pair(
            extra="""
    def report(self, epoch, loss):
        super().report(epoch, round(loss, 3))
"""
        ),
        ["L.Trainer(", "def baserunner_report(", "print(epoch, loss)"],
        ["class BaseRunner", "super().report"],
    ),
}

UNCHANGED = {
    # the subclass does not define the abstract method the base's loop calls
    "abstract_method_the_subclass_does_not_define": (
        _pair(
            base_extra="""
    @abstractmethod
    def validate(self):
        raise NotImplementedError
"""
        ),
        "TL133",
    ),
    # `isinstance(runner, BaseRunner)`: the base class is used elsewhere
    "base_used_elsewhere": (
        _pair(
            script="runner = Runner(model, loader, 0.1)\nrunner.fit(2)\n"
            "print(isinstance(runner, BaseRunner))"
        ),
        "TL133",
    ),
    # `BaseRunner(ABC)`: a base of the base, not seen
    "base_with_a_base_of_its_own": (_pair(base_bases="(ABC)"), "TL133"),
    # a name-mangled attribute: `_BaseRunner__seen` would become `_Runner__seen`
    "private_name_in_the_base": (
        _pair(base_extra="\n    def mark(self):\n        self.__seen = True\n"),
        "TL133",
    ),
    # a class attribute of the base
    "class_level_code_in_the_base": (_pair(base_extra="\n    verbose = True\n"), "TL133"),
    # `super()` not as `super().name(...)`
    "super_used_other_than_as_a_call": (
        _pair(init_call="base = super()\n        base.__init__(net, data)"),
        "TL133",
    ),
}
