"""A class attribute set to a constant and read nowhere, which an inlined class may drop.

    class NativeScalerWithGradNormCount:
        state_dict_key = "amp_scaler"      <- read by no code of the file

        def __init__(self, enabled): ...

Research code copies helper classes whole, with a class-level constant the copied part never
uses (timm's scaler keeps `state_dict_key` for a checkpoint format the script does not write).
Inlined, the class's methods become code of the script and the class goes: the constant goes
with it. That changes nothing when evaluating it has no effect (a literal: `ast.literal_eval`
reads it) and nothing reads it: no `x.<name>` of any receiver, no name `<name>` other than its
own target (a method default, the class body), no string spelling it (`getattr(obj, "<name>")`).
The reads are looked for by spelling over the whole file, which is wider than the class's
instances: a name merely spelled alike keeps the refusal, never the reverse.
"""

from __future__ import annotations

import ast

import libcst as cst
import libcst.matchers as m


def unread_constant(module: cst.Module, stmt: cst.CSTNode) -> bool:
    """Whether `stmt`, a statement of a class body, only binds one name to a literal that no
    code of `module` reads."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return False
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target, value = small.targets[0].target, small.value
    elif isinstance(small, cst.AnnAssign) and small.value is not None:
        target, value = small.target, small.value
    else:
        return False
    if not isinstance(target, cst.Name) or not _literal(module, value):
        return False
    name = target.value
    if m.findall(module, m.Attribute(attr=m.Name(name))):
        return False
    if any(n is not target for n in m.findall(module, m.Name(name))):
        return False
    return not any(_spells(s, name) for s in m.findall(module, m.SimpleString()))


def _literal(module: cst.Module, value: cst.BaseExpression) -> bool:
    try:
        ast.literal_eval(module.code_for_node(value).strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _spells(string: cst.SimpleString, name: str) -> bool:
    try:
        return name in str(string.evaluated_value)
    except Exception:  # an escape the evaluation does not read: count it as spelling
        return True
