"""Pattern: a progress bar that makes an iterator of its loader when it is built (tqdm.auto's).

    from tqdm.auto import tqdm
    for epoch in range(N):
        for x, y in tqdm(train_loader):        -> `iter(train_loader)` right before `fit` (the
            ...                                   first epoch's) and at the end of
                                                  on_train_epoch_start from the second epoch on
        with torch.no_grad():
            for x, y in tqdm(val_loader):      -> `iter(self.trainer.val_dataloaders)` in
                ...                               on_validation_model_zero_grad
    with torch.no_grad():
        for x, y in tqdm(test_loader): ...     -> `iter(test_loader)` right before `test`

`tqdm.auto.tqdm` is `tqdm.asyncio.tqdm_asyncio` (in a notebook, a class deriving from it and
the notebook bar), whose `__init__` calls `iter()` on what it wraps unless that is an iterator
already; the bar's own `__iter__` then iterates the loader again. A DataLoader iterator draws
its base seed from the loader's generator -- torch's global one unless given `generator=` --
when it is created, shuffled or not (with workers it starts them at once, and they ask the
sampler for its first indices: a RandomSampler draws its seed then too). So the script drew
once more per bar; the conversion drops the bar, and every later shuffle and dropout mask
would differ. The same `iter()` call is kept, where nothing random runs between it and the
Trainer's own `iter()` of the loader, as nothing did between the bar's and the loop's:
- training: Lightning (FitLoop.setup_data) and the runtime create the first epoch's iterator
  when `fit` starts, before any epoch hook; the next epochs' right after on_train_epoch_start;
- validation: both call on_validation_model_zero_grad right before the pass, then create its
  iterator (EvaluationLoop.reset) before on_validation_epoch_start, where the pass's setup
  runs: it draws nothing from torch's generator (else TL195, loader_rng.py);
- test: likewise right before `trainer.test(...)` (a test pass whose setup draws is left as
  written, eval_passes.py).
Being the same calls in the same order, the draws stay the script's with workers too.

Nothing to keep: `tqdm.tqdm`, `tqdm.notebook.tqdm` and `tqdm.autonotebook.tqdm` (none calls
iter() when built), a bar over `enumerate(loader)` (an iterator: its one `iter()` of the
loader is the loop's), a bar over a range, a list or a generator (generated loaders:
iterating them draws nothing). Refused (TL194): a bar on the second of two validation passes
(Lightning creates that loader's iterator when the first is exhausted, with no hook between),
a bar `with`-wrapping the training loop built with a call that may iterate a loader
(`tqdm(enumerate(loader))`, whatever the bar: its evaluation is dropped with the bar), and any
bar the conversion drops given an argument that draws from torch's generator
(`tqdm(loader, total=sum(1 for _ in loader))`, `total=len(list(loader))`: each iterates the
loader; analysis/loader_iteration.py), at that argument.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.loader_iteration import loader_iterations
from ..analysis.qualnames import ITERATING_BARS, TQDM, TRANGE
from ..analysis.statements import single_assign
from ..analysis.torch_draws import draws, functions_drawing
from ..rule import Rule
from .eval_passes import eval_loop_of

BAR_DRAW = Rule(
    "TL194",
    "a dropped progress bar made a loader iterator that cannot be made at the same point",
    """`tqdm.auto.tqdm` (tqdm.asyncio's bar) calls `iter()` on the loader it wraps when it
    is built, and a DataLoader iterator draws a seed from torch's generator: the conversion
    drops the bar and keeps that draw right before the Trainer creates its own iterator of
    the loader, as in the script. It cannot for the bar of a second validation pass:
    Lightning creates that loader's iterator inside the pass, when the first loader is
    exhausted, with no hook between. Nor for a bar around the whole training loop built with
    a call that may iterate a loader (`tqdm(enumerate(loader))`, whatever the bar), nor for
    any dropped bar given an argument that draws (`total=sum(1 for _ in loader)`,
    `total=len(list(loader))` iterate the loader): that evaluation goes with the bar.""",
    """Use `from tqdm import tqdm` (it does not iterate the loader when built) for the
    second pass's bar, or drop it; build a bar around the loop with `total=` only, and count
    a loader's batches with `len(loader)`, which iterates nothing.""",
    """
    from tqdm.auto import tqdm

    val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
    ema = nn.Linear(4, 2)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        correct = 0
        with torch.no_grad():
            for x, y in val_loader:
                correct += (model(x).argmax(1) == y).sum().item()
        ema_correct = 0
        with torch.no_grad():
            for x, y in tqdm(val_loader):
                ema_correct += (ema(x).argmax(1) == y).sum().item()
        print(correct, ema_correct)
    """,
)

RULES = (BAR_DRAW,)

# what a loop's bar wraps around its loader (looked through: the Trainer iterates the loader)
_CHAIN = TQDM | {"builtins.enumerate"}
# calls that iterate nothing: a bar's total, a range to count over
_COUNTING = frozenset(
    f"builtins.{name}" for name in "len range int float round min max abs str".split()
)


def _why(loader: str, when: str) -> str:
    """The comment above a kept draw (generated code says why it is there)."""
    return (
        f"# tqdm.auto's bar over `{loader}` called iter() on it when built (a DataLoader\n"
        f"# iterator draws a seed from torch's generator): {when}\n"
    )


def epoch_body(ctx, stmts):
    """(Before extra_evaluation merges two passes.) The iterating bars of the epoch's
    evaluation passes, for `clean` to find one the merged pass lost; every bar of those
    passes, for `_drawing_arguments`."""
    ctx.found["pass_bar_calls"] = [
        call
        for stmt in stmts
        if (found := eval_loop_of(ctx, stmt)) is not None
        for call in _bar_calls(ctx, found[1].iter)
    ]
    ctx.found["pass_bars"] = [
        (bar, stmt)
        for stmt in stmts
        if (found := eval_loop_of(ctx, stmt)) is not None
        for bar in bars_around(ctx, found[1].iter)
    ]
    return stmts


def bars_around(ctx, iterator, loader: str | None = None, bound=None) -> list[cst.Call]:
    """The bars in a batch loop's `iterator` (tqdm and enumerate calls around the loader, and
    `bound` = (name, call): a bar bound to a name the loop iterates) whose class calls iter()
    when built, on a name (`loader`, when given) rather than on an iterator (`enumerate(...)`,
    another bar's)."""
    found = []
    while True:
        if bound is not None and m.matches(iterator, m.Name(bound[0])):
            iterator, bound = bound[1], None  # `for i, b in enumerate(pbar):`
            continue
        if not (
            isinstance(iterator, cst.Call)
            and iterator.args
            and iterator.args[0].keyword is None
            and not iterator.args[0].star
        ):
            return found
        names = ctx.call_qualnames(iterator)
        wrapped = iterator.args[0].value
        if names & ITERATING_BARS and m.matches(wrapped, m.Name(loader or m.DoNotCare())):
            found.append(iterator)
        if not names & (TQDM | {"builtins.enumerate"}):
            return found
        iterator = wrapped


def clean(ctx, plan) -> None:
    _drawing_arguments(ctx, plan)
    _training(ctx, plan)
    _wrapping_bar(ctx, plan)
    if plan.validation is not None:
        _validation(ctx, plan)
    if plan.test is not None:
        _test(ctx, plan)


def _bar_calls(ctx, iterator) -> list[cst.Call]:
    """The tqdm bars in a loop's `iterator`, through the bars and `enumerate` around it."""
    found = []
    while isinstance(iterator, cst.Call) and iterator.args:
        names = ctx.call_qualnames(iterator)
        if names & (TQDM | TRANGE):
            found.append(iterator)
        elif "builtins.enumerate" not in names:
            break
        iterator = iterator.args[0].value
    return found


def _drawing_arguments(ctx, plan) -> None:
    """TL194 at an argument of a bar the conversion drops whose evaluation draws from torch's
    generator (`tqdm(loader, total=sum(1 for _ in loader))`, `total=len(list(loader))`: a
    DataLoader iterator draws a seed): it would be dropped with the bar. The iterable a loop
    reads through its bars is the Trainer's to iterate; everything else of the bar goes."""
    bars = [*ctx.found.get("pass_bar_calls", ())]
    for loop in (ctx.found.get("batch_loop"), ctx.loop):
        if isinstance(loop, cst.For):
            bars += _bar_calls(ctx, loop.iter)
    bound = [ctx.found.get("bar_binding"), ctx.found.get("epoch_bar")]
    bound += [s for stmts in ctx.found.get("counter_bars", {}).values() for s in stmts[:1]]
    for stmt in bound:
        value = single_assign(stmt)[1] if stmt is not None and single_assign(stmt) else None
        bars += _bar_calls(ctx, value) if value is not None else []
    drawing = functions_drawing(ctx)
    for bar in bars:
        chained = bar.args[0].value if bar.args and bar.args[0].keyword is None else None
        for arg in bar.args:
            if arg.value is chained and (
                isinstance(chained, cst.Name) or ctx.call_qualnames(chained) & _CHAIN
            ):
                continue  # the loop's iterable: the Trainer iterates it
            if draws(ctx, arg.value, drawing):
                shown = ctx.module.code_for_node(arg).strip().rstrip(",")
                sites = loader_iterations(ctx, arg.value)
                how = (
                    f"`{ctx.module.code_for_node(sites[0]).strip()}` iterates a loader, whose "
                    "iterator draws a seed"
                    if sites
                    else "it draws random numbers"
                )
                ctx.block(
                    BAR_DRAW,
                    f"the progress bar's argument `{shown}` draws from torch's generator "
                    f"({how}): the conversion drops the bar with its arguments",
                    arg,
                )
                return


def _training(ctx, plan) -> None:
    """The batch loop's bar: the first epoch's draw before `fit`, the others' at the end of
    on_train_epoch_start (whose code ran before the bar in the script, and draws nothing:
    loader_rng.py's TL190)."""
    loop = ctx.found.get("batch_loop")
    if loop is None or plan.loader_stmt is not None:
        return  # a step loop, or a generated loader (over numbers, samples or a generator)
    bar = ctx.found.get("progress_bar")  # bound_bar.py's
    bound = (bar[0], single_assign(ctx.found["bar_binding"])[1]) if bar is not None else None
    loader = plan.train_loader
    for _ in bars_around(ctx, loop.iter, loader, bound):
        plan.before_fit.append(
            _why(loader, "the first epoch's, before `fit`")
            + f"iter({plan.loader_exprs.get(loader, loader)})"
        )
        plan.hook_tails.setdefault("on_train_epoch_start", []).append(
            _why(loader, "this epoch's, before the Trainer's")
            + "# iterator (the first epoch's is drawn before `fit`)\n"
            + "if self.current_epoch > 0:\n"
            "    iter(self.trainer.train_dataloader)"
        )


def _wrapping_bar(ctx, plan) -> None:
    """`with tqdm(...) as pbar:` around the whole loop, dropped: what building it did happens
    before `fit` -- an iterating bar's `iter()` of the name it wraps (before the first
    epoch's), nothing else. Its arguments must draw nothing when evaluated: TL194 for a call
    that may iterate (`tqdm(enumerate(loader))` makes a DataLoader iterator, whatever the bar)."""
    wrapper = plan.wrapper
    if not isinstance(wrapper, cst.With):
        return
    for item in wrapper.items:
        call = item.item
        if not (isinstance(call, cst.Call) and ctx.call_qualnames(call) & TQDM):
            continue
        for arg in call.args:
            found = next(
                (
                    c
                    for c in m.findall(arg.value, m.Call())
                    if not ctx.call_qualnames(c) & _COUNTING
                ),
                None,
            )
            if found is not None:
                ctx.block(
                    BAR_DRAW,
                    f"the tqdm bar around the training loop is built with "
                    f"`{ctx.module.code_for_node(found)}`, which may iterate a loader (a "
                    "DataLoader iterator draws from torch's generator); the conversion drops "
                    "the bar",
                    wrapper,
                )
                return
        first = call.args[0] if call.args else None
        if (
            ctx.call_qualnames(call) & ITERATING_BARS
            and first is not None
            and first.keyword is None
            and isinstance(first.value, cst.Name)
        ):
            why = _why(first.value.value, "the same, before the training")
            plan.before_fit.insert(0, why + f"iter({first.value.value})")


def _validation(ctx, plan) -> None:
    v = plan.validation
    found = eval_loop_of(ctx, v.anchor)
    kept = bars_around(ctx, found[1].iter) if found is not None else []
    for bar, stmt in ctx.found.get("pass_bars", ()):
        if v.more_loaders and not any(bar is k for k in kept):
            ctx.block(
                BAR_DRAW,
                "the tqdm.auto bar of the second validation pass called iter() on "
                f"`{ctx.module.code_for_node(bar.args[0].value)}` when built: Lightning "
                "creates that loader's iterator inside the pass, once the first loader is "
                "exhausted, with no hook between to draw it",
                stmt,
            )
    if found is None or plan.eval_loader_stmt is not None:
        return
    bars = bars_around(ctx, found[1].iter, v.loader)
    if not bars:
        return
    loaders = "self.trainer.val_dataloaders" + ("[0]" if v.more_loaders else "")
    pieces = plan.hook_pieces.setdefault("on_validation_model_zero_grad", [])
    pieces.append("super().on_validation_model_zero_grad()")
    for _ in bars:
        why = _why(v.loader, "the same, before the pass's iterator")
        pieces.append(why + f"iter({loaders})")


def _test(ctx, plan) -> None:
    t = plan.test
    found = eval_loop_of(ctx, t.anchor)
    if found is None:
        return
    for _ in bars_around(ctx, found[1].iter, t.loader):
        why = _why(t.loader, "the same, before `test`'s iterator")
        plan.before_test.append(why + f"iter({t.loader})")
