"""A loader built in both branches of `if distributed:` read as one loader.

    if distributed:                                   -> sampler = DistributedSampler(ds) if distributed else None
        sampler = DistributedSampler(ds)                 loader = DataLoader(ds, batch_size=32, sampler=sampler,
        loader = DataLoader(ds, batch_size=32,                               shuffle=sampler is None)
                            sampler=sampler)
    else:
        sampler = None
        loader = DataLoader(ds, batch_size=32, shuffle=True)

The DDP patterns read a training loader bound once, its DistributedSampler bound by
`s = DistributedSampler(...) if <flag> else None` (patterns/ddp/sampler.py). The `if / else`
above is that pair when the two `DataLoader(...)` calls are the same call but for the
sampler: the first branch's passes `sampler=s` (and maybe `shuffle=False`), the second's no
sampler and a literal `shuffle=` (or none), and the second branch binds `s = None`. Then
each run builds the same objects in the same order: the test is evaluated once, the
sampler (first run) before the loader, and `DataLoader(..., sampler=None, shuffle=X)` is
`DataLoader(..., shuffle=X)`. Left alone: another callee than torch's `DataLoader` (its
`sampler=None` might not be its default), arguments that differ otherwise or read `s`, a
`shuffle=` that is not `True` / `False`, more statements in a branch, an `elif`.

As for tuple_bindings.py: the join is made on the tree the patterns read, for the `if`
statements a refusal names (the loops are then planned again); the pair goes back to the
`if / else` as written when the conversion leaves both statements as they were (`rejoin`).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..analysis.qualnames import Qualnames
from ..analysis.statements import single_assign, with_keywords
from .code_text import code_of
from .tuple_bindings import Split, _rebuilt

_DATALOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
# tests that would need parentheses as the condition of `x if <test> else None`
_NEEDS_PARENS = (cst.IfExp, cst.Lambda, cst.NamedExpr)


def _keyword(call: cst.Call, name: str):
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _others(call: cst.Call) -> list[tuple[str | None, str, str]]:
    """The arguments but `sampler=` and `shuffle=`, as (keyword, star, code) in order."""
    return [
        (a.keyword.value if a.keyword else None, a.star, code_of(a.value))
        for a in call.args
        if a.keyword is None or a.keyword.value not in ("sampler", "shuffle")
    ]


def joinable(stmt, names: Qualnames):
    """(sampler name, sampler statement, loader statement, the plain run shuffles) of an
    `if <flag>:` / `else:` building one loader in both branches (see the module docstring),
    else None."""
    found = _read(stmt, names)
    return None if isinstance(found, str) else found


def why_not_joined(stmt, names: Qualnames) -> str | None:
    """Why the branches of `stmt` are not read as one loader (for a refusal), or None."""
    found = _read(stmt, names)
    return found if isinstance(found, str) else None


def _read(stmt, names: Qualnames):
    """joinable's tuple, or why not (a string)."""
    if not isinstance(stmt, cst.If) or not isinstance(stmt.orelse, cst.Else):
        return "not an `if / else`"
    if isinstance(stmt.test, _NEEDS_PARENS):
        return "its condition is not a plain test"
    ddp, plain = stmt.body.body, stmt.orelse.body.body
    ddp_assigns = [single_assign(s) for s in ddp]
    plain_assigns = [single_assign(s) for s in plain]
    if len(ddp) != 2 or len(plain) != 2 or None in ddp_assigns or None in plain_assigns:
        return "each branch must hold just the sampler's and the loader's `name = ...`"
    (sampler, sampler_value), (loader, ddp_loader) = ddp_assigns
    plain_binds = dict(plain_assigns)
    if set(plain_binds) != {sampler, loader} or sampler == loader:
        return f"the `else` branch does not bind `{sampler}` and `{loader}`"
    plain_loader = plain_binds[loader]
    if not m.matches(plain_binds[sampler], m.Name("None")):
        return f"the `else` branch binds `{sampler}` to another value than `None`"
    calls = (ddp_loader, plain_loader)
    if not all(isinstance(c, cst.Call) and names.of_call(c) & _DATALOADERS for c in calls):
        return "the loaders are not both torch's `DataLoader(...)`"
    if code_of(ddp_loader.func) != code_of(plain_loader.func):
        return "the loaders are not both torch's `DataLoader(...)`"
    given = _keyword(ddp_loader, "sampler")
    if given is None or not m.matches(given.value, m.Name(sampler)):
        return f"the first branch's loader is not given `sampler={sampler}`"
    ddp_shuffle = _keyword(ddp_loader, "shuffle")
    if ddp_shuffle is not None and not m.matches(ddp_shuffle.value, m.Name("False")):
        return "the first branch's loader passes `shuffle=` beside its sampler"
    if any(_keyword(plain_loader, k) for k in ("sampler", "batch_sampler")):
        return "the `else` branch's loader has a sampler of its own"
    shuffle = _keyword(plain_loader, "shuffle")
    if shuffle is not None and not m.matches(shuffle.value, m.Name("True") | m.Name("False")):
        return "the `else` branch's `shuffle=` is not `True` or `False`"
    if _others(ddp_loader) != _others(plain_loader):
        return "the two `DataLoader(...)` calls differ beyond `sampler=` / `shuffle=`"
    reads = set().union(*(collect_names(a.value).reads for a in ddp_loader.args if a is not given))
    if sampler in reads or loader in collect_names(sampler_value).reads:
        return f"the loader's other arguments read `{sampler}`"
    plain_shuffles = shuffle is not None and shuffle.value.value == "True"
    return sampler, ddp[0], ddp[1], plain_shuffles


def _joined(stmt: cst.If, found) -> tuple[cst.SimpleStatementLine, cst.SimpleStatementLine]:
    sampler, sampler_stmt, loader_stmt, plain_shuffles = found
    value = single_assign(sampler_stmt)[1]
    choice = cst.IfExp(test=stmt.test, body=value, orelse=cst.Name("None"))
    first = cst.SimpleStatementLine(
        body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(sampler))], value=choice)],
        leading_lines=stmt.leading_lines,
    )
    added = [("shuffle", cst.parse_expression(f"{sampler} is None"))] if plain_shuffles else []
    call = single_assign(loader_stmt)[1]
    second = with_keywords(loader_stmt, call, {"shuffle"}, added)
    second = second.with_changes(leading_lines=[])
    return first, second


def join_flag_loaders(
    module: cst.Module, lines, blamed: list[cst.CSTNode], names: Qualnames
) -> tuple[cst.Module, list[Split]]:
    """`module` with each `if <flag>: ... else: ...` among `blamed` that builds one loader
    in both branches (see the module docstring) written as the two statements of the
    one-line form; and the joins made (as tuple_bindings.py's Split, for `rejoin`)."""
    wanted = {id(node) for node in blamed if isinstance(node, cst.If)}
    if not wanted:
        return module, []
    joins: list[Split] = []

    def body(stmts) -> list:
        out = []
        for stmt in stmts:
            found = joinable(stmt, names) if id(stmt) in wanted else None
            if found is None:
                out.append(block(stmt))
                continue
            members = _joined(stmt, found)
            for member, old in zip(members, found[1:3]):
                lines.alias(member, old)
                lines.alias(member.body[0], old.body[0])
            joins.append(Split(stmt, members))
            out.extend(members)
        return out

    def block(stmt):
        return _rebuilt(stmt, body, (cst.FunctionDef, cst.If, cst.Else, cst.With), lines.alias)

    new_body = body(module.body)
    if not joins:
        return module, joins
    new_module = module.with_changes(body=new_body)
    lines.rebase(new_module)
    return new_module, joins
