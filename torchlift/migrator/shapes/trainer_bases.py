"""A trainer class whose base class is defined in the same file, flattened into one class
before it is inlined (TL340).

    class BaseTrainer:                                 class Trainer:
        def __init__(self, model, epochs):                 def __init__(self, model, epochs, loader):
            self.model, self.epochs = model, epochs            self.basetrainer_init(model, epochs)
        def _train_epoch(self, epoch):         ->              self.loader = loader
            raise NotImplementedError                      def _train_epoch(self, epoch):
        def train(self):                                       for x, y in self.loader: ...
            for epoch in range(self.epochs):               def train(self):
                self._train_epoch(epoch)                       for epoch in range(self.epochs): ...
                                                           def basetrainer_init(self, model, epochs):
    class Trainer(BaseTrainer):                                self.model, self.epochs = model, epochs
        def __init__(self, model, epochs, loader):
            super().__init__(model, epochs)
            self.loader = loader
        def _train_epoch(self, epoch):
            for x, y in self.loader: ...

The pytorch-template shape: an abstract `BaseTrainer` holding the epoch loop (`train()`), a
`Trainer(BaseTrainer)` holding the batch loop (`_train_epoch`). The instance's methods are
found the way Python finds them (the method resolution order of a single base rooted at
`object`): the subclass's own methods win, the base's others are copied into it, a base
method the subclass overrides but reaches with `super().name(...)` is kept under a name of
its own (`<base>_<name>`, bound nowhere in the file) and `super().name(` calls it on `self`;
the base class, used nowhere else, goes. The one class is then inlined (TL170).

Flattened only when nothing else could tell the two classes apart; otherwise refused (TL133,
naming the base and why): the base used other than as this base (instantiated, in
`isinstance`, subclassed twice), several bases or a base of its own, a decorator, keyword or
metaclass, class-level code, decorated methods (an `@abstractmethod` is allowed: without
`ABCMeta` it only marks the method, which the subclass must then define), `super()` or
name-mangled `__x` names in the base (they would mean another class once moved), defaults
that are not constants (evaluated where the base is defined), and a `super()` of the
subclass that is not `super().name(...)` naming a method the base defines. A base class that
is imported is not seen: the inliner's TL133 stands.
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

from ..analysis.names import collect_names, file_identifiers
from ..rule import Rule, Unsupported
from .trainer_class import TRAINER_CLASS

FLATTENED = Rule(
    "TL340",
    "a trainer class and its base class defined in the same file were flattened into one class",
    """The subclass's methods win, the base's others are copied into it, a base method the
    subclass overrides but calls with `super().name(...)` is kept as `<base>_<name>` and
    called on `self`; the base class, used nowhere else, is removed. The one class is then
    inlined where the script runs it (TL170). Refused (TL133, naming the base and why) when
    anything could tell the flat class from the pair: the base used elsewhere, several bases,
    a metaclass or decorators, class-level code, decorated methods other than
    `@abstractmethod`, an abstract method the subclass does not define, `super()` or
    `__private` names in the base, defaults that are not constants.""",
    "Nothing to do; review the diff.",
    """
    class BaseRunner:
        def __init__(self, net, data):
            self.net = net
            self.data = data

        def fit(self, epochs):
            for epoch in range(epochs):
                self.run_epoch()


    class Runner(BaseRunner):
        def __init__(self, net, data):
            super().__init__(net, data)
            self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

        def run_epoch(self):
            for x, y in self.data:
                self.opt.zero_grad()
                loss = criterion(self.net(x), y)
                loss.backward()
                self.opt.step()


    runner = Runner(model, loader)
    runner.fit(2)
    """,
    converts=True,
)

RULES = (FLATTENED,)

_DOCSTRING = m.SimpleStatementLine([m.Expr(m.SimpleString())])
_CONSTANT = (
    m.Integer() | m.Float() | m.SimpleString() | m.Name("None") | m.Name("True") | m.Name("False")
)


def flatten_bases(module: cst.Module, cls: cst.ClassDef):
    """(text, origin, indent, at, message) of the script with `cls` and its base class (one,
    defined at module level in the file) flattened into `cls`; None when `cls` has no base
    the file defines. Unsupported (TL133) naming the base when flattening could change what
    runs."""
    if not cls.bases or cls.decorators or cls.keywords:
        return None
    defined = {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}
    named = [b.value.value for b in cls.bases if m.matches(b.value, m.Name())]
    own = [n for n in named if n in defined and n != "object"]
    if not own:
        return None  # imported (or an expression): the inliner's TL133 stands
    name = cls.name.value
    if len(cls.bases) != 1 or cls.bases[0].star or cls.bases[0].keyword:
        _refuse(f"class `{name}` has several base classes (`{own[0]}` among them)", cls)
    base = defined[own[0]]
    _check_base(module, cls, base)
    return _Flattener(module, cls, base).text()


def _refuse(reason: str, node) -> None:
    raise Unsupported(TRAINER_CLASS, f"{reason}: the class hierarchy is not flattened", node)


def _check_base(module: cst.Module, cls: cst.ClassDef, base: cst.ClassDef) -> None:
    name, bname = cls.name.value, base.name.value
    body = list(module.body)
    if sum(1 for s in body if isinstance(s, cst.ClassDef) and s.name.value == bname) != 1:
        _refuse(f"base class `{bname}` is defined more than once", base)
    if body.index(base) > body.index(cls):
        _refuse(f"base class `{bname}` is defined after `{name}`", base)
    # the base's name: its `class` line and `cls`'s base, nowhere else (flattening removes it)
    mentions = [n for n in m.findall(module, m.Name(bname)) if n is not base.name]
    if len(mentions) != 1:
        other = next(n for n in mentions if n is not cls.bases[0].value)
        _refuse(f"base class `{bname}` is used elsewhere than as `{name}`'s base", other)
    if base.decorators or base.keywords:
        _refuse(f"base class `{bname}` has decorators, keywords or a metaclass", base)
    if any(not m.matches(b, m.Arg(value=m.Name("object"), keyword=None)) for b in base.bases):
        shown = ", ".join(cst.Module([]).code_for_node(b.value) for b in base.bases)
        _refuse(f"base class `{bname}` has a base class of its own (`{shown}`)", base)
    stmts = list(base.body.body)
    if stmts and m.matches(stmts[0], _DOCSTRING):
        stmts = stmts[1:]
    overridden = {s.name.value for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    for stmt in stmts:
        if not isinstance(stmt, cst.FunctionDef):
            _refuse(f"base class `{bname}` holds code other than methods", stmt)
        method = stmt.name.value
        abstract = [d for d in stmt.decorators if _is_abstract(d)]
        if len(abstract) != len(stmt.decorators):
            _refuse(f"`{bname}.{method}` is decorated", stmt)
        if abstract and method not in overridden:
            _refuse(f"`{bname}.{method}` is abstract and `{name}` does not define it", stmt)
        for param in _all_params(stmt.params):
            if param.default is not None and not _constant(param.default):
                _refuse(
                    f"`{bname}.{method}` has a default that is not a constant (evaluated where "
                    f"`{bname}` is defined)",
                    param,
                )
    if m.findall(base, m.Name("super") | m.Name("__class__")):
        _refuse(f"base class `{bname}` calls `super()` or reads `__class__`", base)
    mangled = [
        n
        for n in m.findall(base, m.Name() | m.Attribute())
        for ident in [n.value if isinstance(n, cst.Name) else n.attr.value]
        if ident.startswith("__") and not ident.endswith("__")
    ]
    if mangled:
        _refuse(f"base class `{bname}` uses a private `__name` (mangled with its class name)", base)
    base_methods = {s.name.value for s in stmts if isinstance(s, cst.FunctionDef)}
    for use in m.findall(cls, m.Name("super")):
        if _super_call(cls, use) not in base_methods:
            _refuse(
                f"`{name}` uses `super()` other than `super().name(...)` calling a method "
                f"`{bname}` defines",
                use,
            )


def _is_abstract(decorator: cst.Decorator) -> bool:
    return m.matches(
        decorator.decorator,
        m.Name("abstractmethod") | m.Attribute(m.Name("abc"), m.Name("abstractmethod")),
    )


def _all_params(params: cst.Parameters):
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def _constant(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return m.matches(node, _CONSTANT)


def _super_calls(cls: cst.ClassDef):
    """The `super().name(...)` / `super(Cls, self).name(...)` calls directly in `cls`'s
    methods (not in a nested function or class, where `super()` means something else)."""
    found = []
    for method in cls.body.body:
        if not isinstance(method, cst.FunctionDef):
            continue
        first = method.params.params[0].name.value if method.params.params else None
        allowed = m.Call(func=m.Name("super"), args=[]) | m.Call(
            func=m.Name("super"), args=[m.Arg(m.Name(cls.name.value)), m.Arg(m.Name(first or ""))]
        )
        for call in m.findall(method.body, m.Call(func=m.Attribute(value=allowed))):
            if not _nested(method, call):
                found.append(call)
    return found


def _nested(method: cst.FunctionDef, node) -> bool:
    for inner in m.findall(method.body, m.FunctionDef() | m.ClassDef() | m.Lambda()):
        if any(n is node for n in m.findall(inner, m.Call())):
            return True
    return False


def _super_call(cls: cst.ClassDef, use: cst.Name) -> str | None:
    """The method name a `super` name calls as `super().name(...)`, None otherwise."""
    for call in _super_calls(cls):
        if call.func.value.func is use:
            return call.func.attr.value
    return None


_FROM_ABC = re.compile(r"^from\s+abc\s+import\s+([\w\s,]+?)\s*$")


def _without_unread_abstractmethod(out: list[str], origin: list[int]):
    """`out` without `abstractmethod` in a one-line `from abc import ...` when the flat text
    reads it nowhere else: its decorators went with the base's abstract methods, and an import
    the conversion leaves unused is dropped (emit/unused_imports.py, which compares the flat
    text with the output and so would keep it)."""
    imports = [i for i, line in enumerate(out) if _FROM_ABC.match(line)]
    uses = [
        i
        for i, line in enumerate(out)
        if re.search(r"\babstractmethod\b", line) and i not in imports
    ]
    if uses or len(imports) != 1:
        return out, origin
    i = imports[0]
    names = [n.strip() for n in _FROM_ABC.match(out[i]).group(1).split(",")]
    if "abstractmethod" not in names:
        return out, origin
    kept = [n for n in names if n and n != "abstractmethod"]
    if kept:
        return [*out[:i], f"from abc import {', '.join(kept)}", *out[i + 1 :]], origin
    return out[:i] + out[i + 1 :], origin[:i] + origin[i + 1 :]


class _Flattener:
    """The flat script's text, built from the original lines so that every line knows
    where it came from (the findings of the conversion are told in the original's lines)."""

    def __init__(self, module: cst.Module, cls: cst.ClassDef, base: cst.ClassDef) -> None:
        self.module, self.cls, self.base = module, cls, base
        self.pos = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        self.lines = module.code.split("\n")
        self.init_body = None

    def text(self):
        cls, base, pos = self.cls, self.base, self.pos
        name, bname = cls.name.value, base.name.value
        own = {s.name.value for s in cls.body.body if isinstance(s, cst.FunctionDef)}
        called = {c.func.attr.value for c in _super_calls(cls)}
        taken = (
            file_identifiers(self.module.code, "<bases>")
            | {a.attr.value for a in m.findall(self.module, m.Attribute())}
            | own
        )
        kept: dict[str, str] = {}  # base method -> its name in the flat class
        for stmt in base.body.body:
            if not isinstance(stmt, cst.FunctionDef):
                continue
            method = stmt.name.value
            if method not in own:
                kept[method] = method
            elif method == "__init__" and self._init_inlined(own):
                continue  # its body runs in place of `super().__init__(...)`
            elif method in called:
                fresh = f"{bname.lower()}_{method.strip('_')}"
                while fresh in taken:
                    fresh += "_"
                taken.add(fresh)
                kept[method] = fresh
        renamed = any(b != f for b, f in kept.items())
        header = pos[cls].start.line
        flat_header = re.sub(
            rf"^(\s*class\s+{name})\s*\(\s*{bname}\s*,?\s*\)\s*:", r"\1:", self.lines[header - 1]
        )
        if flat_header == self.lines[header - 1]:
            _refuse(f"class `{name}`'s `class` line is not one line naming `{bname}`", cls)
        edits: dict[int, list[tuple[int, int, str]]] = {header: []}
        for call in _super_calls(cls):
            if self.init_body is not None and call is self.init_call:
                continue
            start, end = pos[call.func.value].start, pos[call.func.attr].end
            if start.line != end.line:
                _refuse(f"`{name}`'s `super()` call spans lines", call)
            target = kept[call.func.attr.value]
            edits.setdefault(start.line, []).append((start.column, end.column, f"self.{target}"))
        out: list[str] = []
        origin: list[int] = []
        b0, b1 = pos[base].start.line, pos[base].end.line
        while b1 < len(self.lines) and not self.lines[b1].strip():
            b1 += 1  # the blank lines after the base go with it
        c1 = pos[cls].end.line
        s0 = s1 = 0
        if self.init_body is not None:
            s0, s1 = pos[self.init_stmt].start.line, pos[self.init_stmt].end.line
        for number, line in enumerate(self.lines, start=1):
            if b0 <= number <= b1 or s0 < number <= s1:
                continue
            if number == s0:
                self._inline_init(out, origin, number)
                continue
            if number == header:
                line = flat_header
            for start, end, new in sorted(edits.get(number, []), reverse=True):
                line = line[:start] + new + line[end:]
            out.append(line)
            origin.append(number)
            if number == c1:
                self._append_methods(kept, out, origin)
        shown = ", ".join(f"`{b}`" if b == f else f"`{b}` as `{f}`" for b, f in kept.items())
        message = (
            f"class `{name}` flattened with its base class `{bname}` (defined in this file): "
            f"{shown or 'no other method'} copied into it"
            + (
                f"; `{bname}.__init__`'s body runs in place of `super().__init__(...)`"
                if self.init_body is not None
                else ""
            )
            + (", `super()` calls call the kept methods on `self`" if renamed else "")
        )
        at = (pos[cls].start.line, pos[cls].start.column)
        out, origin = _without_unread_abstractmethod(out, origin)
        return "\n".join(out), origin, [0] * len(out), at, message

    def _init_inlined(self, own: set[str]) -> bool:
        """Whether `super().__init__(...)` is a statement of its own in `cls`'s `__init__`
        whose call binds the base's parameters to the very names it passes or to names
        `cls.__init__` does not otherwise use, and the base's `__init__` a body without
        `return` binding no name `cls.__init__` uses: then that body runs in its place
        (bindings first), and the trainer's attributes are set where the class is inlined."""
        if "__init__" not in own:
            return False
        init = _method(self.cls, "__init__")
        base_init = _method(self.base, "__init__")
        calls = [c for c in _super_calls(self.cls) if c.func.attr.value == "__init__"]
        if len(calls) != 1:
            return False
        call = calls[0]
        stmt = next(
            (
                s
                for s in init.body.body
                if m.matches(s, m.SimpleStatementLine([m.Expr()])) and s.body[0].value is call
            ),
            None,
        )
        params = base_init.params
        if stmt is None or isinstance(params.star_arg, cst.Param) or params.star_kwarg:
            return False
        if params.posonly_params or params.kwonly_params or not params.params:
            return False
        if m.findall(base_init.body, m.Return() | m.Yield() | m.Global() | m.Nonlocal()):
            return False
        first = params.params[0].name.value
        if not init.params.params or first != init.params.params[0].name.value:
            return False
        names = [p.name.value for p in params.params[1:]]
        bound: dict[str, cst.BaseExpression] = {}
        for i, arg in enumerate(call.args):
            if arg.star:
                return False
            if arg.keyword is None and i < len(names):
                bound[names[i]] = arg.value
            elif arg.keyword is not None and arg.keyword.value in set(names) - set(bound):
                bound[arg.keyword.value] = arg.value
            else:
                return False
        for p in params.params[1:]:
            if p.name.value not in bound:
                if p.default is None:
                    return False
                bound[p.name.value] = p.default
        uses = collect_names(init.body).all() | {p.name.value for p in _all_params(init.params)}
        bindings = []
        for p in names:
            if m.matches(bound[p], m.Name(p)):
                continue  # passed as the very name: already bound
            if p in uses:
                return False
            bindings.append((p, bound[p]))
        # a local of the base's `__init__` named like a name of `cls.__init__`, or a global
        # it reads that `cls.__init__` binds: either would mean another thing once moved
        base_use = collect_names(base_init.body)
        local = collect_names(init.body).writes | {p.name.value for p in _all_params(init.params)}
        if base_use.writes & uses:  # a parameter passed as itself rebound, too
            return False
        if (base_use.reads - set(bound) - {first}) & local:
            return False
        body = list(base_init.body.body)
        if body and m.matches(body[0], _DOCSTRING):
            body = body[1:]
        if not body or _indent(body[0], self.pos, self.lines) != _indent(
            stmt, self.pos, self.lines
        ):
            return False
        self.init_stmt, self.init_call = stmt, call
        self.init_body, self.init_bindings = body, bindings
        return True

    def _inline_init(self, out: list[str], origin: list[int], number: int) -> None:
        indent = _indent(self.init_stmt, self.pos, self.lines)
        for p, value in self.init_bindings:
            out.append(f"{indent}{p} = {self.module.code_for_node(value)}")
            origin.append(number)
        first = self.pos[self.init_body[0]].start.line
        last = self.pos[self.init_body[-1]].end.line
        for line in range(first, last + 1):
            out.append(self.lines[line - 1])
            origin.append(line)

    def _append_methods(self, kept: dict[str, str], out: list[str], origin: list[int]) -> None:
        cls_indent = _indent(self.cls.body.body[0], self.pos, self.lines)
        for stmt in self.base.body.body:
            if not isinstance(stmt, cst.FunctionDef) or stmt.name.value not in kept:
                continue
            first, last = self.pos[stmt].start.line, self.pos[stmt].end.line
            if _indent(stmt, self.pos, self.lines) != cls_indent:
                _refuse(
                    f"`{self.base.name.value}` and `{self.cls.name.value}` are indented differently",
                    stmt,
                )
            out.append("")
            origin.append(first)
            for number in range(first, last + 1):
                line = self.lines[number - 1]
                if number == first and kept[stmt.name.value] != stmt.name.value:
                    line = re.sub(
                        rf"\bdef\s+{stmt.name.value}\b", f"def {kept[stmt.name.value]}", line, 1
                    )
                out.append(line)
                origin.append(number)


def _indent(node, pos, lines: list[str]) -> str:
    line = lines[pos[node].start.line - 1]
    return line[: len(line) - len(line.lstrip())]


def _method(cls: cst.ClassDef, name: str) -> cst.FunctionDef:
    return next(s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name)
