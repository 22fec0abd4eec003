"""Placeholders of a trainer class: `self.optimizer = None` in `__init__`, never read.

    class Trainer:
        def __init__(self, config, model):
            self.model = model
            self.optimizer = None                   <- dropped when the class is inlined
        def run(self):
            self.optimizer = model.configure_optimizers(config)
            for x, y in loader: ...

minGPT declares in `__init__` the attributes its run method sets. Inlined (trainer_inline.py),
the placeholder would become `optimizer = None` before `optimizer = ...`: a name bound twice,
which the loop shapes cannot take for the optimizer's one binding. Nothing can read it: it is
dropped when

- `__init__` sets it to a literal by a statement of its own body, mentions it nowhere else,
  and calls no method after it (a method could read it);
- the script reads no `trainer.optimizer` before the run, and the other methods it calls do
  not read it;
- the run method's first statement mentioning it binds it without reading it, and no
  statement before that calls a method of the instance.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

_SELF_CALL = m.Call(func=m.Attribute(value=m.Name("self")))


def dead_placeholders(init, run, instance_reads_before: set[str], other_reads: set[str]):
    """The statements of `__init__` (`init`) setting an attribute to a literal that no code
    can read before the run method (`run`) binds it again. `instance_reads_before`: the
    attributes the script reads of the instance before the run; `other_reads`: those the
    methods it calls besides the run method read."""
    found = []
    body = list(init.body.body)
    for position, stmt in enumerate(body):
        attr = _literal_store(stmt)
        if attr is None or attr in instance_reads_before | other_reads:
            continue
        mention = m.Attribute(m.Name("self"), m.Name(attr))
        if any(m.findall(s, mention) for s in body if s is not stmt):
            continue
        if any(m.findall(s, _SELF_CALL) for s in body[position + 1 :]):
            continue
        if _bound_first(run, attr):
            found.append(stmt)
    return found


def _literal_store(stmt) -> str | None:
    literal = m.Name("None") | m.Integer() | m.Float() | m.SimpleString() | m.Name("False")
    if m.matches(
        stmt,
        m.SimpleStatementLine(
            [m.Assign([m.AssignTarget(m.Attribute(m.Name("self"), m.Name()))], literal)]
        ),
    ):
        return stmt.body[0].targets[0].target.attr.value
    return None


def _bound_first(run: cst.FunctionDef, attr: str) -> bool:
    """The run method's first statement mentioning `self.attr` binds it and reads it not,
    and no statement before it calls a method of the instance."""
    mention = m.Attribute(m.Name("self"), m.Name(attr))
    for stmt in run.body.body:
        if not m.findall(stmt, mention):
            if m.findall(stmt, _SELF_CALL):
                return False
            continue
        store = m.SimpleStatementLine([m.Assign([m.AssignTarget(mention)])])
        return m.matches(stmt, store) and not m.findall(stmt.body[0].value, mention)
    return False
