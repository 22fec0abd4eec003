"""Fields of a namespace: which ones an expression reads, and a statement with its stores
into the other fields set aside.

A test reading `args.gpu` only depends on that field of `args`: `args.start_epoch =
checkpoint["epoch"]` (the ImageNet example resuming) stores into another one. For an object
whose attribute stores are plain (an argparse Namespace; the caller decides which objects
those are), such a store cannot change what the test reads, so a check of "does anything
change `args` before the loop" may look past it.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m


def fields_read(exprs, name: str) -> set[str] | None:
    """The fields of `name` the expressions read (`args.gpu` -> {"gpu"}); None when they
    also read `name` otherwise (bare, `getattr(args, ...)`)."""
    fields: set[str] = set()
    uses = 0
    for expr in exprs:
        for node in m.findall(expr, m.Attribute(value=m.Name(name))):
            fields.add(node.attr.value)
        uses += len(m.findall(expr, m.Name(name)))
    reads = sum(len(m.findall(e, m.Attribute(value=m.Name(name)))) for e in exprs)
    return fields if reads == uses and fields else None


def other_field_stores_set_aside(stmt: cst.CSTNode, fields: dict[str, set[str]]) -> cst.CSTNode:
    """`stmt` with each assignment storing only into other fields of the names of `fields`
    (`args.start_epoch = v` where `fields["args"]` is {"gpu"}) replaced by its value alone:
    what it reads and calls stays for the caller's check to see, the store does not."""
    return stmt.visit(_SetAside(fields))


class _SetAside(cst.CSTTransformer):
    def __init__(self, fields: dict[str, set[str]]) -> None:
        super().__init__()
        self.fields = fields

    def _other_field(self, target) -> bool:
        return (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value in self.fields
            and target.attr.value not in self.fields[target.value.value]
        )

    def leave_Assign(self, original, updated):
        if all(self._other_field(t.target) for t in original.targets):
            return cst.Expr(updated.value)
        return updated

    def leave_AugAssign(self, original, updated):
        if self._other_field(original.target):
            return cst.Expr(updated.value)
        return updated
