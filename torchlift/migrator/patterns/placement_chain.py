"""Pattern: an if/elif/else chain placing the model differently per branch -> Trainer
arguments choosing per branch, by the same tests.

    if not torch.cuda.is_available():             accelerator="cuda" if torch.cuda.is_available() else "cpu",
        print("using CPU, this will be slow")     devices=1 if not torch.cuda.is_available()
    elif args.gpu is not None:                            else [args.gpu] if args.gpu is not None
        torch.cuda.set_device(args.gpu)                   else torch.cuda.device_count(),
        model = model.cuda(args.gpu)              strategy="auto" if not torch.cuda.is_available()
    else:                                                  or args.gpu is not None
        model = torch.nn.DataParallel(model).cuda()       else "ddp" if torch.cuda.device_count() > 1
                                                          else "auto",

(pytorch/examples' ImageNet `main_worker`.) A branch holding only a chain of its own (the older
ImageNet's `if torch.cuda.is_available(): if args.gpu is not None: ... else: DataParallel`) is
read as that chain's branches, each under both tests (`torch.cuda.is_available() and args.gpu
is not None`, then `torch.cuda.is_available()`), and one leaving the model where it was when
the inner chain has no `else`. A branch places the model in one of three ways:
not at all (it stays on the CPU it was built on: `accelerator="cpu"`), on one GPU with
`.cuda()` / `.cuda(i)` (`devices=1` / `[i]`; `i` is also what a `torch.cuda.set_device(i)` of
the branch selects for a bare `.cuda()`), or wrapped in DataParallel and moved to the GPU
(DDP over every GPU, as patterns/device_intent.py converts a single wrap; the report says how
the global batch changes). A chain without `else` leaves the model where it is otherwise.

The Trainer is built where the loop was and evaluates the chain's tests again there, so they
may read only names nothing rebinds or changes in between (the chain's own statements
included; module imports -- `torch.cuda.is_available()` -- hold everywhere). Parsed
command-line arguments read by field (`args.gpu`) may have their other fields stored into
(the resume block's `args.start_epoch = checkpoint["epoch"]`): a Namespace's fields are plain
attributes. A test that
patterns/known_branches.py decides from data flow (`distributed = False` bound once) picks its
branch the same way everywhere: a branch that never runs contributes nothing and stays as
written.

What the branches do besides placing the model stays (prints, `torch.cuda.set_device(i)`,
which Lightning's `devices=[i]` also does). The placements go, unless code between the chain
and the loop runs the model (`if args.evaluate: validate(val_loader, model, ...)`, see
bindings.py): then they stay, and only DataParallel's wrap goes (`model = model.cuda()`), so
that code runs where it did.

Refused (TL144), naming the branch or statement: a branch wrapping the model in
DistributedDataParallel, moving it with `.to(...)`, using it otherwise (ImageNet's
`model.features = DataParallel(model.features)` for AlexNet / VGG), DataParallel given
arguments or never moved to the GPU, a `set_device(i)` beside a `.cuda(j)`, a GPU given as a
device rather than an index, a test reading a name that changes before the loop, a model
placed outside the chain too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from ..analysis.names import bound_names, collect_names
from ..analysis.namespace_fields import fields_read, other_field_stores_set_aside
from ..analysis.passed_values import first_change, rebound_by_calls
from ..rule import Rule, Unsupported
from .data_parallel import is_data_parallel
from .ddp import is_ddp_wrap
from .device_intent import DATA_PARALLEL_NOTE, is_device_value
from .known_branches import known_test
from .passed_in import reaching_values
from .unplaced_model import left_on_cpu

PLACEMENT_CHAIN = Rule(
    "TL144",
    "a branch of the model's device chain that Trainer arguments cannot follow",
    """An if/elif/else chain placing the model per branch (on the CPU, on one GPU with
    `.cuda(i)`, DataParallel on every GPU) becomes Trainer arguments choosing by the same
    tests. A branch doing anything else with the model (DistributedDataParallel, `.to(...)`,
    wrapping a submodule), or a test whose names change before the Trainer is built, has no
    such argument: one Trainer would not place the model where that branch did.""",
    """Keep in the chain only `.cuda()` / `.cuda(i)` / `model = nn.DataParallel(model).cuda()`
    and prints, with tests on flags that stay fixed until the loop; or choose the device with
    `torch.device(...)` and move the model with `model.to(device)`.""",
    """
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--distributed", action="store_true")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("using CPU")
    elif args.distributed:
        model.cuda()
        model = torch.nn.parallel.DistributedDataParallel(model)
    else:
        model = torch.nn.DataParallel(model).cuda()
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

RULES = (PLACEMENT_CHAIN,)

CPU, CUDA, DATA_PARALLEL = "cpu", "cuda", "data parallel"
_CONSTANTS = frozenset({"None", "True", "False"})


@dataclass
class Branch:
    """One branch of the chain that may run: its header (`if`/`elif` node, `else` node, or
    None for a missing `else`), its test (None: it runs whenever the ones before do not),
    where it puts the model (CPU, CUDA with a GPU `index` or None, DATA_PARALLEL)."""

    header: cst.CSTNode | None
    keyword: str
    test: cst.BaseExpression | None
    place: str = CPU
    index: cst.BaseExpression | None = None
    placements: list = field(default_factory=list)  # its statements placing the model


@dataclass
class Chain:
    """A chain read as placements: what device_intent turns into Trainer arguments."""

    stmt: cst.If
    branches: list[Branch]


def is_placement_chain(ctx, stmt, name: str, placement_only) -> bool:
    """An `if` with `elif`/`else` branches, one of which places `name` on a GPU (`.cuda(...)`,
    DataParallel, DDP), none binding it other than by placing it. (Branches moving it only
    with `.to(device)` are device_intent's.)"""
    if not isinstance(stmt, cst.If) or (stmt.orelse is None and _nested(stmt.body) is None):
        return False
    inner = [s for body in _bodies(stmt) for s in body]
    if any(
        name in bound_names(s) and placement_only(s) is None and not _places(ctx, s, name)
        for s in inner
    ):
        return False  # a branch builds it (a DDP wrap, a nested placement: TL144 names it)
    return any(_touches(s, name) and _places(ctx, s, name, gpu_only=True) for s in inner)


def take(ctx, plan, stmt: cst.If, name: str, placement_only, kept_moves: bool) -> None:
    """Read the chain placing `name` (TL144 for what it cannot follow) and plan its rewrite:
    without its placements, or, `kept_moves`, without DataParallel's wrap only."""
    if "placement_chain" in ctx.found:  # one set of Trainer arguments follows one chain
        raise Unsupported(
            PLACEMENT_CHAIN, "a second chain places another model the loop trains", stmt
        )
    branches = _branches(ctx, stmt, name, placement_only)
    _check_outside(ctx, stmt, name, branches, plan)
    _check_tests_hold(ctx, stmt, branches)
    ctx.found["placement_chain"] = Chain(stmt, branches)
    placements = {id(s) for b in branches for s in b.placements}
    new = _rewritten(ctx, stmt, placements, kept_moves)
    if new is None:
        plan.remove_stmts.append(stmt)
        plan.removed_why.append((stmt, "the model's placements -> the Trainer's devices"))
    elif not new.deep_equals(stmt):
        plan.rewrite_stmts.append((stmt, new))
        why = (
            "the model's placements -> the Trainer's devices, chosen by the same tests"
            if not kept_moves
            else "DataParallel's wrap removed: the Trainer runs DDP in that branch"
        )
        plan.rewritten_why.append((stmt, cst.Module(body=[new]).code, why))
    for branch in branches:
        if branch.place == DATA_PARALLEL:  # unplaced_model / hand_update read this
            ctx.found.setdefault("data_parallel_conditions", []).append(branch.test)


# -- reading the branches ---------------------------------------------------------------


def _bodies(stmt: cst.If) -> list[list[cst.BaseStatement]]:
    """The statements of every branch, those of nested chains' branches too."""
    found, branch = [], stmt
    while branch is not None:
        found.append(list(branch.body.body))
        nested = _nested(branch.body)
        if nested is not None:
            found += _bodies(nested)
        branch = branch.orelse if isinstance(branch, cst.If) else None
    return found


def _nested(body: cst.BaseSuite) -> cst.If | None:
    """The `if` a branch holds alone (`if cuda: if args.gpu is not None: ... else: ...`): a
    chain of its own, whose branches run only where the outer test holds."""
    inner = body.body
    return inner[0] if len(inner) == 1 and isinstance(inner[0], cst.If) else None


def _branches(ctx, stmt: cst.If, name: str, placement_only) -> list[Branch]:
    """The branches that may run, in order; the last one runs when no test before it holds."""
    found, always = _branches_under(ctx, stmt, name, placement_only, None)
    return found if always else [*found, Branch(None, "else", None)]


def _branches_under(ctx, stmt: cst.If, name: str, placement_only, outer):
    """(the branches of `stmt` that may run, each test joined to the `outer` one with `and`;
    whether one of them always runs where `outer` holds). A branch holding a chain alone
    gives that chain's branches; where none of them runs, the model stays where it was."""
    found: list[Branch] = []
    branch: cst.If | cst.Else | None = stmt
    keyword = "if"
    while branch is not None:
        test = branch.test if isinstance(branch, cst.If) else None
        taken = known_test(ctx, test) if test is not None else True
        if taken is not False:  # a branch that never runs stays as written
            joined = _both(outer, None if taken is True else test)
            nested = _nested(branch.body)
            if nested is not None and _touches(nested, name):
                inner, always = _branches_under(ctx, nested, name, placement_only, joined)
                found += inner if always else [*inner, Branch(None, "else", joined)]
            else:
                read = Branch(branch, keyword, joined)
                _read_branch(ctx, read, branch.body.body, name, placement_only)
                found.append(read)
            if taken is True:  # the ones after it never run
                return found, True
        branch = branch.orelse if isinstance(branch, cst.If) else None
        keyword = "elif" if isinstance(branch, cst.If) else "else"
    return found, False  # no `else`: the model stays where it was


def _both(outer, test):
    """`outer and test` (either may be None: no test)."""
    if outer is None or test is None:
        return test if outer is None else outer
    operands = []
    for part in (outer, test):
        if isinstance(part, (cst.IfExp, cst.Lambda, cst.NamedExpr)) or (
            isinstance(part, cst.BooleanOperation) and isinstance(part.operator, cst.Or)
        ):
            part = part.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        operands.append(part)
    return cst.BooleanOperation(left=operands[0], operator=cst.And(), right=operands[1])


def _read_branch(ctx, branch: Branch, body, name: str, placement_only) -> None:
    """Where `branch` puts the model, from its statements placing it; TL144 for the first
    one it cannot follow."""
    code = ctx.module.code_for_node
    moves: dict = {}  # the code of each GPU index the branch moves the model to -> its node
    set_device = None
    for stmt in body:
        if _wraps_ddp(ctx, stmt):
            _refuse(ctx, branch, _DDP_WHY, stmt)
        if not _touches(stmt, name):
            selected = _set_device(ctx, stmt)
            if selected is not None and branch.placements:
                _refuse(ctx, branch, "selects a GPU after placing the model", stmt)
            set_device = selected if selected is not None else set_device
            continue
        kind = placement_only(stmt)
        if m.findall(stmt, m.Call(func=m.Attribute(m.Name(name), m.Name("to")))):
            _refuse(ctx, branch, "moves the model with `.to(...)`", stmt)
        if kind not in ("strip", "remove"):
            nested = isinstance(stmt, cst.BaseCompoundStatement)
            why = "under a condition of its own" if nested else "other than by placing it"
            _refuse(ctx, branch, f"uses the model {why}", stmt)
        if m.findall(stmt, m.Call(func=m.Attribute(attr=m.Name("to")))):
            _refuse(ctx, branch, "moves the model with `.to(...)`", stmt)
        for call in m.findall(stmt, m.Call(func=m.Attribute(attr=m.Name("cuda")))):
            index = _cuda_index(ctx, branch, call, stmt)
            moves[code(index) if index is not None else None] = index
        if kind == "remove":
            wrap = next(c for c in m.findall(stmt, m.Call()) if is_data_parallel(ctx, c))
            if len(wrap.args) != 1 or wrap.args[0].keyword is not None:
                _refuse(ctx, branch, _DATA_PARALLEL_ARGS_WHY, stmt)
            branch.place = DATA_PARALLEL
        branch.placements.append(stmt)
    if branch.placements:
        _settle(ctx, branch, list(moves.values()), set_device)


_DDP_WHY = (
    "wraps the model in DistributedDataParallel (a launch of its own, which Trainer arguments "
    "chosen with the other branches cannot say)"
)
_DATA_PARALLEL_ARGS_WHY = (
    "gives DataParallel arguments besides the model (`device_ids=` chooses GPUs `devices=` "
    "would not)"
)


def _settle(ctx, branch: Branch, moves: list, set_device) -> None:
    """The GPU of a branch placing the model: the one index its moves name (or none: the
    current GPU, which its `set_device(i)` may have chosen)."""
    code = ctx.module.code_for_node
    last = branch.placements[-1]
    if not moves:
        _refuse(ctx, branch, "does not move the model to a GPU", last)
    if len(moves) > 1:
        _refuse(ctx, branch, "moves the model to several GPUs", last)
    index = moves[0]
    if branch.place == DATA_PARALLEL:
        if index is not None or set_device is not None:
            why = "selects a GPU for DataParallel, which runs on every GPU from the first"
            _refuse(ctx, branch, why, last)
        return
    if index is not None and set_device is not None and not index.deep_equals(set_device):
        why = f"selects GPU `{code(set_device)}` but moves the model to `{code(index)}`"
        _refuse(ctx, branch, why, last)
    branch.place = CUDA
    branch.index = index if index is not None else set_device


def _wraps_ddp(ctx, stmt) -> bool:
    return any(is_ddp_wrap(ctx, call) for call in m.findall(stmt, m.Call()))


def _touches(stmt, name: str) -> bool:
    return name in collect_names(stmt).all()


def _cuda_index(ctx, branch, call: cst.Call, stmt) -> cst.BaseExpression | None:
    """The GPU index `x.cuda(i)` names (None: the current one); TL144 for a device object
    or string, which `devices=` does not take."""
    given = [a for a in call.args if a.keyword is None or a.keyword.value == "device"]
    if any(a.star for a in call.args) or len(given) > 1:
        _refuse(ctx, branch, "moves the model with `.cuda(...)` arguments not read here", stmt)
    if not given:
        return None
    index = given[0].value
    binding = ctx.binding(index.value)[0] if isinstance(index, cst.Name) else None
    if (
        is_device_value(ctx, index)
        or isinstance(index, (cst.SimpleString, cst.FormattedString))
        or (binding is not None and is_device_value(ctx, binding[1]))
    ):
        _refuse(ctx, branch, "names its GPU by a device, not by an index", stmt)
    return index


def _set_device(ctx, stmt) -> cst.BaseExpression | None:
    """`i` of a `torch.cuda.set_device(i)` statement."""
    if not m.matches(stmt, m.SimpleStatementLine([m.Expr(m.Call(args=[m.Arg(keyword=None)]))])):
        return None
    call = stmt.body[0].value
    return call.args[0].value if "torch.cuda.set_device" in ctx.call_qualnames(call) else None


def _refuse(ctx, branch: Branch, why: str, node) -> None:
    raise Unsupported(PLACEMENT_CHAIN, f"{describe(ctx, branch)} {why}", node)


def describe(ctx, branch: Branch) -> str:
    """How a refusal names a branch: `the branch `elif args.gpu is not None:` of ...`."""
    if branch.header is None:
        return "where no branch of the chain placing the model runs, it"
    return f"the branch {_header(ctx, branch)} of the chain placing the model"


def _header(ctx, branch: Branch) -> str:
    """`elif args.gpu is not None:`, `else:`, or what runs when no branch does."""
    if branch.header is None:
        return "(no branch)"
    if isinstance(branch.header, cst.Else):
        return "`else:`"
    return f"`{branch.keyword} {ctx.module.code_for_node(branch.header.test).strip()}:`"


# -- what must hold around the chain --------------------------------------------------------


def _check_outside(ctx, stmt, name: str, branches, plan) -> None:
    """The chain is the model's only placement: nothing after it moves it again, and, when a
    branch leaves it, nothing before it can have placed it (it is on the CPU there)."""
    at = next(i for i, s in enumerate(ctx.scope_before) if s is stmt)
    for later in ctx.scope_before[at + 1 :]:
        if _places(ctx, later, name):
            raise Unsupported(
                PLACEMENT_CHAIN,
                "the model is placed again after the chain placing it per branch, so the "
                "chain does not say where it trains",
                later,
            )
    leaves = next((b for b in branches if b.place == CPU), None)
    devices = plan.device_names
    before = [*ctx.module_before, *ctx.scope_before[:at]]
    if leaves is not None and not left_on_cpu(ctx, before, {name}, devices):
        raise Unsupported(
            PLACEMENT_CHAIN,
            f"{describe(ctx, leaves)} leaves the model where it is, and what comes before the "
            "chain may have placed it (or it is not built in this scope): where that branch "
            "trains is not known",
            leaves.header or stmt,
        )


def _places(ctx, stmt, name: str, gpu_only: bool = False) -> bool:
    """`stmt` moves the model (`model.cuda()`; `.to(...)`, `.cpu()` but with `gpu_only`) or
    wraps it for several devices."""
    methods = m.Name("cuda") if gpu_only else m.Name("to") | m.Name("cuda") | m.Name("cpu")
    if m.findall(stmt, m.Call(func=m.Attribute(value=m.Name(name), attr=methods))):
        return True
    for call in m.findall(stmt, m.Call()):
        if is_data_parallel(ctx, call) or is_ddp_wrap(ctx, call):
            if any(m.matches(a.value, m.Name(name)) for a in call.args):
                return True
    return False


def _check_tests_hold(ctx, stmt: cst.If, branches) -> None:
    """The Trainer, built where the loop was, evaluates the same tests and GPU indices: the
    names they read must hold the same objects, unchanged, from the chain to the loop."""
    exprs = [e for b in branches for e in (b.test, b.index) if e is not None]
    names = collect_names(*exprs).reads - set(ctx.names.imports) - _CONSTANTS if exprs else set()
    if not names:
        return
    at = next(i for i, s in enumerate(ctx.scope_before) if s is stmt)
    between = [s for body in _bodies(stmt) for s in body] + ctx.scope_before[at + 1 :]
    fields = _parsed_fields(ctx, exprs, names)
    for other in between:
        changed = (collect_names(other).writes & names) | rebound_by_calls(ctx, other, names)
        seen = other_field_stores_set_aside(other, fields) if fields else other
        changed |= {n for n in names if first_change(ctx, seen, n, stmt) is not None}
        if changed:
            raise Unsupported(
                PLACEMENT_CHAIN,
                f"`{sorted(changed)[0]}`, read by the tests of the chain placing the model, may "
                "change before the loop: the Trainer, built there, would not choose as the "
                "chain did",
                other,
            )


def _parsed_fields(ctx, exprs, names) -> dict[str, set[str]]:
    """The fields the tests read of each name holding parsed command-line arguments
    wherever the loop runs (`args = parser.parse_args()`, also through the callers of the
    function): a Namespace's other fields can be stored into (`args.start_epoch = ...`)
    without changing the ones the Trainer's tests read."""
    found = {}
    for name in names:
        values = reaching_values(ctx, name)
        read = fields_read(exprs, name)
        if read and values and all(_parsed_arguments(v) for v in values):
            found[name] = read
    return found


def _parsed_arguments(value) -> bool:
    return m.matches(value, m.Call(func=m.Attribute(attr=m.Name("parse_args"))))


# -- the chain once the Trainer places the model -------------------------------------------


def _rewritten(ctx, stmt: cst.If, placements: set[int], kept_moves: bool):
    """The chain without its placements (`kept_moves`: without DataParallel's wraps only,
    `model = DataParallel(model).cuda()` -> `model = model.cuda()`); branches left empty at
    its end go, an empty one before others holds `pass`; None when nothing is left."""

    def body_of(block: cst.IndentedBlock) -> list:
        kept = []
        for inner in block.body:
            if isinstance(inner, cst.If) and _nested(block) is inner:  # a chain of its own
                nested = rebuilt(inner)
                if nested is not None:
                    kept.append(nested)
            elif id(inner) not in placements:
                kept.append(inner)
            elif kept_moves:
                unwrapped = inner.visit(_Unwrap(ctx))
                if not _does_nothing(unwrapped):
                    kept.append(unwrapped)
        return kept

    def rebuilt(branch):
        if branch is None:
            return None
        orelse = rebuilt(branch.orelse) if isinstance(branch, cst.If) else None
        kept = body_of(branch.body)
        if isinstance(branch, cst.If) and orelse is None and not kept:
            return None  # an empty last `elif`: nothing runs there any more
        if isinstance(branch, cst.Else) and not kept:
            return None
        kept = kept or [cst.SimpleStatementLine([cst.Pass()])]
        new = branch.with_changes(body=branch.body.with_changes(body=kept))
        return new.with_changes(orelse=orelse) if isinstance(branch, cst.If) else new

    new = rebuilt(stmt)
    if (
        isinstance(new, cst.If)
        and isinstance(new.orelse, cst.Else)
        and not body_of(stmt.body)  # `if c: <placement> else: print(...)` -> `if not c: print(...)`
    ):
        return new.with_changes(test=_negated(new.test), body=new.orelse.body, orelse=None)
    return new


def _negated(test: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return test.expression
    if isinstance(test, (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)):
        test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(operator=cst.Not(), expression=test)


class _Unwrap(cst.CSTTransformer):
    """`DataParallel(model)` -> `model` (its other moves stay)."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx

    def leave_Call(self, original, updated):
        if is_data_parallel(self.ctx, original):
            return updated.args[0].value
        return updated


def _does_nothing(stmt) -> bool:
    """`model = model` (a wrap alone, its move elsewhere in the branch)."""
    return (
        m.matches(
            stmt,
            m.SimpleStatementLine([m.Assign(targets=[m.AssignTarget(m.Name())], value=m.Name())]),
        )
        and stmt.body[0].targets[0].target.value == stmt.body[0].value.value
    )


# -- the Trainer's arguments ---------------------------------------------------------------

_NOTE = (
    "the model's device chain -> `accelerator=`, `devices=`{strategy} chosen by the chain's "
    "own tests: {branches}"
)


def read(ctx, plan, steps) -> None:
    """The chain's Trainer arguments, in the place device_intent gives its own (which it
    leaves to this pattern when there is a chain)."""
    chain = ctx.found.get("placement_chain")
    if chain is None:
        return
    torch = ctx.names.alias("torch")
    if torch is None and any(b.place == DATA_PARALLEL for b in chain.branches):
        raise Unsupported(
            PLACEMENT_CHAIN, "`torch` is not imported as a module to count the GPUs", chain.stmt
        )
    count = f"{torch}.cuda.device_count()"
    code = ctx.module.code_for_node
    tests = [_operand(code(b.test).strip()) if b.test is not None else None for b in chain.branches]
    values = [_arguments(ctx, b, count) for b in chain.branches]
    args = [("accelerator", _chosen(tests, [v[0] for v in values]))]
    args.append(("devices", _chosen(tests, [v[1] for v in values])))
    if any(v[2] != '"auto"' for v in values):
        args.append(("strategy", _chosen(tests, [v[2] for v in values])))
    plan.trainer_args[:0] = args
    plan.device_stmt = chain.stmt
    said = [f"{_header(ctx, b)} {_WHERE[b.place]}" for b in chain.branches]
    note = _NOTE.format(strategy=", `strategy=`" if len(args) > 2 else "", branches="; ".join(said))
    if any(b.place == DATA_PARALLEL for b in chain.branches):
        # several processes on several GPUs: whole_eval_loaders.py and rank_zero_effects.py
        ctx.found["data_parallel_ddp"] = True
        plan.notes.append(DATA_PARALLEL_NOTE)
        note += f" ({DATA_PARALLEL_NOTE})"
    plan.device_note = note
    # where code after fit finds the model, as the chain left it (resolve_names)
    plan.cuda_placement = _chosen(tests, [_device_of(ctx, b, torch) for b in chain.branches])


_WHERE = {CPU: "the CPU", CUDA: "one GPU", DATA_PARALLEL: "DDP over every GPU"}


def _arguments(ctx, branch: Branch, count: str) -> tuple[str, str, str]:
    """(accelerator, devices, strategy) codes for where `branch` puts the model."""
    if branch.place == CPU:
        return '"cpu"', "1", '"auto"'
    if branch.place == DATA_PARALLEL:
        return '"cuda"', count, f'"ddp" if {count} > 1 else "auto"'
    if branch.index is None:
        return '"cuda"', "1", '"auto"'
    index = ctx.module.code_for_node(branch.index).strip()
    if isinstance(branch.index, cst.Integer) or _tested_not_none(branch.test, branch.index):
        return '"cuda"', f"[{index}]", '"auto"'
    # `.cuda(None)` is the current GPU
    return '"cuda"', f"[{index}] if {_operand(index)} is not None else 1", '"auto"'


def _device_of(ctx, branch: Branch, torch: str | None) -> str:
    if branch.place == CPU:
        return '"cpu"'
    if branch.index is None or torch is None:
        return '"cuda"'
    return f'{torch}.device("cuda", {ctx.module.code_for_node(branch.index).strip()})'


def _tested_not_none(test, index) -> bool:
    """`test` (or one operand of its `and`) is `<index> is not None`."""
    if test is None:
        return False
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _tested_not_none(test.left, index) or _tested_not_none(test.right, index)
    return m.matches(
        test,
        m.Comparison(comparisons=[m.ComparisonTarget(m.IsNot(), m.Name("None"))]),
    ) and test.left.deep_equals(index)


def _chosen(tests: list[str | None], values: list[str]) -> str:
    """The conditional expression choosing `values[i]` where `tests[i]` is the first test
    that holds (None: the last branch, run when none does); neighbours of the same value are
    one choice (`"auto" if a or b else ...`)."""
    merged: list[tuple[str | None, str]] = []
    for test, value in zip(tests, values):
        if merged and merged[-1][1] == value:
            before = merged[-1][0]
            if test is not None and _absorbs(test, before):  # `(a and b) or a` is `a`
                merged[-1] = (test, value)
                continue
            merged[-1] = (
                None if test is None else f"{_or_operand(before)} or {_or_operand(test)}",
                value,
            )
        else:
            merged.append((test, value))
    merged = merged[: next(i for i, (t, _) in enumerate(merged) if t is None) + 1]
    if len(merged) == 2 and merged[0][0].startswith("not "):  # `"cuda" if c else "cpu"`
        (test, first), (_, second) = merged
        flipped = test[len("not ") :]
        if _operand(flipped) == flipped and " or " not in flipped and " and " not in flipped:
            merged = [(flipped, second), (None, first)]
    found = merged[-1][1]
    for test, value in reversed(merged[:-1]):
        body = f"({value})" if " if " in value else value
        found = f"{body} if {test} else {found}"
    return found


def _absorbs(test: str, before: str) -> bool:
    """`before` is `test and ...` (a nested chain's branch under the outer test `test`)."""
    node = cst.parse_expression(before)
    return (
        isinstance(node, cst.BooleanOperation)
        and isinstance(node.operator, cst.And)
        and cst.parse_expression(test).deep_equals(node.left)
    )


def _or_operand(code: str) -> str:
    """`code` as an operand of `or`: an `and` in parentheses (the reader need not recall
    which binds tighter)."""
    node = cst.parse_expression(code)
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And):
        return f"({code})"
    return code


def _operand(code: str) -> str:
    """`code` parenthesized where an operand of `or` / a conditional's test needs it."""
    node = cst.parse_expression(code)
    return f"({code})" if isinstance(node, (cst.IfExp, cst.Lambda, cst.NamedExpr)) else code
