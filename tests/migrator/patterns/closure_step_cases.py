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


def _steps(before="pass", step="optimizer.step(closure)", after="pass"):
    return _STEPS.format(before=before, step=step, after=after)


CONVERTS = {
    "closure_body_is_the_training_step": (
        _steps(),
        ["out = self(self.x)", "loss = self.criterion(out, self.y)", "return loss"],
        ["def closure", "optimizer.step(", "t = batch"],
    ),
    "keyword_closure": (_steps(step="optimizer.step(closure=closure)"), ["return loss"], []),
    # once per step, not once per evaluation of the closure
    "code_before_the_closure_runs_before_the_step": (
        _steps(before='print("step", t)'),
        ["def on_train_batch_start(self, batch, batch_idx):\n        t = batch\n"
         '        self.print("step", t)'],
        [],
    ),
    "code_after_the_step_runs_after_it_even_when_not_reading_the_model": (
        _steps(after='print("done", t)'),
        ["def on_train_batch_end(self, outputs, batch, batch_idx):\n        t = batch\n"
         '        self.print("done", t)'],
        [],
    ),
    "a_loss_of_its_own_after_the_step": (
        _steps(after="loss = criterion(model(x), y)\n    print(loss.item())"),
        ["def on_train_batch_end"],
        [],
    ),
}

UNCHANGED = {
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
