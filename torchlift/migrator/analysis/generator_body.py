"""Whether a generator function of the script may run ahead of the code that consumes it.

    def get_batches(arr, batch_size, seq_length):      every statement reads its parameters,
        n = len(arr) // (batch_size * seq_length)       its own locals and names nobody
        arr = arr[: n * batch_size * seq_length]        changes; what it changes in place it
        arr = arr.reshape((batch_size, -1))             made itself (`y = np.zeros_like(x)`
        for n in range(0, arr.shape[1], seq_length):    then `y[:, :-1] = ...`); it draws no
            x = arr[:, n : n + seq_length]              random number, prints nothing, calls
            y = np.zeros_like(x)                        nothing it cannot see into
            y[:, :-1] = x[:, 1:]
            yield x, y

Lightning (and the runtime) fetch batch i+1 before running step i. A body as above gives the
same batches whenever it runs, and the step sees nothing of it. `body_obstacle` names the
first statement that breaks this: a draw from torch's global generator (the step's dropout
draws from it too), a loop over anything but `range(...)` (a DataLoader's iterator draws, a
shared iterator is advanced), a call of a function it cannot see into (the script's own, a
parameter), `print`/`next`/`open`, a method that may change an object it did not make, an
item or attribute assignment on such an object, a nested function, `global`, `yield from`.

numpy's and Python's global generators: the generator may draw from one when nothing else
that runs during the epoch (the epoch loop's code, the script's functions it calls, any
class's methods, which a model's forward may be) draws from that one: the draws then come in
the same order, whenever the generator runs (`draws_with_others` says which generator is
shared). A step that draws from numpy too (`np.random.rand() < p` for augmentation) would
see its numbers moved by a batch: refused.
"""

from __future__ import annotations

import builtins

import libcst as cst
import libcst.matchers as m

from .confined_effects import READ_METHODS, _target_parts, root_name
from .names import collect_names
from .statements import statements

_BUILTINS = frozenset(dir(builtins))
# builtins that print, read or write files, or advance an iterator the caller holds
_IMPURE_BUILTINS = frozenset(
    "print open input next iter exec eval setattr delattr __import__ globals locals vars "
    "breakpoint".split()
)
# methods that change their object (besides torch's in-place `*_`)
_MUTATING = frozenset(
    "append extend insert pop remove clear update setdefault add discard popitem sort reverse "
    "fill resize put itemset partition setflags shuffle send throw close write".split()
)
# methods that only read their object: an argument the generator was given may have them
READING_METHODS = (
    READ_METHODS
    | frozenset(
        "reshape view ravel astype copy clone transpose permute contiguous squeeze unsqueeze "
        "expand repeat sum mean max min argmax argmin std var any all nonzero cumsum float double "
        "long int bool half to cpu numpy tolist detach index count split strip lower upper "
        "encode decode startswith endswith replace".split()
    )
    | frozenset(  # torch.Tensor's out-of-place methods: a view or a new tensor, never its own data
        # changed (torch names every in-place method with a trailing `_`, read above as changing)
        "t narrow select chunk unbind flatten unflatten view_as reshape_as expand_as type_as type "
        "flip roll gather index_select masked_select masked_fill numel dim size item norm abs exp "
        "log sqrt pow softmax log_softmax argsort topk eq ne lt le gt ge add sub mul div matmul mm "
        "bmm cuda new_zeros new_ones new_full new_empty new_tensor nelement is_contiguous tril triu "
        "round floor ceil clamp sign neg sigmoid tanh relu".split()
    )
)
# numpy and torch functions that return a new object (the generator may change it in place,
# draw from it when it is a generator of its own)
_CREATES = frozenset(
    "zeros zeros_like ones ones_like empty empty_like full full_like array copy arange "
    "stack concatenate cat tensor clone eye linspace default_rng RandomState Generator".split()
)
_IN_PLACE_FUNCTIONS = frozenset(
    "copyto put place putmask fill_diagonal put_along_axis save savez savetxt".split()
)
# numpy.random's constructors of an own generator: they draw nothing from the global one
_OWN_GENERATORS = frozenset(
    "default_rng RandomState Generator SeedSequence PCG64 MT19937 Philox SFC64".split()
)
GLOBAL_GENERATORS = {"numpy.random.": "numpy's", "random.": "Python's `random`"}


def global_draw(ctx, call: cst.Call) -> str | None:
    """The prefix of the global generator (numpy's, Python's `random`) `call` draws from or
    seeds, or None."""
    for name in ctx.call_qualnames(call):
        for prefix in GLOBAL_GENERATORS:
            if name.startswith(prefix) and name.rsplit(".", 1)[-1] not in _OWN_GENERATORS:
                return prefix
    return None


def body_obstacle(ctx, function: cst.FunctionDef, torch_draws) -> tuple | None:
    """(the generator's statement, why it cannot run ahead of the step), or None.
    `torch_draws(node)` says whether a node draws from torch's global generator."""
    params = {p.name.value for p in _all_params(function.params)}
    own = collect_names(function.body).writes
    fresh = _fresh_locals(ctx, function, own - params)
    for node in _walk(function.body):
        why = _why(ctx, node, params, own, fresh, torch_draws)
        if why is not None:
            return statement_of(function, node), why
    return None


def free_reads(function: cst.FunctionDef) -> set[str]:
    """Names the generator reads that are neither its parameters, its locals nor builtins."""
    params = {p.name.value for p in _all_params(function.params)}
    names = collect_names(function.body)
    return names.reads - names.writes - params - _BUILTINS


def statement_of(function: cst.FunctionDef, node: cst.CSTNode) -> cst.CSTNode:
    """The innermost statement of `function` holding `node` (a compound statement when the
    node is in its header, `for n in <here>:`)."""
    found = function
    for stmt in statements(function)[1:]:
        if stmt is node or _in_header(stmt, node):
            found = stmt
    return found


def _in_header(stmt, node) -> bool:
    if isinstance(stmt, cst.SimpleStatementLine):
        return any(n is node for n in _walk(stmt))
    blocks = (cst.BaseSuite, cst.Else, cst.ExceptHandler, cst.Finally, cst.If)
    return any(
        any(n is node for n in _walk(child))
        for child in stmt.children
        if not isinstance(child, blocks)
    )


def _walk(node):
    """`node` and every node under it, in source order."""
    yield node
    for child in node.children:
        yield from _walk(child)


def _all_params(params: cst.Parameters):
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    kwargs = [params.star_kwarg] if params.star_kwarg is not None else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *kwargs]


def _why(ctx, node, params, own, fresh, torch_draws) -> str | None:
    if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        return "it defines a function (what it captures is not followed)"
    if isinstance(node, (cst.Global, cst.Nonlocal)):
        return "it declares a name `global`"
    if isinstance(node, cst.Await) or (
        isinstance(node, cst.Yield) and isinstance(node.value, cst.From)
    ):
        return "it delegates to another iterator (`yield from`/`await`)"
    if isinstance(node, (cst.For, cst.CompFor)):
        if not (
            isinstance(node.iter, cst.Call) and "builtins.range" in ctx.call_qualnames(node.iter)
        ):
            code = ctx.module.code_for_node(node.iter)
            return (
                f"it iterates `{code}`, not `range(...)` (a DataLoader's iterator draws from "
                "torch's generator, a shared iterator would be advanced ahead of the step)"
            )
    if isinstance(node, cst.Call):
        return _call_why(ctx, node, params, own, fresh, torch_draws)
    if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.Del)):
        in_place = isinstance(node, cst.AugAssign)  # `arr += 1` changes an array in place
        for target in _target_parts(node.target):
            root = root_name(target)
            if (in_place or not isinstance(target, cst.Name)) and root not in fresh:
                return f"it changes `{root}` in place, an object it did not make"
    return None


def _call_why(ctx, call, params, own, fresh, torch_draws) -> str | None:
    code = ctx.module.code_for_node(call.func)
    if torch_draws(call):
        return (
            f"`{code}(...)` draws from torch's global generator, which the step's dropout "
            "draws from too"
        )
    if any(a.keyword is not None and a.keyword.value == "out" for a in call.args):
        return f"`{code}(..., out=...)` writes into an object it did not make"
    names = ctx.call_qualnames(call)
    if global_draw(ctx, call) is not None:
        return None  # read against the rest of the epoch by draws_with_others
    func = call.func
    if isinstance(func, cst.Name) and func.value in params | own:
        return f"it calls `{code}`, which the migrator cannot follow"
    if isinstance(func, cst.Name) and not names:
        return f"it calls `{code}`, which the migrator cannot follow"
    if any(q.startswith("builtins.") for q in names):
        if names & {f"builtins.{n}" for n in _IMPURE_BUILTINS}:
            return f"it calls `{code}(...)` (it would run before the step, not after it)"
        return None
    module_function = {q for q in names if q.split(".")[0] in ("numpy", "torch")}
    if module_function:
        last = {q.rsplit(".", 1)[-1] for q in module_function}
        if last & _IN_PLACE_FUNCTIONS or any(n.endswith("_") for n in last):
            return f"`{code}(...)` changes an object in place"
        return None
    if isinstance(func, cst.Name):  # a function or class of the script
        return f"it calls `{code}`, a function of the script the migrator does not follow"
    if isinstance(func, cst.Attribute):
        method = func.attr.value
        root = root_name(func.value)
        if root is not None and root in fresh:
            return None
        changes = method in _MUTATING or (method.endswith("_") and not method.startswith("_"))
        if changes or method not in READING_METHODS:
            what = f"`{root}`" if root else "an object"
            return f"`{code}(...)` may change {what}, an object it did not make"
        return None
    return f"it calls `{code}`, which the migrator cannot follow"


def _fresh_locals(ctx, function, local_names: set[str]) -> set[str]:
    """Locals every binding of which makes a new object (a literal, arithmetic, a numpy or
    torch constructor, `.copy()`, a `range` loop's number): changing one in place changes
    nothing the caller or the step holds."""
    fresh = set(local_names)
    for stmt in statements(function)[1:]:
        if isinstance(stmt, cst.For):
            if not (
                isinstance(stmt.iter, cst.Call)
                and "builtins.range" in ctx.call_qualnames(stmt.iter)
            ):
                fresh -= collect_names(cst.AssignTarget(stmt.target)).writes
            continue
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign):
                written = collect_names(*small.targets).writes
                if not (len(small.targets) == 1 and _makes_new(ctx, small.value)):
                    fresh -= written
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                if not _makes_new(ctx, small.value):
                    fresh -= collect_names(small.target).writes
    for node in m.findall(function.body, m.NamedExpr() | m.ExceptHandler() | m.WithItem()):
        fresh -= collect_names(node).writes
    return fresh


def _makes_new(ctx, value) -> bool:
    if isinstance(
        value,
        (
            cst.List,
            cst.Dict,
            cst.Set,
            cst.ListComp,
            cst.DictComp,
            cst.SetComp,
            cst.Integer,
            cst.Float,
            cst.SimpleString,
            cst.BinaryOperation,
            cst.UnaryOperation,
        ),
    ):
        return True
    if not isinstance(value, cst.Call):
        return False
    names = ctx.call_qualnames(value)
    if any(
        q.split(".")[0] in ("numpy", "torch") and q.rsplit(".", 1)[-1] in _CREATES for q in names
    ):
        return True
    if names & {"builtins.list", "builtins.dict", "builtins.set", "builtins.len"}:
        return True
    func = value.func
    return isinstance(func, cst.Attribute) and func.attr.value in ("copy", "clone")
