"""Pattern: `model.train()` / `model.eval()` -> removed: the Trainer switches modes itself
(train for training_step, eval for validation and test steps).

Leaves alone: `model.train(mode)` with an argument, and calls on anything but the model.
"""

from __future__ import annotations

import libcst.matchers as m

from ..analysis.statements import call_method

RULES = ()


def clean(ctx, plan) -> None:
    model = plan.model.name

    def keep(stmt) -> bool:
        for method in ("train", "eval"):
            receiver = call_method(stmt, method)
            if receiver is not None and m.matches(receiver, m.Name(model)):
                if not stmt.body[0].value.args:
                    return False
        return True

    plan.pre_train = [s for s in plan.pre_train if keep(s)]
    plan.post_train = [s for s in plan.post_train if keep(s)]
    plan.train_body = [s for s in plan.train_body if keep(s)]
    for v in (plan.validation, plan.test):
        if v is not None:
            v.before = [s for s in v.before if keep(s)]
            v.body = [s for s in v.body if keep(s)]
            v.after = [s for s in v.after if keep(s)]
