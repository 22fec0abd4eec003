"""Pattern: module globals the loop's code writes through `global`, kept as module globals.

    args = None                                  args = None
    global_step = 0                              global_step = 0

    def train_one_epoch(model, loader, ...):     class LitModel(L.LightningModule):
        global global_step                           def training_step(self, batch, batch_idx):
        for x, y in loader:                  ->          global global_step
            ...                                          ...
            global_step += 1                             global_step += 1
            if i % args.print_freq == 0: ...             if batch_idx % args.print_freq == 0: ...

    def main():                                  def main():
        global args                                  global args
        args = get_args()                            args = get_args()
        for epoch in range(args.epochs):             ...
            train_one_epoch(model, ...)              trainer.fit(lit_model, train_loader)

Names declared `global` at the top of the function holding the loop, and names a per-epoch
helper inlined into that function declared `global` (patterns/helper_globals.py), are the
module's own variables. The generated methods keep them so: never an `__init__` argument or
`self.` state; every method that assigns one declares it `global` first, so each write lands
in the module as the script's did, and whatever reads it (a helper, code after `fit`) sees the
same value at the same moment.

Refused (TL131): a module global that is the model, an optimizer or scheduler, a loader, the
device or the epoch counter -- the Trainer owns those, and a hook cannot rebind them for it.
"""

from __future__ import annotations

from ..analysis.names import collect_names
from ..analysis.passed_values import rebound_by_calls
from ..rule import Rule, Unsupported

OWNED_GLOBAL = Rule(
    "TL131",
    "a name the Trainer owns (model, optimizer, loader, device, epoch) is a module global",
    """Names declared `global` by the function holding the loop stay module globals in the
    generated methods. The model, the optimizers and schedulers, the loaders, the device and
    the epoch counter move into the LightningModule and the Trainer instead, so a `global`
    declaration of one of them would no longer say where its value lives.""",
    """Keep the model, optimizer and loaders local to the function (return them if later
    code needs them) and declare only the other state `global`.""",
    """
    model = None


    def main():
        global model
        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


    main()
    """,
)

RULES = (OWNED_GLOBAL,)


def read(ctx, plan, steps) -> None:
    """The module globals the loop's code uses, for resolve_names and the generated class."""
    declared = set(ctx.found.get("function_globals", ())) | set(ctx.found.get("hook_globals", ()))
    declared |= _rebound_by_called_functions(ctx)
    if not declared:
        return
    owned = {n for model in plan.models for n in (model.name, *model.aliases)}
    owned |= {o.name for o in plan.optimizers} | {o.scheduler for o in plan.optimizers}
    owned |= {plan.train_loader, *plan.device_names, plan.epoch_var}
    owned |= {p.loader for p in (plan.validation, plan.test) if p is not None}
    clash = sorted(declared & owned)
    if clash:
        raise Unsupported(
            OWNED_GLOBAL,
            f"`{clash[0]}` is declared global, but the Trainer owns it once converted",
            ctx.loop,
        )
    plan.module_globals = declared


def _rebound_by_called_functions(ctx) -> set[str]:
    """Module names the loop reads that a function of the script it calls declares `global`
    (the DQN tutorial's `select_action()` counting `steps_done`): they change behind the
    loop's back, so the methods read the module's variable, never a copy taken when the
    module was built. A name the function holding the loop binds for itself is its own."""
    reads = collect_names(ctx.loop).reads
    if ctx.in_function:
        reads -= collect_names(*ctx.scope_before, ctx.loop).writes
    return rebound_by_calls(ctx, ctx.loop, reads)
