"""Pattern: hyper-parameters handed to the module -> `save_hyperparameters`, read as `self.hparams`.

    learning_rate = 0.01
    config = {"log_interval": 10, "dropout": 0.2}
    ...                                 -> def __init__(self, model, criterion, learning_rate, config):
                                               super().__init__()
                                               self.save_hyperparameters(ignore=["model", "criterion"])
                                               ...
                                           lr=self.hparams.learning_rate
                                           self.hparams.config["log_interval"]

An `__init__` argument is a hyper-parameter when the name is bound once before the loop to a
literal the checkpoint can hold and `torch.load(weights_only=True)` can read back: a number, a
string, a bool, None, or a list / tuple / dict of those (string keys), possibly through other
names bound once that way; and nothing before the loop or in the moved code changes it
(`config["lr"] = ...`, `config.update(...)`). Models, loaders, optimizers, tensors and anything
else are `ignore`d and stay attributes. An argparse Namespace (`args = parser.parse_args()`) or
a dataclass instance stays an attribute too, and the report says why: in the checkpoint's
`hyper_parameters` it is a pickled object that `weights_only=True` refuses to load (Lightning
2.6 and the runtime load checkpoints that way).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..resolve_names import pieces_of
from .early_break import mutated_roots

RULES = ()

_DICT_ATTRIBUTES = frozenset(dir(dict))
_CONSTANTS = ("True", "False", "None")


def clean(ctx, plan) -> None:
    pieces = pieces_of(plan)
    moved = [n for piece in pieces.values() for n in piece if isinstance(n, cst.BaseStatement)]
    if not moved:
        return
    used = collect_names(*moved)
    candidates = used.reads - used.writes - plan.module_globals
    changed = mutated_roots([*ctx.scope_before, *moved])
    for name in sorted(candidates):
        if name.isupper() or name.startswith("_") or name in _DICT_ATTRIBUTES:
            continue  # module constants stay globals; `self.hparams.items` is a dict method
        binding, count = ctx.binding(name)
        if count != 1 or binding is None:
            continue
        value = binding[1]
        if name not in changed and _storable(ctx, value, depth=0):
            plan.hparams.add(name)
            why = (
                f"`{name}` -> `self.save_hyperparameters()`: a hyper-parameter kept in "
                f"checkpoints and loggers, read as `self.hparams.{name}`"
            )
            plan.explained.append((binding[0], "__init__", why))
            continue
        kind = None
        if _parsed_arguments(value):
            kind = "an argparse Namespace"
        elif _dataclass_instance(ctx, value):
            kind = "a dataclass instance"
        if kind is not None:
            why = (
                f"`{name}` ({kind}) stays an attribute, not a hyper-parameter: a checkpoint "
                "holding it would not load with torch.load(weights_only=True)"
            )
            plan.explained.append((binding[0], "__init__", why))


def _storable(ctx, expr, depth: int) -> bool:
    """A literal of numbers, strings, bools and None, or containers of them."""
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.SimpleString):
        return isinstance(expr.evaluated_value, str)
    if isinstance(expr, cst.ConcatenatedString):
        return _storable(ctx, expr.left, depth) and _storable(ctx, expr.right, depth)
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, (cst.Minus, cst.Plus)) and _number(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return _number(expr.left) and _number(expr.right)
    if isinstance(expr, (cst.List, cst.Tuple)):
        return all(
            isinstance(e, cst.Element) and _storable(ctx, e.value, depth) for e in expr.elements
        )
    if isinstance(expr, cst.Dict):
        return all(
            isinstance(e, cst.DictElement)
            and isinstance(e.key, cst.SimpleString)
            and _storable(ctx, e.value, depth)
            for e in expr.elements
        )
    if isinstance(expr, cst.Name):
        if expr.value in _CONSTANTS:
            return True
        binding, count = ctx.binding(expr.value)
        return (
            depth < 3
            and count == 1
            and binding is not None
            and (_storable(ctx, binding[1], depth + 1))
        )
    return False


def _number(expr) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _number(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return _number(expr.left) and _number(expr.right)
    return False


def _parsed_arguments(value) -> bool:
    return m.matches(value, m.Call(func=m.Attribute(attr=m.Name("parse_args"))))


def _dataclass_instance(ctx, value) -> bool:
    """`Config(...)` of a class defined in the file with a `@dataclass` decorator."""
    if not m.matches(value, m.Call(func=m.Name())):
        return False
    for stmt in ctx.module.body:
        if isinstance(stmt, cst.ClassDef) and stmt.name.value == value.func.value:
            for decorator in stmt.decorators:
                target = decorator.decorator
                if isinstance(target, cst.Call):
                    target = target.func
                if m.matches(target, m.Name("dataclass") | m.Attribute(attr=m.Name("dataclass"))):
                    return True
    return False
