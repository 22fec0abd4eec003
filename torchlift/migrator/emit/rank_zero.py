"""Statements run by one process of several: `if <test>:` around each run of marked ones.

    print("Epoch", epoch)              if self.trainer.is_global_zero:
    torch.save(state, path)      ->        print("Epoch", epoch)
    best = acc                             torch.save(state, path)
                                       best = acc

Marked statements are found by identity (`id()` of the plan's statements, patterns/
rank_zero_effects.py), at any depth: consecutive marked statements of one block share one
guard, which takes the first one's leading blank lines and comments.
"""

from __future__ import annotations

import libcst as cst


def guarded(stmts: list, marked: set[int], test: str) -> list:
    """`stmts` (a block's statements) with their marked runs, and the marked statements
    nested in the others, under `if <test>:`."""
    if not marked:
        return list(stmts)
    nested = [s.visit(_Blocks(marked, test)) for s in stmts]
    return _group(stmts, nested, marked, test)


def _group(originals, updated, marked: set[int], test: str) -> list:
    out, run = [], []
    for original, new in zip(originals, updated):
        if id(original) in marked:
            run.append(new)
            continue
        out += under_test(run, test)
        run = []
        out.append(new)
    return out + under_test(run, test)


def under_test(run: list, test: str) -> list:
    """`if <test>:` around the consecutive statements `run`, keeping the first one's leading
    blank lines and comments above the guard ([] for no statements)."""
    if not run:
        return []
    guard = cst.parse_statement(f"if {test}:\n    pass\n")
    first = run[0]
    body = [first.with_changes(leading_lines=[]), *run[1:]]
    return [
        guard.with_changes(
            body=guard.body.with_changes(body=body), leading_lines=first.leading_lines
        )
    ]


class _Blocks(cst.CSTTransformer):
    def __init__(self, marked: set[int], test: str) -> None:
        super().__init__()
        self.marked = marked
        self.test = test

    def leave_IndentedBlock(self, original_node, updated_node):
        if not any(id(s) in self.marked for s in original_node.body):
            return updated_node
        body = _group(original_node.body, updated_node.body, self.marked, self.test)
        return updated_node.with_changes(body=body)
