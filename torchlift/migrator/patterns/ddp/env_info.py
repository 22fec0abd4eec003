"""torchrun's flag and ranks returned together by a function of the script reading only them.

    def get_dist_info():
        if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
            rank = int(os.environ["RANK"])
            world_size = int(os.environ["WORLD_SIZE"])
            local_rank = int(os.environ.get("LOCAL_RANK", 0))
            return True, rank, world_size, local_rank
        return False, 0, 1, 0

    distributed, rank, world_size, local_rank = get_dist_info()
                                  -> distributed = get_dist_info()[0]
    if distributed:                  (the ranks: the Trainer's, as torchrun.py's names
        dist.init_process_group(...)  bound from the environment; the flag stays the script's:
                                      `strategy="ddp" if distributed else "auto"` tests it)

The function is read, not guessed from its name: no parameters, no decorator, an `if` testing
only the environment whose block binds ranks from torchrun's variables and returns the flag
`True` with them, then a `return` of `False` with a plain run's values (rank 0, one process):
the Trainer's ranks in either run. Calling it again for its flag gives the same value (it
reads nothing else). Anything else is left to torchrun.py's TL168.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.function_reads import module_functions
from .facts import ENV_ROLES
from .process_group import is_docstring

# the calls the test may make: reading the environment, as numbers
_ENV_CALLS = {"os.environ.get", "os.getenv", "builtins.int"}


def read(ctx, flag: str):
    """(statement, {name: role}, replacement) of `flag, *ranks = F()` when F is such a
    function (see the module's docstring), else None."""
    from .torchrun import env_key, reads_env  # torchrun.py calls this module

    found = _tuple_call(ctx, flag)
    if found is None:
        return None
    stmt, targets, function = found
    branch, plain = _returns(function)
    if branch is None or not reads_env(ctx, branch.test, ENV_ROLES):
        return None
    if not all(ctx.call_qualnames(c) & _ENV_CALLS for c in m.findall(branch.test, m.Call())):
        return None
    bound = {}  # a name of the `if` block -> its role
    for inner in branch.body.body[:-1]:
        assign = _plain_assign(inner)
        role = assign and _env_int_role(ctx, env_key, assign[1])
        if role is None:
            return None
        bound[assign[0]] = role
    returned = _tuple(branch.body.body[-1])
    if returned is None or not (len(returned) == len(plain) == len(targets)):
        return None
    roles = {}
    for target, value, single in zip(targets, returned, plain, strict=True):
        if target == flag:
            if not (m.matches(value, m.Name("True")) and m.matches(single, m.Name("False"))):
                return None
            continue
        role = bound.get(value.value) if isinstance(value, cst.Name) else None
        role = role or _env_int_role(ctx, env_key, value)
        if role is None or not m.matches(single, m.Integer(_PLAIN[role])):
            return None
        roles[target] = role
    at = targets.index(flag)
    call = stmt.body[0].value
    new = cst.SimpleStatementLine(
        [cst.Assign([cst.AssignTarget(cst.Name(flag))], cst.Subscript(call, [_index(at)]))]
    )
    return stmt, roles, new


_PLAIN = {"global_rank": "0", "local_rank": "0", "world_size": "1"}


def _tuple_call(ctx, flag: str):
    """(statement, target names, function) of the one `a, b, ... = F()` binding `flag`
    before the loop, F a module function of no parameters; its names bound nowhere else."""
    stmts = [s for s in ctx.scope_before if flag in _targets(s)]
    if len(stmts) != 1:
        return None
    stmt = stmts[0]
    targets = _targets(stmt)
    call = stmt.body[0].value
    if not m.matches(call, m.Call(func=m.Name(), args=[])) or len(set(targets)) != len(targets):
        return None
    function = module_functions(ctx.module).get(call.func.value)
    if function is None or function.decorators or _has_params(function):
        return None
    if any(ctx.binding(name)[1] != 1 for name in targets):
        return None
    return stmt, targets, function


def _targets(stmt) -> list[str]:
    """The names of `a, b, ... = <value>` (a one-target tuple of plain names), else []."""
    if not m.matches(stmt, m.SimpleStatementLine([m.Assign(targets=[m.AssignTarget()])])):
        return []
    target = stmt.body[0].targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)):
        return []
    if not all(
        isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements
    ):
        return []
    return [e.value.value for e in target.elements]


def _has_params(function: cst.FunctionDef) -> bool:
    p = function.params
    stars = (p.star_arg, p.star_kwarg)
    return bool(p.params or p.posonly_params or p.kwonly_params) or any(
        isinstance(s, (cst.Param, cst.ParamStar)) for s in stars
    )


def _returns(function: cst.FunctionDef):
    """(the `if` returning the ranks, the elements of the plain run's return) of a body
    `if <test>: ...; return (...)` then `return (...)` (or that return as the `else`)."""
    body = [s for s in function.body.body if not is_docstring(s)]
    if not body or not isinstance(body[0], cst.If) or not body[0].body.body:
        return None, None
    branch = body[0]
    if isinstance(branch.orelse, cst.Else) and len(body) == 1:
        rest = branch.orelse.body.body
    elif branch.orelse is None and len(body) == 2:
        rest = body[1:]
    else:
        return None, None
    plain = _tuple(rest[0]) if len(rest) == 1 else None
    return (branch, plain) if plain is not None else (None, None)


def _tuple(stmt):
    """The elements of `return a, b, ...`, else None."""
    if not m.matches(stmt, m.SimpleStatementLine([m.Return(value=m.Tuple())])):
        return None
    elements = stmt.body[0].value.elements
    if not all(isinstance(e, cst.Element) for e in elements):
        return None
    return [e.value for e in elements]


def _plain_assign(stmt):
    if not m.matches(
        stmt, m.SimpleStatementLine([m.Assign(targets=[m.AssignTarget(target=m.Name())])])
    ):
        return None
    return stmt.body[0].targets[0].target.value, stmt.body[0].value


def _env_int_role(ctx, env_key, value) -> str | None:
    """The role of `int(os.environ["RANK"])` (LOCAL_RANK, WORLD_SIZE; `.get(K, d)` too)."""
    if not m.matches(value, m.Call(func=m.Name("int"), args=[m.Arg(keyword=None)])):
        return None
    return ENV_ROLES.get(env_key(ctx, value.args[0].value))


def _index(at: int) -> cst.SubscriptElement:
    return cst.SubscriptElement(cst.Index(cst.Integer(str(at))))
