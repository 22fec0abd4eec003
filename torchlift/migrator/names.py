"""Which names a piece of code reads and writes, and renaming them (libcst, no metadata).

Attribute names (`x.attr`), keyword names (`f(k=v)`) and parameter names are not variables
and are never reported or renamed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst


@dataclass
class NameUse:
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    # names whose first use (in source order) is a read: read before any write here
    read_first: set[str] = field(default_factory=set)

    def all(self) -> set[str]:
        return self.reads | self.writes

    def update(self, other: "NameUse") -> None:
        self.read_first |= other.read_first - self.writes
        self.reads |= other.reads
        self.writes |= other.writes


class _Collector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.use = NameUse()
        self._skip: set[int] = set()
        self._store: set[int] = set()

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
        self._skip.add(id(node.name))
        self.use.writes.add(node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._skip.add(id(node.name))
        self.use.writes.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._skip.add(id(node.name))
        self.use.writes.add(node.name.value)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> bool:
        bound = node.evaluated_alias or node.evaluated_name.split(".")[0]
        self.use.writes.add(bound)
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._mark_store(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._mark_store(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            name = node.target.value
            if name not in self.use.writes:
                self.use.read_first.add(name)
            self.use.reads.add(name)
            self.use.writes.add(name)
            self._skip.add(id(node.target))

    def visit_For(self, node: cst.For) -> None:
        self._mark_store(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._mark_store(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._mark_store(node.asname.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._mark_store(node.target)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._mark_store(node.name.name)

    def visit_Global(self, node: cst.Global) -> bool:
        return False

    def visit_Nonlocal(self, node: cst.Nonlocal) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self._skip:
            return
        if id(node) in self._store:
            self.use.writes.add(node.value)
        else:
            if node.value not in self.use.writes:
                self.use.read_first.add(node.value)
            self.use.reads.add(node.value)


_CACHE: dict[int, tuple[cst.CSTNode, NameUse]] = {}


def clear_cache() -> None:
    _CACHE.clear()
    _KINDS.clear()


_KINDS: dict[int, tuple[cst.CSTNode, frozenset]] = {}
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
    cst.FunctionDef: "def",
    cst.ClassDef: "def",
    cst.Lambda: "def",
}


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
    """What a subtree contains ("backward", "optimizer_call", "break", "loop", ...), computed
    once per node for the whole migration (cheaper than a libcst matcher search each time)."""
    hit = _KINDS.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    kinds = set()
    kind = _KIND_OF.get(type(node))
    if kind:
        kinds.add(kind)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        method = node.func.attr.value
        if method == "backward":
            kinds.add("backward")
        elif method in ("zero_grad", "step"):
            kinds.add("optimizer_call")
    for child in _children(node):
        kinds |= node_kinds(child)
    result = frozenset(kinds)
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
        collector = _Collector()
        _walk(node, collector)
        hit = (node, collector.use)
        _CACHE[id(node)] = hit
    use = hit[1]
    return NameUse(set(use.reads), set(use.writes), set(use.read_first))


class RenameNames(cst.CSTTransformer):
    """Replace variable names by expressions (e.g. `criterion` -> `self.criterion`).

    `mapping` maps a name to the replacement expression; it applies to reads and writes.
    """

    def __init__(self, mapping: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.mapping = mapping
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
        replacement = self.mapping.get(original_node.value)
        if replacement is None:
            return updated_node
        return replacement.with_changes(
            lpar=[*original_node.lpar, *getattr(replacement, "lpar", [])],
            rpar=[*getattr(replacement, "rpar", []), *original_node.rpar],
        )


def rename(node: cst.CSTNode, mapping: dict[str, cst.BaseExpression]) -> cst.CSTNode:
    if not mapping:
        return node
    return node.visit(RenameNames(mapping))


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
