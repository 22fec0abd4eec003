"""Which code seeds or draws from torch's global random generator, by qualified name.

A DataLoader without its own `generator=` draws its iterator's seed (and a RandomSampler its
permutation's) from that generator, so code whose draws the conversion moves past a loader's
`iter()` changes what the loader draws: patterns/loader_rng.py (epoch-start code, a
validation pass's setup), patterns/eval_passes.py (a test pass's setup),
patterns/generator_loader.py (a generator read one batch ahead).

Found: torch's seeding and sampling functions, the in-place samplers of a tensor
(`w.normal_()`), `torch.nn.init.*`, `seed_everything`, code iterating what may be a
DataLoader (`next(iter(loader))`, `len(list(loader))`, a `for` over it:
analysis/loader_iteration.py), and the script's own module-level functions doing any of these.
Python's `random` and numpy's generators feed no DataLoader and are not counted; neither is a
module run in train mode (dropout), which no name shows.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .function_reads import functions_doing, module_functions
from .loader_iteration import loader_iterations

SEEDING = frozenset(
    "torch." + name
    for name in (
        "manual_seed seed set_rng_state random.manual_seed random.seed random.set_rng_state "
        "cuda.manual_seed cuda.manual_seed_all rand randn randint randperm rand_like randn_like "
        "randint_like normal bernoulli multinomial poisson nn.functional.dropout "
        "utils.data.random_split"
    ).split()
)
IN_PLACE_SAMPLERS = frozenset(
    "random_ uniform_ normal_ bernoulli_ exponential_ geometric_ cauchy_ log_normal_".split()
)


def draws(ctx, node, drawing: set[str], loaders: bool = True) -> bool:
    """`node` seeds or draws from torch's generator, directly (a loader's iterator too,
    unless not `loaders`) or by calling one of the script's functions named in `drawing`
    (functions_drawing)."""
    for call in m.findall(node, m.Call()):
        names = ctx.call_qualnames(call)
        if names & SEEDING or any(
            q.startswith("torch.nn.init.") or q.endswith(".seed_everything") for q in names
        ):
            return True
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in IN_PLACE_SAMPLERS:
            return True
        if isinstance(func, cst.Name) and func.value in drawing:
            return True
    return loaders and bool(loader_iterations(ctx, node))


def functions_drawing(ctx) -> set[str]:
    """The script's module-level functions that seed or draw, directly or through another."""
    functions = module_functions(ctx.module).values()
    return functions_doing(functions, lambda f, drawing: draws(ctx, f.body, drawing))
