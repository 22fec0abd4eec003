"""`if` statements whose test is decided by values known before the code runs.

Shared by the step inliner (shapes/step_inline.py: the parameters a call fixes) and the batch
loop (patterns/known_branches.py: what reaches the loop's names from their bindings and call
sites). A known value is one of:

- NONE, or a literal's value (True, 3, "cuda");
- NOT_NONE: an object that is not None and true (an optimizer, a scaler, a function);
- Instance(classes): an object of one of `classes` (qualified names of the class and its
  bases that matter here), not None and true;
- INT: some int (a batch index counted by `enumerate`): `i % 1 == 0` holds, `if i:` is
  not known.

Anything else is unknown: the `if` stays, and what reads it decides (usually a refusal).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

NONE, NOT_NONE = "None", "not None"


@dataclass(frozen=True)
class Instance:
    """An object known to be an instance of each of `classes` (qualified names), and of no
    other class that `isinstance` tests here can name, except `object`."""

    classes: frozenset[str]


class _Int:
    def __repr__(self) -> str:
        return "INT"


INT = _Int()

# the qualified names `isinstance(x, torch.optim.Optimizer)` may spell the base class with
OPTIMIZER_BASES = frozenset({"torch.optim.Optimizer", "torch.optim.optimizer.Optimizer"})
MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
# what a `def` or a lambda of the script makes
FUNCTION = Instance(frozenset({"builtins.function"}))


def decide(
    test: cst.BaseExpression,
    known: dict[str, object],
    classes_of: Callable[[cst.BaseExpression], set[str]] | None = None,
) -> bool | None:
    """The value of an `if` test on names whose values are `known` (`opt is not None`,
    `opt`, `not opt`, `isinstance(opt, torch.optim.Optimizer)` when `classes_of` names the
    class tested, `mode == "train"`, and `and` / `or` of these), or None when it depends on
    anything else."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = decide(test.expression, known, classes_of)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        return _either(test, known, classes_of)
    known = {**_CONSTANTS, **known}  # a default inlined as written: `None is not None`
    equal = _equality(test, known)
    if equal is not None:
        return equal
    if isinstance(test, cst.Name) and test.value in known and known[test.value] is not INT:
        value = known[test.value]
        return value is not NONE and bool(value)
    if m.matches(
        test,
        m.Comparison(
            left=m.Integer() | m.Float() | m.SimpleString(),
            comparisons=[m.ComparisonTarget(m.Is() | m.IsNot(), m.Name("None"))],
        ),
    ):  # a literal inlined for a parameter (`clip_grad is not None` given 1.0): not None
        return isinstance(test.comparisons[0].operator, cst.IsNot)
    if m.matches(
        test,
        m.Comparison(
            left=m.Name(),
            comparisons=[m.ComparisonTarget(m.Is() | m.IsNot(), m.Name("None"))],
        ),
    ):
        value = known.get(test.left.value)
        if value is None:
            return None
        is_none = value is NONE
        return is_none if isinstance(test.comparisons[0].operator, cst.Is) else not is_none
    if classes_of is not None and m.matches(
        test, m.Call(func=m.Name("isinstance"), args=[m.Arg(m.Name(), keyword=None), m.Arg()])
    ):
        return _isinstance(known.get(test.args[0].value.value), classes_of(test.args[1].value))
    return None


_CONSTANTS = {"None": NONE, "True": True, "False": False}


def _either(test: cst.BooleanOperation, known, classes_of) -> bool | None:
    """`a or b`, `a and b` as an `if` reads them (`mode == "train" or mode == "train+log"`
    given `mode="eval"`: False). Decided from the left as Python evaluates it: a left side
    that settles it (True for `or`, False for `and`) skips the right one; an undecided left
    side leaves it undecided, even when the right one would settle it (the left one may be a
    call, whose effect must stay)."""
    left = decide(test.left, known, classes_of)
    if left is None:
        return None
    settles = isinstance(test.operator, cst.Or)  # True settles `or`, False settles `and`
    return settles if left is settles else decide(test.right, known, classes_of)


def _equality(test, known) -> bool | None:
    """`x == "train"`, `"eval" != mode`: two literal values (a string, a number, True,
    False), each written or known, compared."""
    if not m.matches(
        test, m.Comparison(comparisons=[m.ComparisonTarget(m.Equal() | m.NotEqual())])
    ):
        return None
    left, right = (
        _literal_value(test.left, known),
        _literal_value(test.comparisons[0].comparator, known),
    )
    if left is _UNKNOWN or right is _UNKNOWN:
        return None
    equal = left == right  # Python's own comparison of the two values
    return equal if isinstance(test.comparisons[0].operator, cst.Equal) else not equal


_UNKNOWN = object()


def _literal_value(node, known):
    """The value of a literal, or of a name known to hold one; _UNKNOWN otherwise (None,
    NOT_NONE and Instance are no values to compare)."""
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        return node.evaluated_value
    if m.matches(node, m.BinaryOperation(operator=m.Modulo(), right=m.Integer("1"))):
        left = node.left  # any int modulo 1 is 0 (`i % accum_iter` given accum_iter=1)
        if m.matches(left, m.BinaryOperation(operator=m.Add(), right=m.Integer())):
            left = left.left  # `(i + 1) % 1`: the count plus an int is an int
        if isinstance(left, cst.Name) and known.get(left.value) is INT:
            return 0
        value = _literal_value(left, known)
        return 0 if type(value) is int else _UNKNOWN
    if isinstance(node, cst.Name):
        value = known.get(node.value, _UNKNOWN)
        if value is not NONE and value is not NOT_NONE and isinstance(value, (int, float, str)):
            return value  # (NONE and NOT_NONE are strings too)
    return _UNKNOWN


def _isinstance(value, tested: set[str]) -> bool | None:
    """isinstance(value, one of `tested`), for a class the value's kind can answer."""
    if not tested or "builtins.object" in tested:
        return None
    if isinstance(value, Instance):
        if value.classes & tested:
            return True
        if value.classes == FUNCTION.classes and tested <= OPTIMIZER_BASES | MODULE_BASES:
            return False  # a `def` or a lambda makes a plain function: neither of those
        return None
    if value is NONE:  # None is an instance of NoneType (and object) only
        return False if not any(q.endswith("NoneType") for q in tested) else None
    return None


def resolve(stmts: list, decide_test: Callable, decided: list) -> list:
    """`stmts` with each `if` that `decide_test(test)` decides replaced by the branch taken
    (nested ones too); `decided` collects (the `if`, the branch taken)."""
    out = []
    for stmt in stmts:
        if not isinstance(stmt, cst.If):
            out.append(stmt)
            continue
        taken = decide_test(stmt.test)
        if taken is None:
            out.append(stmt)
            continue
        decided.append((stmt, taken))
        if taken:
            branch = suite(stmt.body)
        elif isinstance(stmt.orelse, cst.If):
            branch = [stmt.orelse]
        elif stmt.orelse is not None:
            branch = suite(stmt.orelse.body)
        else:
            branch = []
        branch = resolve(branch, decide_test, decided)
        if branch:  # the comments above the `if` stay above what it ran
            first = branch[0]
            branch[0] = first.with_changes(
                leading_lines=[*stmt.leading_lines, *first.leading_lines]
            )
        out += branch
    return out


def suite(block) -> list:
    """The statements of a block, a one-line `if x: a; b` as one statement line."""
    if isinstance(block, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=list(block.body))]
    return list(block.body)
