"""A trainer class's attribute or method named like another name where it is inlined, renamed
first (TL159).

    class Runner:                                  class Runner:
        def __init__(self, env):                       def __init__(self, env):
            self.obs = env.reset()          ->             self.runner_obs = env.reset()
        def update(self, obs): ...                     def runner_update(self, obs): ...
        def run(self):                                 def run(self):
            for update in range(9):                        for update in range(9):
                obs = self.collect()                           obs = self.collect()
                self.update(obs)                               self.runner_update(obs)

Inlined, `self.obs` becomes the name `obs` and the method `update()` the function `update`:
each would then share its spelling with a local of `run()` (the rollout's `obs`, the loop's
`update`), which the inliner refuses (TL174). The user's locals keep their names; the class's
side, which inlining flattens, gets a name of its own, `<instance>_<name>` (the class's name
lowered when the script never names the instance), bound nowhere in the file (CPython's
symbol tables) nor used as an attribute. Renamed: every `self.<name>` of the class's methods
whose `self` is the method's first parameter, the `def` of a method, and the script's
`<instance>.<name>` reading the instance the class is inlined for (libcst's scopes, not the
spelling). The class then runs exactly as before, and the inliner is asked again, until it
meets no clash or one it cannot rename.

Not renamed (the inliner's TL174 stands, saying why): a name that is neither an attribute nor
a method of the class (a parameter, a local), or both; a dunder or name-mangled (`__x`) name;
one the class itself spells as `Runner.<name>` (a kept static member); an `<x>.<name>` whose
`x` may or may not be the instance; and any name at all when the file reads or runs names by
their spelling: `exec` / `eval`, `globals()` / `locals()` / `vars()`. (`getattr(self, key)`,
`vars(self)` or `self.__dict__` are refused by the inliner already, TL172.)
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider

from ..analysis.names import file_identifiers
from ..rule import Rule, Unsupported
from .trainer_class import NAME_CLASH, NameClash
from .trainer_inline import inline_trainer_class, rebound_attrs

RENAMED_CLASH = Rule(
    "TL159",
    "an attribute or method of the trainer class was renamed: inlined, its name meant two things",
    """Inlining turns `self.obs` into the name `obs` and the method `update()` into a function
    `update`. When a local of a method (`obs = self.collect()`, `for update in ...`), or a
    name of the script, has that spelling, the class's side is renamed first,
    `<instance>_<name>` (`runner_obs`, `runner_update`), at every `self.<name>` of its methods
    and every `<instance>.<name>` of the script; the new name is bound nowhere in the file.
    Then the class is inlined (TL170). A file reading names by their spelling (`exec`,
    `eval`, `globals()`, `locals()`) is not renamed (TL174).""",
    "Nothing to do; review the diff (or rename one of the two names yourself).",
    """
    class Runner:
        def __init__(self, net, data):
            self.net = net
            self.data = data
            self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
            self.x = torch.zeros(4)

        def fit(self, epochs):
            for epoch in range(epochs):
                for x, y in self.data:
                    self.opt.zero_grad()
                    loss = criterion(self.net(x), y)
                    loss.backward()
                    self.opt.step()
            print(self.x)


    runner = Runner(model, loader)
    runner.fit(2)
    """,
    converts=True,
)

RULES = (RENAMED_CLASH,)

_DYNAMIC_CALLS = ("exec", "eval", "globals", "locals", "vars")
_ROUNDS = 20  # each round renames one name; a class has far fewer clashing names


def rename_clashes(module: cst.Module, cls: cst.ClassDef, loops):
    """(text, origin, indent, at, message) of the script with the class's clashing attributes
    and methods renamed, or None when inlining meets no clash (or first one it cannot rename:
    the inliner then refuses, TL174). Unsupported (TL174) when a clash could be renamed but
    the file reaches names by their spelling."""
    at = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)[cls].start
    order = [id(n) for n in m.findall(module, m.For() | m.While())]
    wanted = [order.index(id(loop)) for loop in loops if id(loop) in order]
    renames: list[tuple[str, str, str]] = []  # (kind, old, new)
    current, owner = module, cls
    for _ in range(_ROUNDS):
        found = m.findall(current, m.For() | m.While())
        try:
            inline_trainer_class(current, owner, [found[i] for i in wanted])
            break
        except NameClash as clash:
            try:
                step = _rename_one(current, owner, clash, {new for _, _, new in renames})
            except Unsupported:
                if not renames:
                    raise
                break  # told in the lines of the renamed script, when it is migrated again
            if step is None:
                break
            current, kind, fresh = step
            renames.append((kind, clash.name, fresh))
            owner = next(
                s for s in current.body if m.matches(s, m.ClassDef(name=m.Name(cls.name.value)))
            )
        except Unsupported:
            break
    if not renames:
        return None
    lines = current.code.count("\n") + 1
    shown = ", ".join(f"{kind} `{old}` -> `{new}`" for kind, old, new in renames)
    message = (
        f"names of class `{cls.name.value}` that would mean two things once inlined renamed "
        f"first: {shown}"
    )
    return current.code, list(range(1, lines + 1)), [0] * lines, (at.line, at.column), message


def _rename_one(module: cst.Module, cls: cst.ClassDef, clash: NameClash, chosen: set[str]):
    """(module, kind, fresh name) with the clashing attribute or method renamed, None when
    the name is not one the class alone owns; Unsupported when the file could reach it by its
    spelling."""
    name = clash.name
    methods = {s.name.value for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    is_method, is_attr = name in methods, name in rebound_attrs(cls)
    if is_method == is_attr:  # neither (a parameter, a local), or both: not the class's own
        return None
    if name.startswith("__"):  # a dunder, or mangled to `_Runner__x` by the class
        return None
    if m.findall(module, m.Attribute(m.Name(cls.name.value), m.Name(name))):
        return None  # `Runner.<name>`: reached through the class, kept members
    _check_spelling(module, clash)
    nodes = _receivers(module, cls, clash.binding, name)
    if nodes is None:
        return None
    prefix = clash.instance or cls.name.value.lower()
    every_attr = {a.attr.value for a in m.findall(module, m.Attribute())}
    taken = file_identifiers(module.code, "<clashes>") | every_attr | methods | chosen
    fresh = _fresh(f"{prefix}_{name}", taken)
    renamed = module.visit(_Rename(cls, name, fresh, nodes, is_method))
    return renamed, "method" if is_method else "attribute", fresh


def _check_spelling(module: cst.Module, clash: NameClash) -> None:
    """Unsupported (TL174, at the clash) naming the first call that reads or runs names by
    their spelling (`exec`, `globals()`), and its line. `getattr(x, name)` and `x.__dict__`
    need no such care: the inliner has refused (TL172) any `self` or instance handed to a
    function or read whole, so they reach other objects only."""
    for call in m.findall(module, m.Call(func=m.Name())):
        called = call.func.value
        if called in _DYNAMIC_CALLS and not (called == "vars" and call.args):
            shown = f"`{called}(...)`" if called in ("exec", "eval") else f"`{called}()`"
            line = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
            raise Unsupported(
                NAME_CLASH,
                f"{clash.reason.removesuffix(': rename one of them')}; not renamed, as "
                f"{shown} at line {line[call].start.line} reads names by their spelling: "
                "rename one of them",
                clash.node,
            )


def _receivers(module: cst.Module, cls: cst.ClassDef, binding, name: str) -> set[int] | None:
    """ids of the `x.<name>` nodes reaching the class's instance: `x` the first parameter of
    one of its methods, or the name the script binds the instance to (`binding`, the target
    of `runner = Runner(...)`), by libcst's scopes. None when some `x` may be either that or
    something else."""
    own = {
        id(f.params.params[0])
        for f in cls.body.body
        if isinstance(f, cst.FunctionDef) and f.params.params
    }
    if binding is not None:
        own.add(id(binding))
    scopes = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
    referents: dict[int, set[int]] = {}
    for scope in {s for s in scopes.values() if s is not None}:
        for access in scope.accesses:
            found = {id(getattr(r, "node", None)) for r in access.referents}
            referents.setdefault(id(access.node), set()).update(found)
    nodes = set()
    for attr in m.findall(module, m.Attribute(value=m.Name(), attr=m.Name(name))):
        found = referents.get(id(attr.value), set())
        if found and found <= own:
            nodes.add(id(attr))
        elif found & own:
            return None
    return nodes


def _fresh(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


class _Rename(cst.CSTTransformer):
    """The attribute nodes `nodes` as `.<fresh>`, and the method's `def` when it is one."""

    def __init__(self, cls, old: str, fresh: str, nodes: set[int], method: bool) -> None:
        super().__init__()
        self.cls, self.old, self.fresh, self.nodes, self.method = cls, old, fresh, nodes, method

    def leave_Attribute(self, original, updated):
        if id(original) in self.nodes:
            return updated.with_changes(attr=cst.Name(self.fresh))
        return updated

    def leave_FunctionDef(self, original, updated):
        owned = any(original is s for s in self.cls.body.body)
        if self.method and owned and original.name.value == self.old:
            return updated.with_changes(name=cst.Name(self.fresh))
        return updated
