"""A scheduler function of the script choosing its scheduler by a setting known before the run.

    class CFG:
        scheduler = 'CosineAnnealingLR'

    def get_scheduler(cfg, optimizer):
        if cfg.scheduler == 'ReduceLROnPlateau':          False for this call: left out
            scheduler = ReduceLROnPlateau(optimizer, ...)
        elif cfg.scheduler == 'CosineAnnealingLR':        True: the scheduler it builds
            scheduler = CosineAnnealingLR(optimizer, ...)
        return scheduler

    scheduler = get_scheduler(CFG, optimizer)     -> read as `CosineAnnealingLR(optimizer, ...)`

A Kaggle notebook's `get_scheduler` builds one of several schedulers by name. For one call,
each `if` of the function whose test reads only settings is decided: a parameter is replaced
by what the call gives it (a literal, its default, or a name of the caller's), then
`CFG.field` of a settings class, `cfg.field` of a `@dataclass` instance and `config["key"]`
of a dict the script only ever reads hold their literal (known_branches.setting_literal), and a
module global bound once to a literal, never rebound, holds it. The function is then read as
the branch it takes (scheduler_factories.py). The conversion still calls the function as
written, and it takes the same branch: nothing changes those settings.

Not decided (the function stays "several schedulers", TL186, naming the test and why): a test
reading anything else -- a setting the script writes, a local of the function, a parameter it
rebinds or the call gives an expression -- or a call outside the loop's scope handing a name
the loop's function binds too (the settings are read in the loop's scope).
"""

from __future__ import annotations

import symtable

import libcst as cst
import libcst.matchers as m

from ..analysis.branches import decide, resolve
from ..analysis.globals_read import function_locals, rebound_through_global
from ..analysis.loader_length import config_item_problem, setting_problem
from ..analysis.names import collect_names, only_module_binding
from ..analysis.statements import single_assign
from ..source.code_text import code_of

_CONSTANTS = frozenset({"True", "False", "None"})


def chosen_body(ctx, function: cst.FunctionDef, bound, call: cst.Call):
    """(`function` with each `if` the call's settings decide replaced by the branch taken, the
    decided (`if`, taken) pairs). `bound`: (parameter, argument or default) of the call."""
    reader = _Reader(ctx, function, bound or (), call)
    decided: list = []
    body = resolve(list(function.body.body), reader.decide, decided)
    return function.with_changes(body=function.body.with_changes(body=body)), decided


def why_undecided(ctx, function: cst.FunctionDef, bound, call: cst.Call, test) -> str:
    """Why the `if` test of `function` is not decided for `call`, for a message."""
    return _Reader(ctx, function, bound or (), call).why(test)


class _Reader:
    """The values a call of `function` gives the names of its `if` tests."""

    def __init__(self, ctx, function, bound, call) -> None:
        self.ctx = ctx
        code = ctx.module.code_for_node(function).lstrip()
        table = symtable.symtable(code, "<choice>", "exec").get_children()[0]
        self.local = {s.get_name() for s in table.get_symbols() if s.is_local()}
        in_loop_scope = any(any(c is call for c in m.findall(s, m.Call())) for s in ctx.before)
        self.given: dict[str, cst.BaseExpression] = {}
        for param, value in bound:
            if table.lookup(param).is_assigned():
                continue  # rebound in the function: the call's value does not reach the test
            if isinstance(value, cst.Name) and value.value not in _CONSTANTS:
                # settings are read in the loop's scope: the caller's name must mean the same
                if (
                    not in_loop_scope
                    and ctx.in_function
                    and (value.value in ctx.params or value.value in function_locals(ctx))
                ):
                    continue
            elif not _is_literal(value):
                continue
            self.given[param] = value

    def decide(self, test) -> bool | None:
        known = self._known(test)
        return None if isinstance(known, str) else decide(known[0], known[1])

    def why(self, test) -> str:
        known = self._known(test)
        return known if isinstance(known, str) else "its test compares values it cannot decide"

    def _known(self, test):
        """(the test with settings replaced by literals, the module literals its remaining
        names hold), or why not."""
        for name in sorted(collect_names(test).reads):
            if name in self.local and name not in self.given:
                return f"it reads `{name}`, which the call does not fix to a setting or literal"
        test = test.visit(_Arguments(self.given))
        settings = test.visit(_Literals(self.ctx))
        known = {}
        for name in sorted(collect_names(settings).reads - _CONSTANTS):
            value = _module_literal(self.ctx, name)
            if value is None:
                return self._unread(test, name)
            known[name] = value
        return settings, known

    def _unread(self, test, name: str) -> str:
        for node in m.findall(
            test, m.Attribute(value=m.Name(name)) | m.Subscript(value=m.Name(name))
        ):
            if isinstance(node, cst.Attribute):
                problem = setting_problem(self.ctx, node)
            else:
                problem = config_item_problem(self.ctx, node)
            if problem:
                shown = code_of(node, self.ctx.module)
                return f"`{shown}` is not read as a setting: {problem}"
        binding = only_module_binding(self.ctx.module, name)
        assign = single_assign(binding) if binding is not None else None
        if assign is not None and assign[0] == name:  # `args = parser.parse_args()`
            return (
                f"`{name}` is bound to `{code_of(assign[1], self.ctx.module)}`, whose value is "
                "known only when the script runs (a setting is a class of literals, a "
                "`@dataclass` instance's default or a dict literal the script only reads)"
            )
        return f"`{name}` is neither a setting nor a global bound once to a literal"


class _Arguments(cst.CSTTransformer):
    """Each parameter replaced by what the call gives it (an attribute's name is no
    mention: `x.cfg`)."""

    def __init__(self, given) -> None:
        super().__init__()
        self.given = given

    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)

    def leave_Name(self, original, updated):
        return self.given.get(original.value, updated)


class _Literals(cst.CSTTransformer):
    """Each setting (`CFG.field`, `cfg.field`, `config["key"]`) replaced by its literal."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx

    def leave_Attribute(self, original, updated):
        return _setting(self.ctx, updated) or updated

    def leave_Subscript(self, original, updated):
        return _setting(self.ctx, updated) or updated


def _setting(ctx, node):
    from .known_branches import setting_literal  # known_branches reads factories in turn

    return setting_literal(ctx, node)


def _is_literal(value) -> bool:
    return isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)) or m.matches(
        value, m.Name("True") | m.Name("False") | m.Name("None")
    )


def _module_literal(ctx, name: str):
    """The value of a module global bound once to a literal, which no function rebinds
    (`global`) and no `exec` / `globals()` may rebind behind it; None otherwise."""
    from .known_branches import _rebinds_globals

    if name in rebound_through_global(ctx) or _rebinds_globals(ctx) is not None:
        return None
    found = single_assign(only_module_binding(ctx.module, name))
    if found is None or found[0] != name:
        return None
    value = found[1]
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
        return value.evaluated_value
    if m.matches(value, m.Name("True") | m.Name("False")):
        return value.value == "True"
    return None
