"""Cases of shapes/step_inline.py: a training step in a function called once per iteration,
inlined into its loop (TL181), or refused with a precise code (TL182-TL184)."""

_LOSS_BATCH = """
def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)
"""

_TRAIN_STEP = """
def train_step(x, y):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""

_TWO_STEPS = _TRAIN_STEP + """

def other_step(x, y):
    optimizer.zero_grad()
    criterion(model(x), y).backward()
    optimizer.step()


"""

# a GAN trainer's two steps, each with its own optimizer (manual optimization)
_GAN_STEPS = """
import torch.nn.functional as F

G = nn.Linear(2, 4)
D = nn.Linear(4, 1)
g_opt = torch.optim.Adam(G.parameters(), lr=1e-3)
d_opt = torch.optim.Adam(D.parameters(), lr=1e-3)
loader = DataLoader(TensorDataset(torch.randn(16, 4)), batch_size=4)


def critic_step(real):
    d_opt.zero_grad()
    fake = G(torch.randn(real.size(0), 2)).detach()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    d_opt.step()
    return d_loss.item()


def generator_step(n):
    g_opt.zero_grad()
    g_loss = F.softplus(-D(G(torch.randn(n, 2)))).mean()
    g_loss.backward()
    g_opt.step()
    return g_loss.item()
"""

CONVERTS = {
    "call_handing_its_value_to_a_list": (
        _TRAIN_STEP
        + """

losses = []
for epoch in range(2):
    for x, y in loader:
        losses.append(train_step(x, y))
""",
        ["        self.losses.append(loss.item())"],
        ["def train_step", "losses.append(train_step"],
    ),
    "critic_step_then_generator_step_each_inlined_in_place": (
        _GAN_STEPS
        + """

d_losses, g_losses = [], []
for epoch in range(2):
    for i, (real,) in enumerate(loader):
        d_losses.append(critic_step(real))
        if i % 2 == 0:
            g_losses.append(generator_step(real.size(0)))
""",
        [
            "self.automatic_optimization = False",
            "self.d_losses.append(d_loss.item())\n        if batch_idx % 2 == 0:\n            n = real.size(0)",
            "self.g_losses.append(g_loss.item())",
        ],
        ["def critic_step", "def generator_step"],
    ),
    # the GCN example: `train(epoch)` holds a full-batch step and calls `model.train()`, which
    # only spells the function's name: the function is used once, inlined, and removed
    "function_named_train_calling_model_train": (
        """
def train(epoch):
    model.train()
    optimizer.zero_grad()
    loss = criterion(model(features), targets)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())


features, targets = torch.randn(8, 4), torch.randint(0, 2, (8,))
for epoch in range(3):
    train(epoch)
""",
        ["loss = self.criterion(self(self.features), self.targets)"],
        ["def train(epoch)"],
    ),
    # "What is torch.nn really?": the call given an optimizer takes the step branch
    "branch_on_a_given_optimizer_resolved": (
        _LOSS_BATCH
        + """

for epoch in range(2):
    for xb, yb in loader:
        loss_batch(model, criterion, xb, yb, optimizer)
""",
        ["loss = self.criterion(self(xb), yb)", "return loss"],
        ["def loss_batch", "opt is not None", "loss.item(), len(xb)"],
    ),
    # the evaluation calls (no optimizer) keep calling the function, which stays for them
    "evaluation_calls_keep_the_function": (
        _LOSS_BATCH
        + """

val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
for epoch in range(2):
    model.train()
    for xb, yb in loader:
        loss_batch(model, criterion, xb, yb, optimizer)
    model.eval()
    with torch.no_grad():
        losses, nums = zip(*[loss_batch(model, criterion, xb, yb) for xb, yb in val_loader])
    print(epoch, sum(losses) / len(losses))
""",
        [
            "def loss_batch(model, loss_func, xb, yb, opt=None):",
            "self.outputs.append(loss_batch(self.model, self.criterion, xb, yb))",
            "losses, nums = zip(*self.outputs)",
        ],
        ["loss_batch(model, criterion, xb, yb, optimizer)"],
    ),
    "return_assigned_to_the_call_target": (
        _TRAIN_STEP
        + """

for epoch in range(2):
    for x, y in loader:
        value = train_step(x, y)
    print(epoch, value)
""",
        ["value = loss.item()"],
        ["def train_step", "train_step("],
    ),
    "return_unpacked_into_a_tuple": (
        _LOSS_BATCH
        + """

for epoch in range(2):
    for xb, yb in loader:
        last, n = loss_batch(model, criterion, xb, yb, opt=optimizer)
    print(epoch, last, n)
""",
        ["self.last, self.n = loss.item(), len(xb)"],
        ["def loss_batch"],
    ),
    "return_added_to_an_accumulator": (
        _TRAIN_STEP
        + """

for epoch in range(2):
    total = 0.0
    for x, y in loader:
        total += train_step(x, y)
    print(epoch, total)
""",
        ["total += loss.item()"],
        ["train_step("],
    ),
    # the call's own target keeps the function's local name (the call rebinds it anyway)
    "local_named_like_the_call_target_kept": (
        _TRAIN_STEP.replace("x, y)", "inputs, targets)").replace("model(x), y", "model(inputs), targets")
        + """

for epoch in range(2):
    for x, y in loader:
        loss = train_step(x, y)
    print(epoch, loss)
""",
        ["loss = self.criterion(self(x), y)"],
        ["train_step_loss"],
    ),
    # a local the caller reads later is renamed `<function>_<name>`
    "local_named_like_a_caller_name_renamed": (
        _TRAIN_STEP
        + """

for epoch in range(2):
    loss = None
    for x, y in loader:
        train_step(x, y)
    print(epoch, loss)
""",
        ["train_step_loss = self.criterion(self(x), y)"],
        ["train_step("],
    ),
    "keyword_arguments_and_a_literal_default": (
        """
def train_step(inputs, targets, scale=1.0):
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets) * scale
    loss.backward()
    optimizer.step()


for epoch in range(2):
    for x, y in loader:
        train_step(targets=y, inputs=x)
""",
        ["loss = self.criterion(self(x), y) * 1.0"],
        ["train_step("],
    ),
    # an argument that is not a name is bound to the parameter first (evaluated once, first)
    "expression_argument_bound_to_a_local_first": (
        """
def train_step(inputs, targets):
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()


for epoch in range(2):
    for x, y in loader:
        train_step(x * 2.0, y)
""",
        ["inputs = x * 2.0", "loss = self.criterion(self(inputs), y)"],
        ["train_step("],
    ),
    # the step in a function reading the module's model and optimizer, in a step loop
    "step_loop_globals_train_one_batch": (
        """
def train_one_batch(batch):
    x, y = batch
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


data_iter = iter(loader)
for it in range(4):
    try:
        batch = next(data_iter)
    except StopIteration:
        data_iter = iter(loader)
        batch = next(data_iter)
    loss = train_one_batch(batch)
""",
        ["def training_step(self, batch, batch_idx):", "x, y = batch"],
        ["def train_one_batch"],
    ),
    # a trainer class's step method: the class is inlined (TL170), then the method
    "trainer_class_step_method": (
        """
class Trainer:
    def __init__(self, model, train_data, optimizer):
        self.model = model
        self.train_data = train_data
        self.optimizer = optimizer

    def _run_batch(self, source, targets):
        self.optimizer.zero_grad()
        loss = criterion(self.model(source), targets)
        loss.backward()
        self.optimizer.step()

    def _run_epoch(self, epoch):
        for source, targets in self.train_data:
            self._run_batch(source, targets)

    def train(self, max_epochs):
        for epoch in range(max_epochs):
            self._run_epoch(epoch)


trainer = Trainer(model, loader, optimizer)
trainer.train(2)
""",
        ["loss = self.criterion(self(source), targets)", "max_epochs=max_epochs"],
        ["_run_batch", "class Trainer"],
    ),
    # a `global` of the function is the module's own name when the loop is at module level
    "global_counter_at_module_level_carried": (
        """
steps = 0


def train_step(x, y):
    global steps
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    steps += 1


for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
print(steps)
""",
        ["self.steps += 1", "steps = lit_model.steps"],
        ["global steps", "train_step("],
    ),
    # inlined, then the hand update converts as manual optimization (patterns/hand_update.py)
    "hand_written_update_after_inlining": (
        """
def train_one(x, y):
    model.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    for p in model.parameters():
        p.data.add_(p.grad.data, alpha=-0.01)
    return loss.item()


for it in range(1, 11):
    x, y = torch.randn(1, 4), torch.randint(0, 2, (1,))
    train_one(x, y)
""",
        [
            "self.automatic_optimization = False",
            "self.manual_backward(loss)",
            "p.data.add_(p.grad.data, alpha=-0.01)",
        ],
        ["train_one("],
    ),
}

UNCHANGED = {
    "early_return": (
        """
def train_step(x, y):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    if not torch.isfinite(loss):
        return None
    loss.backward()
    optimizer.step()
    return loss.item()


for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
""",
        "TL182",
    ),
    "yield_in_the_step_function": (
        """
def train_step(x, y):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    yield loss.item()


for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
""",
        "TL182",
    ),
    "recursion": (
        """
def train_step(x, y, depth=0):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    if depth < 1:
        train_step(x, y, depth + 1)


for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
""",
        "TL182",
    ),
    "nested_lambda": (
        """
def train_step(x, y):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step(lambda: loss)


for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
""",
        "TL182",
    ),
    "star_args": (
        """
def train_step(x, y, *extra):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()


for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
""",
        "TL182",
    ),
    "default_not_a_literal": (
        """
def train_step(x, y, scale=torch.tensor(1.0)):
    optimizer.zero_grad()
    loss = criterion(model(x), y) * scale
    loss.backward()
    optimizer.step()


for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
""",
        "TL182",
    ),
    "global_written_when_the_loop_is_in_a_function": (
        """
steps = 0


def train_step(x, y):
    global steps
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    steps += 1


def main():
    for epoch in range(2):
        for x, y in loader:
            train_step(x, y)


main()
""",
        "TL182",
    ),
    # only a call handing its value on first thing: here `2 *` would be evaluated before it
    "call_inside_an_expression": (
        _TRAIN_STEP
        + """

losses = []
for epoch in range(2):
    for x, y in loader:
        losses.append(2 * train_step(x, y))
""",
        "TL182",
    ),
    "result_used_but_nothing_returned": (
        """
def train_step(x, y):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()


for epoch in range(2):
    for x, y in loader:
        out = train_step(x, y)
""",
        "TL182",
    ),
    "called_from_two_loops": (
        _TRAIN_STEP
        + """

for x, y in loader:
    train_step(x, y)
for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
""",
        "TL183",
    ),
    "called_twice_in_one_loop": (
        _TRAIN_STEP
        + """

for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
        train_step(x, y)
""",
        "TL183",
    ),
    "two_functions_step_from_two_loops": (
        _TWO_STEPS
        + """
for x, y in loader:
    other_step(x, y)
for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
""",
        "TL183",
    ),
    # inlined one after the other, the one optimizer steps twice per batch: refused for that
    "two_functions_step_one_optimizer": (
        _TWO_STEPS
        + """
for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
        other_step(x, y)
""",
        "TL114",
    ),
    "one_of_two_step_functions_called_twice": (
        _GAN_STEPS
        + """

for epoch in range(2):
    for (real,) in loader:
        critic_step(real)
        generator_step(real.size(0))
        critic_step(real)
""",
        "TL183",
    ),
    # the receiver of the handed-on value is rebound by the step: read before the body ran
    "step_rebinds_the_list_its_value_is_appended_to": (
        """
def train_step(x, y):
    global losses
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    losses = []
    return loss.item()


losses = []
for epoch in range(2):
    for x, y in loader:
        losses.append(train_step(x, y))
""",
        "TL182",
    ),
    "global_the_caller_binds_for_itself": (
        _TRAIN_STEP
        + """

def main():
    model = nn.Linear(4, 2)
    for epoch in range(2):
        for x, y in loader:
            train_step(x, y)
    print(model.weight.sum())


main()
""",
        "TL184",
    ),
    "renamed_local_taken_too": (
        _TRAIN_STEP
        + """

train_step_loss = 0.0
for epoch in range(2):
    loss = None
    for x, y in loader:
        train_step(x, y)
    print(epoch, loss, train_step_loss)
""",
        "TL184",
    ),
    "used_other_than_by_a_call": (
        _TRAIN_STEP
        + """

step_fn = train_step
for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
""",
        "TL183",
    ),
    # the char-RNN tutorial: one example per call, parameters updated by hand; inlined, the
    # loop is refused for the hand-written update (TL105), not for where the step is
}


# the char-RNN tutorials: `train(*random_training_example())`, the example drawn once
_UNPACKED = """
def random_example():
    i = torch.randint(0, 8, (1,)).item()
    return xs[i : i + 1], ys[i : i + 1]


def train({params}):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


xs, ys = torch.randn(8, 4), torch.randint(0, 2, (8,))
for it in range(5):
    loss = train(*random_example())
"""

CONVERTS["star_argument_unpacked_once_into_the_parameters"] = (
    _UNPACKED.format(params="x, y"),
    ["x, y = random_example()", "loss = self.criterion(self(x), y)"],
    ["def train("],
)
# a default makes the number of values the call takes unknown
UNCHANGED["star_argument_to_a_function_with_defaults"] = (
    _UNPACKED.format(params="x, y=None"),
    "TL182",
)
CONVERTS["batch_unpacked_into_the_parameters"] = (
    _TRAIN_STEP
    + """

for epoch in range(2):
    for batch in loader:
        train_step(*batch)
""",
    ["x, y = batch", "loss = self.criterion(self(x), y)"],
    ["def train_step("],
)

# a default naming a module constant bound once, before the function, to a literal
_CONSTANT_DEFAULT = """
SCALE = 2.0


def train(x, y, scale=SCALE):
    optimizer.zero_grad()
    loss = criterion(model(x * scale), y)
    loss.backward()
    optimizer.step()
    return loss.item()

{rebind}
for epoch in range(2):
    for x, y in loader:
        loss = train(x, y)
"""

CONVERTS["default_naming_a_module_constant"] = (
    _CONSTANT_DEFAULT.format(rebind=""),
    ["self(x * SCALE)"],
    ["def train("],
)
# rebound after the definition: the default kept the first value, the name holds another
UNCHANGED["default_naming_a_rebound_module_name"] = (
    _CONSTANT_DEFAULT.format(rebind="SCALE = 3.0"),
    "TL182",
)

# a step function returning the names the call binds (`acc, loss = fwd_pass(...)` with `return
# acc, loss`): the inlined body bound them already, no `acc, loss = acc, loss` is left behind
CONVERTS["returned_names_are_the_call_targets"] = (
    """
    def fwd_pass(x, y):
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, y)
        acc = (out.argmax(1) == y).float().mean()
        loss.backward()
        optimizer.step()
        return acc, loss


    for epoch in range(2):
        for i, (x, y) in enumerate(loader):
            acc, loss = fwd_pass(x, y)
            if i % 2 == 0:
                print(acc.item(), loss.item())
    """,
    ["acc = (out.argmax(1) == y).float().mean()\n        if batch_idx % 2 == 0:"],
    ["acc, loss = acc, loss"],
)

# the DQN tutorial's `non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, ...)))`:
# a lambda reading only its own parameters (and globals) reads the same names inlined
_MASKED_STEP = """
THRESHOLD = 0.0


def train_step(x, y):
    keep = torch.tensor(tuple(map(lambda v: v >= THRESHOLD, x[:, 0].tolist())))
    optimizer.zero_grad()
    loss = criterion(model(x[keep]), y[keep]) if keep.any() else model(x).sum() * 0
    loss.backward()
    optimizer.step()


for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
"""

CONVERTS["lambda_reading_its_parameters_and_globals"] = (
    _MASKED_STEP,
    ["keep = torch.tensor(tuple(map(lambda v: v >= THRESHOLD, x[:, 0].tolist())))"],
    ["def train_step"],
)
# a local of the step renamed for the caller: the lambda's own parameter of that name stays
CONVERTS["lambda_parameter_named_like_a_renamed_local"] = (
    _MASKED_STEP.replace("keep = ", "v = 0\n    keep = ").replace(
        "for epoch in range(2):\n", "v = 1\nfor epoch in range(2):\n"
    ),
    ["train_step_v = 0", "map(lambda v: v >= THRESHOLD,"],
    ["def train_step"],
)
# a closure over one call's local would read the loop's name once inlined
UNCHANGED["lambda_reading_a_local_of_the_step"] = (
    _MASKED_STEP.replace("keep = ", "cut = THRESHOLD\n    keep = ").replace(
        "v >= THRESHOLD", "v >= cut"
    ),
    "TL182",
)
UNCHANGED["lambda_reading_a_parameter_of_the_step"] = (
    _MASKED_STEP.replace("v >= THRESHOLD, x[:, 0]", "v >= y.float().mean(), x[:, 0]"),
    "TL182",
)

# the DQN tutorial's `optimize_model()`: `if len(memory) < BATCH_SIZE: return` first
_GUARDED = """
memory = []


def optimize_model():
    if len(memory) < 2:
        return
    xs, ys = memory[-1]
    optimizer.zero_grad()
    loss = criterion(model(xs), ys)
    loss.backward()
    optimizer.step()


for epoch in range(2):
    for x, y in loader:
        memory.append((x, y))
        optimize_model()
        print(len(memory))
"""

CONVERTS["guard_return_becomes_an_if_around_the_rest"] = (
    _GUARDED,
    [
        "if not len(self.memory) < 2:\n            xs, ys = self.memory[-1]",
        "self.manual_backward(loss)",
        "print(len(self.memory))",
    ],
    ["def optimize_model", "return\n"],
)
UNCHANGED["guard_return_and_a_value_returned_at_the_end"] = (
    _GUARDED.replace("    optimizer.step()\n", "    optimizer.step()\n    return loss.item()\n"),
    "TL182",
)
UNCHANGED["two_early_returns"] = (
    _GUARDED.replace(
        "    xs, ys = memory[-1]\n",
        "    xs, ys = memory[-1]\n    if xs.sum() > 100:\n        return\n",
    ),
    "TL182",
)

# another function's parameter named like the step function is another variable (scopes):
# the step function is used by its one call only (the RL runner's `save_checkpoint(update,
# path)` beside its `update()` step)
CONVERTS["parameter_of_another_function_named_like_the_step"] = (
    _TRAIN_STEP
    + """

def report(train_step, loss):
    print("step", train_step, loss)


for epoch in range(2):
    for i, (x, y) in enumerate(loader):
        loss = train_step(x, y)
        report(i, loss)
""",
    ['print("step", train_step, loss)'],
    ["def train_step", "train_step(x, y)"],
)
# read as a free name by another function: that function reaches the step function itself
UNCHANGED["step_function_read_by_another_function"] = (
    _TRAIN_STEP
    + """

def report(loss):
    print("step", train_step, loss)


for epoch in range(2):
    for x, y in loader:
        loss = train_step(x, y)
        report(loss)
""",
    "TL183",
)
