"""A trainer class's parameter named like a name of the script, renamed before inlining (TL158).

    class Trainer:                                    class Trainer:
        def __init__(self, config, model):                def __init__(self, trainer_config, model):
            self.config = config                ->            self.trainer_config = trainer_config
            if config.device == "auto": ...                   if trainer_config.device == "auto": ...
        def run(self):                                    def run(self):
            model, config = self.model, self.config           model, trainer_config = (
            ...                                                   self.model, self.trainer_config)

    config = get_config()                             config = get_config()
    trainer = Trainer(config.trainer, model)          trainer = Trainer(config.trainer, model)

minGPT's project scripts (chargpt, adder) hand the trainer `config.trainer`, the trainer's part
of the script's own `config`, which the trainer calls `config` too. Inlined, the class's
`config` and the script's would be one name for two objects (TL174), and a callback reading
the script's `config` where the run method binds its own would read the wrong one (TL156).
So first the class's own `config` gets a name of its own, `<instance>_<name>`: the parameter
of `__init__` (and the keyword of the call giving it), in each method where it is a local
(a parameter or bound there, by Python's scopes), and the attribute `self.config` that holds
it, with the script's reads of `trainer.config`. The class then runs as before: only names
the class alone sees change. A method reading the script's `config` as a global keeps it.

Renamed only a parameter the call does not give the script's name of the same spelling
(`Trainer(config, ...)` names one object twice: nothing to rename), that the script also
spells (at any scope), of a class whose instance reaches no code outside the class that could
read the attribute under its old name: the script's only `X.config` outside the class are the
instance's in the block creating it, or `self.config` in the methods of its other classes.
"""

from __future__ import annotations

import symtable

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

from ..analysis.names import collect_names, file_identifiers, rename
from ..rule import Rule, Unsupported
from .trainer_inline import bind_call, run_blocks

RENAMED = Rule(
    "TL158",
    "a name of the trainer class also spelled by the script was renamed before inlining",
    """The class's `__init__` parameter (with the attribute storing it and the locals of its
    methods of that name) is given another object than the script's name of the same
    spelling (minGPT's `Trainer(config.trainer, ...)`, whose `__init__` calls it `config`).
    Inlined, the two would be one name: the class's is renamed `<instance>_<name>` first
    (`trainer_config`), everywhere it is the class's own, then the class is inlined (TL170).""",
    "Nothing to do; review the diff.",
    """
    class Runner:
        def __init__(self, config, net, data):
            self.config = config
            self.net = net
            self.data = data
            self.opt = torch.optim.SGD(net.parameters(), lr=config["lr"])

        def fit(self):
            for epoch in range(self.config["epochs"]):
                for x, y in self.data:
                    self.opt.zero_grad()
                    loss = criterion(self.net(x), y)
                    loss.backward()
                    self.opt.step()


    config = {"trainer": {"lr": 0.1, "epochs": 2}, "name": "run"}
    runner = Runner(config["trainer"], model, loader)
    runner.fit()
    print(config["name"])
    """,
    converts=True,
)

RULES = (RENAMED,)


def rename_clashing(module: cst.Module, cls: cst.ClassDef):
    """(text, origin, indent, at, message) of the script with the class's clashing names
    renamed, or None when there is none (or renaming is not certain: the inliner then says
    why it cannot inline)."""
    methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    init = methods.get("__init__")
    created = _created(module, cls.name.value)
    if init is None or created is None:
        return None
    block, scope, stmt, instance = created
    try:
        given = bind_call(init, stmt.body[0].value, cls.name.value, stmt, RENAMED, skip=1)
    except Unsupported:
        return None  # the inliner refuses the call
    spelled = _site_names(module, scope)
    taken = file_identifiers(module.code, "<renames>")
    renames, reads = {}, set()
    for param, value in given:
        if param in methods or m.matches(value, m.Name(param)):
            continue  # `self.config()` a method; `Trainer(config)` one object, one name
        if param in spelled:
            found = _instance_reads(module, cls, block, instance, param)
            if found is not None and _local_everywhere(cls, param):
                renames[param] = _fresh(f"{instance}_{param}", taken | set(renames.values()))
                reads |= found
    if not renames:
        return None
    new = module.visit(_Renamer(cls, stmt, renames, reads))
    lines = new.code.count("\n") + 1
    at = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)[cls].start
    shown = ", ".join(f"`{old}` -> `{fresh}`" for old, fresh in renames.items())
    message = (
        f"names of class `{cls.name.value}` that the script also spells, for another object, "
        f"renamed before inlining: {shown}"
    )
    return new.code, list(range(1, lines + 1)), [0] * lines, (at.line, at.column), message


def _site_names(module: cst.Module, scope) -> set[str]:
    """Names the class's code would meet where it is inlined: the module's own (bound or read
    at its top level, or read as globals by its functions), and the names of the function
    `scope` when the instance is created in one (CPython's symbol tables)."""
    try:
        top = symtable.symtable(module.code, "<site>", "exec")
    except SyntaxError:
        return collect_names(module).all()
    names = set(top.get_identifiers())
    stack = list(top.get_children())
    while stack:
        table = stack.pop()
        stack.extend(table.get_children())
        names |= {s.get_name() for s in table.get_symbols() if s.is_global()}
    if isinstance(scope, cst.FunctionDef):
        names |= collect_names(scope).all()
    return names


def _created(module: cst.Module, owner: str):
    """(block, its scope, statement, instance name) of the one `x = Owner(...)`."""
    found = [
        (block, scope, stmt)
        for block, scope, _ in run_blocks(module)
        for stmt in block
        if m.matches(
            stmt,
            m.SimpleStatementLine(
                [m.Assign([m.AssignTarget(m.Name())], m.Call(func=m.Name(owner)))]
            ),
        )
    ]
    if len(found) != 1:
        return None
    block, scope, stmt = found[0]
    return block, scope, stmt, stmt.body[0].targets[0].target.value


def _instance_reads(module, cls, block: list, instance: str, attr: str) -> set[int] | None:
    """ids of the script's `instance.attr` (renamed with the attribute), when outside `cls`
    the attribute `attr` is read only so, in the statements of the block creating the
    instance (not in a function there, whose `instance` may be another object), or as
    `self.attr` in the methods of the script's other classes (their own); else None: a
    function given the instance could read it under its old name."""
    inside = {id(a) for a in m.findall(cls, m.Attribute(attr=m.Name(attr)))}
    others = {
        id(a)
        for other in m.findall(module, m.ClassDef())
        if other is not cls
        for a in m.findall(other, m.Attribute(value=m.Name("self"), attr=m.Name(attr)))
    }
    read = m.Attribute(value=m.Name(instance), attr=m.Name(attr))
    nested = {
        id(a)
        for stmt in block
        for scope in m.findall(stmt, m.FunctionDef() | m.Lambda() | m.ClassDef())
        for a in m.findall(scope, read)
    }
    reads = {id(a) for stmt in block for a in m.findall(stmt, read)} - nested
    for found in m.findall(module, m.Attribute(attr=m.Name(attr))):
        if id(found) not in inside | others | reads:
            return None
    return reads


def _local_everywhere(cls: cst.ClassDef, name: str) -> bool:
    """In every method of `cls` spelling `name`, it is a local (parameter or bound) or a
    global read (the script's, kept): never `global`/`nonlocal`-declared, nor free in a
    nested function, nor read by `locals()` / `vars()` / `eval` / `exec`."""
    code = cst.Module(body=[cls]).code
    try:
        table = symtable.symtable(code, "<class>", "exec")
    except SyntaxError:
        return False
    stack = list(table.get_children())
    while stack:
        scope = stack.pop()
        stack.extend(scope.get_children())
        if name not in scope.get_identifiers():
            continue
        symbol = scope.lookup(name)
        if symbol.is_declared_global() or symbol.is_nonlocal() or symbol.is_free():
            return False
    dynamic = {"locals", "vars", "eval", "exec"}
    return not any(c.func.value in dynamic for c in m.findall(cls, m.Call(func=m.Name())))


def _fresh(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


class _Renamer(cst.CSTTransformer):
    """The class's methods with the names renamed where they are locals, `self.<name>` as
    `self.<fresh>`, the creating call's keywords, and the script's `instance.<name>` (the
    nodes `reads`)."""

    def __init__(self, cls, created, renames: dict[str, str], reads: set[int]) -> None:
        super().__init__()
        self.cls, self.created, self.renames, self.reads = cls, created, renames, reads

    def leave_FunctionDef(self, original, updated):
        if not any(original is s for s in self.cls.body.body):
            return updated
        # a parameter of another method keeps its name: a call could pass it by keyword
        is_init = original.name.value == "__init__"
        local = _locals(original, params=is_init) & set(self.renames)
        mapping = {name: cst.Name(self.renames[name]) for name in local}
        params = updated.params
        if mapping:
            params = params.visit(_ParamNames(mapping))
            body = rename(updated.body, mapping)
            updated = updated.with_changes(params=params, body=body)
        return updated.visit(_Attributes("self", self.renames))

    def leave_SimpleStatementLine(self, original, updated):
        if original is self.created:  # `Trainer(config=...)`: the keyword is the parameter
            call = updated.body[0].value
            args = [
                a.with_changes(keyword=cst.Name(self.renames[a.keyword.value]))
                if a.keyword is not None and a.keyword.value in self.renames
                else a
                for a in call.args
            ]
            return updated.with_changes(
                body=[updated.body[0].with_changes(value=call.with_changes(args=args))]
            )
        return updated

    def leave_Attribute(self, original, updated):
        if id(original) in self.reads:  # the script's `trainer.config`
            return updated.with_changes(attr=cst.Name(self.renames[updated.attr.value]))
        return updated


def _locals(function: cst.FunctionDef, params: bool) -> set[str]:
    """Names local to `function`: what its body binds (by its scope), and its parameters
    too with `params`; a parameter without it is none."""
    code = cst.Module(body=[function]).code
    table = next(iter(symtable.symtable(code, "<method>", "exec").get_children()))
    if params:
        return {s.get_name() for s in table.get_symbols() if s.is_local()}
    return {s.get_name() for s in table.get_symbols() if s.is_local() and not s.is_parameter()}


class _ParamNames(cst.CSTTransformer):
    def __init__(self, mapping: dict[str, cst.Name]) -> None:
        super().__init__()
        self.mapping = mapping

    def leave_Param(self, original, updated):
        new = self.mapping.get(updated.name.value)
        return updated.with_changes(name=new) if new is not None else updated


class _Attributes(cst.CSTTransformer):
    """`<receiver>.<name>` as `<receiver>.<fresh>`."""

    def __init__(self, receiver: str, renames: dict[str, str]) -> None:
        super().__init__()
        self.receiver, self.renames = receiver, renames

    def leave_Attribute(self, original, updated):
        if m.matches(updated.value, m.Name(self.receiver)) and updated.attr.value in self.renames:
            return updated.with_changes(attr=cst.Name(self.renames[updated.attr.value]))
        return updated
