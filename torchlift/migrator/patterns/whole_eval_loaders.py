"""Pattern: in a DataParallel -> DDP conversion, every process evaluates the whole data.

DataParallel is one process: its validation and test passes saw every sample, and what it
computed from them (`acc = correct / total`, "Saving..", `best_acc`) is the whole data's. Under
`strategy="ddp"` Lightning (and the runtime) would give each process a shard of an evaluation
loader, unless its sampler is already a DistributedSampler; so each evaluation loader gets one
that keeps the loader's order on one replica:

    testloader = DataLoader(testset, batch_size=64, shuffle=False)
        -> testloader = DataLoader(testset, batch_size=64,
               sampler=torch.utils.data.DistributedSampler(testset, num_replicas=1, rank=0,
                                                            shuffle=False))

`DistributedSampler(dataset, num_replicas=1, rank=0, shuffle=False)` yields 0, 1, ..., n-1 as
the SequentialSampler of `shuffle=False` did (no padding with one replica, no random draw), and
needs no process group. On one device nothing changes. The training loader keeps being sharded
(DDP's global batch: see device_intent.py's note).

A dataset built in the loader's call (`DataLoader(TensorDataset(x[256:], y[256:]))`) is built
again for the sampler, which reads only its length, when building it only reads.

Refused (TL143, naming the loader's line): an evaluation loader that is not one
`DataLoader(dataset, ...)` call bound once (an expression, a parameter, a function's result,
a generated loader), one that shuffles or has its own sampler, one over a dataset not known to
be map-style (an IterableDataset takes no sampler), or one the training pass also iterates.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.confined_effects import file_classes
from ..analysis.globals_read import module_global_binding
from ..analysis.output_effects import pure_expression
from ..analysis.statements import with_keywords
from ..emit.module_class import format_code
from ..rule import Rule
from ..source.code_text import code_of

EVAL_LOADER = Rule(
    "TL143",
    "DataParallel script whose evaluation loader cannot be kept whole on every process",
    """DataParallel -> DDP runs one process per GPU. DataParallel's one process evaluated the
    whole validation (or test) loader, and what the script computes and decides from it
    (accuracy, the best checkpoint) is the whole data's. The conversion keeps that by giving
    the loader `sampler=DistributedSampler(dataset, num_replicas=1, rank=0, shuffle=False)`,
    which Lightning does not replace; that needs a `DataLoader(dataset, ...)` call bound once,
    not shuffling, with no sampler of its own, over a map-style dataset, and not the training
    loader.""",
    """Build the evaluation loader as `loader = DataLoader(dataset, batch_size=...,
    shuffle=False)` with `dataset` bound to a TensorDataset, a torchvision dataset or a
    Dataset class of the script; or convert the one-GPU version of the script.""",
    """
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    model = model.cuda()
    val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
    for epoch in range(2):
        model.train()
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.cuda(), y.cuda()
                correct += (model(x).argmax(1) == y).sum().item()
        print(correct)
    """,
)

RULES = (EVAL_LOADER,)

_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
_SAMPLERS = frozenset(
    {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
)
# datasets that are map-style (take a sampler)
_MAP_STYLE = frozenset(
    {
        "torch.utils.data.TensorDataset",
        "torch.utils.data.dataset.TensorDataset",
        "torch.utils.data.Subset",
        "torch.utils.data.dataset.Subset",
        "torch.utils.data.ConcatDataset",
        "torch.utils.data.dataset.ConcatDataset",
    }
)
_MAP_BASES = frozenset({"torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset"})
_WHY = (
    "evaluation loader -> a DistributedSampler of one replica (the loader's order): every "
    "process evaluates all of it, as DataParallel's one process did; Lightning shards a loader "
    "without one"
)


def read(ctx, plan, steps) -> None:
    if not ctx.found.get("data_parallel_ddp"):
        return
    names = []
    for evaluation in (plan.validation, plan.test):
        if evaluation is not None:
            names += [evaluation.loader, *evaluation.more_loaders]
    done = set()
    for name in names:
        if name in done:
            continue
        done.add(name)
        anchor = plan.validation.anchor if plan.validation else plan.test.anchor
        found = _whole_loader(ctx, plan, name, anchor)
        if found is None:
            continue
        stmt, new = found
        plan.rewrite_stmts.append((stmt, new))
        plan.rewritten_why.append((stmt, cst.Module(body=[new]).code, _WHY))
    if done:
        note = (
            "every process evaluates the whole evaluation data (a DistributedSampler of one "
            "replica), so what the script computes and decides from it is the whole data's"
        )
        plan.notes.append(note)
        plan.device_note += f"; {note}"


def _whole_loader(ctx, plan, name: str, anchor):
    """(statement, its replacement) for the loader `name`, or None (blocked: TL143)."""

    def refuse(why, node):
        ctx.block(EVAL_LOADER, f"the evaluation loader `{name}` {why}", node)

    if name in plan.loader_exprs or plan.eval_loader_stmt is not None:
        return refuse("is not a loader the script binds to a name", anchor)
    if name == plan.train_loader:
        return refuse("is also the training loader, which DDP shards", anchor)
    binding = _binding(ctx, name)
    if binding is None:
        return refuse("is not bound once by a plain assignment before the loop", anchor)
    stmt, loader = binding
    claimed = [*plan.remove_stmts, *plan.strip_stmts, *(s for s, _ in plan.rewrite_stmts)]
    if any(stmt is s for s in claimed):
        return refuse("is a statement the conversion already changes", stmt)
    if not (isinstance(loader, cst.Call) and ctx.call_qualnames(loader) & _LOADERS):
        return refuse("is not a `DataLoader(...)` call", stmt)
    for arg in loader.args:
        if arg.star == "*" or arg.star == "**" and not _options_without_order(ctx, arg.value):
            return refuse(
                "is built with `*args` or with `**kwargs` not known to leave its order "
                "(one dict display, or one of two, bound once and never changed, without "
                "`shuffle` or a sampler)",
                stmt,
            )
    positional = [arg for arg in loader.args if arg.keyword is None]
    keywords = {arg.keyword.value: arg for arg in loader.args if arg.keyword is not None}
    if len(positional) > 2:
        return refuse("passes `shuffle` or a sampler by position", stmt)
    if keywords.keys() & {"sampler", "batch_sampler"}:
        return refuse("has a sampler of its own", stmt)
    shuffle = keywords.get("shuffle")
    if shuffle is not None and not m.matches(shuffle.value, m.Name("False")):
        return refuse(
            "may shuffle: its order comes from torch's generator, which a DistributedSampler "
            "does not draw from",
            stmt,
        )
    dataset = positional[0].value if positional else getattr(keywords.get("dataset"), "value", None)
    if not (
        isinstance(dataset, cst.Name)
        and _map_style(ctx, _binding(ctx, dataset.value))
        or _map_style(ctx, (None, dataset))
        and all(pure_expression(ctx, arg.value) for arg in dataset.args)
    ):
        return refuse(
            "iterates a dataset not known to be map-style (bind it to a TensorDataset, a "
            "torchvision dataset or a Dataset class of the script)",
            stmt,
        )
    sampler = _sampler_name(ctx)
    if sampler is None:
        return refuse("needs `torch` imported to name a DistributedSampler", stmt)
    # a dataset built in the call is built again for the sampler, which reads only its length
    shown = code_of(dataset)
    code = f"{sampler}({shown}, num_replicas=1, rank=0, shuffle=False)"
    new = with_keywords(stmt, loader, {"shuffle"}, [("sampler", cst.parse_expression(code))])
    # black lays out the longer call, at the statement's depth (module or function body)
    indent = 0 if any(stmt is s for s in ctx.module.body) else 4
    text = format_code(cst.Module(body=[new.with_changes(leading_lines=[])]).code, indent)
    formatted = cst.parse_statement(text)
    return stmt, formatted.with_changes(leading_lines=stmt.leading_lines)


def _options_without_order(ctx, options) -> bool:
    """`options` (unpacked into the loader) is a name bound once to dict displays of string
    keys (`{...} if use_cuda else {}`), only ever unpacked, with no key deciding the order."""
    if not isinstance(options, cst.Name):
        return False
    binding = _binding(ctx, options.value)
    if binding is None:
        return False
    uses = m.findall(ctx.module, m.Name(options.value))
    unpacked = m.findall(ctx.module, m.Arg(value=m.Name(options.value), star="**"))
    if len(uses) != len(unpacked) + 1:  # its binding's target, then only `**options`
        return False
    displays = [binding[1]]
    if isinstance(binding[1], cst.IfExp):
        displays = [binding[1].body, binding[1].orelse]
    keys = set()
    for display in displays:
        if not isinstance(display, cst.Dict) or not all(
            isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
            for e in display.elements
        ):
            return False
        keys |= {e.key.evaluated_value for e in display.elements}
    return not keys & {"shuffle", "sampler", "batch_sampler", "dataset"}


def _binding(ctx, name: str):
    binding, count = ctx.binding(name)
    if binding is not None and count == 1:
        return binding
    if binding is None and count == 0:
        return module_global_binding(ctx, name)
    return None


def _map_style(ctx, binding) -> bool:
    """The value of `binding` (statement, value) builds a map-style dataset."""
    if binding is None or not isinstance(binding[1], cst.Call):
        return False
    call = binding[1]
    qualnames = ctx.call_qualnames(call)
    if qualnames & _MAP_STYLE or any(q.startswith("torchvision.datasets.") for q in qualnames):
        return True
    if not isinstance(call.func, cst.Name):
        return False
    cls = file_classes(ctx.module).get(call.func.value)
    return cls is not None and any(ctx.names.of(base.value) & _MAP_BASES for base in cls.bases)


def _sampler_name(ctx) -> str | None:
    imports = ctx.names.imports
    for bound, qualname in sorted(imports.items()):
        if qualname in _SAMPLERS:
            return bound
    torch_name = next((n for n, q in sorted(imports.items()) if q == "torch"), None)
    return f"{torch_name}.utils.data.DistributedSampler" if torch_name else None
