"""Which names a piece of code reads and writes, and renaming them, by Python's scopes.

A piece (a statement, a hook's body) is analysed as the scope it will run in. Names bound in a
scope nested inside it -- comprehension and generator-expression targets, lambda and `def`
parameters and locals, class-body names -- belong to that inner scope: they are not the
piece's reads or writes and are never renamed. A nested scope's free names (a lambda reading
`criterion`) are reads of the piece. Which scope a name resolves to is libcst's
`ScopeProvider`'s answer; it is asked only for pieces that open a nested scope, since a piece
without one has a single scope and the plain walk below is exact (and far cheaper).
Attribute names (`x.attr`) and keyword names (`f(k=v)`) are not variables.
"""

from __future__ import annotations

import re
import symtable
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, ScopeProvider
from libcst.metadata.scope_provider import BuiltinScope, ComprehensionScope, GlobalScope


@dataclass
class NameUse:
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    # names whose first use (in source order) is a read: read before any write here
    read_first: set[str] = field(default_factory=set)
    # names bound on every path through the code (a name bound in one `if` branch only is
    # in `writes`, not here): a later read of it may see its value from before
    definite: set[str] = field(default_factory=set)

    def all(self) -> set[str]:
        return self.reads | self.writes

    def update(self, other: "NameUse") -> None:
        self.read_first |= other.read_first - self.definite
        self.reads |= other.reads
        self.writes |= other.writes
        self.definite |= other.definite


class _Collector(cst.CSTVisitor):
    """Reads and writes in visiting order. `own`: ids of the nodes that belong to the piece's
    own scope (None: the piece opens no nested scope, every name is its own)."""

    def __init__(self, own: set[int] | None = None, loops_may_not_run: bool = False) -> None:
        self.use = NameUse()
        self.own = own
        # a loop's body may run no time: what it binds is then not bound on every path after
        # it (see `names_read_before_bound`)
        self.loops_may_not_run = loops_may_not_run
        self._skip: set[int] = set()
        self._store: set[int] = set()
        # names bound on every path so far: a read of any other name may see the value the
        # name had before (an `if` branch not taken), so it counts as read first
        self._definite: set[str] = self.use.definite

    def visit_If(self, node: cst.If) -> bool:
        _walk(node.test, self)
        before = set(self._definite)
        _walk(node.body, self)
        after_body, self._definite = self._definite, set(before)
        if node.orelse is not None:
            _walk(node.orelse, self)
        self._definite = before | (after_body & self._definite)
        self.use.definite = self._definite
        return False

    def _is_own(self, node: cst.CSTNode) -> bool:
        return self.own is None or id(node) in self.own

    def _mark_store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self._store.add(id(target))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._mark_store(element.value)
        elif isinstance(target, cst.StarredElement):
            self._mark_store(target.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._skip.add(id(node.keyword))

    def visit_Param(self, node: cst.Param) -> None:
        self._skip.add(id(node.name))  # a parameter binds in the function's scope, not ours

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._skip.add(id(node.name))
        if self._is_own(node):
            self.use.writes.add(node.name.value)
            self._definite.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._skip.add(id(node.name))
        if self._is_own(node):
            self.use.writes.add(node.name.value)
            self._definite.add(node.name.value)

    def visit_Import(self, node: cst.Import) -> bool:
        return self._is_own(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return self._is_own(node)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> bool:
        bound = node.evaluated_alias or node.evaluated_name.split(".")[0]
        self.use.writes.add(bound)
        self._definite.add(bound)
        return False

    def visit_Assign(self, node: cst.Assign) -> bool:
        # Python evaluates the value before binding the targets (libcst visits the targets
        # first): in `hidden = repackage_hidden(hidden)` the read comes first
        _walk(node.value, self)
        for target in node.targets:
            _walk(target, self)
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._mark_store(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._mark_store(node.target)
        _walk(node.annotation, self)
        if node.value is not None:
            _walk(node.value, self)
        _walk(node.target, self)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and self._is_own(node.target):
            name = node.target.value
            if name not in self._definite:
                self.use.read_first.add(name)
            self.use.reads.add(name)
            self.use.writes.add(name)
            self._definite.add(name)
            self._skip.add(id(node.target))

    def visit_For(self, node: cst.For) -> bool:
        self._mark_store(node.target)
        if not self.loops_may_not_run:
            return True
        _walk(node.iter, self)
        before = set(self._definite)
        _walk(node.target, self)
        _walk(node.body, self)
        self._after_loop(node, before)
        return False

    def visit_While(self, node: cst.While) -> bool:
        if not self.loops_may_not_run:
            return True
        _walk(node.test, self)
        before = set(self._definite)
        _walk(node.body, self)
        self._after_loop(node, before)
        return False

    def _after_loop(self, node, before: set[str]) -> None:
        """Back to the names bound before the loop (its target and body may not have run),
        then its `else:` (run when the loop ends without `break`, also after no iteration)."""
        self._definite = before
        if node.orelse is not None:
            _walk(node.orelse, self)
        self.use.definite = self._definite

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._mark_store(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._mark_store(node.asname.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        self._mark_store(node.target)
        _walk(node.value, self)  # evaluated before the target is bound, as in an assignment
        _walk(node.target, self)
        return False

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._mark_store(node.name.name)

    def visit_Global(self, node: cst.Global) -> bool:
        return False

    def visit_Nonlocal(self, node: cst.Nonlocal) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self._skip or not self._is_own(node):
            return
        if id(node) in self._store:
            self.use.writes.add(node.value)
            self._definite.add(node.value)
        else:
            if node.value not in self._definite:
                self.use.read_first.add(node.value)
            self.use.reads.add(node.value)


_CACHE: dict[int, tuple[cst.CSTNode, NameUse]] = {}
_OWN: dict[int, tuple[cst.CSTNode, set[int] | None]] = {}


def clear_cache() -> None:
    _CACHE.clear()
    _KINDS.clear()
    _OWN.clear()


_KINDS: dict[int, tuple[cst.CSTNode, tuple[frozenset, frozenset]]] = {}
_KIND_OF = {
    cst.Break: "break",
    cst.Continue: "continue",
    cst.Return: "return",
    cst.Yield: "yield",
    cst.Global: "global",
    cst.Nonlocal: "global",
    cst.For: "loop",
    cst.While: "loop",
    cst.Import: "import",
    cst.ImportFrom: "import",
    cst.NamedExpr: "walrus",
    cst.FunctionDef: "def",
    cst.ClassDef: "def",
    cst.Lambda: "def",
}
# nodes that open a scope of their own (what makes the ScopeProvider worth asking)
_SCOPE_NODES = (
    cst.FunctionDef,
    cst.ClassDef,
    cst.Lambda,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
)
_SCOPE_TYPES = frozenset(_SCOPE_NODES)
_DEFINITION_TYPES = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})
# control flow that cannot leave the function or class it is written in
_LOCAL_FLOW = frozenset({"break", "continue", "return", "yield"})
_NO_KINDS: frozenset = frozenset()


_FIELDS: dict[type, tuple[str, ...]] = {}

# Whitespace, comments and operator tokens: they hold no Name and no statement, so the walks
# below need not descend into them (roughly half of a libcst tree's nodes).
_TOKEN_BASES = (
    cst.BaseParenthesizableWhitespace,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseUnaryOp,
    cst.BaseAugOp,
    cst.Comma,
    cst.Semicolon,
    cst.Colon,
    cst.Dot,
    cst.AssignEqual,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.EmptyLine,
    cst.TrailingWhitespace,
    cst.Newline,
    cst.Comment,
)
_TOKENS: dict[type, bool] = {}


def _is_token(kind: type) -> bool:
    hit = _TOKENS.get(kind)
    if hit is None:
        hit = _TOKENS[kind] = issubclass(kind, _TOKEN_BASES)
    return hit


def _children(node: cst.CSTNode):
    """Child nodes read straight from the dataclass fields (libcst's `.children` rebuilds
    every node through a visitor, which is far slower)."""
    names = _FIELDS.get(type(node))
    if names is None:
        import dataclasses

        names = tuple(f.name for f in dataclasses.fields(node))
        _FIELDS[type(node)] = names
    for name in names:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            if not _is_token(type(value)):
                yield value
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, cst.CSTNode) and not _is_token(type(item)):
                    yield item


def node_kinds(node: cst.CSTNode) -> frozenset:
    """What a subtree contains ("backward", "optimizer_call", "break", "loop", "scope", ...),
    computed once per node for the whole migration (cheaper than a libcst matcher search each
    time). `break`/`continue`/`return`/`yield` inside a nested def or class are that scope's
    own and are not reported for the code around it."""
    return _facts(node)[0]


def mentions(node: cst.CSTNode) -> frozenset:
    """Every variable-like name spelled in the subtree, in any scope (not attribute or keyword
    names): a cheap superset of its names. A name not in it is neither read nor written there,
    which spares the scope analysis of most of a module."""
    return _facts(node)[1]


def _facts(node: cst.CSTNode) -> tuple[frozenset, frozenset]:
    """(kinds, names) of a subtree, in one walk shared by node_kinds and mentions."""
    hit = _KINDS.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    kind_of = type(node)
    if kind_of is cst.Name:
        result = (_NO_KINDS, frozenset((node.value,)))
        _KINDS[id(node)] = (node, result)
        return result
    kinds = set()
    kind = _KIND_OF.get(kind_of)
    if kind:
        kinds.add(kind)
    if kind_of is cst.Call and type(node.func) is cst.Attribute:
        method = node.func.attr.value
        if method == "backward":
            kinds.add("backward")
        elif method in ("zero_grad", "step"):
            kinds.add("optimizer_call")
    names: set = set()
    for child in _children(node):
        child_kinds, child_names = _facts(child)
        kinds |= child_kinds
        names |= child_names
    if kind_of is cst.Attribute or kind_of is cst.Arg:  # `x.attr`, `f(key=x)`: only `x`
        names = _facts(node.value)[1]
    if kind_of in _SCOPE_TYPES:
        if kind_of in _DEFINITION_TYPES:
            kinds -= _LOCAL_FLOW  # a nested def's `return` does not leave the loop around it
        kinds.add("scope")
    result = (frozenset(kinds), frozenset(names))
    _KINDS[id(node)] = (node, result)
    return result


_VISIT_ORDER: dict[type, tuple[str, ...]] = {}
_HOOKS: dict[type, object] = {}


def _visit_order(kind: type) -> tuple[str, ...]:
    """The fields of a node type in the order libcst's visitor walks them (read once from its
    `_visit_and_replace_children`; it differs from the dataclass order, e.g. a def's decorators
    come before its name), so the walk below meets names in exactly libcst's order."""
    import dataclasses
    import inspect

    fields = [f.name for f in dataclasses.fields(kind)]
    try:
        text = inspect.getsource(kind._visit_and_replace_children)
    except (OSError, TypeError):
        text = ""
    # each child is visited by a `visit_*(self, "<field>", ...)` call, in walk order
    visited = re.findall(r"visit_\w+\(\s*self,\s*\"(\w+)\"", text)
    order = [f for f in dict.fromkeys(visited) if f in fields]
    return tuple(order + [f for f in fields if f not in order])


def _walk(node: cst.CSTNode, collector: "_Collector") -> None:
    """`node.visit(collector)` without libcst rebuilding every node on the way back up
    (a read-only visitor needs none of that; it was most of the migrator's time)."""
    kind = type(node)
    names = _VISIT_ORDER.get(kind)
    if names is None:
        names = _VISIT_ORDER[kind] = _visit_order(kind)
        _HOOKS[kind] = getattr(_Collector, f"visit_{kind.__name__}", None)
    hook = _HOOKS[kind]
    if hook is not None and hook(collector, node) is False:
        return
    for name in names:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            if not _is_token(type(value)):
                _walk(value, collector)
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, cst.CSTNode) and not _is_token(type(item)):
                    _walk(item, collector)


def collect_names(*nodes: cst.CSTNode) -> NameUse:
    """Reads and writes of plain names in `nodes`, in source order.

    Nodes are immutable, so a single node's answer is memoised for the current migration
    (the node is kept alive with it, so its id cannot be reused)."""
    if len(nodes) != 1:
        total = NameUse()
        for node in nodes:
            total.update(collect_names(node))
        return total
    node = nodes[0]
    hit = _CACHE.get(id(node))
    if hit is None or hit[0] is not node:
        collector = _Collector(own_scope_nodes(node))
        _walk(node, collector)
        hit = (node, collector.use)
        _CACHE[id(node)] = hit
    use = hit[1]
    return NameUse(set(use.reads), set(use.writes), set(use.read_first), set(use.definite))


def names_read_before_bound(node: cst.CSTNode) -> NameUse:
    """`collect_names(node)`, where a loop's body may run no time: a name bound only in a
    loop's body and read after the loop (`for x, y in loader: loss = ...` then
    `print(loss)`) is read first, since with no batch the read sees the value from before.
    For the code after a training loop: what it may read of the loop's values."""
    collector = _Collector(own_scope_nodes(node), loops_may_not_run=True)
    _walk(node, collector)
    return collector.use


def _as_module(node: cst.CSTNode) -> cst.Module | None:
    """`node` as the body of a module, the same node objects inside (so ids still match)."""
    if isinstance(node, cst.Module):
        return node
    if isinstance(node, cst.BaseStatement):
        return cst.Module(body=[node])
    if isinstance(node, cst.BaseSmallStatement):
        return cst.Module(body=[cst.SimpleStatementLine([node])])
    if isinstance(node, cst.BaseExpression):
        return cst.Module(body=[cst.SimpleStatementLine([cst.Expr(node)])])
    if isinstance(node, cst.IndentedBlock):
        return cst.Module(body=node.body)
    if isinstance(node, cst.AssignTarget):
        return cst.Module(body=[cst.SimpleStatementLine([cst.Assign([node], cst.Name("_"))])])
    return None


def own_scope_nodes(node: cst.CSTNode) -> set[int] | None:
    """ids of the name nodes (and def, class, import statements) in `node` that belong to the
    scope `node` runs in, as libcst's ScopeProvider resolves them: bindings made in that
    scope, and reads that find their binding there (or nowhere: globals and builtins).
    None when `node` opens no nested scope: then every name in it is its own."""
    hit = _OWN.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    module = _as_module(node) if "scope" in node_kinds(node) else None
    own = None
    if module is not None:
        scopes = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
        top = {s for s in scopes.values() if isinstance(s, GlobalScope)}
        walrus = _walrus_targets(module) if "walrus" in node_kinds(node) else set()
        own = set()
        for scope in set(scopes.values()):
            for assignment in scope.assignments:
                owner = assignment.scope
                if id(assignment.node) in walrus:
                    # PEP 572: `:=` in a comprehension binds in the scope around it (libcst
                    # 1.x records it in the comprehension)
                    while isinstance(owner, ComprehensionScope):
                        owner = owner.parent
                if owner in top:
                    own.add(id(assignment.node))
            for access in scope.accesses:
                referents = access.referents
                if not referents or any(
                    r.scope in top or isinstance(r.scope, BuiltinScope) for r in referents
                ):
                    own.add(id(access.node))
    _OWN[id(node)] = (node, own)
    return own


def _walrus_targets(module: cst.Module) -> set[int]:
    return {id(found.target) for found in m.findall(module, m.NamedExpr())}


class RenameNames(cst.CSTTransformer):
    """Replace variable names by expressions (e.g. `criterion` -> `self.criterion`).

    `mapping` maps a name to the replacement expression; it applies to reads and writes of the
    scope being rewritten, never to a name a nested scope binds for itself (see
    own_scope_nodes).
    """

    def __init__(self, mapping: dict[str, cst.BaseExpression], own: set[int] | None) -> None:
        super().__init__()
        self.mapping = mapping
        self.own = own
        self._skip: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._skip.add(id(node.keyword))

    def visit_Param(self, node: cst.Param) -> None:
        self._skip.add(id(node.name))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._skip.add(id(node.name))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._skip.add(id(node.name))

    def visit_ImportAlias(self, node: cst.ImportAlias) -> bool:
        return False

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if id(original_node) in self._skip:
            return updated_node
        if self.own is not None and id(original_node) not in self.own:
            return updated_node
        replacement = self.mapping.get(original_node.value)
        if replacement is None:
            return updated_node
        return replacement.with_changes(
            lpar=[*original_node.lpar, *getattr(replacement, "lpar", [])],
            rpar=[*getattr(replacement, "rpar", []), *original_node.rpar],
        )


def spelled_names(nodes, enters) -> list[str]:
    """The names spelled in `nodes`, one entry per spelling, looking inside the `for` loops
    `enters(loop)` accepts. Attribute and keyword names (`args.out`, `f(out=1)`) are not
    variables and do not count."""
    names: list[str] = []

    class Walk(cst.CSTVisitor):
        def visit_For(self, node: cst.For) -> bool:
            return enters(node)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            names.append(node.value)

    for node in nodes:
        node.visit(Walk())
    return names


def variable_uses(
    node: cst.CSTNode, name: str, skip_attributes: frozenset[str] = frozenset()
) -> list[cst.Name]:
    """The `Name` nodes of `node` spelling the variable `name`: not an attribute's or a
    keyword's name (`config.trainer`, `f(trainer=1)` do not use a variable `trainer`), nor
    `name.<attr>` for an attribute in `skip_attributes`."""
    found: list[cst.Name] = []

    class Walk(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            plain = isinstance(node.value, cst.Name) and node.value.value == name
            if plain and node.attr.value in skip_attributes:
                return False
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                found.append(node)

    node.visit(Walk())
    return found


def rename(node: cst.CSTNode, mapping: dict[str, cst.BaseExpression]) -> cst.CSTNode:
    if not mapping or not mapping.keys() & mentions(node):
        return node  # nothing to rename: no transformer pass, no scope analysis
    return node.visit(RenameNames(mapping, own_scope_nodes(node)))


def reads_among(names: set[str], *nodes: cst.CSTNode) -> set[str]:
    """Which of `names` the nodes read (by scopes), asking only nodes that mention them."""
    found: set[str] = set()
    for node in nodes:
        if names & mentions(node):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                found |= definition_reads(node) & names
            else:
                found |= collect_names(node).reads & names
    return found


def definition_reads(node: cst.FunctionDef | cst.ClassDef) -> set[str]:
    """What a whole `def` or `class` statement reads from the scope it stands in: its
    decorators, defaults and bases, and the free names of its body. CPython's symbol tables
    answer it from the statement's code (far cheaper than libcst's ScopeProvider on a body)."""
    code = cst.Module(body=[node]).code
    try:
        top = symtable.symtable(code, "<definition>", "exec")
    except SyntaxError:  # e.g. `nonlocal` that only makes sense in its real place
        return collect_names(node).reads
    reads = {s.get_name() for s in top.get_symbols() if s.is_referenced()}
    stack = list(top.get_children())
    while stack:
        table = stack.pop()
        # compiled alone, every name a body does not bind resolves to the scope around it
        reads |= {s.get_name() for s in table.get_symbols() if s.is_referenced() and s.is_global()}
        stack.extend(table.get_children())
    return reads


def self_attr(name: str) -> cst.Attribute:
    return cst.Attribute(value=cst.Name("self"), attr=cst.Name(name))


def bound_names(stmt: cst.CSTNode) -> set[str]:
    """Names a statement binds in its own scope (a `def` binds its name, not its locals)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return {stmt.name.value}
    return collect_names(stmt).writes


def scope_reads(stmt: cst.CSTNode) -> set[str]:
    """Names a statement reads in its own scope (function bodies run later: not counted)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return set()
    return collect_names(stmt).reads


def file_identifiers(text: str, path: str) -> set[str]:
    """Every name bound or read in any scope of the file (CPython's symbol tables): what a
    generated name must avoid. Comments, strings and attribute names are not names."""
    try:
        root = symtable.symtable(text, path, "exec")
    except SyntaxError:  # accepted by the parser, refused by the compiler: keep every word
        return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    names: set[str] = set()
    stack = [root]
    while stack:
        table = stack.pop()
        names.update(table.get_identifiers())
        stack.extend(table.get_children())
    return names


def only_module_binding(module: cst.Module, name: str) -> cst.CSTNode | None:
    """The module-level statement binding `name` when it is the module's only one."""
    bindings = [stmt for stmt in module.body if name in bound_names(stmt)]
    return bindings[0] if len(bindings) == 1 else None


def builtin_unshadowed(module: cst.Module, name: str) -> bool:
    """No scope of the file binds `name` (assigns, imports, defines or takes it as a
    parameter): a call of it written into generated code reaches the builtin."""
    try:
        stack = [symtable.symtable(module.code, "<builtins>", "exec")]
    except SyntaxError:
        return False
    while stack:
        table = stack.pop()
        try:
            symbol = table.lookup(name)
        except KeyError:
            symbol = None
        if symbol is not None and (
            symbol.is_assigned()
            or symbol.is_imported()
            or symbol.is_parameter()
            or symbol.is_namespace()
        ):
            return False
        stack.extend(table.get_children())
    return True


def first_binding(block: cst.CSTNode, name: str) -> cst.CSTNode | None:
    """The first statement of `block` (an indented block, or a list's owner) binding `name`,
    looked for inside compound statements too (not in nested functions or classes): the line
    a refusal about that name points at. None when nothing binds it."""
    for stmt in getattr(block, "body", ()):
        if not isinstance(stmt, cst.BaseStatement) or name not in collect_names(stmt).writes:
            continue
        if isinstance(stmt, (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef)):
            return stmt
        inner = [stmt.body, getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None)]
        inner += list(getattr(stmt, "handlers", ()))
        for part in inner:
            while isinstance(part, (cst.If, cst.Else, cst.ExceptHandler, cst.Finally)):
                found = first_binding(part.body, name)
                if found is not None:
                    return found
                part = getattr(part, "orelse", None)
            found = first_binding(part, name) if part is not None else None
            if found is not None:
                return found
        return stmt  # its header binds it (`for x in ...`, `with ... as x`)


def function_uses(module: cst.Module, function: cst.FunctionDef) -> tuple[list, list] | None:
    """(accesses, rebindings) of `function`'s name by Python's scopes (libcst's ScopeProvider),
    in the scope its `def` runs in: the Name nodes reading a binding of the name there, and the
    bindings other than the `def` (an assignment, a `global` in a function rebinding it). A
    parameter or local of another function named like it is another variable; `model.train()`
    and `f(train=...)` only spell its name. None when the `def` is not in `module`."""
    scope = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider).get(function)
    if scope is None:
        return None
    accesses, rebindings = [], []
    for assignment in scope.assignments[function.name.value]:
        if getattr(assignment, "node", None) is not function:
            rebindings.append(getattr(assignment, "node", function))
        accesses += [access.node for access in assignment.references]
    return accesses, rebindings
