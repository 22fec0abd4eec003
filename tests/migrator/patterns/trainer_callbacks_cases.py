"""Cases of shapes/trainer_callbacks.py: callbacks registered on a trainer class (minGPT's
`add_callback` / `trigger_callbacks`), inlined where the class triggers them (TL155), or
refused (TL156)."""

_TRAINER = """
from collections import defaultdict


class Runner:
    def __init__(self, net, data):
        self.net = net
        self.data = data
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
        self.callbacks = {registry}
        self.iter_num = 0

    def add_callback(self, onevent, callback):
        self.callbacks[onevent].append(callback)

    def set_callback(self, onevent, callback):
        self.callbacks[onevent] = [callback]

    def trigger_callbacks(self, onevent):
        for callback in self.callbacks.get(onevent, []):
            callback(self)

    def run(self, epochs):
        for epoch in range(epochs):
            for x, y in self.data:
                self.opt.zero_grad()
                self.loss = criterion(self.net(x), y)
                self.loss.backward()
                self.opt.step()
                {trigger}
                self.iter_num += 1


def batch_end_callback(trainer):
    if trainer.iter_num % 2 == 0:
        print(f"iter {{trainer.iter_num}}: train loss {{trainer.loss.item():.5f}}")


def second_callback(trainer):
    seen = trainer.iter_num
    print("seen", seen)


runner = Runner(model, loader)
{script}
"""


def _case(
    script='runner.set_callback("on_batch_end", batch_end_callback)\nrunner.run(2)',
    trigger='self.trigger_callbacks("on_batch_end")',
    registry="defaultdict(list)",
):
    return _TRAINER.format(script=script, trigger=trigger, registry=registry)


# minGPT: the run method's `model, config = self.model, self.config`, a callback reading the
# module's `model` (the object the trainer was given, moved in place)
_HELD = """
from collections import defaultdict


class Runner:
    def __init__(self, model, data):
        self.model = model
        self.data = data
        self.callbacks = defaultdict(list)
        self.model = self.model.to("cpu")

    def add_callback(self, onevent, callback):
        self.callbacks[onevent].append(callback)

    def trigger_callbacks(self, onevent):
        for callback in self.callbacks.get(onevent, []):
            callback(self)

    def run(self, epochs):
        {first}
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(epochs):
            for x, y in data:
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                opt.step()
                self.trigger_callbacks("on_batch_end")
        {last}


def report(trainer):
    model.eval()
    print(model.weight.sum().item())
    model.train()


runner = Runner(model, loader)
runner.add_callback("on_batch_end", report)
{between}
runner.run(2)
"""


def _held(first="model, data = self.model, self.data", last="", between=""):
    return _HELD.format(first=first, last=last, between=between)


CONVERTS = {
    # the callback's body where the trigger was, its parameter read as `self`
    "set_callback_inlined_at_the_trigger": (
        _case(),
        [
            "if self.iter_num % 2 == 0:\n"
            '            print(f"iter {self.iter_num}: train loss {loss.item():.5f}")\n'
            "        self.iter_num += 1",
        ],
        ["trigger_callbacks", "set_callback", "def batch_end_callback", "defaultdict(list)\n"],
    ),
    # added callbacks run in the order of registration
    "added_callbacks_in_registration_order": (
        _case(
            'runner.add_callback("on_batch_end", second_callback)\n'
            'runner.add_callback("on_batch_end", batch_end_callback)\n'
            "runner.run(2)"
        ),
        ['print("seen", seen)\n        if self.iter_num % 2 == 0:'],
        ["add_callback", "def second_callback"],
    ),
    # set_callback replaces what was added before it
    "set_callback_replaces_the_added_ones": (
        _case(
            'runner.add_callback("on_batch_end", second_callback)\n'
            'runner.set_callback("on_batch_end", batch_end_callback)\n'
            "runner.run(2)"
        ),
        ["if self.iter_num % 2 == 0:", "def second_callback"],
        ['print("seen", seen)\n        if'],
    ),
    # a trigger nothing is registered for does nothing
    "trigger_of_an_event_nothing_registered": (
        _case(
            'runner.set_callback("on_epoch_end", batch_end_callback)\nrunner.run(2)',
        ),
        ["self.iter_num += 1"],
        ["trigger_callbacks", "if self.iter_num % 2 == 0"],
    ),
    # the callback's local `seen` is also a name of the run method: the callback's own, it
    # gets a fresh name (a global it reads that the method binds stays refused)
    "callback_local_meets_a_name_of_the_run_method": (
        _case(
            'runner.set_callback("on_batch_end", second_callback)\nrunner.run(2)',
            trigger='seen = 0\n                self.trigger_callbacks("on_batch_end")',
        ),
        ['seen = 0\n        seen_2 = self.iter_num\n        print("seen", seen_2)'],
        ['print("seen", seen)'],
    ),
    # the callback's global `model` is the object the run method's local `model` holds
    "callback_reads_the_global_the_run_method_holds": (
        _held(),
        [
            "self.model.eval()\n        self.print(self.model.weight.sum().item())",
            "trainer.fit(lit_model, loader)",
        ],
        ["model, data = model, data", "def report"],
    ),
}

UNCHANGED = {
    # registered after the run: the run never called it
    "registered_after_the_run": (
        _case('runner.run(2)\nrunner.set_callback("on_batch_end", batch_end_callback)'),
        "TL156",
    ),
    "registered_under_a_condition": (
        _case(
            'if verbose:\n    runner.set_callback("on_batch_end", batch_end_callback)\nrunner.run(2)'
        ),
        "TL156",
    ),
    "event_not_a_literal": (
        _case(
            'event = "on_batch_end"\nrunner.set_callback(event, batch_end_callback)\nrunner.run(2)'
        ),
        "TL156",
    ),
    "callback_registered_twice": (
        _case(
            'runner.add_callback("on_batch_end", batch_end_callback)\n'
            'runner.add_callback("on_batch_end", batch_end_callback)\n'
            "runner.run(2)"
        ),
        "TL156",
    ),
    # a lambda (or any object but a function the module defines once)
    "callback_not_a_module_function": (
        _case(
            'callback = batch_end_callback\nrunner.set_callback("on_batch_end", callback)\n'
            "runner.run(2)"
        ),
        "TL156",
    ),
    "event_triggered_at_two_places": (
        _case(
            trigger='self.trigger_callbacks("on_batch_end")\n                self.trigger_callbacks("on_batch_end")'
        ),
        "TL156",
    ),
    "trigger_inside_an_expression": (
        _case(trigger='done = self.trigger_callbacks("on_batch_end")'),
        "TL156",
    ),
    # the callback reads the global `data`, which the run method binds
    "callback_global_meets_a_local_of_the_run_method": (
        _case(
            'data = "script"\n\ndef reads_data(trainer):\n    print(data)\n\n'
            'runner.set_callback("on_batch_end", reads_data)\nrunner.run(2)',
            trigger='data = 0\n                self.trigger_callbacks("on_batch_end")',
        ),
        "TL156",
    ),
    # a plain dict: `self.callbacks[onevent].append(...)` raises, no registry
    "registry_without_a_default": (
        _case(registry="{}"),
        "TL172",
    ),
    # the run method binds `model` after the trigger: the callback read the global there
    "run_method_binds_the_name_after_the_trigger": (
        _held(first="data = self.data\n        model = self.model", last="model = None"),
        "TL156",
    ),
    # the module's `model` is another object by the time the callback runs
    "global_rebound_after_the_creation": (
        _held(between="model = nn.Linear(4, 2)"),
        "TL156",
    ),
}

# minGPT's callbacks return early on most iterations: a bare `return` skipping the rest of the
# body is the `if` it stands in, the rest under its negated test (source/guard_returns.py)
_EARLY = """

def log_every(trainer):
    {body}


runner.set_callback("on_batch_end", log_every)
runner.run(2)
"""


def _early(body):
    return _case(script=_EARLY.format(body=body).replace("{", "{{").replace("}", "}}"))


CONVERTS["callback_returning_early"] = (
    _early(
        "if trainer.iter_num % 2 != 0:\n"
        "        return\n"
        '    print("iter", trainer.iter_num, trainer.loss.item())\n'
        "    if trainer.iter_num % 4 == 0:\n"
        '        print("every 4")'
    ),
    [
        "if not (self.iter_num % 2 != 0):\n"
        '            print("iter", self.iter_num, loss.item())\n'
        "            if self.iter_num % 4 == 0:\n"
        '                print("every 4")\n'
        "        self.iter_num += 1",
    ],
    ["return\n", "def log_every"],
)
# an `else` branch goes on; a `return` in both branches of an if/else ends the body there
CONVERTS["callback_returning_in_an_if_else"] = (
    _early(
        "if trainer.iter_num == 0:\n"
        "        return\n"
        "    else:\n"
        '        print("not first")\n'
        '    print("after", trainer.iter_num)'
    ),
    [
        "if not (self.iter_num == 0):\n"
        '            print("not first")\n'
        '            print("after", self.iter_num)'
    ],
    ["return\n"],
)
CONVERTS["callback_returning_from_an_elif_chain_at_its_end"] = (
    _early(
        'print("seen")\n'
        "    if trainer.iter_num < 2:\n"
        "        return\n"
        "    elif trainer.iter_num % 2 == 0:\n"
        '        print("even")'
    ),
    ['if self.iter_num < 2:\n            pass\n        elif self.iter_num % 2 == 0:'],
    ["return\n"],
)
# a return in a loop, or with the rest run by two branches (it would be copied), or returning
# a value: refused
UNCHANGED["callback_returning_in_a_loop"] = (
    _early(
        "for every in (2, 3):\n"
        "        if trainer.iter_num % every == 0:\n"
        "            return\n"
        '    print("neither")'
    ),
    "TL156",
)
UNCHANGED["callback_rest_after_two_branches_going_on"] = (
    _early(
        "if trainer.iter_num == 0:\n"
        "        return\n"
        "    elif trainer.iter_num == 1:\n"
        '        print("second")\n'
        '    print("rest")'
    ),
    "TL156",
)
UNCHANGED["callback_returning_a_value"] = (
    _early('if trainer.iter_num % 2:\n        return trainer.loss.item()\n    print("even")'),
    "TL156",
)

# chargpt: the instance, its callback and the registration under `if __name__ == "__main__":`
_MAIN_BLOCK = _TRAINER.split("\ndef batch_end_callback")[0].replace("{registry}", "defaultdict(list)").replace(
    "{trigger}", 'self.trigger_callbacks("on_batch_end")'
) + """

if __name__ == "__main__":
    runner = Runner(model, loader)

    def log_every(trainer):
        if trainer.iter_num % 2 == 0:
            print("iter", trainer.iter_num)

    runner.set_callback("on_batch_end", log_every)
    {more}
    runner.run(2)
"""
CONVERTS["callback_defined_in_the_main_block"] = (
    _MAIN_BLOCK.replace("{more}", ""),
    ['if self.iter_num % 2 == 0:\n            print("iter", self.iter_num)'],
    ["def log_every", "set_callback"],
)
# defined twice in that block: which function the registration holds is not read
UNCHANGED["callback_defined_twice_in_the_main_block"] = (
    _MAIN_BLOCK.replace(
        "{more}", "def log_every(trainer):\n        pass\n"
    ),
    "TL156",
)
