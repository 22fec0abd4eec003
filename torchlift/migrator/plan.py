"""The plan gathered for one training loop: what the transform needs, nothing more.

A plan is only built when every part of the loop was understood. The shape fills the loop's
skeleton (epochs, the batch loop, the code around it); patterns add to it: the models and
optimizers they recognise, the Trainer arguments they stand for (`trainer_args`), the hook
pieces and step rewrites they need (`hook_pieces`, `step_rewrites`), the statements of the
script they take over (`remove_stmts`, `strip_stmts`) and notes for the report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from .analysis.names import collect_names

# how a Trainer argument's code names the Lightning package (`L.plugins....`): the emitted
# Trainer call spells it with the file's import alias, `L` or `pl` (emit/trainer_call.py)
LIGHTNING = "__lightning__"


@dataclass
class EvalPlan:
    """A validation or test pass: `with torch.no_grad(): for batch in loader: ...`."""

    loader: str
    target: cst.BaseAssignTargetExpression
    index: str | None
    before: list[cst.BaseStatement]  # -> on_*_epoch_start
    body: list[cst.BaseStatement]  # -> *_step
    after: list[cst.BaseStatement]  # -> on_*_epoch_end
    anchor: cst.CSTNode  # outermost statement of the pass (for removal when after training)
    following: list[cst.BaseStatement] = field(default_factory=list)  # epoch code after it
    # the epoch code between the batch loop and the pass, in the script's order (its setup
    # went to `before`, the rest to post_train; patterns/pre_pass_output.py reads the order)
    between: list[cst.BaseStatement] = field(default_factory=list)
    # of `before`: the epoch's own prints (and what they read) run before the pass, not the
    # pass's setup (patterns/pre_pass_output.py)
    printed_before: list[cst.BaseStatement] = field(default_factory=list)
    keeps_train_mode: bool = False  # the script evaluated without model.eval()
    # modules besides the model the pass runs (an EMA copy) -> the mode the script ran them in
    # loaders of the script's later passes in the epoch, run as further validation dataloaders
    # (`dataloader_idx` 1, 2, ... in the step; patterns/merge_passes.py)
    more_loaders: list[str] = field(default_factory=list)
    other_modes: dict[str, str] = field(default_factory=dict)


@dataclass
class ModelPlan:
    """A trained model: the name the script binds it to, and what the class needs of it."""

    name: str
    aliases: set[str] = field(default_factory=set)  # e.g. its DataParallel wrapper
    class_name: str | None = None  # `Net` when bound as `model = Net(...)`
    forward_params: cst.Parameters | None = None  # Net.forward's signature


@dataclass
class OptimizerPlan:
    """An optimizer, built in `configure_optimizers` from the statement that built it, with
    the scheduler stepped on it, if any."""

    name: str
    stmt: cst.SimpleStatementLine | None  # None: given (patterns/passed_in.py)
    scheduler: str | None = None
    scheduler_stmt: cst.SimpleStatementLine | None = None
    interval: str = "epoch"  # "epoch" | "step"
    frequency: int = 1  # stepped every N intervals (patterns/scheduler_every.py)
    monitor: str | None = None  # logged metric a ReduceLROnPlateau follows
    given: bool = False  # built by the caller or kept in the script: handed to the module
    scheduler_held: bool = False  # kept in the script, stepped by the module where it was
    # kept in the script, handed to the module and returned to Lightning, which steps it
    # (a per-batch scheduler of a kept optimizer: patterns/kept_optimizers.py)
    scheduler_given: bool = False
    # the statements building an optimizer (and scheduler) kept in the script: where each run
    # of a loop over runs builds them (shapes/runs.py)
    kept_stmts: tuple = ()


@dataclass
class LoopPlan:
    epoch_loop: cst.For | cst.While  # the training loop (a step loop has no epochs)
    container: cst.CSTNode  # Module, or the IndentedBlock of a function / `if __name__` body
    # (or of the innermost `with` kept around the loop)
    in_function: bool
    epoch_var: str | None
    epoch_start: cst.BaseExpression | None  # None: epochs counted from 0
    # training
    train_loader: str
    train_target: cst.BaseAssignTargetExpression | None  # None: the step ignores its batch
    train_index: str | None
    train_body: list[cst.BaseStatement]
    loss_name: str
    pre_train: list[cst.BaseStatement]
    post_train: list[cst.BaseStatement]
    after_step: list[cst.BaseStatement] = field(default_factory=list)  # -> on_train_batch_end
    # code before a step closure (patterns/closure_step.py) -> on_train_batch_start
    before_step: list[cst.BaseStatement] = field(default_factory=list)
    after_step_source: list[cst.BaseStatement] = field(default_factory=list)  # as written
    # the script's clipping whose norm it reads -> configure_gradient_clipping (clipping.py)
    clip_hook: list[cst.BaseStatement] = field(default_factory=list)
    # what patterns recognise and contribute
    models: list[ModelPlan] = field(default_factory=list)
    optimizers: list[OptimizerPlan] = field(default_factory=list)
    trainer_args: list[tuple[str, str]] = field(default_factory=list)  # (keyword, code)
    hook_pieces: dict[str, list[str]] = field(default_factory=dict)  # hook -> leading lines
    hook_tails: dict[str, list[str]] = field(default_factory=dict)  # hook -> closing lines
    step_rewrites: list[Callable] = field(default_factory=list)  # applied to training_step
    device_names: set[str] = field(default_factory=set)
    # what a device name reads as in the class, by the type of its value (device_intent)
    device_exprs: dict[str, set[str]] = field(default_factory=dict)
    device_stmt: cst.CSTNode | None = None  # the statement choosing the device, if any
    device_note: str = ""  # the change log's word on the Trainer's device arguments
    scaler: str | None = None  # GradScaler name (its construction is removed)
    # the scaler after fit, when later code reads it (a checkpoint's `scaler.state_dict()`)
    scaler_after: tuple[str, str] | None = None  # patterns/amp.py: (flag, scaler when off)
    validation: EvalPlan | None = None
    test: EvalPlan | None = None
    # statements of the container to delete / strip of device moves
    remove_stmts: list[cst.CSTNode] = field(default_factory=list)
    strip_stmts: list[cst.CSTNode] = field(default_factory=list)
    rewrite_stmts: list = field(default_factory=list)  # (statement, its replacement)
    test_stmts: list = field(default_factory=list)  # container statements of the test pass
    notes: list[str] = field(default_factory=list)
    # change log entries of patterns: (source statement, where it went: a method of the class,
    # "trainer" or None when removed, why)
    explained: list = field(default_factory=list)
    inlined_helpers: list[str] = field(default_factory=list)
    # inlined closures -> the function defining them (their `def` is removed from its body only)
    inlined_closures: dict[str, str] = field(default_factory=dict)
    index_start: dict = field(default_factory=dict)  # index name -> start expression
    loss_capture: str | None = None  # name holding the loss when the loop rebinds `loss`
    # carried names a kept hand-set learning rate follows: saved in checkpoints when they
    # are `self.` state (patterns/lr_decay.py)
    checkpoint_state: list[str] = field(default_factory=list)
    module_globals: set[str] = field(default_factory=set)  # declared `global`: kept global
    carried_index: str | None = None  # batch index read after the batch loop: `self.` state
    # names the epoch's code after the validation pass reads (there a batch index the pass
    # reuses is the pass's): recorded when the pass is found, before other patterns remove
    # statements (`model.eval()`) from post_train
    post_eval_reads: set[str] = field(default_factory=set)
    pre_eval_reads: set[str] = field(default_factory=set)  # and before it
    index_carried_by: str = "training_step"  # the step writing `self.<carried_index>`
    # step loops (shapes/iteration.py): the statement binding the generated loader of
    # iteration numbers
    loader_stmt: str | None = None  # also for a batch loop over range(...) (epoch_batch)
    eval_loader_stmt: str | None = None  # a validation pass over range(...) (eval_ranges)
    # module-level definitions the loader statements need, inserted before the generated
    # class (patterns/generator_loader.py's re-iterable of a generator function)
    helper_defs: list[str] = field(default_factory=list)
    # modules the generated code reads that the file does not import (`sys` of a step loop's
    # `sys.maxsize`, shapes/iteration.py): `import <name>` is added
    imports: list[str] = field(default_factory=list)
    # loader names standing for an expression `fit` is given (`dataloaders["train"]`,
    # patterns/keyed_loaders.py)
    loader_exprs: dict[str, str] = field(default_factory=dict)
    phase_loop: cst.For | None = None  # the train/val phase loop unrolled into the epoch
    step_loop: bool = False
    manual_optimization: bool = False  # the step keeps the script's optimizer calls
    # (name, statement) of a list of the optimizers in configure_optimizers' order, and of one
    # of their schedulers built over it: `self.optimizers()` / `self.lr_schedulers()` in the
    # class (patterns/optimizer_lists.py)
    optimizer_list: tuple[str, cst.SimpleStatementLine] | None = None
    scheduler_list: tuple[str, cst.SimpleStatementLine] | None = None
    # a kept manual step may leave gradients for the next (patterns/manual_optimization.py):
    # Lightning's zero_grad before validation is overridden to keep them
    gradients_outlive_step: bool = False
    loss_on_progress_bar: bool = False  # the script showed the loss on its own bar
    loss_every_step: bool = True  # False: some steps bind no loss to log (guarded_step.py)
    hparams: set[str] = field(default_factory=set)  # arguments save_hyperparameters can keep
    wrapper: cst.CSTNode | None = None  # the `with` bar / `try` the loop stood in
    withs: list = field(default_factory=list)  # `with` blocks kept around the Trainer
    depths: dict = field(default_factory=dict)  # id(statement of the loop's scope) -> blocks
    after_trainer: list[str] = field(default_factory=list)  # code right after `L.Trainer(...)`
    before_fit: list[str] = field(default_factory=list)  # code right before `trainer.fit(...)`
    before_test: list[str] = field(default_factory=list)  # and before `trainer.test(...)`
    trainer_at: cst.CSTNode | None = None  # build the Trainer there, not at the loop (ddp/)
    removed_why: list = field(default_factory=list)  # (removed statement, the change log's why)
    rewritten_why: list = field(default_factory=list)  # (statement, its new code, the why)
    # filled by resolve_names
    init_args: list[str] = field(default_factory=list)
    state: set[str] = field(default_factory=set)
    rebind_after: list[str] = field(default_factory=list)
    test_rebind: list = field(default_factory=list)  # names the test pass sets, read later
    device_after: str | None = None  # device name code after the loop still uses
    # other modules the LightningModule holds (a frozen teacher) that the script placed and
    # code after the loop uses: put back on this device after fit, as the model is
    held_after: list[str] = field(default_factory=list)
    held_device: dict[str, str] = field(default_factory=dict)  # name -> its device code
    # evaluation steps the script ran without autocast under a mixed precision (amp.py)
    full_precision_passes: set[str] = field(default_factory=set)
    # the device the script's `.cuda()` calls chose, as code (`"cuda" if use_cuda else "cpu"`)
    cuda_placement: str | None = None
    # the script never placed the model: it trains on the CPU, and is not moved after fit
    # (patterns/unplaced_model.py)
    model_on_cpu: bool = False
    # "fit" / "test": after which the script's model was in eval mode, for later code running
    # it, where Lightning has put it back in train mode (patterns/eval_mode.py)
    eval_after: set[str] = field(default_factory=set)
    # the script's model.eval() / model.train() at the epoch's end kept there: an evaluation
    # on tensors in on_train_epoch_end runs in the mode it set (patterns/eval_mode.py)
    epoch_end_modes: bool = False
    kept_mode_calls: list = field(default_factory=list)  # model.train()/eval() left in hooks
    optim_after: list = field(default_factory=list)  # optimizer/scheduler read after the loop
    loader_args: list = field(default_factory=list)  # loaders configure_optimizers reads
    # statements of the hooks run on rank zero only (patterns/rank_zero_effects.py), by id()
    rank_zero: set[int] = field(default_factory=set)

    # The epoch x batch shape trains one model with one optimizer: these read them.
    @property
    def model(self) -> ModelPlan:
        return self.models[0]

    @property
    def optimizer(self) -> OptimizerPlan:
        return self.optimizers[0]

    def device_expr(self, name: str) -> str | None:
        """What the device name `name` reads as in the class: `self.device`, unless every
        binding of it gives one string form (`self.device.type`, `str(self.device)`); None
        for a value read from a config at run time (device_intent's "script"), which the
        class is given as it is, like any other name the step reads."""
        kinds = self.device_exprs.get(name, set())
        if "script" in kinds:
            return None
        if len(kinds) == 1 and "mixed" not in kinds:
            return next(iter(kinds))
        return "self.device"

    def add_trainer_arg(self, keyword: str, code: str) -> None:
        self.trainer_args.append((keyword, code))

    def after_step_pieces(self) -> list[cst.CSTNode]:
        """What on_train_batch_end holds: the code after the step, with the batch target
        unpacked again first when that code reads a batch name (`x`, or a step loop's `it`)."""
        return self._batch_hook_pieces(self.after_step)

    def before_step_pieces(self) -> list[cst.CSTNode]:
        """What on_train_batch_start holds: the code before a step closure, likewise."""
        return self._batch_hook_pieces(self.before_step)

    def _batch_hook_pieces(self, stmts) -> list[cst.CSTNode]:
        stmts = list(stmts)
        target = self.train_target
        if stmts and target is not None:
            batch_names = collect_names(target).all()
            if batch_names & set().union(*(collect_names(s).reads for s in stmts)):
                return [target, *stmts]
        return stmts
