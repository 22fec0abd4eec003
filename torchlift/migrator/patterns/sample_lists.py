"""Pattern: a batch loop over a Python list of samples, one sample a step.

    training_data = make_data(16)                 # a list (analysis/python_lists.py)
    for epoch in range(3):
        for sentence, tags in training_data:  ->  for sample_index in range(len(training_data)):
            model.zero_grad()                         sentence, tags = training_data[sample_index]
            ...                                       model.zero_grad()
                                                      ...

The PyTorch NLP tutorials train this way. The list itself cannot be handed to `Trainer.fit`
(a list there is a list of loaders), and a DataLoader around it would draw a base seed from
torch's generator each epoch (`_BaseDataLoaderIter.__init__` draws it even with a sequential
sampler) and hand the step a copy of each sample's lists and tuples (the Trainer's batch
transfer rebuilds them). Rewritten as a loop over the list's positions, the batch loop is
manual batching over a range (shapes/epoch_batch.py's `_read_range_batch_loop`): the Trainer
iterates the numbers from a loader with its own generator, and the step takes the list's own
sample, in the script's order. `enumerate(data)` keeps its index as the position.

Faithful while the list is the one the script iterated each epoch: bound once before the
loop, neither rebound nor changed (`random.shuffle(data)`, `data.append(...)`) by the epoch
loop -- its length is read once, before `fit`. Otherwise TL104 names the statement changing
it. A `zip(...)` (no length, no indexing) and a list the loop reaches through a progress bar
stay refused as before.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import builtin_unshadowed
from ..analysis.python_lists import is_python_sequence
from ..analysis.statements import BACKWARD, contains
from ..rule import Unsupported
from ..shapes.context import NOT_A_LOADER
from ..shapes.epoch_batch import how_changed, maybe_changed
from .generator_loader import fresh_name

RULES = ()


def epoch_body(ctx, stmts):
    """The epoch body with its batch loop over a list of samples rewritten over positions."""
    for at, loop in enumerate(stmts):
        if isinstance(loop, cst.For) and contains(loop, BACKWARD):
            rewritten = _over_positions(ctx, loop)
            if rewritten is None:
                return stmts
            return [*stmts[:at], rewritten, *stmts[at + 1 :]]
    return stmts


def _over_positions(ctx, loop: cst.For) -> cst.For | None:
    """`for <target> in data:` -> `for i in range(len(data)): <target> = data[i]` (and
    `for i, <target> in enumerate(data):` the same), or None when `loop` iterates no list."""
    iterator, target, index = loop.iter, loop.target, None
    if m.matches(iterator, m.Call(args=[m.Arg(keyword=None, star="")])) and (
        "builtins.enumerate" in ctx.call_qualnames(iterator)
    ):
        if not m.matches(target, m.Tuple([m.Element(m.Name()), m.Element()])):
            return None
        iterator = iterator.args[0].value
        index, target = target.elements[0].value, target.elements[1].value
    if not isinstance(iterator, cst.Name):
        return None
    name = iterator.value
    binding, count = ctx.binding(name)
    if binding is None or not _indexable(ctx, binding[1]):
        return None
    if not all(builtin_unshadowed(ctx.module, b) for b in ("range", "len")):
        return None  # the rewrite calls both
    why = f"the batch loop iterates `{name}`, a Python list of samples"
    if count != 1:
        raise Unsupported(NOT_A_LOADER, f"{why} bound more than once before the loop", loop)
    if maybe_changed(ctx, ctx.loop, {name}):
        how, at = how_changed(ctx, ctx.loop, name)
        raise Unsupported(
            NOT_A_LOADER,
            f"{why}, which the epoch loop {how} (the Trainer's positions in it are counted "
            "once, before `fit`)",
            at or loop,
        )
    ctx.found["sample_list"] = name
    index = index or cst.Name(fresh_name(ctx, "sample_index"))
    take = cst.SimpleStatementLine(
        [
            cst.Assign(
                [cst.AssignTarget(_without_parentheses(target))],
                cst.Subscript(cst.Name(name), [cst.SubscriptElement(cst.Index(index))]),
            )
        ]
    )
    positions = cst.Call(
        cst.Name("range"), [cst.Arg(cst.Call(cst.Name("len"), [cst.Arg(cst.Name(name))]))]
    )
    body = loop.body.with_changes(body=[take, *loop.body.body])
    return loop.with_changes(target=index, iter=positions, body=body)


def _indexable(ctx, value) -> bool:
    """A list or tuple (a display, a comprehension, `list(...)`, a function of the script
    returning one); not `zip(...)`, an iterator."""
    if isinstance(value, cst.Call) and "builtins.zip" in ctx.call_qualnames(value):
        return False
    return is_python_sequence(ctx.module, value)


def _without_parentheses(target):
    """`(sentence, tags)` of `enumerate`'s target, bare as an assignment's target."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return target.with_changes(lpar=[], rpar=[])
    return target
