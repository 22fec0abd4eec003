"""Cases of shapes/iteration.py: step loops (one optimizer step per iteration, no batch loop)."""

_STEP = """\
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""


def _loop(head: str, before: str = "", after: str = "", setup: str = "") -> str:
    fetch = "x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))\n"
    return fetch + setup + head + "\n" + before + _STEP + after


def _micro(head: str, micro_body: str, after: str = "", setup: str = "") -> str:
    """A step loop accumulating `accum` micro steps (nanoGPT's)."""
    return (
        "accum = 2\n" + setup + head + "\n"
        "    for micro in range(accum):\n"
        "        x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))\n"
        + micro_body
        + "    optimizer.step()\n    optimizer.zero_grad(set_to_none=True)\n"
        + after
    )


def _zeroed_first(before: str = "", between: str = "") -> str:
    """build-nanogpt's step: zero_grad() before the micro loop, clipping and the rate set on
    param_groups between the micro loop and optimizer.step()."""
    return (
        "accum = 2\n\n\ndef rate(it):\n    assert it >= 0\n    return 0.1 / (it + 1)\n\n\n"
        "for it in range(4):\n"
        "    optimizer.zero_grad()\n" + before + "    total = 0.0\n"
        "    for micro in range(accum):\n"
        "        x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))\n"
        "        loss = criterion(model(x), y) / accum\n"
        "        total += loss.detach()\n"
        "        loss.backward()\n"
        "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        + between
        + "    lr = rate(it)\n"
        "    for g in optimizer.param_groups:\n"
        '        g["lr"] = lr\n'
        "    optimizer.step()\n"
        "    print(it, total.item(), lr, norm.item())\n"
    )


_DIVIDED = "        loss = criterion(model(x), y) / accum\n        loss.backward()\n"


_SAMPLER = """\
from types import SimpleNamespace

cfg = SimpleNamespace(max_steps=6, sample_every=3, sample_size=2)


{decorator}
def sample(cfg, net):
{body}    return net(torch.randn(cfg.sample_size, 4))


it = 0
"""


CONVERTS = {
    "full_batch_range": (
        _loop(
            "for t in range(5):",
            after="    if t % 2 == 0:\n        print(t, loss.item())\n",
        ),
        [
            "iterations = DataLoader(range(5), batch_size=None, generator=torch.Generator())",
            'trainer = L.Trainer(accelerator="cpu", devices=1, max_epochs=1)',
            "t = batch",
            "trainer.fit(lit_model, iterations)",
        ],
        ["for t in", "loss.backward()"],
    ),
    "unused_counter_is_no_batch_name": (
        _loop("for _ in range(3):"),
        ["range(3), batch_size=None"],
        ["_ = batch"],
    ),
    "trange_with_options": (
        _loop(
            'for step in trange(2, 6, desc="fit"):',
            setup="from tqdm import trange\n",
            before="    print(step)\n",
        ),
        ["range(2, 6), batch_size=None"],
        ["trange(", "desc="],
    ),
    "tqdm_around_range": (
        _loop(
            "for step in tqdm(range(4)):",
            setup="from tqdm import tqdm\n",
            before="    print(step)\n",
        ),
        ["range(4), batch_size=None"],
        ["tqdm(range"],
    ),
    "progress_bar_bound_before_the_loop": (
        _loop(
            "for step in pbar:",
            setup='from tqdm import tqdm\npbar = tqdm(range(6), desc="fit")\n',
            after="    pbar.set_postfix(loss=loss.item())\n",
        ),
        ["range(6), batch_size=None"],
        ["pbar", "set_postfix"],
    ),
    "continue_skips_that_step": (
        _loop("for t in range(3):", before="    if t == 1:\n        continue\n"),
        ["if t == 1:\n            return None"],
        ["continue"],
    ),
    "while_counter_less_equal": (
        _loop("while it <= 4:", setup="it = 1\n", after="    it += 1\n") + "print(it)\n",
        [
            "range(it, 4 + 1), batch_size=None",
            "self.it = batch",
            "self.it += 1",
            "it = lit_model.it",
        ],
        ["while it"],
    ),
    "while_true_stop_test_first": (
        _loop(
            "while True:",
            setup="it = 0\nmax_iters = 3\n",
            before="    if it >= max_iters:\n        break\n",
            after="    it += 1\n",
        ),
        ["range(it, max_iters), batch_size=None"],
        ["break", "while True"],
    ),
    "while_true_stop_test_last_with_constants": (
        _loop(
            "while True:",
            setup="it = 0\nmax_iters = 3\n",
            after="    it += 1\n    if it >= max_iters:\n        break\n",
        ),
        ["range(it, max_iters), batch_size=None"],
        ["break", "while True"],
    ),
    # the test after the step runs the body once even from the end: max(stop, counter + 1)
    "while_true_stop_last_counter_unknown": (
        _loop(
            "while True:",
            setup="it = int('0')\n",
            after="    it += 1\n    if it >= 5:\n        break\n",
        ),
        ["range(it, max(5, it + 1)), batch_size=None"],
        ["break", "while True"],
    ),
    "while_true_counter_from_tuple_assignment": (
        _loop(
            "while True:",
            setup="it, pos = 0, 0\nmax_iters = 3\n",
            after="    pos += 1\n    it += 1\n    if it > max_iters:\n        break\n",
        ),
        ["range(it, max_iters + 1), batch_size=None"],
        ["break", "while True"],
    ),
    "while_true_dead_break_on_constant_flag": (
        _loop(
            "while True:",
            setup="it = 0\nmax_iters = 3\neval_only = False\n",
            before="    if it == 0 and eval_only:\n        break\n",
            after="    it += 1\n    if it > max_iters:\n        break\n",
        ),
        ["range(it, max_iters + 1), batch_size=None"],
        ["break", "while True", "and eval_only"],
    ),
    "itertools_count_from_start": (
        _loop(
            "for step in itertools.count(2):",
            setup="import itertools\n",
            before="    if step >= 6:\n        break\n    print(step)\n",
        ),
        ["range(2, 6), batch_size=None", "step = batch"],
        ["itertools.count(", "break"],
    ),
    "model_read_after_step_runs_after_it": (
        _loop(
            "for t in range(4):",
            after="    if t % 2 == 1:\n        print(t, loss.item(), model.weight.sum().item())\n",
        ),
        [
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            "        t = batch\n"
            "        if t % 2 == 1:",
        ],
        [],
    ),
    "metric_break_after_step_ends_training": (
        _loop("for t in range(50):", after="    if loss.item() < 0.5:\n        break\n"),
        ["self.stop_epoch = True", "range(50), batch_size=None"],
        ["break"],
    ),
    "local_counter_needs_no_increment": (
        _loop("while it < 3:", setup="it = 0\n", after="    it += 1\n"),
        ["def training_step(self, batch, batch_idx):\n        loss = self.criterion("],
        ["it += 1", "it = batch"],
    ),
    # one training_step per micro step; the code before the micro loop on the first, the
    # code after the update on the last; Lightning divides the loss by `accum` itself
    "micro_steps_accumulated": (
        _micro(
            "for it in range(4):",
            _DIVIDED,
            after="    print(it, loss.item())\n",
        ).replace("for it in range(4):\n", "for it in range(4):\n    print('lr', it)\n"),
        [
            "range(4 * accum)",
            "collate_fn=lambda n: divmod(n, accum)",
            "accumulate_grad_batches=accum",
            "it, micro = batch",
            "if micro == 0:",
            "if micro == self.hparams.accum - 1:",
            "loss = step_loss / self.hparams.accum",
            "return step_loss",
        ],
        ["for micro in", "loss.backward()", "optimizer.step()"],
    ),
    # zero_grad() before the micro loop is the step's (Lightning zeroes before the group's
    # first backward); the rate set after the clipping commutes with the micro loop and the
    # clipping (no name in common): set on the first micro step
    "micro_steps_zeroed_first_rate_set_after_clipping": (
        _zeroed_first(),
        [
            "accumulate_grad_batches=accum",
            "if micro == 0:\n"
            "            self.total = 0.0\n"
            "            self.lr = rate(it)\n"
            "            for g in self.optimizers().param_groups:\n"
            '                g["lr"] = self.lr\n'
            "        x, y = ",
            "self.norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)",
        ],
        ["zero_grad", "for micro in", "optimizer.step()"],
    ),
    "micro_steps_while_true_stop_after_increment": (
        _micro(
            "while True:",
            _DIVIDED,
            after="    it += 1\n    if it > 3:\n        break\n",
            setup="it = 0\n",
        ),
        ["range(it * accum, (3 + 1) * accum)", "accumulate_grad_batches=accum"],
        ["it += 1", "break"],
    ),
    # the step loop is one epoch for the Trainer: should_stop in the hook ends training
    "break_in_code_reading_the_model_after_step": (
        _loop(
            "for t in range(9):",
            after="    if model.weight.sum() > 0:\n        break\n",
        ),
        ["if self.model.weight.sum() > 0:\n            self.trainer.should_stop = True"],
        ["break"],
    ),
    # makemore's `-1 means forever` guard, read once before training: no number of steps
    # (sys.maxsize, never reached) when it is False
    "while_true_stop_guarded_by_a_flag": (
        _loop(
            "while True:",
            setup="it = 0\nmax_steps = int('5')\n",
            after="    it += 1\n    if max_steps >= 0 and it >= max_steps:\n        break\n",
        ),
        [
            "import sys\n",
            "range(it, max(max_steps if max_steps >= 0 else sys.maxsize, it + 1))",
        ],
        ["while True", "break"],
    ),
    "count_stop_guarded_first_with_sys_imported": (
        _loop(
            "for step in itertools.count():",
            setup="import itertools\nimport sys as system\nlimit = int(system.argv[1])\n",
            before="    if limit > 0 and step >= limit:\n        break\n",
        ),
        ["range(limit if limit > 0 else system.maxsize)"],
        ["itertools.count", "import sys\n"],
    ),
    # a grad-mode decorator runs the function with its arguments as given: `sample(cfg,
    # model)` only reads `cfg`, the stop test's config
    "stop_config_read_by_an_inference_mode_sampler": (
        _loop(
            "while it < cfg.max_steps:",
            setup=_SAMPLER.format(decorator="@torch.inference_mode()", body=""),
            after="    it += 1\n    if it % cfg.sample_every == 0:\n        print(sample(cfg, model))\n",
        ),
        ["range(it, cfg.max_steps)", "sample(self.cfg, self.model)"],
        [],
    ),
    "stop_config_read_by_a_no_grad_sampler": (
        _loop(
            "while it < cfg.max_steps:",
            setup=_SAMPLER.format(decorator="@torch.no_grad", body=""),
            after="    it += 1\n    if it % cfg.sample_every == 0:\n        print(sample(cfg, model))\n",
        ),
        ["range(it, cfg.max_steps)", "sample(self.cfg, self.model)"],
        [],
    ),
}

UNCHANGED = {
    # under the grad mode the function still changes the config the stop test reads
    "stop_config_changed_by_an_inference_mode_function": (
        _loop(
            "while it < cfg.max_steps:",
            setup=_SAMPLER.format(
                decorator="@torch.inference_mode()", body="    cfg.max_steps += 1\n"
            ),
            after="    it += 1\n    if it % cfg.sample_every == 0:\n        print(sample(cfg, model))\n",
        ),
        "TL123",
    ),
    # any other decorator may do anything with the arguments
    "stop_config_given_to_a_cached_function": (
        _loop(
            "while it < cfg.max_steps:",
            setup=_SAMPLER.format(decorator="@functools.cache", body="").replace(
                "from types", "import functools\nfrom types"
            ),
            after="    it += 1\n    if it % cfg.sample_every == 0:\n        print(sample(cfg, model))\n",
        ),
        "TL123",
    ),
    "micro_steps_loss_not_divided": (
        _micro("for it in range(4):", _DIVIDED.replace(" / accum", "")),
        "TL114",
    ),
    "micro_steps_count_changes": (
        _micro("for it in range(4):", _DIVIDED).replace(
            "for it in range(4):\n", "for it in range(4):\n    accum = 1 + it % 2\n"
        ),
        "TL114",
    ),
    "micro_steps_code_before_the_update": (
        _micro("for it in range(4):", _DIVIDED).replace(
            "    optimizer.step()\n", "    print(model.weight.grad)\n    optimizer.step()\n"
        ),
        "TL114",
    ),
    # the gradients read after zero_grad(): None in the script, the last step's in Lightning
    "micro_steps_gradients_read_after_zero_grad": (
        _zeroed_first(before="    print(model.weight.grad)\n"),
        "TL114",
    ),
    # printed between the clipping and the step: not moved before the micro loop
    "micro_steps_print_before_the_update": (
        _zeroed_first(between="    print('clipped', it)\n"),
        "TL114",
    ),
    # the batches of a loader counted by iterating it (its iterator draws a seed from torch's
    # generator): not moved before the micro loop, whose dropout draws after it in the script
    "micro_steps_loader_listed_before_the_update": (
        _zeroed_first(between="    batches = len(list(loader))\n"),
        "TL114",
    ),
    # a `break` between the update code: it must not move before the micro loop
    "micro_steps_break_before_the_update": (
        _zeroed_first(between="    if it == 2:\n        break\n"),
        "TL114",
    ),
    # the rate follows the norm of this step's gradients: it must stay after the clipping
    "micro_steps_rate_reads_the_norm": (
        _zeroed_first().replace("lr = rate(it)", "lr = rate(it) if norm < 5 else 0.01"),
        "TL114",
    ),
    "micro_steps_skipped": (
        _micro(
            "for it in range(4):",
            "        if y.sum() == 0:\n            continue\n" + _DIVIDED,
        ),
        "TL114",
    ),
    "while_loss_above_threshold": (
        _loop("while loss.item() > 0.1:", setup="loss = torch.tensor(1.0)\n"),
        "TL123",
    ),
    "while_true_metric_break": (
        _loop("while True:", after="    if loss.item() < 0.1:\n        break\n"),
        "TL123",
    ),
    # the guard evaluated once before training: it must have no effect
    "while_true_stop_guarded_by_a_call": (
        _loop(
            "while True:",
            setup="it = 0\nmax_steps = 5\n",
            after="    it += 1\n    if print(it) is None and it >= max_steps:\n        break\n",
        ),
        "TL123",
    ),
    "while_true_stop_guard_changed_by_the_loop": (
        _loop(
            "while True:",
            setup="it = 0\nmax_steps = 5\nforever = False\n",
            after="    it += 1\n    forever = loss.item() < 0.1\n"
            "    if not forever and it >= max_steps:\n        break\n",
        ),
        "TL123",
    ),
    "while_true_stop_last_max_rebound": (
        _loop(
            "while True:",
            setup="it = int('0')\nmax = min\n",
            after="    it += 1\n    if it >= 5:\n        break\n",
        ),
        "TL123",
    ),
    "while_true_flag_break_flag_changed_by_a_call": (
        _loop(
            "while True:",
            setup="it = 0\neval_only = False\n\n\ndef flip():\n    global eval_only\n"
            "    eval_only = True\n\n\n",
            before="    flip()\n    if it == 0 and eval_only:\n        break\n",
            after="    it += 1\n    if it >= 5:\n        break\n",
        ),
        "TL123",
    ),
    # nanoGPT's configurator: a config file run by `exec` may set `eval_only = True` (its
    # eval_gpt2 configs do): the break may end the run at the first iteration
    "while_true_flag_break_flag_set_by_a_configurator_exec": (
        _loop(
            "while True:",
            setup="import sys\n\nit = 0\neval_only = False\n"
            "for arg in sys.argv[1:]:\n    exec(open(arg).read())\n",
            before="    if it == 0 and eval_only:\n        break\n",
            after="    it += 1\n    if it >= 5:\n        break\n",
        ),
        "TL123",
    ),
    "while_true_flag_break_with_a_call": (
        _loop(
            "while True:",
            setup="it = 0\neval_only = False\n",
            before="    if print(it) and eval_only:\n        break\n",
            after="    it += 1\n    if it >= 5:\n        break\n",
        ),
        "TL123",
    ),
    "count_without_any_stop_test": (
        _loop(
            "for step in itertools.count():",
            setup="import itertools\n",
            after="    print(step)\n",
        ),
        "TL123",
    ),
    # the stop test at the end is skipped by a `continue`: the loop may never stop
    "count_stop_test_last_skipped_by_continue": (
        _loop(
            "for step in itertools.count():",
            setup="import itertools\n",
            before="    if step % 2:\n        continue\n",
            after="    if step >= 5:\n        break\n",
        ),
        "TL123",
    ),
    "stop_changed_by_the_loop": (
        _loop("while it < n:", setup="it, n = 0, 5\n", after="    it += 1\n    n -= 1\n"),
        "TL123",
    ),
    "stop_mutated_by_the_loop": (
        _loop(
            "while it < len(queue):",
            setup="it, queue = 0, [1, 2, 3, 4]\n",
            after="    queue.pop()\n    it += 1\n",
        ),
        "TL123",
    ),
    "counter_up_by_two": (
        _loop("while it < 6:", setup="it = 0\n", after="    it += 2\n"),
        "TL124",
    ),
    "counter_also_assigned": (
        _loop(
            "while it < 6:",
            setup="it = 0\n",
            after="    it += 1\n    it = min(it, 6)\n",
        ),
        "TL124",
    ),
    "counter_attribute": (
        _loop(
            "for box.step in range(3):",
            setup="import types\nbox = types.SimpleNamespace()\n",
        ),
        "TL120",
    ),
    "counter_read_after_the_loop": (
        _loop("for t in range(3):", after="    print(t)\n") + "print('last', t)\n",
        "TL112",
    ),
    "continue_in_while_step_loop": (
        _loop(
            "while it < 4:",
            setup="it = 0\n",
            before="    it += 1\n    if it == 2:\n        continue\n",
        ),
        "TL107",
    ),
    "counter_advanced_before_a_step_read_after_it": (
        _loop(
            "while it < 3:",
            setup="it = 0\n",
            before="    it += 1\n",
            after="    print(it, model.weight.sum().item())\n",
        ),
        "TL124",
    ),
}

# the official examples' REINFORCE: episodes counted by `count(1)`, the episode-limit test last
CONVERTS["count_stop_test_last"] = (
    _loop(
        "for step in itertools.count():",
        setup="import itertools\n",
        after="    if step >= 5:\n        break\n",
    ),
    ["range(6), batch_size=None"],
    ["itertools.count(", "break"],
)
CONVERTS["count_stop_test_last_not_constant"] = (
    _loop(
        "for step in itertools.count(1):",
        setup="import itertools\nimport sys\nlimit = len(sys.argv) + 3\n",
        after="    if step >= limit:\n        break\n",
    ),
    ["range(1, max(limit, 1) + 1), batch_size=None"],
    ["itertools.count(", "break"],
)

# an episode per step: a hand-written environment (its `step()` is no optimizer's), a rollout
# loop ending on `done` (its own `break`), a data-dependent stop after the optimizer step
_EPISODES = """
from itertools import count


class Walk:
    def __init__(self, length=4):
        self.length = length

    def reset(self):
        self.pos = 0
        return torch.zeros(4)

    def step(self, action):
        self.pos += 1 if action == 1 else 0
        return torch.full((4,), float(self.pos)), 1.0, self.pos >= self.length, {}


env = Walk()
running = 0.0
for episode in count(1):
    state, rewards = env.reset(), []
    for t in range(20):
        action = model(state).argmax().item()
        state, reward, done, _ = env.step(action)
        rewards.append(reward)
        if done:
            break
    running = 0.9 * running + 0.1 * len(rewards)
    optimizer.zero_grad()
    loss = model(state).pow(2).mean() * sum(rewards)
    loss.backward()
    optimizer.step()
    if running > 3.0:
        print("solved", episode, model.weight.sum().item())
        break
    if episode >= 8:
        break
"""

CONVERTS["episodes_of_a_hand_written_environment"] = (
    _EPISODES,
    [
        "range(1, 9), batch_size=None",
        "state, reward, done, _ = self.env.step(action)",
        "for t in range(20):",
        "self.trainer.should_stop = True",
    ],
    ["count(1)"],
)
# an environment deriving from another class: its `step()` may be anything
UNCHANGED["episodes_of_an_environment_with_a_base_class"] = (
    _EPISODES.replace("class Walk:", "class Walk(dict):"),
    "TL114",
)
# an environment whose `step()` steps a global optimizer of the script
UNCHANGED["episodes_of_an_environment_stepping_an_optimizer"] = (
    _EPISODES.replace(
        "        self.pos += 1 if action == 1 else 0\n",
        "        self.pos += 1 if action == 1 else 0\n        optimizer.step()\n",
    ),
    "TL114",
)
UNCHANGED["episodes_of_an_environment_reading_a_global_object"] = (
    _EPISODES.replace("        self.pos = 0\n", "        self.pos = len(log)\n").replace(
        "env = Walk()\n", "log = []\nenv = Walk()\n"
    ),
    "TL114",
)
# the stop reads no model: it stays in training_step, and the next batch ends the run
CONVERTS["episodes_stopped_before_the_next_one"] = (
    _EPISODES.replace(', model.weight.sum().item())', ")"),
    ["self.stop_epoch = True", "return -1", "range(1, 9), batch_size=None"],
    ["count(1)", "should_stop"],
)
# no episode limit, only the data-dependent stop: the episodes run until it
CONVERTS["episodes_until_solved"] = (
    _EPISODES.replace("    if episode >= 8:\n        break\n", ""),
    ["import sys\n", "range(1, sys.maxsize), batch_size=None", "self.trainer.should_stop = True"],
    ["count(1)"],
)

# the examples' env seeded from the command line (`RandomState(args.seed)`): a Namespace read
# only as `args.field` holds the command line's values, so the env's `step()` is still its own
_PARSED_ENV = _EPISODES.replace(
    "from itertools import count\n",
    "import argparse\nfrom itertools import count\n\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('--length', type=int, default=4)\n"
    "args = parser.parse_args([])\n",
).replace("    def __init__(self, length=4):\n        self.length = length\n", "    def __init__(self):\n        self.length = args.length\n")
CONVERTS["episodes_of_an_environment_reading_parsed_arguments"] = (
    _PARSED_ENV,
    ["range(1, 9), batch_size=None", "state, reward, done, _ = self.env.step(action)"],
    ["count(1)"],
)
# printed whole (`print(args)`): its repr, nothing stored into it
CONVERTS["episodes_of_an_environment_reading_printed_arguments"] = (
    _PARSED_ENV.replace("env = Walk()\n", "print(args)\nenv = Walk()\n"),
    ["range(1, 9), batch_size=None", "print(args)"],
    ["count(1)"],
)
# a Namespace the script stores an optimizer into may reach it from the env: its `step()` too
UNCHANGED["episodes_of_an_environment_reading_arguments_holding_the_optimizer"] = (
    _PARSED_ENV.replace("args = parser.parse_args([])\n", "args = parser.parse_args([])\nargs.opt = optimizer\n"),
    "TL114",
)
# one handed on whole (`vars(args)`) is not followed
UNCHANGED["episodes_of_an_environment_reading_arguments_handed_on"] = (
    _PARSED_ENV.replace("env = Walk()\n", "print(vars(args))\nenv = Walk()\n"),
    "TL114",
)
