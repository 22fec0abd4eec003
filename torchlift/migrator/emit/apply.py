"""Transform (complete plans only): rewrite the module around each planned loop.

- the epoch loop becomes `lit = LitX(...)`, `trainer = L.Trainer(...)`, `trainer.fit(...)`;
- statements the Trainer now owns are removed (optimizer/scheduler construction moved into
  `configure_optimizers`, `nn.DataParallel(model)`), model construction loses `.to(device)`;
- the generated class is inserted at module level after the last definition it needs.
Blank lines of removed statements are kept so the surrounding layout does not shift.
"""

from __future__ import annotations

import libcst as cst

from ..patterns.device_moves import is_trivial_statement, strip_device_moves


class ApplyPlans(cst.CSTTransformer):
    def __init__(self, replacements, removals, strips, inserts, moved=(), withs=()) -> None:
        super().__init__()
        self.withs = set(withs)  # ids of the `with` statements kept around a loop
        self.moved = set(moved)  # ids of removed statements whose comments moved with them
        self.replacements = replacements  # id(loop) -> list of statements
        self.removals = removals  # ids of statements to drop
        self.strips = strips  # id(stmt) -> device names to strip from it
        self.inserts = inserts  # id(anchor top-level stmt) -> (before?, [ClassDef])

    def _rewrite_body(self, original_body, updated_body, top_level: bool):
        out: list[cst.CSTNode] = []
        carry: list[cst.EmptyLine] = []
        pad_next = False
        pairs = list(zip(original_body, updated_body))
        for position, (orig, upd) in enumerate(pairs):
            key = id(orig)
            if top_level and key in self.inserts and self.inserts[key][0] == "before":
                out.extend(self.inserts[key][1])
            if key in self.removals:
                carry = _carried(upd, key in self.moved, carry)
                continue
            if key in self.strips:
                upd = strip_device_moves(upd, self.strips[key])
                if is_trivial_statement(upd):
                    if self._block_goes(pairs, position):
                        upd = _without_attached_comments(upd)
                    carry = _carried(upd, False, carry)
                    continue
            if key in self.replacements:
                new = list(self.replacements[key])
                own = [line for line in new[0].leading_lines if line.comment is not None]
                new[0] = new[0].with_changes(leading_lines=[*upd.leading_lines, *own])
                upd_list = new
            else:
                upd_list = [upd]
            if carry:
                upd_list[0] = _prepend_lines(upd_list[0], carry)
                carry = []
            if pad_next:
                upd_list[0] = _pad_blank_lines(upd_list[0], 2)
                pad_next = False
            out.extend(upd_list)
            if top_level and key in self.inserts and self.inserts[key][0] == "after":
                out.extend(self.inserts[key][1])
                pad_next = True
        return out

    def _gone(self, orig, upd) -> bool:
        if id(orig) in self.removals:
            return True
        names = self.strips.get(id(orig))
        return names is not None and is_trivial_statement(strip_device_moves(upd, names))

    def _block_goes(self, pairs, position: int) -> bool:
        """Whether every statement of the block the one at `position` belongs to (up to the
        next blank line) is removed: its comment then describes removed code only."""
        return _whole_block_gone(pairs, position, lambda pair: self._gone(*pair))

    def _touches(self, block: cst.IndentedBlock) -> bool:
        return any(
            id(s) in self.removals
            or id(s) in self.strips
            or id(s) in self.replacements
            or id(s) in self.withs
            for s in block.body
        )

    def apply(self, module: cst.Module) -> cst.Module:
        """Rewrite the module body, the bodies of top-level functions / `if` blocks and of
        the `with` blocks kept around a loop (the only places plans touch), reusing every
        other node as is: no full-tree pass."""
        body = []
        for stmt in self._rewrite_body(module.body, self._kept_withs(module.body), True):
            if isinstance(stmt, (cst.FunctionDef, cst.If)):  # a replacement's body too
                stmt = self._rewrite_block(stmt)
            body.append(stmt)
        return module.with_changes(body=body)

    def _kept_withs(self, stmts):
        """`stmts` with the kept `with` blocks among them rewritten inside, before their
        body's own pass changes their leading lines (and so their identity)."""
        return [self._rewrite_block(s) if id(s) in self.withs else s for s in stmts]

    def _rewrite_block(self, stmt):
        block = stmt.body
        if not isinstance(block, cst.IndentedBlock) or not self._touches(block):
            return stmt
        inner = self._rewrite_body(block.body, self._kept_withs(block.body), top_level=False)
        inner = inner or [cst.SimpleStatementLine([cst.Pass()])]
        return stmt.with_changes(body=block.with_changes(body=inner))


def _carried(stmt, moved: bool, carry):
    """Leading lines a removed statement leaves behind: blank lines always; comments too
    unless the statement (and so its comment) moved into the generated class."""
    lines = [line for line in stmt.leading_lines if not moved or line.comment is None]
    if not carry:
        return lines
    # consecutive removals: keep the longest run of blank lines, not their sum
    blank_a = _blank_prefix(carry)
    blank_b = _blank_prefix(lines)
    front = carry[:blank_a] if blank_a >= blank_b else lines[:blank_b]
    return front + carry[blank_a:] + lines[blank_b:]


def _whole_block_gone(pairs, position: int, gone) -> bool:
    """Whether the comment right above the statement at `position` describes removed code
    only: the statement is inside a block (its comment is its own), or every statement of the
    block it heads (up to the next one a blank line away) satisfies `gone`."""
    lines = pairs[position][1].leading_lines
    heads_block = position == 0 or any(line.comment is None for line in lines)
    if not heads_block:
        return True
    for index in range(position, len(pairs)):
        stmt = pairs[index][1]
        if index > position and any(line.comment is None for line in stmt.leading_lines):
            return True
        if not gone(pairs[index]):
            return False
    return True


def _without_attached_comments(stmt):
    """`stmt` without the comment lines right above it (no blank line between): they describe
    it and go when it goes ("# Device configuration" above a removed device binding). A
    comment a blank line away heads a section and stays."""
    lines = list(stmt.leading_lines)
    while lines and lines[-1].comment is not None:
        lines.pop()
    return stmt.with_changes(leading_lines=lines)


def _blank_prefix(lines) -> int:
    count = 0
    while count < len(lines) and lines[count].comment is None:
        count += 1
    return count


def _prepend_lines(stmt, lines):
    existing = list(stmt.leading_lines)
    blanks = 0
    while blanks < len(existing) and existing[blanks].comment is None:
        blanks += 1
    lead = 0
    while lead < len(lines) and lines[lead].comment is None:
        lead += 1
    # keep the larger run of blank lines in front, then the carried comments, then the rest
    front = existing[:blanks] if blanks >= lead else lines[:lead]
    merged = front + lines[lead:] + existing[blanks:]
    return stmt.with_changes(leading_lines=merged)


def _pad_blank_lines(stmt, count: int):
    existing = list(stmt.leading_lines)
    blanks = 0
    while blanks < len(existing) and existing[blanks].comment is None:
        blanks += 1
    if blanks >= count:
        return stmt
    blank = cst.EmptyLine(indent=False)
    return stmt.with_changes(leading_lines=[blank] * (count - blanks) + existing)


class RemoveUnusedBindings:
    """Drop device bindings (`device = torch.device(...)`, or the if/else choosing it) whose
    name nothing reads any more, with their comments, and
    module-level helper functions that were inlined into the LightningModule, and closures
    (`nested`: function -> the names of the closures to remove from its body)."""

    def __init__(
        self, codes: set[str], functions: set[str] = frozenset(), nested: dict | None = None
    ) -> None:
        self.codes = codes
        self.functions = functions
        self.nested = nested or {}

    def _filter(self, body, extra: set[str] = frozenset()):
        functions = self.functions | extra
        module = cst.Module(body=[])
        out = []
        carry = []
        pairs = [(stmt, stmt) for stmt in body]
        for position, stmt in enumerate(body):
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value in functions:
                carry = [line for line in stmt.leading_lines if line.comment is None]
                continue
            if isinstance(stmt, (cst.SimpleStatementLine, cst.If)):
                code = module.code_for_node(stmt.with_changes(leading_lines=[])).strip()
                if code in self.codes:
                    if _whole_block_gone(pairs, position, lambda pair: self._gone(module, pair[0])):
                        stmt = _without_attached_comments(stmt)
                    carry = _carried(stmt, False, carry)
                    continue
            if carry:
                stmt = _prepend_lines(stmt, carry)
            carry = []
            out.append(stmt)
        return out

    def _gone(self, module, stmt) -> bool:
        if isinstance(stmt, cst.FunctionDef):
            return stmt.name.value in self.functions
        if not isinstance(stmt, (cst.SimpleStatementLine, cst.If)):  # the if/else device idiom
            return False
        return module.code_for_node(stmt.with_changes(leading_lines=[])).strip() in self.codes

    def apply(self, module: cst.Module) -> cst.Module:
        body = []
        for stmt in self._filter(module.body):
            block = getattr(stmt, "body", None)
            if isinstance(stmt, (cst.FunctionDef, cst.If)) and isinstance(block, cst.IndentedBlock):
                extra = set()
                if isinstance(stmt, cst.FunctionDef):  # the closures inlined from its body
                    extra = self.nested.get(stmt.name.value, set())
                inner = self._filter(block.body, extra) or [cst.SimpleStatementLine([cst.Pass()])]
                if len(inner) != len(block.body):
                    stmt = stmt.with_changes(body=block.with_changes(body=inner))
            body.append(stmt)
        return module.with_changes(body=body)
