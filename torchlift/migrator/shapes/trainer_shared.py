"""An attribute that is the caller's object under the caller's own name: one name for both.

    class GANTrainer:
        def __init__(self, generator, discriminator, config):
            self.G = generator                  <- stored unchanged
            self.D = discriminator
            ...

    def main():
        G, D = ...
        trainer = GANTrainer(G, D, cfg)         <- the caller's `D` is the object `self.D` holds
        trainer.train(loader)

Inlined (trainer_inline.py), `self.D` becomes the name `D` and `discriminator` is given the
caller's `D`: the caller's `D` and the attribute are then spelled alike. That is one meaning,
not two, when `__init__` stores the parameter as it is (`self.D = discriminator`, nothing
rebinding `discriminator` in `__init__` nor `self.D` in any method) and nothing rebinds the
caller's `D` from the creation to the end of its block (a later statement, `del`, a nested
function's `nonlocal`, a module function's `global`: Python's scopes, `symtable`). Otherwise
the name would name two objects: TL174, naming what rebinds it.

Only for a parameter named otherwise than the attribute (`discriminator` for `self.D`): one
named like it (`self.model = model`) is trainer_inline.py's `_shared`.
"""

from __future__ import annotations

import symtable
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from ..analysis.globals_read import nested_tables
from ..analysis.names import collect_names
from ..analysis.statements import statements

_STORES = m.Assign() | m.AugAssign() | m.AnnAssign()


@dataclass
class SharedNames:
    """attribute -> the `__init__` parameter it stores, for attributes proven to be the
    caller's object of the same name; attribute -> (why not, the statement that shows it)
    for the others given the caller's name."""

    params: dict[str, str] = field(default_factory=dict)
    refused: dict[str, tuple[str, cst.CSTNode]] = field(default_factory=dict)


def shared_names(module, cls, init_args, used, site) -> SharedNames:
    """Which attributes given an argument spelled like themselves are that very object.
    `init_args`: (parameter, argument) of `__init__`; `used`: method -> what it reads and
    stores (trainer_inline's _Method); `site`: where the script creates and runs it."""
    found = SharedNames()
    init = used["__init__"].node
    init_use = collect_names(init.body)
    owner = site.owner
    where = f"`{owner.name.value}()`" if isinstance(owner, cst.FunctionDef) else "the module"
    for attr in sorted(used["__init__"].stores):
        params = [p for p, v in init_args if m.matches(v, m.Name(attr)) and p != attr]
        if not params or attr in init_use.all() or attr in {p for p, _ in init_args}:
            continue  # not given the caller's `attr`, or `attr` means something else inside
        given = f"`self.{attr}` is {where}'s `{attr}`, given as `{params[0]}`"
        why = _stored_otherwise(module, init, attr, params, init_use)
        why = why or _rebound_by_methods(cls, attr, used)
        why = why or _rebound_by_script(module, site, attr, where)
        if why is None:
            found.params[attr] = _stores(init, attr)[0].value.value
        else:
            found.refused[attr] = (f"{given}, but {why[0]}", why[1])
    return found


def _stores(node: cst.CSTNode, attr: str) -> list:
    """The assignments to `self.attr` in `node`."""
    target = m.Attribute(m.Name("self"), m.Name(attr))
    return [
        store
        for store in m.findall(node, _STORES)
        for t in getattr(store, "targets", None) or [store]
        if m.matches(t.target, target) or m.findall(t.target, target)
    ]


def _stored_otherwise(module, init, attr: str, params: list[str], init_use):
    """(why, statement) when `__init__` sets `self.attr` to anything but one parameter given
    the caller's `attr`, kept as it was (a wrapper, a copy, a parameter it rebinds), or sets
    it only on some paths (it would read the caller's object where the class had none)."""
    stores = _stores(init, attr)
    for store in stores:
        value = store.value if isinstance(store, cst.Assign) else None
        if value is None or not m.matches(value, m.OneOf(*(m.Name(p) for p in params))):
            code = module.code_for_node(store)
            return f"`__init__` stores `{code}`, not that object", store
    if len({store.value.value for store in stores}) != 1:
        return f"`__init__` stores several parameters in `self.{attr}`", stores[-1]
    top = [x for s in init.body.body if isinstance(s, cst.SimpleStatementLine) for x in s.body]
    if not any(store is small for store in stores for small in top):
        return f"`__init__` sets `self.{attr}` only inside a compound statement", stores[0]
    for param in params:
        if param in init_use.writes:
            return f"`__init__` rebinds `{param}`", init
    return None


def _rebound_by_methods(cls: cst.ClassDef, attr: str, used):
    for name, info in used.items():
        if name != "__init__" and attr in info.stores:
            return f"`{cls.name.value}.{name}` rebinds `self.{attr}`", _stores(info.node, attr)[0]
    return None


def _rebound_by_script(module: cst.Module, site, name: str, where: str):
    """(why, statement) when the caller's `name` may name another object after the creation:
    a statement after it binding or deleting it, or another scope rebinding it (a nested
    function's `nonlocal`, a module function's `global`), which a call could run."""
    block = site.block
    for stmt in block[block.index(site.created) + 1 :]:
        if name in collect_names(stmt).writes or name in _deleted(stmt):
            created = _created(module, site)
            # the statement binding it, inside the `if` / `for` / `with` that holds it
            stmt = next((s for s in statements(stmt) if _binds(s, name)), stmt)
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):  # `nonlocal` / `global`
                return f"`{stmt.name.value}`, defined after `{created}`, rebinds `{name}`", stmt
            code = module.code_for_node(stmt).strip().splitlines()[0]
            return f"`{code}` rebinds `{name}` after `{created}`", stmt
    for scope in _rebinding_scopes(module, site.owner, name):
        return f"`{scope}()` rebinds {where}'s `{name}`", site.created
    return None


def _binds(stmt: cst.CSTNode, name: str) -> bool:
    """`stmt` binds `name` itself: a simple statement or a def (a compound statement's own
    header, `for name in ...`, is met as the compound statement, the fallback)."""
    if isinstance(stmt, (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef)):
        return name in collect_names(stmt).writes or name in _deleted(stmt)
    return False


def _deleted(stmt: cst.CSTNode) -> set[str]:
    """Names `del` unbinds in `stmt` (collect_names counts no binding there)."""
    found = set()
    for deletion in m.findall(stmt, m.Del()):
        target = deletion.target
        targets = [e.value for e in target.elements] if isinstance(target, cst.Tuple) else [target]
        found |= {t.value for t in targets if isinstance(t, cst.Name)}
    return found


def _created(module: cst.Module, site) -> str:
    assign = site.created.body[0]
    if isinstance(assign, cst.Assign):
        return f"{module.code_for_node(assign.targets[0].target)} = {site.call.func.value}(...)"
    return f"{site.call.func.value}(...)"


def _rebinding_scopes(module: cst.Module, owner, name: str) -> list[str]:
    """Functions assigning `name` of `owner`'s scope from a scope of their own: through
    `nonlocal` when it is a local of the function `owner`, through `global` otherwise."""
    top = symtable.symtable(module.code, "<module>", "exec")
    if isinstance(owner, cst.FunctionDef):
        tables = [t for t in top.get_children() if t.get_name() == owner.name.value]
        if len(tables) == 1 and _symbol(tables[0], name, "is_local"):
            return [
                t.get_name() for t in nested_tables(tables[0]) if _assigned(t, name, "is_nonlocal")
            ]
    return [t.get_name() for t in nested_tables(top) if _assigned(t, name, "is_declared_global")]


def _symbol(table: symtable.SymbolTable, name: str, kind: str) -> bool:
    return name in table.get_identifiers() and getattr(table.lookup(name), kind)()


def _assigned(table: symtable.SymbolTable, name: str, kind: str) -> bool:
    return _symbol(table, name, kind) and table.lookup(name).is_assigned()
