"""A cheap first read (CPython's ast, one walk) deciding whether any 1.x row can apply.

The row families resolve qualified names and scopes with libcst metadata, which costs about
a second on a large file; most files that mention Lightning are already 2.x code. Each family
states, over this index, the words its rows start from (`may_apply`); a file none of them
matches is left to the engine without a libcst parse. The families stay the judges: a match
here only means "look closer".
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


@dataclass
class AstIndex:
    keywords: set[str] = field(default_factory=set)  # keyword argument names of every call
    literal_keywords: set[tuple[str, object]] = field(default_factory=set)  # (name, constant)
    dict_keywords: set[str] = field(default_factory=set)  # keywords given a dict literal
    calls: dict[str, list[tuple[int, frozenset[str]]]] = field(default_factory=dict)
    attributes: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)  # identifiers read or imported
    functions: dict[str, set[int]] = field(default_factory=dict)  # def name -> param counts
    parameters: set[str] = field(default_factory=set)
    modules: set[str] = field(default_factory=set)  # every module path imported from
    bases: set[str] = field(default_factory=set)  # last word of every class base
    bound: dict[str, set[str]] = field(default_factory=dict)  # imported name -> names bound
    lightning_attributes: set[str] = field(default_factory=set)  # `pl.X` read on the package

    def called(self, name: str) -> bool:
        """Whether `name` (or a name it was imported as) is called somewhere."""
        return any(n in self.calls for n in {name} | self.bound.get(name, set()))

    def call_keywords(self, name: str) -> set[str]:
        """Keyword names passed in the calls of `name`."""
        names = {name} | self.bound.get(name, set())
        return {k for n in names for _, keywords in self.calls.get(n, ()) for k in keywords}

    def subclasses(self, *bases: str) -> bool:
        return bool(self.bases & set(bases))

    def defines(self, name: str, counts=None) -> bool:
        found = self.functions.get(name)
        return bool(found) and (counts is None or bool(found & set(counts)))


_ROOTS = ("pytorch_lightning", "lightning.pytorch")


def index(tree: ast.AST) -> AstIndex:
    found = AstIndex()
    aliases = set()  # names bound to the Lightning package itself
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in _ROOTS:
                    aliases.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            _call(found, node)
        elif isinstance(node, ast.Attribute):
            found.attributes.add(node.attr)
            if isinstance(node.value, ast.Name) and node.value.id in aliases:
                found.lightning_attributes.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:
                word = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)
                found.bases.add(word)
        elif isinstance(node, ast.Name):
            found.names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = node.args.posonlyargs + node.args.args
            found.functions.setdefault(node.name, set()).add(len(params))
            found.parameters |= {p.arg for p in params + node.args.kwonlyargs}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.modules.add(node.module)
            for alias in node.names:
                found.names.add(alias.name)
                found.bound.setdefault(alias.name, set()).add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            found.modules |= {alias.name for alias in node.names}
    return found


def _call(found: AstIndex, node: ast.Call) -> None:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    keywords = frozenset(k.arg for k in node.keywords if k.arg is not None)
    if name is not None:
        found.calls.setdefault(name, []).append((len(node.args), keywords))
    found.keywords |= keywords
    for keyword in node.keywords:
        if isinstance(keyword.value, ast.Constant):
            found.literal_keywords.add((keyword.arg, keyword.value.value))
        elif isinstance(keyword.value, ast.Dict):
            found.dict_keywords.add(keyword.arg)
