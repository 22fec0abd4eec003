"""Static and class methods of a trainer class: kept, in a class of their own.

    class Trainer:                                  class Trainer:
        @staticmethod                                   @staticmethod
        def get_default_config():          ->           def get_default_config():
            C = CfgNode(); C.lr = 3e-4; ...                 C = CfgNode(); C.lr = 3e-4; ...
            return C                                        return C

        def __init__(self, config, model): ...      (__init__ and run() inlined where the
        def run(self): ...                           script creates and runs the instance)

    config = Trainer.get_default_config()           config = Trainer.get_default_config()

minGPT's `Trainer.get_default_config()` is a config factory: it never sees an instance, so
training state cannot flow through it. Such a member stays in the class, which keeps its
name and its place (so `Trainer.get_default_config()` and `self.get_default_config()`, read
as `Trainer.get_default_config()`, work as before), while the plain methods are inlined.

A member is kept only when it reaches the class solely through other kept members: the class's
name, or a class method's first parameter, appear only as `Trainer.member` of a kept member.
Refused (TL133): a member creating an instance (`cls(...)`, `Trainer(...)`) or reading a
plain method or anything else of the class (that is training state, gone once inlined), a
property (it reads `self`), any other decorator beside `staticmethod` / `classmethod`.
An attribute assigned over a kept member (`self.get_default_config = ...`) is a method read
without a call: TL172 (trainer_inline.py).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..rule import Unsupported
from .trainer_class import TRAINER_CLASS

_KINDS = ("staticmethod", "classmethod")


def kept_members(cls: cst.ClassDef) -> set[str]:
    """The names of the class's static and class methods (checked by check_member)."""
    return {
        stmt.name.value
        for stmt in cls.body.body
        if isinstance(stmt, cst.FunctionDef) and member_kind(stmt) in _KINDS
    }


def member_kind(method: cst.FunctionDef) -> str | None:
    """ "staticmethod" / "classmethod" for a method decorated by exactly that builtin."""
    if len(method.decorators) != 1:
        return None
    decorator = method.decorators[0].decorator
    if isinstance(decorator, cst.Name) and decorator.value in _KINDS:
        return decorator.value
    return None


def check_member(cls: cst.ClassDef, method: cst.FunctionDef) -> None:
    """Unsupported (TL133) unless `method` reaches its class only as `Class.kept(...)` (or
    `cls.kept` in a class method): then no instance, no plain method and no state of the
    class is behind it, and keeping it in a class of its own keeps its meaning."""
    owner, name = cls.name.value, f"{cls.name.value}.{method.name.value}"
    kept = kept_members(cls)
    receivers = {owner}
    if member_kind(method) == "classmethod":
        params = [*method.params.posonly_params, *method.params.params]
        if not params:
            raise Unsupported(
                TRAINER_CLASS, f"`{name}` is a classmethod without parameters", method
            )
        receivers.add(params[0].name.value)
    allowed = {
        id(attribute.value)
        for attribute in m.findall(method.body, m.Attribute(value=m.Name()))
        if attribute.value.value in receivers and attribute.attr.value in kept
    }
    for use in m.findall(method.body, m.Name(m.MatchIfTrue(lambda value: value in receivers))):
        if id(use) not in allowed:
            raise Unsupported(
                TRAINER_CLASS,
                f"`{name}` (a {member_kind(method)}) uses `{use.value}` other than to call "
                f"another static or class method: it may reach the trainer's state, which is "
                "inlined",
                method,
            )


def residual_class(cls: cst.ClassDef) -> cst.ClassDef | None:
    """The class with its docstring and kept members only, or None when it has none."""
    kept = [
        stmt
        for stmt in cls.body.body
        if isinstance(stmt, cst.FunctionDef) and member_kind(stmt) in _KINDS
    ]
    if not kept:
        return None
    body = list(cls.body.body)
    docstring = (
        body[:1]
        if body and m.matches(body[0], m.SimpleStatementLine([m.Expr(m.SimpleString())]))
        else []
    )
    return cls.with_changes(body=cls.body.with_changes(body=[*docstring, *kept]))


def is_member_reference(node: cst.Attribute, owner: str, kept: set[str]) -> bool:
    """`Trainer.get_default_config`: a kept member read through the class's name."""
    return m.matches(node, m.Attribute(value=m.Name(owner))) and node.attr.value in kept
