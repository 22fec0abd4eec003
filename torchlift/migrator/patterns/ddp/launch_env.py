"""The parent's `MASTER_PORT` / `MASTER_ADDR`, set for a process group the conversion removes.

    def setup(rank, world_size):                   (removed: the Trainer starts the group)
        dist.init_process_group("gloo", ...)
    ...
    if __name__ == "__main__":
        os.environ["MASTER_PORT"] = find_free_port()   -> removed
        mp.spawn(main_worker, args=(2,), nprocs=2)    -> main_worker(2)

The environment's rendezvous keys are read by the process group's start (`env://`), which the
conversion removes. Kept, such a line would run in every process of the Trainer (it runs the
whole script in each): a port drawn anew in each child would overwrite the one its launcher
chose, and the processes would not meet. When nothing kept in the script reads the key
(no other use of the string, no `os.environ` handed on whole, no subprocess inheriting it),
the line goes and the Trainer's launcher picks the port, as the script's own line did: a
free one. A value every process computes alike (a literal port) is kept as it is (the
launcher then uses it).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .process_group import sets_master_env

_ENVIRON = m.Attribute(value=m.Name("os"), attr=m.Name("environ"))
_KEYED_METHODS = m.Name("get") | m.Name("setdefault") | m.Name("pop")
# calls starting another program, which inherits the whole environment
_CHILD_PROGRAMS = ("subprocess.", "os.system", "os.popen", "os.exec", "os.spawn")
WHY = (
    "the process group's port / address, read only by its start, which the Trainer takes "
    "over -> removed (its launcher picks them)"
)


def forget_helpers(ctx, plan, stmt) -> None:
    """The script's functions `stmt` called (`find_free_port()`) go with it when nothing else
    calls them (emit/transform.py removes the inlined helpers left unread)."""
    functions = {f.name.value for f in ctx.module.body if isinstance(f, cst.FunctionDef)}
    for call in m.findall(stmt, m.Call(func=m.Name())):
        if call.func.value in functions and call.func.value not in plan.inlined_helpers:
            plan.inlined_helpers.append(call.func.value)


def unread_launch_env(ctx, plan, stmt) -> bool:
    """`stmt` sets MASTER_PORT / MASTER_ADDR and nothing the conversion keeps reads it."""
    if not sets_master_env(stmt):
        return False
    keys = {node.evaluated_value for node in m.findall(stmt, m.SimpleString())} & {
        "MASTER_PORT",
        "MASTER_ADDR",
    }
    skipped = {id(s) for s in [*plan.remove_stmts, plan.trainer_at, stmt] if s is not None}
    skipped |= {
        id(f)
        for f in ctx.module.body
        if isinstance(f, cst.FunctionDef) and f.name.value in plan.inlined_helpers
    }
    reads = _EnvReads(ctx, skipped, keys)
    ctx.module.visit(reads)
    return not reads.found


class _EnvReads(cst.CSTVisitor):
    """Finds, outside the skipped nodes, a use of one of `keys`, a use of `os.environ` that
    may read any key, or a call starting another program."""

    def __init__(self, ctx, skipped: set[int], keys: set[str]) -> None:
        self.ctx = ctx
        self.skipped = skipped
        self.keys = keys
        self.keyed: set[int] = set()  # `os.environ` nodes read at one literal key
        self.found = False

    def on_visit(self, node) -> bool:
        if id(node) in self.skipped or self.found:
            return False
        return super().on_visit(node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if node.evaluated_value in self.keys:
            self.found = True

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if m.matches(node, m.Subscript(_ENVIRON, [m.SubscriptElement(m.Index(m.SimpleString()))])):
            self.keyed.add(id(node.value))

    def visit_Call(self, node: cst.Call) -> None:
        if (
            m.matches(node.func, m.Attribute(_ENVIRON, _KEYED_METHODS))
            and node.args
            and isinstance(node.args[0].value, cst.SimpleString)
        ):
            self.keyed.add(id(node.func.value))
        if any(n.startswith(_CHILD_PROGRAMS) for n in self.ctx.call_qualnames(node)):
            self.found = True

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if isinstance(node.left, cst.SimpleString) and all(
            m.matches(c, m.ComparisonTarget(m.In() | m.NotIn(), _ENVIRON)) for c in node.comparisons
        ):
            self.keyed |= {id(c.comparator) for c in node.comparisons}

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if m.matches(node, _ENVIRON) and id(node) not in self.keyed:
            self.found = True  # handed on whole: `env=os.environ`, `dict(os.environ)`

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "environ" and self.ctx.names.imports.get("environ") == "os.environ":
            self.found = True
