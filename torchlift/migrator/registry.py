"""The shapes and patterns the migrator knows, in order, and the rule codes they own.

A pattern is a module (or any object) under patterns/ defining `RULES` (a tuple of rule.Rule,
possibly empty) and any of these phase functions, which the loop shape calls in PATTERNS order:

    epoch_body(ctx, stmts) -> stmts              rewrite the epoch loop's body (helper inlining)
    step_body(ctx, stmts) -> stmts               rewrite a step loop's body (shapes/iteration.py)
    before_batch_loop(ctx, loop, pre) -> pre     the code before the batch loop (progress bars)
    batch_loader(ctx, iterator) -> iterator      what the batch loop really iterates
    batch_statements(ctx, stmts) -> stmts        the batch loop's statements (autocast unwrapped)
    claim(ctx, steps, stmt, position) -> bool    take one batch-loop statement as its own
    bind(ctx, plan, steps)                       who is who: models, optimizers, devices
    read(ctx, plan, steps)                       check the loop and add to the plan
    clean(ctx, plan)                             strip what the Trainer now does

Adding a pattern is adding its module to PATTERNS (or `register(...)` from outside, as a test
or a plugin would); its codes join `rules.RULES` through RULE_OWNERS. A family of rules that
is not a pattern (the Lightning 1.x -> 2.x upgrader's TL2xx) adds its module to RULE_OWNERS.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# The first shape whose `takes(ctx)` accepts a loop plans it; the last one takes the rest.
SHAPES = ("torchlift.migrator.shapes.iteration", "torchlift.migrator.shapes.epoch_batch")

# Order matters where two patterns touch the same thing: claims of one batch statement
# (several optimizers keep every statement first; a scheduler's own `if (i + 1) % N == 0:`
# before accumulation's group; amp's scaled backward before the plain step sequence), the Trainer arguments' order
# (clipping, accumulation, precision), post-epoch code (schedulers before eval passes),
# module globals last (they are checked against every name the others bound),
# train()/eval() calls dropped before device moves are stripped.
PATTERNS = [
    "torchlift.migrator.patterns.helpers",
    "torchlift.migrator.patterns.bar_with",  # the helpers' `with tqdm(...) as bar` too
    "torchlift.migrator.patterns.loop_else",
    "torchlift.migrator.patterns.generator_batches",
    "torchlift.migrator.patterns.keyed_loaders",
    "torchlift.migrator.patterns.eval_shapes",
    "torchlift.migrator.patterns.eval_ranges",
    "torchlift.migrator.patterns.weight_swap",  # before phase_loop checks the epoch's order
    "torchlift.migrator.patterns.phase_loop",
    "torchlift.migrator.patterns.bar_draws",  # sees the passes before extra_evaluation merges
    "torchlift.migrator.patterns.extra_evaluation",
    "torchlift.migrator.patterns.helper_globals",
    "torchlift.migrator.patterns.progress_bar",
    "torchlift.migrator.patterns.bar_closes",  # after progress_bar found the bars
    "torchlift.migrator.patterns.bar_displays",
    "torchlift.migrator.patterns.log_every",
    "torchlift.migrator.patterns.sample_lists",  # after the bars: the list they wrap
    "torchlift.migrator.patterns.zero_grad_helpers",  # before known_branches reads the `if`s
    "torchlift.migrator.patterns.known_branches",
    "torchlift.migrator.patterns.manual_optimization",
    "torchlift.migrator.patterns.optimizer_lists",  # the lists of what it bound
    "torchlift.migrator.patterns.manual_backward",  # one optimizer, the same kept step
    "torchlift.migrator.patterns.guarded_step",  # one optimizer stepped under an `if`
    "torchlift.migrator.patterns.hand_update",
    "torchlift.migrator.patterns.inline_clip_norm",  # before clipping claims its statement
    "torchlift.migrator.patterns.clipping",
    "torchlift.migrator.patterns.scheduler_every",
    "torchlift.migrator.patterns.accumulation",
    "torchlift.migrator.patterns.step_grad_mode",
    "torchlift.migrator.patterns.ddp.no_sync",  # after accumulation's bind, before amp's unwrap
    "torchlift.migrator.patterns.amp",
    "torchlift.migrator.patterns.closure_step",
    "torchlift.migrator.patterns.epoch_schedulers",
    "torchlift.migrator.patterns.step_sequence",
    "torchlift.migrator.patterns.early_break",
    "torchlift.migrator.patterns.mode_calls",
    "torchlift.migrator.patterns.factories",
    "torchlift.migrator.patterns.loader_wrappers",
    "torchlift.migrator.patterns.bindings",
    "torchlift.migrator.patterns.passed_in",
    "torchlift.migrator.patterns.data_parallel",
    "torchlift.migrator.patterns.max_steps",  # its `break` before after_step moves the code
    "torchlift.migrator.patterns.after_step",
    "torchlift.migrator.patterns.epoch_start_loops",  # the models bound
    "torchlift.migrator.patterns.amp_partial",  # the step after_step left, before moves go
    "torchlift.migrator.patterns.device_intent",
    "torchlift.migrator.patterns.placement_chain",
    "torchlift.migrator.patterns.data_parallel_module",  # the wraps the two above removed
    "torchlift.migrator.patterns.amp_device",  # reads the accelerator the two above chose
    "torchlift.migrator.patterns.amp_handed_scaler",  # the precision amp_device chose
    "torchlift.migrator.patterns.device_moves",
    "torchlift.migrator.patterns.device_scope",
    "torchlift.migrator.patterns.schedulers",
    "torchlift.migrator.patterns.kept_optimizers",
    "torchlift.migrator.patterns.lr_decay",
    "torchlift.migrator.patterns.skip_batches",
    "torchlift.migrator.patterns.input_gradients",  # reads the devices the Trainer was given
    "torchlift.migrator.patterns.eval_dry_run",
    "torchlift.migrator.patterns.eval_passes",
    "torchlift.migrator.patterns.epoch_stop",
    "torchlift.migrator.patterns.loader_rng",
    "torchlift.migrator.patterns.eval_mode",
    "torchlift.migrator.patterns.pre_pass_output",
    "torchlift.migrator.patterns.eval_metrics",
    "torchlift.migrator.patterns.trainer_values",
    "torchlift.migrator.patterns.loader_roles",  # the passes are known
    "torchlift.migrator.patterns.hyperparameters",
    "torchlift.migrator.patterns.sanity_check",
    "torchlift.migrator.patterns.ddp",
    "torchlift.migrator.patterns.whole_eval_loaders",
    "torchlift.migrator.patterns.rank_zero_effects",
    "torchlift.migrator.patterns.module_globals",
    # last: compares the modes of the script's model with those the other patterns' hooks give
    "torchlift.migrator.patterns.step_modes",
]

RULE_OWNERS = (
    "torchlift.migrator.outcomes",
    "torchlift.migrator.shapes.context",
    "torchlift.migrator.shapes.trainer_class",
    "torchlift.migrator.shapes.trainer_bases",
    "torchlift.migrator.shapes.trainer_callbacks",
    "torchlift.migrator.shapes.trainer_records",
    "torchlift.migrator.shapes.trainer_renames",
    "torchlift.migrator.shapes.trainer_clashes",
    "torchlift.migrator.shapes.model_method",
    "torchlift.migrator.shapes.model_class",
    "torchlift.migrator.shapes.step_inline",
    "torchlift.migrator.source.closure_into_loop",
    "torchlift.migrator.source.closure_phase",
    "torchlift.migrator.shapes.runs",
    *SHAPES,
    *PATTERNS,
    "torchlift.migrator.resolve_names",
    "torchlift.migrator.static_check",
    "torchlift.migrator.upgrade.codes",
)

PHASES = (
    "epoch_body",
    "step_body",
    "before_batch_loop",
    "batch_loader",
    "batch_statements",
    "claim",
    "bind",
    "read",
    "clean",
)

_extra: list[tuple[int, object]] = []  # (position in PATTERNS, pattern) registered at run time
_phases: dict[str, list] = {}


def rule_owners() -> list[ModuleType]:
    return [importlib.import_module(name) for name in RULE_OWNERS]


def patterns() -> list:
    """The pattern modules in order, with the ones registered at run time in their place."""
    found = [importlib.import_module(name) for name in PATTERNS]
    for position, pattern in sorted(_extra, key=lambda item: item[0]):
        found.insert(position, pattern)
    return found


def phase(name: str) -> list:
    """The functions of phase `name`, in pattern order (computed once)."""
    functions = _phases.get(name)
    if functions is None:
        if name not in PHASES:
            raise ValueError(f"unknown phase {name!r}")
        functions = [getattr(p, name) for p in patterns() if hasattr(p, name)]
        _phases[name] = functions
    return functions


def run_phase(name: str, ctx, *args):
    """Thread the last argument through every function of phase `name`."""
    *fixed, value = args
    for function in phase(name):
        value = function(ctx, *fixed, value)
    return value


def run_each(name: str, ctx, *args) -> None:
    for function in phase(name):
        function(ctx, *args)


def register(pattern, *, before: str | None = None) -> None:
    """Add a pattern at run time, before the pattern module named `before` (default: last)."""
    position = PATTERNS.index(before) if before is not None else len(PATTERNS)
    _extra.append((position, pattern))
    _phases.clear()


def unregister(pattern) -> None:
    _extra[:] = [(position, p) for position, p in _extra if p is not pattern]
    _phases.clear()
