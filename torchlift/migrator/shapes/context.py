"""Where a training loop stands, and what every recogniser of that loop may ask.

The rules any loop shape shares: a loop is converted where it stands, so it must sit at module
level, in a function body or under `if __name__ == "__main__":`, directly or in `with` blocks
kept around the Trainer (enclosing.py; TL103), and a
function holding it may declare module globals at the top of its body but not `nonlocal`
or a `global` inside a block (TL117); batches come from a loader
(TL104); control flow (TL107) and epoch-level code (TL109) must keep their meaning in hooks. LoopContext records its place (the statements before and after it
in its scope), answers binding and loader questions, and collects the blockers recognisers
find, so a refused loop lists every reason.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.closures import nonlocal_lines
from ..analysis.names import bound_names, collect_names
from ..analysis.qualnames import TQDM, Qualnames
from ..analysis.statements import contains, single_assign, statements
from ..rule import Rule, Unsupported
from .trainer_class import refuse_method_loop

PLACEMENT = Rule(
    "TL103",
    "training loop is not at module level, in a function body or under `if __name__`"
    " (or in a `with` there)",
    """The loop is replaced by the Trainer call where it stands, so it must sit at module
    level, in a function's body or under `if __name__ == "__main__":`, directly or inside
    plain `with` blocks standing there (kept around the Trainer statements, with the code
    before and after the loop) -- not inside a `try`, another loop or any other block. A
    `with` that changes what training means is refused too: `async with`, grad mode
    (`torch.no_grad()`, `torch.inference_mode()`, `torch.set_grad_enabled()`), DDP's
    `model.join()`, and a tqdm bar's `with` holding more than the loop. A batch loop in a
    function defined inside the function holding the epoch loop (`def train(epoch):` in
    `main()`) is inlined into that loop when the loop calls it (patterns/helpers.py); one
    holding its own epoch loop is refused, naming both functions.""",
    """Move the loop out of the block (for example open the log file in a `with` around the
    loop instead of closing it in `finally`, or put the loop in a `main()` function).""",
    """
    log = open("log.txt", "w")
    try:
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            print(epoch, loss.item(), file=log)
    finally:
        log.close()
    """,
)

GLOBAL_STATEMENT = Rule(
    "TL117",
    "the function holding the loop uses `nonlocal`, or `global` inside a block",
    """Names the function holding the loop declares `global` at the top of its body stay
    module globals that the generated hooks read and write (patterns/module_globals.py). A
    closure inlined into the epoch loop (`def train(epoch):` in `main()`) may declare
    `nonlocal step`: inlined, `step` is `main()`'s own local. Any other `nonlocal` -- a
    closure used besides those calls, or a name another closure or lambda of the function
    uses too -- or a `global` inside a nested block or function ties names to scopes the
    LightningModule's methods cannot share.""",
    """Declare module globals once, at the top of the function; pass a closure's state in
    and return it instead of `nonlocal`.""",
    """
    def main():
        best = None

        def record(value):
            nonlocal best
            best = value

        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            record(loss.item())


    main()
    """,
)

NOT_A_LOADER = Rule(
    "TL104",
    "batch loop does not iterate a loader name (enumerate/tqdm of a name are accepted)",
    """The Trainer draws batches from a DataLoader it is given, so the batch loop must iterate
    a loader bound to a name: `for batch in loader`, `enumerate(loader)`, `tqdm(loader)`.
    Manual batching over `range(0, n, batch_size)` is converted (the numbers become the
    batches of a generated loader) unless the epoch loop changes what the range reads. A
    generator function of the script called anew each epoch (`get_batches(data, bs, n)`) is
    handed over when the Trainer may read it one batch ahead: it draws nothing from torch's
    generator, changes nothing it did not make, reads nothing the epoch changes
    (patterns/generator_loader.py); the refusal names its statement that prevents it. A
    Python list of samples becomes a loop over its positions (patterns/sample_lists.py) unless
    the epoch loop changes the list. Other manual batching (`zip` of tensor chunks) and a loader
    reached through an object's attributes (`learn.data.train_dl`) have no loader name to hand
    over.""",
    """Wrap the tensors in `DataLoader(TensorDataset(x, y), batch_size=...)` and iterate it.""",
    """
    data, targets = torch.randn(8, 4), torch.randint(0, 2, (8,))
    for epoch in range(2):
        for xb, yb in zip(data.split(4), targets.split(4)):
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
    """,
)

CONTROL_FLOW = Rule(
    "TL107",
    "loop body uses control flow that cannot be kept faithfully (break/continue/return)",
    """Lightning calls `training_step` once per batch and cannot leave the epoch from inside
    it the way `return` or a `break` before the optimizer step do. (A `break` after
    `optimizer.step()` is converted: it ends the epoch; a `continue` before backward() is
    converted too, see TL135. A `return` inside a function defined in the loop is that
    function's own.)""",
    """Move a `break` after `optimizer.step()`; use `max_steps` or an `EarlyStopping` callback
    by hand.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            if loss.item() < 0.01:
                break
            loss.backward()
            optimizer.step()
    """,
)

EPOCH_STATEMENT = Rule(
    "TL109",
    "epoch-level statement cannot be placed in a Lightning hook faithfully",
    """Code around the batch loop moves to `on_train_epoch_start` / `on_train_epoch_end`, and
    code after `optimizer.step()` that reads the model to `on_train_batch_end`. Code whose
    place changes its result (a loop before the batch loop that iterates a loader, steps an
    optimizer, reaches the model or is a `while` -- one over metric objects or counters goes
    to `on_train_epoch_start`, one setting the learning rate on `param_groups` to the
    scheduler --, a scheduler stepped before training) is refused.""",
    """Move such code to the end of the epoch (after the batch loop), or into the batch loop.""",
    """
    for epoch in range(2):
        for x, _ in loader:
            print(x.mean())
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

RULES = (PLACEMENT, NOT_A_LOADER, CONTROL_FLOW, EPOCH_STATEMENT, GLOBAL_STATEMENT)

_NAME_MAIN = m.Comparison(
    left=m.Name("__name__"), comparisons=[m.ComparisonTarget(operator=m.Equal())]
)


class Consequence(Exception):
    """Planning cannot go on, for a reason already recorded as a blocker (no second message
    for the same cause)."""


class LoopContext:
    """One candidate loop in its module. Read-only for recognisers, except `block` and the
    facts they record for later steps (`index_start`)."""

    def __init__(self, imports: dict[str, str], module: cst.Module, loop: cst.CSTNode) -> None:
        self.module = module
        self.loop = loop
        self.names = Qualnames(imports)
        self.blockers: list[Unsupported] = []
        self.index_start: dict[str, cst.BaseExpression] = {}  # enumerate(..., start=)
        self._binding_index: dict | None = None
        # facts a pattern recorded for a later phase (e.g. the progress bar it unwrapped)
        self.found: dict[str, object] = {}

    # -- what recognisers report ------------------------------------------------------
    def block(self, rule: Rule, reason: str, node) -> None:
        """A reason the loop cannot be converted; planning goes on to find the others."""
        self.blockers.append(Unsupported(rule, reason, node))

    # -- qualified names ------------------------------------------------------------------
    def qualnames(self, node: cst.CSTNode) -> set[str]:
        return self.names.of(node)

    def call_qualnames(self, node: cst.CSTNode) -> set[str]:
        return self.names.of_call(node)

    # -- where the loop stands --------------------------------------------------------
    def locate(self) -> None:
        """Find the loop's container and split its scope around it, or refuse (TL103)."""
        from .enclosing import header, holders, kept_withs
        from .runs import next_iteration
        from .wrappers import INTERRUPT_NOTE, wrapper_around

        self.in_function = False
        self.function: cst.FunctionDef | None = None
        path = holders(self.module, self.loop) or []
        self.wrapper, why_not = wrapper_around(self, self.loop, path[-1] if path else None)
        if why_not is not None:
            raise Unsupported(PLACEMENT, why_not, self.loop)
        # the loop, or the `with` bar / `try` standing for it
        loop = self.wrapper if self.wrapper is not None else self.loop
        if self.wrapper is not None:
            path = path[:-1]
        self.withs, why_not = kept_withs(self, path)
        if why_not is not None:
            raise Unsupported(PLACEMENT, why_not, self.loop)
        path = path[: len(path) - len(self.withs)]
        if len(path) > 1:
            refuse_method_loop(self.module, self.loop)  # a hand-written trainer class: TL133
            raise Unsupported(PLACEMENT, _why_nested(path), self.loop)
        owner = path[0] if path else self.module
        if owner is not self.module:
            if isinstance(owner, cst.FunctionDef):
                self.in_function = True
                self.function = owner
            elif not (isinstance(owner, cst.If) and m.matches(owner.test, _NAME_MAIN)):
                raise Unsupported(
                    PLACEMENT,
                    "training loop is inside a block other than a function or `if __name__`",
                    self.loop,
                )
        # one level per body from the owner's down to the loop's: a `with` opens no scope,
        # so its header and the statements around it read as one flat body
        bodies = [owner.body if owner is self.module else owner.body.body]
        bodies += [w.body.body for w in self.withs]
        standing = [*self.withs, loop]  # what each body holds on the way to the loop
        base = 0 if owner is self.module else 1
        self.before, self.after = [], []
        # what runs after the loop, in order: a loop over runs (runs.py) runs its body again
        flow_after: list = []
        self.run_headers: dict[int, cst.CSTNode] = {}
        self.depths: dict[int, int] = {id(loop): base + len(self.withs)}
        for depth, (body, stmt) in enumerate(zip(bodies, standing), start=base):
            index = next(i for i, s in enumerate(body) if s is stmt)
            block = self.withs[depth - base - 1] if depth > base else None
            if block is not None:
                self.before.append(header(block))
                if isinstance(block, cst.For):
                    self.run_headers[id(block)] = self.before[-1]
            self.before += body[:index]
            self.after[:0] = body[index + 1 :]
            if isinstance(block, cst.For):
                flow_after[:0] = next_iteration(body, index, self.run_headers[id(block)])
            else:
                flow_after[:0] = body[index + 1 :]
            self.depths.update({id(s): depth for s in body})
        # the block the Trainer statements go to, and the module-level statement holding
        # the loop (the loop itself at module level)
        if self.withs:
            self.container = self.withs[-1].body
        else:
            self.container = self.module if owner is self.module else owner.body
        if owner is not self.module:
            self.top_stmt = owner
        else:
            self.top_stmt = self.withs[0] if self.withs else loop
        self.notes: list[str] = []
        if isinstance(self.wrapper, cst.Try):  # an interrupt handler runs after the loop
            handlers = [s for handler in self.wrapper.handlers for s in handler.body.body]
            self.after = handlers + self.after
            flow_after[:0] = handlers
            self.depths.update({id(s): self.depths[id(loop)] + 1 for s in handlers})
            self.notes.append(INTERRUPT_NOTE)
        module_body = list(self.module.body)
        top_index = next(i for i, s in enumerate(module_body) if s is self.top_stmt)
        nested = owner is not self.module
        self.module_before = module_body[:top_index] if nested else []
        self.module_after = module_body[top_index + 1 :] if nested else []
        if self.in_function:
            # names the function binds: parameters + statements before the loop
            self.scope_before = list(self.before)
            self.params = {p.name.value for p in _all_params(self.function)}
            declared = top_level_globals(self.function, self.found)
            if declared is None:
                raise Unsupported(GLOBAL_STATEMENT, *_scope_declaration(self.function, self.loop))
            self.found["function_globals"] = declared
        else:
            self.scope_before = [*self.module_before, *self.before]
            self.params = set()
        self.scope_after = flow_after + ([] if self.in_function else self.module_after)
        self.module_defs = self._module_definitions()

    def _module_definitions(self) -> set[str]:
        names: set[str] = set()
        for stmt in self.module.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                names.add(stmt.name.value)
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        names |= collect_names(small).writes
            elif isinstance(stmt, (cst.If, cst.Try)) and contains(stmt, frozenset({"import"})):
                for found in statements(stmt):  # guarded imports
                    if isinstance(found, cst.SimpleStatementLine):
                        for small in found.body:
                            if isinstance(small, (cst.Import, cst.ImportFrom)):
                                names |= collect_names(small).writes
        return names

    # -- bindings before the loop -----------------------------------------------------
    def binding(self, name: str):
        """((statement, value) of the last `name = <expr>` of the loop's scope before the
        loop, or None), and how many statements there bind `name`."""
        index = self._binding_index
        if index is None:  # one pass over the scope, then lookups
            index = {}
            for stmt in self.scope_before:
                assign = single_assign(stmt)
                for bound in bound_names(stmt):
                    found, count = index.get(bound, (None, 0))
                    found = (stmt, assign[1]) if assign and assign[0] == bound else None
                    index[bound] = (found, count + 1)
            self._binding_index = index
        return index.get(name, (None, 0))

    def is_loader_name(self, name: str) -> bool:
        if name in self.found.get("keyed_loaders", ()):  # `loaders["val"]`: keyed_loaders.py
            return True
        for stmt in self.scope_before:
            found = single_assign(stmt)
            if found and found[0] == name and isinstance(found[1], cst.Call):
                if any(q.endswith("DataLoader") for q in self.call_qualnames(found[1])):
                    return True
        return False

    def harmless_loop(self, stmt) -> bool:
        """Loops at epoch level that do not iterate a loader (e.g. over a list of metrics)."""
        for loop in statements(stmt):
            if isinstance(loop, cst.While):
                return False
            if isinstance(loop, cst.For) and isinstance(loop.iter, cst.Name):
                if self.is_loader_name(loop.iter.value):
                    return False
        return True

    # -- batch loops ----------------------------------------------------------------------
    def unwrap_iter(self, loop: cst.For, iterator=None, index=None, target=None):
        """(loader expression, index name, batch target) of a batch loop: `tqdm(...)` and
        `enumerate(...)` around the loader are looked through. Given `iterator` (what a name
        the loop iterates stands for: a bar's `tqdm(enumerate(loader))`) with the `index` and
        `target` read so far, the unwrapping goes on from there."""
        if iterator is None:
            iterator, target = loop.iter, loop.target
        for _ in range(3):
            if not isinstance(iterator, cst.Call) or not iterator.args:
                break
            names = self.call_qualnames(iterator)
            first = iterator.args[0]
            if first.keyword is not None or first.star:
                break
            if names & TQDM:
                iterator = first.value
            elif "builtins.enumerate" in names and index is None:
                start = None
                if len(iterator.args) > 2 or (
                    len(iterator.args) == 2
                    and iterator.args[1].keyword is not None
                    and iterator.args[1].keyword.value != "start"
                ):
                    raise Unsupported(NOT_A_LOADER, "enumerate() with unexpected arguments", loop)
                if len(iterator.args) == 2:
                    start = iterator.args[1].value
                    if not isinstance(start, (cst.Integer, cst.Name, cst.Attribute)):
                        raise Unsupported(NOT_A_LOADER, "enumerate start is an expression", loop)
                if not m.matches(
                    target, m.Tuple(elements=[m.Element(m.Name()), m.Element()])
                ) and not m.matches(target, m.List(elements=[m.Element(m.Name()), m.Element()])):
                    raise Unsupported(NOT_A_LOADER, "enumerate target is not `i, batch`", loop)
                index = target.elements[0].value.value
                target = target.elements[1].value
                iterator = first.value
                if start is not None and not (
                    isinstance(start, cst.Integer) and start.evaluated_value == 0
                ):
                    self.index_start[index] = start
            else:
                break
        return iterator, index, target


def _why_nested(path: list) -> str:
    """Why a loop held by more than one statement cannot be converted where it stands: the
    innermost function holding it, when it is nested in another (a closure), else the
    statement around it."""
    inner = next((s for s in reversed(path[1:]) if isinstance(s, cst.FunctionDef)), None)
    if inner is None:
        return "training loop is nested inside another statement"
    outer = next(
        s
        for s in reversed(path[: path.index(inner)])
        if isinstance(s, cst.FunctionDef | cst.ClassDef)
    )
    return (
        f"training loop is in `{inner.name.value}()`, a function defined inside "
        f"`{outer.name.value}`: a nested function is inlined only when the epoch loop of the "
        "function defining it calls it once per epoch; move it to module level"
    )


def _scope_declaration(func: cst.FunctionDef, loop) -> tuple[str, cst.CSTNode]:
    """(why, where) for the `nonlocal`, or `global` inside a block, that top_level_globals
    found in `func`: a closure's names the closure and the name it declares."""
    for stmt in func.body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            continue  # its own top-level `global` is fine; a `nonlocal` there names nothing
        for inner in m.findall(stmt, m.FunctionDef()):
            for found in m.findall(inner.body, m.Nonlocal() | m.Global()):
                names = ", ".join(n.name.value for n in found.names)
                where = f"`{inner.name.value}()`, defined inside `{func.name.value}()` that holds the loop,"
                if isinstance(found, cst.Nonlocal):
                    why = (
                        f"{where} writes its `{names}` through `nonlocal`: a closure's writes to "
                        "the function's locals are not converted; return the value instead"
                    )
                else:
                    why = (
                        f"{where} declares `global {names}`: only `global` at the top of the "
                        "function holding the loop is converted"
                    )
                return why, found
    return "the function holding the loop uses `nonlocal`, or `global` inside a block", loop


def top_level_globals(func: cst.FunctionDef, found: dict | None = None) -> set[str] | None:
    """The names `func` declares `global` in statements of its own body (not in a block), or
    None when it has a `nonlocal` or a `global` elsewhere (inside a block, a nested def).
    Given `found`, a closure of `func` declaring only `nonlocal` lines in its own body is
    noted there instead ("closure_nonlocals": name -> (its def, its first `nonlocal`)): inlined into
    the loop, those names are `func`'s locals (analysis/closures.py); one left as a call is
    refused by patterns/helpers.py."""
    declared: set[str] = set()
    for stmt in func.body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Global):
                    declared |= {n.name.value for n in small.names}
                elif isinstance(small, cst.Nonlocal):
                    return None
        elif contains(stmt, frozenset({"global"})):
            lines = nonlocal_lines(stmt) if isinstance(stmt, cst.FunctionDef) else None
            if found is None or not lines:
                return None
            found.setdefault("closure_nonlocals", {})[stmt.name.value] = (stmt, lines[0].body[0])
    return declared


def _all_params(func: cst.FunctionDef) -> list[cst.Param]:
    p = func.params
    out = [*p.posonly_params, *p.params, *p.kwonly_params]
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            out.append(star)
    return out
