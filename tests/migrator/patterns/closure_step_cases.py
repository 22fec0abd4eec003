"""Cases of patterns/closure_step.py: an optimizer step taken with a closure."""

_STEPS = """
x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
for t in range(3):
    {before}

    def closure():
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, y)
        loss.backward()
        return loss

    {step}
    {after}
"""

# the closure defined before its loop (source/closure_into_loop.py reads it as defined in it)
_CLOSURE_FIRST = """
x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))


{decorator}def closure({params}):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    return loss


for t in range(3):
    print("step", t)
    optimizer.step(closure)
{after}"""


def _closure_first(decorator="", params="", after=""):
    return _CLOSURE_FIRST.format(decorator=decorator, params=params, after=after)


def _steps(before="pass", step="optimizer.step(closure)", after="pass"):
    return _STEPS.format(before=before, step=step, after=after)


CONVERTS = {
    "closure_body_is_the_training_step": (
        _steps(),
        ["out = self(self.x)", "loss = self.criterion(out, self.y)", "return loss"],
        ["def closure", "optimizer.step(", "t = batch"],
    ),
    "closure_defined_before_its_loop": (
        _closure_first(),
        ["loss = self.criterion(self(self.x), self.y)", "return loss", 'print("step", t)'],
        ["def closure", "optimizer.step("],
    ),
    "keyword_closure": (_steps(step="optimizer.step(closure=closure)"), ["return loss"], []),
    # once per step, not once per evaluation of the closure
    "code_before_the_closure_runs_before_the_step": (
        _steps(before='print("step", t)'),
        [
            "def on_train_batch_start(self, batch, batch_idx):\n        t = batch\n"
            '        self.print("step", t)'
        ],
        [],
    ),
    "code_after_the_step_runs_after_it_even_when_not_reading_the_model": (
        _steps(after='print("done", t)'),
        [
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n        t = batch\n"
            '        self.print("done", t)'
        ],
        [],
    ),
    "a_loss_of_its_own_after_the_step": (
        _steps(after="loss = criterion(model(x), y)\n    print(loss.item())"),
        ["def on_train_batch_end"],
        [],
    ),
}

UNCHANGED = {
    # where the `def` runs matters: its decorator and default values are evaluated there
    "closure_before_its_loop_with_a_default": (_closure_first(params="scale=2.0"), "TL002"),
    "closure_before_its_loop_decorated": (
        _closure_first(decorator="@torch.enable_grad()\n"),
        "TL002",
    ),
    # the step on the loop's own line: no line to write the `def` before (left, not looping)
    "closure_before_a_one_line_loop": (
        _closure_first().replace(
            'for t in range(3):\n    print("step", t)\n    ', "for t in range(3): "
        ),
        "TL002",
    ),
    # used after the loop too: the name is more than the step's argument
    "closure_before_its_loop_called_after": (
        _closure_first(after="print(closure().item())"),
        "TL002",
    ),
    # it would be computed once per step in the script, once per evaluation converted
    "name_bound_before_the_closure": (_steps(before="noisy = x + 0.1"), "TL196"),
    # outside the closure, `out` was another variable than the closure's local
    "closure_local_read_after_the_step": (_steps(after="print(out.sum())"), "TL196"),
    "closure_called_besides_the_step": (_steps(after="print(closure().item())"), "TL196"),
    "closure_declaring_a_global": (
        _steps().replace("optimizer.zero_grad()", "global seen\n        optimizer.zero_grad()"),
        "TL196",
    ),
    # the closure's result kept: for LBFGS the first evaluation's loss
    "step_result_bound": (_steps(step="first = optimizer.step(closure)"), "TL114"),
}
