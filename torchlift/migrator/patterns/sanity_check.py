"""Pattern: no sanity check before training (`Trainer(num_sanity_val_steps=0)`).

Lightning runs a few validation batches on the untrained model before `fit` trains
(the sanity check). The script never did: its validation code -- prints, files and images
written, accumulators kept on `self`, BatchNorm statistics when it evaluates in train mode --
would act once more, on a model that has not trained. Whether a pass has such effects cannot
be decided in general, so every converted validation pass turns the sanity check off. This is
one Trainer argument with the same meaning on both targets, where guarding on
`self.trainer.sanity_checking` would have to wrap every hook and step of the pass; the price
is Lightning's early catch of a validation bug, which the script's own first epoch gives.
"""

from __future__ import annotations

RULES = ()


def clean(ctx, plan) -> None:
    if plan.validation is not None:
        plan.add_trainer_arg("num_sanity_val_steps", "0")
