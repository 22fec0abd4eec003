"""Pattern: random draws around the loaders' iterators that Lightning would reorder.

1. Epoch-start code that seeds or draws from torch's random generator -> refused (TL190);
a peek at a batch, `next(iter(val_loader))`, draws too (a DataLoader iterator's seed) --
but for a peek at its size, `len(next(iter(loader))[0])`, of loaders whose moved draws
nothing reads (analysis/size_peeks.py).

    for epoch in range(3):
        torch.manual_seed(100 + epoch)      -> on_train_epoch_start: too late in epoch 0
        for x, y in loader:
            ...

The code at the top of the epoch loop goes to `on_train_epoch_start`. Lightning (and the
runtime, which follows it) creates the first epoch's loader iterator before that hook: the
DataLoader's iterator draws its base seed from torch's global generator when it is created,
its RandomSampler at the first batch. A seed set (or a number drawn) at the top of the script's
first epoch comes before both; once converted, between them -- the first epoch's order and
dropout masks differ. Later epochs create their iterator after the hook and agree, which is why
a check of a few steps may miss it: refused (TL190).

Found by qualified name: torch's seeding and sampling functions, the in-place samplers of a
tensor (`w.normal_()`), `torch.nn.init.*`, and the script's own functions calling any of these.
Python's `random` and numpy's generators do not feed a DataLoader and are left alone, and so
is a loader with its own `generator=` (or one the migrator generated, which has one).

2. A shuffled loader with its own generator -> refused (TL191), the training loader's or a
validation pass's (each pass after the first would see its batches in another order).

    loader = DataLoader(ds, batch_size=8, shuffle=True, generator=g)

Lightning ends an epoch after the loader's last batch without asking for another one. The
script's `for` loop asks once more, and a RandomSampler then draws its next permutation from
`g` before it stops (whenever the last batch is full or dropped). With the global generator
that permutation comes from a private generator and nothing is lost; with the script's own,
every later epoch is shuffled differently. A loader a function of the script returns
(`loader = make_loader()`) is read through that function's one `return`, and refused at its
`DataLoader(...)`; one built another way by the script's code (a factory with several
returns, a method, `train, val = make_loaders()`, `loaders = get_loaders(cfg)` then
`loaders["train"]`) is refused at any `DataLoader(...)` it may come from that shuffles with
its own generator (`script_loaders`).

3. A validation pass whose setup draws from torch's generator -> refused (TL195).

    for epoch in range(3):
        ...batch loop...
        noise = torch.randn(4)              -> on_validation_epoch_start: after the pass's
        with torch.no_grad():                  iterator on Lightning
            for x, y in val_loader:
                ...model(x + noise)...

What the pass reads, bound between the batch loop and the pass, runs in
on_validation_epoch_start. Lightning creates the pass's loader iterator (EvaluationLoop.reset)
before that hook (the runtime too); the script drew its numbers before the loop's `iter()`:
the setup gets the iterator's seed instead. A loader with its own generator draws nothing from
torch's. (A test pass with such a setup is left as written: eval_passes.py.)
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.loader_iteration import loader_iterations
from ..analysis.names import bound_names
from ..analysis.size_peeks import _returned, neutral_size_peeks
from ..analysis.torch_draws import draws, functions_drawing
from ..rule import Rule
from ..upgrade.edits import keyword_value

EPOCH_START_RNG = Rule(
    "TL190",
    "the epoch loop seeds or draws random numbers before its batch loop",
    """Code before the batch loop runs in `on_train_epoch_start`, which Lightning calls after
    it has created the first epoch's loader iterator (the DataLoader draws its seed from
    torch's generator then). Seeding or drawing there changes what the first epoch's shuffle
    and dropout see; so does a peek at another loader's batch (`next(iter(val_loader))`
    makes a DataLoader iterator, which draws a seed). A peek at a batch's size,
    `len(next(iter(loader))[0])`, converts when it moves only a seed nothing reads: no
    workers, no collate function or sampler of the script's own, a map-style dataset.""",
    """Seed once before the training loop, or give the DataLoader its own
    `generator=torch.Generator().manual_seed(...)` and seed the epochs through it.""",
    """
    for epoch in range(2):
        torch.manual_seed(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

OWN_GENERATOR = Rule(
    "TL191",
    "a shuffled DataLoader with its own generator",
    """Lightning stops iterating the training loader (and a validation pass's) after its last
    batch; the script's loop asks for one more, and the RandomSampler draws its next
    permutation from the loader's generator before it says it is done. The generator then
    differs from the second epoch (or pass) on, and so does every later shuffle.""",
    """Drop `generator=` (seed the global generator once with `torch.manual_seed`), or shuffle
    with the global generator.""",
    """
    g = torch.Generator().manual_seed(0)
    shuffled = DataLoader(loader.dataset, batch_size=4, shuffle=True, generator=g)
    for epoch in range(2):
        for x, y in shuffled:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

EVAL_SETUP_RNG = Rule(
    "TL195",
    "a validation pass draws random numbers before its loop",
    """The code that sets up a validation pass (what the pass reads, bound between the
    training loop and the pass) runs in `on_validation_epoch_start`, which Lightning calls
    after it has created the pass's loader iterator -- and a DataLoader iterator draws its
    seed from torch's generator when it is created. The script drew its numbers first: once
    converted, they would be other numbers.""",
    """Draw the numbers once before the epoch loop (a fixed noise tensor), or give the
    validation DataLoader its own `generator=torch.Generator().manual_seed(...)`.""",
    """
    val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        noise = torch.randn(4)
        with torch.no_grad():
            for x, y in val_loader:
                print(criterion(model(x + noise), y).item())
    """,
)

RULES = (EPOCH_START_RNG, OWN_GENERATOR, EVAL_SETUP_RNG)


def read(ctx, plan, steps) -> None:
    _validation_setup(ctx, plan)
    _validation_own_generator(ctx, plan)
    if plan.loader_stmt is not None:
        return  # generated: its own generator, no shuffle
    loader = _loader_call(ctx, plan.train_loader)
    if loader is None:
        # built another way (several returns, a method, a tuple or dict of loaders): any
        # loader it may be that shuffles with its own generator
        loader = next(
            (
                c
                for c in script_loaders(ctx, plan.train_loader)
                if _own_generator(c) and _shuffles(ctx, c)
            ),
            None,
        )
    if _own_generator(loader):
        if _shuffles(ctx, loader):
            ctx.block(
                OWN_GENERATOR,
                f"`{plan.loader_exprs.get(plan.train_loader, plan.train_loader)}` shuffles "
                "with its own generator: Lightning ends the epoch without asking the sampler "
                "for more, the script's loop asks once more and the sampler draws its next "
                "permutation from that generator",
                _loader_line(ctx, plan.train_loader, loader),
            )
        return  # its iterator draws from the loader's own generator, not the global one
    drawing = functions_drawing(ctx)
    for stmt in plan.pre_train:
        if draws(ctx, stmt, drawing, loaders=False) or (
            loader_iterations(ctx, stmt) and not neutral_size_peeks(ctx, stmt, plan.train_loader)
        ):
            ctx.block(
                EPOCH_START_RNG,
                f"the epoch loop {_drawing(ctx, stmt)} before its batch loop: Lightning "
                "creates the first epoch's loader iterator (which draws its seed) before "
                "on_train_epoch_start, where this code would run",
                stmt,
            )
            return


def _validation_own_generator(ctx, plan) -> None:
    """TL191 for a validation loader shuffling with its own generator: Lightning ends each
    pass after the loader's last batch, the script's `for` asks once more, and the sampler
    draws its next permutation from that generator -- every later pass sees the batches in
    another order (its metrics summed otherwise; whatever reads them, a plateau scheduler or
    a best-model test, may decide otherwise)."""
    validation = plan.validation
    if validation is None or plan.eval_loader_stmt is not None:
        return  # no pass, or a generated loader (no shuffle)
    for name in [validation.loader, *validation.more_loaders]:
        loader = _loader_call(ctx, name)
        if loader is None:
            loader = next(
                (c for c in script_loaders(ctx, name) if _own_generator(c) and _shuffles(ctx, c)),
                None,
            )
        if _own_generator(loader) and _shuffles(ctx, loader):
            ctx.block(
                OWN_GENERATOR,
                f"validation loader `{plan.loader_exprs.get(name, name)}` shuffles with its "
                "own generator: Lightning ends each validation pass without asking the sampler "
                "for more, the script's loop asks once more and the sampler draws its next "
                "permutation from that generator (the next pass's batches come in another "
                "order)",
                _loader_line(ctx, name, loader),
            )
            return


def _validation_setup(ctx, plan) -> None:
    """TL195 at the first statement of the validation pass's setup that draws from torch's
    generator, when the pass's loader draws from it too."""
    validation = plan.validation
    if validation is None or plan.eval_loader_stmt is not None:
        return  # no pass, or a generated loader (its own generator)
    if _own_generator(_loader_call(ctx, validation.loader)):
        return
    drawing = functions_drawing(ctx)
    stmt = next((s for s in validation.before if draws(ctx, s, drawing)), None)
    if stmt is not None:
        ctx.block(
            EVAL_SETUP_RNG,
            f"the validation pass's setup {_drawing(ctx, stmt)}: it would run "
            "in on_validation_epoch_start, which Lightning calls after creating the pass's "
            "loader iterator (which draws its seed); the script drew here first",
            stmt,
        )


def _drawing(ctx, stmt) -> str:
    """How `stmt` draws, for a refusal: a loader it iterates, or random numbers."""
    sites = loader_iterations(ctx, stmt)
    if sites:
        code = ctx.module.code_for_node(sites[0]).strip().splitlines()[0]
        return (
            f"iterates a loader (`{code}`: a DataLoader iterator draws a seed from torch's "
            "random generator)"
        )
    return "seeds or draws from torch's random generator"


def _own_generator(loader: cst.Call | None) -> bool:
    """`DataLoader(..., generator=g)`, or its sampler given one: its iterators draw from that
    generator, not torch's global one."""
    if loader is None:
        return False
    sampler = keyword_value(loader, "sampler")
    return keyword_value(loader, "generator") is not None or (
        isinstance(sampler, cst.Call) and keyword_value(sampler, "generator") is not None
    )


def _loader_call(ctx, loader: str) -> cst.Call | None:
    """The `DataLoader(...)` call bound once to `loader` (or standing under a dict's key for
    it: keyed_loaders.py), if any."""
    keyed = ctx.found.get("keyed_loader_calls", {}).get(loader)
    if keyed is not None:
        return keyed
    binding, count = ctx.binding(loader)
    value = binding[1] if binding is not None and count == 1 else None
    if _is_loader_call(ctx, value):
        return value
    return _factory_loader_call(ctx, value)


def _loader_line(ctx, name: str, loader: cst.Call):
    """Where a refusal points: the statement binding `name` to the `DataLoader(...)`, or the
    call itself where a function of the script builds it (`loader = make_loader()`)."""
    binding, _ = ctx.binding(name)
    if binding is not None and binding[1] is loader:
        return binding[0]
    return loader


def _is_loader_call(ctx, value) -> bool:
    return isinstance(value, cst.Call) and any(
        q.endswith(".DataLoader") for q in ctx.call_qualnames(value)
    )


def _factory_loader_call(ctx, value) -> cst.Call | None:
    """The `DataLoader(...)` a function of the script returns, for `loader = make_loader()`:
    its one `return DataLoader(...)`, or `return loader` bound once to one in the function."""
    returned = _returned(ctx, value)
    if returned is None:
        return None
    result, lookup = returned
    if isinstance(result, cst.Name):
        found = lookup(result.value)
        result = found[0] if found is not None else None
    return result if _is_loader_call(ctx, result) else None


def script_loaders(ctx, name: str) -> list[cst.Call]:
    """Every `DataLoader(...)` call the loader `name` may come from (as found): those in
    the statements binding it before the loop, in the statements binding the names those read
    (`loaders = get_loaders(cfg)` for `loaders["train"]`), and in the script's functions,
    methods and classes any of these mention (`make_loaders()` returning a tuple or a dict,
    a factory with several returns, `data.train_loader()`), and in the ones those mention."""
    before = list(ctx.scope_before)
    if ctx.in_function:
        before += [s for s in ctx.module.body if s is not ctx.top_stmt]
    definitions = {}
    for node in m.findall(ctx.module, m.FunctionDef() | m.ClassDef()):
        if node is not getattr(ctx, "function", None):
            definitions.setdefault(node.name.value, []).append(node)
    seen, todo, found = set(), [name], []
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        nodes = [s for s in before if current in bound_names(s)]
        nodes += definitions.get(current, [])
        for node in nodes:
            found += [c for c in m.findall(node, m.Call()) if _is_loader_call(ctx, c)]
            todo += [n.value for n in m.findall(node, m.Name()) if n.value not in seen]
    return list({id(c): c for c in found}.values())


def _shuffles(ctx, loader: cst.Call) -> bool:
    """`shuffle=` anything but False (or a RandomSampler given as `sampler=`)."""
    shuffle = keyword_value(loader, "shuffle")
    if shuffle is None and len(loader.args) > 2 and loader.args[2].keyword is None:
        shuffle = loader.args[2].value  # DataLoader(dataset, batch_size, shuffle, ...)
    if shuffle is not None and not m.matches(shuffle, m.Name("False")):
        return True
    sampler = keyword_value(loader, "sampler")
    return isinstance(sampler, cst.Call) and any(
        q.endswith("RandomSampler") for q in ctx.call_qualnames(sampler)
    )
