"""Pattern: a dry-run `break` in an evaluation loop -> `limit_val_batches` / `limit_test_batches`.

    with torch.no_grad():
        for data, target in test_loader:
            ...
            if args.dry_run:           (flags the loop never writes, and/or a test true on
                break                   the first batch: `batch_idx == 0`)
                                       -> Trainer(limit_val_batches=1 if args.dry_run else 1.0)

The `break` ends the pass after its first batch whenever the flags are set, which is what
`limit_val_batches=1` (a test pass after training: `limit_test_batches=1`) says; the step keeps
the rest of the body. A hand counter ending the pass after K batches (`cnt += 1` ... `if cnt
>= K: break`, K an int >= 1 for sure: analysis/batch_counters.py) is `limit_val_batches=K`;
what the `if` runs before that `break` stays under it (it runs on batch K, the pass's last). As for training (patterns/early_break.py), the flags are read once, when
the Trainer is built, so they must be names nothing in the loop (or between the loop and a
test pass) rebinds or changes. Refused (TL180): any other `break` in a validation loop (one
that may end the pass after another batch, or with code after it on that batch). A test pass
with such a `break` is left as written (the training loop still converts).
"""

from __future__ import annotations

import libcst as cst

from ..analysis.batch_counters import counted_limit
from ..analysis.known_numbers import positive_int
from ..analysis.names import collect_names
from ..analysis.statements import direct_breaks
from ..rule import Rule, Unsupported
from .early_break import (
    break_ends_its_blocks,
    guard_flags,
    mutated_roots,
    path_to_break,
    without_break,
)

EVAL_BREAK = Rule(
    "TL180",
    "`break` in an evaluation loop is not a dry-run switch on its first batch",
    """A `break` that ends a validation pass on its first batch whenever some flags are set
    becomes `limit_val_batches=1 if <flags> else 1.0`. A `break` that may end the pass after
    another batch (a metric, a batch count) has no Trainer argument that keeps it.""",
    """Stop after a fixed number of batches with `if i + 1 >= K: break` replaced by the
    Trainer's `limit_val_batches=K` yourself, or drop the `break`.""",
    """
    val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            for x, y in val_loader:
                val_loss = criterion(model(x), y).item()
                if val_loss < 0.1:
                    break
    """,
)

RULES = (EVAL_BREAK,)

_LIMITS = {"validation": "limit_val_batches", "test": "limit_test_batches"}


def dry_run_limit(ctx, plan, kind: str, loop: cst.For, body: list, others: list) -> list:
    """`body` (the pass's step statements) without its dry-run `break`, the limit added to the
    Trainer's arguments; `body` itself when the loop has no `break`. `others`: the statements
    that run while the Trainer lives besides the loop's own (their writes disqualify a flag).
    Raises Unsupported (TL180) for any other `break`."""
    holders = [(k, s) for k, s in enumerate(body) if direct_breaks(s)]
    if not holders:
        return body
    position, stmt = holders[-1]
    path = path_to_break(stmt)
    if len(holders) > 1 or position != len(body) - 1 or not break_ends_its_blocks(stmt):
        path = None
    flags = None
    if path is not None:
        _, index, target = ctx.unwrap_iter(loop)
        everything = [
            *plan.pre_train,
            *plan.before_step,
            *plan.train_body,
            *plan.after_step,
            *others,
            loop,
        ]
        written = collect_names(*everything).writes | mutated_roots(everything)
        written |= collect_names(cst.AssignTarget(target)).writes
        written |= {plan.epoch_var, index} - {None}
        flags = guard_flags(ctx, path, index, written)
    if flags is None:
        return _counted(ctx, plan, kind, loop, body, others, stmt, position)
    code = "1" if not flags else f"1 if {' and '.join(flags)} else 1.0"
    plan.add_trainer_arg(_LIMITS[kind], code)
    why = f"the {kind} loop's dry-run `break` -> `{_LIMITS[kind]}={code}`"
    plan.explained.append((stmt, "trainer", why))
    kept = without_break(stmt)
    return body[:-1] + ([] if isinstance(kept, cst.RemovalSentinel) else [kept])


def _counted(ctx, plan, kind: str, loop, body: list, others: list, stmt, position) -> list:
    """`cnt += 1` ... `if cnt >= K: break` ending the pass, cnt a hand counter from 0 and K an
    int >= 1 for sure: `limit_val_batches=K` (analysis/batch_counters.py); else TL180."""
    everything = [*plan.pre_train, *plan.train_body, *plan.after_step, *others]
    limit = None
    if position == len(body) - 1:
        limit = counted_limit(ctx, stmt, loop, body[:-1], everything, closing=True)
    if limit is None or not positive_int(ctx, limit):
        raise Unsupported(EVAL_BREAK, f"`break` in the {kind} loop", stmt)
    if collect_names(limit).reads & collect_names(*everything).writes:
        raise Unsupported(EVAL_BREAK, f"`break` in the {kind} loop", stmt)
    code = ctx.module.code_for_node(limit)
    plan.add_trainer_arg(_LIMITS[kind], code)
    why = f"the {kind} loop's `break` after its batch `{code}` -> `{_LIMITS[kind]}={code}`"
    plan.explained.append((stmt, "trainer", why))
    kept = without_break(stmt)  # what the `if` ran before its `break`, on that last batch
    return body[:-1] + ([] if isinstance(kept, cst.RemovalSentinel) else [kept])
