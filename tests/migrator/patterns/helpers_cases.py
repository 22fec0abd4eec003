"""Cases of patterns/helpers.py: per-epoch helpers inlined, and removed once unused."""

CONVERTS = {
    "train_helper_returning_the_mean_loss": (
        """
        def train_epoch(model, loader, optimizer):
            total = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item()
            return total / len(loader)


        for epoch in range(2):
            mean = train_epoch(model, loader, optimizer)
            print(epoch, mean)
        """,
        [
            "def on_train_epoch_start(self):\n        self.total = 0.0",
            "mean = self.total / len(self.trainer.train_dataloader)",
        ],
        ["def train_epoch"],
    ),
    # an evaluation helper's batch local spelled like a global the epoch code reads: two
    # variables (the helper's local is its own), so inlined the local gets the helper's prefix
    # and the epoch code still reads the global
    "helper_batch_local_spelled_like_a_global_the_epoch_code_reads": (
        """
        labels = torch.randint(0, 2, (8,))


        def evaluate(model, loader):
            total = 0.0
            with torch.no_grad():
                for x, labels in loader:
                    total += criterion(model(x), labels).item()
            return total


        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            val_loss = evaluate(model, loader)
            print(epoch, val_loss, labels.float().mean())
        """,
        [
            "x, evaluate_labels = batch",
            "criterion(self(x), evaluate_labels)",
            "self.print(epoch, val_loss, self.labels.float().mean())",
        ],
        ["x, self.labels = batch", "val_labels"],
    ),
    # ... the same in a function holding the loop, the helper's local written per batch
    "helper_batch_local_spelled_like_a_global_a_function_loop_reads": (
        """
        labels = torch.randint(0, 2, (8,))


        def evaluate(model, loader):
            total = 0.0
            with torch.no_grad():
                for batch in loader:
                    x = batch[0]
                    labels = batch[1]
                    total += criterion(model(x), labels).item()
            return total


        def fit():
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                val_loss = evaluate(model, loader)
                print(epoch, val_loss, labels[:2])


        fit()
        """,
        [
            "evaluate_labels = batch[1]",
            "print(epoch, val_loss, labels[:2])",
        ],
        ["self.labels", "val_labels"],
    ),
    # a training helper's batch local spelled like a global read after the loop
    "training_helper_batch_local_spelled_like_a_global_read_after_the_loop": (
        """
        scale = 2.0


        def train_epoch(model, loader, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                scale = 0.5
                loss = criterion(model(x), y) * scale
                loss.backward()
                optimizer.step()


        for epoch in range(2):
            train_epoch(model, loader, optimizer)
        print(scale)
        """,
        [
            "train_epoch_scale = 0.5",
            "* train_epoch_scale",
        ],
        ["self.scale", "lit_model.scale"],
    ),
    # a training helper's local spelled like the global an evaluation helper reads: inlined
    # side by side, the evaluation still reads the module's value
    "helper_local_spelled_like_a_global_another_helper_reads": (
        """
        weight = 2.0


        def train_epoch(model, loader, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                weight = 0.5
                loss = criterion(model(x), y) * weight
                loss.backward()
                optimizer.step()


        def evaluate(model, loader):
            total = 0.0
            with torch.no_grad():
                for x, y in loader:
                    total += criterion(model(x), y).item() * weight
            return total


        for epoch in range(2):
            train_epoch(model, loader, optimizer)
            val_loss = evaluate(model, loader)
            print(epoch, val_loss)
        """,
        [
            "train_epoch_weight = 0.5",
            "* train_epoch_weight",
            "criterion(self(x), y).item() * self.hparams.weight",
        ],
        ["self.weight = 0.5"],
    ),
    # an evaluation helper that is no validation pass (it returns its loss sum, divided after
    # the call) stays in the epoch's end, inlined with its own loop binding `batch_idx`: the
    # training loop's index is read before that loop, so it is still the last step's
    "batch_index_read_after_the_loop_then_bound_by_an_inlined_helpers_own_loop": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


        def train_epoch():
            total = 0.0
            for batch_idx, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item()
            total /= (batch_idx + 1)
            return total


        def test_epoch():
            for metric in metrics:
                metric.reset()
            val_loss = 0
            for batch_idx, (x, y) in enumerate(val_loader):
                log.append(batch_idx)
                val_loss += criterion(model(x), y).item()
            return val_loss


        log = []
        metrics = []
        for epoch in range(2):
            train_loss = train_epoch()
            val_loss = test_epoch()
            val_loss /= len(val_loader)
            print(epoch, train_loss, val_loss)
        """,
        [
            "def training_step(self, batch, batch_idx):\n        self.batch_idx = batch_idx\n",
            "self.total /= self.batch_idx + 1",
            "for self.batch_idx, (x, y) in enumerate(self.val_loader):",
        ],
        [],
    ),
    "batch_index_read_after_the_loop_and_reused_by_the_eval_helper": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


        def train(epoch):
            total = 0.0
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item()
            print(epoch, total / (i + 1))


        def test():
            hits = 0
            with torch.no_grad():
                for i, (x, y) in enumerate(val_loader):
                    hits += (model(x).argmax(1) == y).sum().item()
            print(hits)


        for epoch in range(2):
            train(epoch)
            test()
        """,
        [
            "def training_step(self, batch, batch_idx):\n        self.i = batch_idx\n",
            "print(epoch, self.total / (self.i + 1))",
        ],
        ["def train(", "self.i = i"],
    ),
    # a default string argument read in an f-string is folded into its text (an f-string left
    # with no field is a plain string); one whose text would hold the f-string's quote is
    # re-quoted instead (`f"{""}"` is a syntax error before
    # Python 3.12)
    "string_default_read_in_an_f_string_is_folded_or_requoted": (
        """
        def train_epoch(model, loader, optimizer, header="", tag='train', name="it's"):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            print(f"{header} {tag:>6} done", f'{tag!r}', f"{name} {{ok}}")


        for epoch in range(2):
            train_epoch(model, loader, optimizer)
        """,
        ["print(\"  train done\", f'{\"train\"!r}', \"it's {ok}\")"],
        ["def train_epoch"],
    ),
    "expression_arguments_bound_first_in_the_order_python_evaluates_them": (
        """
        def train(model, loader, optimizer, epoch, log_every):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if i % log_every == 0:
                    print(epoch, i, loss.item())


        for epoch in range(2):
            train(model, loader, optimizer, log_every=len(loader) // 2, epoch=epoch + 1)
        """,
        [
            # keyword order is evaluation order; `epoch` is the loop's: the prefixed name
            "self.log_every = len(self.trainer.train_dataloader) // 2\n"
            "        self.train_epoch = epoch + 1",
            "print(self.train_epoch, batch_idx, loss.item())",
        ],
        ["def train("],
    ),
    "parameter_rebound_by_the_helper_gets_its_own_local": (
        """
        scale = 1.0


        def train(model, loader, optimizer, scale):
            scale = scale * 0.5
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y) * scale
                loss.backward()
                optimizer.step()


        for epoch in range(2):
            train(model, loader, optimizer, scale)
        """,
        # inlined as `scale = scale * 0.5`, it would halve the script's `scale` every epoch
        ["self.train_scale = self.hparams.scale\n        self.train_scale = self.train_scale * 0.5"],
        ["self.scale = self.scale * 0.5"],
    ),
    # the epoch's own pass after `model.eval()` (a statement the conversion removes): after it
    # `i` is the pass's last index, not the training helper's; Lightning runs the epoch's end
    # after the validation pass, which carries its index
    "batch_index_read_after_an_inline_eval_pass_reusing_it": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


        def train_one_epoch():
            last_loss = 0.0
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                last_loss = loss.item()
            return last_loss


        for epoch in range(2):
            model.train()
            avg_loss = train_one_epoch()
            running_vloss = 0.0
            model.eval()
            with torch.no_grad():
                for i, (x, y) in enumerate(val_loader):
                    running_vloss += criterion(model(x), y)
            print("train", avg_loss, "valid", running_vloss / (i + 1))
        """,
        [
            "def validation_step(self, batch, batch_idx):\n        self.i = batch_idx",
            "(self.i + 1)",
        ],
        ["def training_step(self, batch, batch_idx):\n        self.i"],
    ),
    # test() prints its own last index: the validation step's, carried to the epoch's end
    "batch_index_read_after_the_eval_pass_reusing_it": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


        def train(epoch):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


        def test():
            with torch.no_grad():
                for i, (x, y) in enumerate(val_loader):
                    model(x)
            print("batches", i + 1)


        for epoch in range(2):
            train(epoch)
            test()
        """,
        ["def validation_step(self, batch, batch_idx):\n        self.i = batch_idx"],
        ["def training_step(self, batch, batch_idx):\n        self.i"],
    ),
    # a homework's history dict extended by each epoch's list of losses
    "result_added_to_a_history_entry": (
        """
        def train(model, optimizer, epoch):
            losses = []
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses


        history = {"train_loss": []}
        for epoch in range(2):
            history["train_loss"] += train(model, optimizer, epoch)
        print(len(history["train_loss"]))
        """,
        ['history["train_loss"] += self.losses'],
        ["def train("],
    ),
    # a float summed over the epochs, read after training
    "result_added_to_a_running_total": (
        """
        def train(model, optimizer, epoch):
            total = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item()
            return total


        running = 0.0
        for epoch in range(2):
            running += train(model, optimizer, epoch)
        print(running)
        """,
        ["self.running += self.total", "running = lit_model.running"],
        ["def train("],
    ),
}

UNCHANGED = {
    # the helper reads the module's `scale`; the function holding the loop binds its own
    "helper_reads_a_global_the_calling_function_binds_as_a_local": (
        """
        scale = 2.0


        def train_epoch(model, loader, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y) * scale
                loss.backward()
                optimizer.step()


        def main():
            scale = 100.0
            for epoch in range(2):
                train_epoch(model, loader, optimizer)
                print(epoch, scale)


        main()
        """,
        "TL111",
    ),
    "string_argument_with_both_quotes_read_in_an_f_string": (
        """
        def train_epoch(model, loader, optimizer, header="it's"):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            print(f"{header!r} done")


        for epoch in range(2):
            train_epoch(model, loader, optimizer)
        """,
        "TL111",
    ),
    # ... read before the pass too: two meanings of `i` in one hook
    "batch_index_read_before_and_after_an_inline_eval_pass": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


        def train_one_epoch():
            last_loss = 0.0
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                last_loss = loss.item()
            return last_loss


        for epoch in range(2):
            model.train()
            avg_loss = train_one_epoch()
            print("batches", i + 1)
            running_vloss = 0.0
            model.eval()
            with torch.no_grad():
                for i, (x, y) in enumerate(val_loader):
                    running_vloss += criterion(model(x), y)
            print("train", avg_loss, "valid", running_vloss / (i + 1))
        """,
        "TL108",
    ),
    "helper_with_star_args": (
        """
        def train(model, loader, optimizer, *extra):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


        for epoch in range(2):
            train(model, loader, optimizer)
        """,
        "TL111",
    ),
    "helper_returning_early": (
        """
        def train(model, loader, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if len(loader) == 0:
                return None
            return loss


        for epoch in range(2):
            last = train(model, loader, optimizer)
        """,
        "TL111",
    ),
    "loader_argument_built_every_epoch": (
        """
        def make_loader(epoch):
            return DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))


        def train(model, data_loader, optimizer):
            for x, y in data_loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


        for epoch in range(2):
            train(model, make_loader(epoch), optimizer)
        """,
        "TL116",
    ),
    # `x += f()` reads `x` before the call runs, and the helper changes what it names
    "result_added_to_a_name_the_helper_rebinds": (
        """
        history = {"train_loss": []}


        def train(model, optimizer, epoch):
            global history
            history = {"train_loss": [0.0]}
            losses = []
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses


        for epoch in range(2):
            history["train_loss"] += train(model, optimizer, epoch)
        """,
        "TL111",
    ),
    "result_added_to_an_entry_the_helper_replaces": (
        """
        def train(model, optimizer, history):
            history["train_loss"] = []
            losses = []
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses


        history = {"train_loss": []}
        for epoch in range(2):
            history["train_loss"] += train(model, optimizer, history)
        """,
        "TL111",
    ),
}

# the quantization tutorials' train_one_epoch: returns after `ntrain_batches` batches counted
# by hand (source/early_returns.py reads the return as a `break`, early_break.py as the limit)
_EARLY_RETURN = """
def train_one_epoch(model, loader, optimizer, ntrain_batches):
    model.train()
    cnt = 0
    for x, y in loader:
        cnt += 1
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if cnt {compare} ntrain_batches:
            print("stopped at", cnt)
            return {early}
    print("whole loader")
    return {final}


num_train_batches = {limit}
for epoch in range(2):
    train_one_epoch(model, loader, optimizer, num_train_batches)
"""
CONVERTS["returns_after_counted_batches"] = (
    _EARLY_RETURN.format(compare=">=", early="", final="", limit="1"),
    [
        "limit_train_batches=num_train_batches",
        "if self.cnt >= self.hparams.num_train_batches:\n"
        '            print("stopped at", self.cnt)\n'
        "        else:\n"
        '            print("whole loader")',
    ],
    ["break", "stop_epoch", "train_one_epoch"],
)
UNCHANGED.update(
    {
        # the two returns give different things: no single place after the loop
        "returns_other_values_after_counted_batches": (
            _EARLY_RETURN.format(compare=">=", early="cnt", final="0", limit="1"),
            "TL111",
        ),
        # the limit may be 0: with an empty loader the test would hold after the loop
        "returns_after_a_count_maybe_zero": (
            _EARLY_RETURN.format(compare=">=", early="", final="", limit="0"),
            "TL111",
        ),
    }
)

# a default is evaluated once, when the def runs (source/hoisted_defaults.py): one built by an
# expression, or a name the call would read otherwise, is bound to a module name right before
# the def, which the def and the inlined call both read
_STATS = """
class Stats:
    def __init__(self):
        self.steps = 0


def train(model, loader, optimizer, stats=Stats()):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        stats.steps += 1


for epoch in range(2):
    train(model, loader, optimizer)
{after}"""
CONVERTS["default_object_built_once_is_bound_before_the_helper"] = (
    _STATS.format(after=""),
    ["train_stats = Stats()\n", "self.train_stats.steps += 1"],
    ["def train(", "stats=Stats()"],
)
CONVERTS["default_object_shared_with_a_later_call_keeps_the_def_reading_it"] = (
    _STATS.format(after="train(model, loader, optimizer)\n"),
    [
        "train_stats = Stats()\n\n\ndef train(model, loader, optimizer, stats=train_stats):",
        "self.train_stats.steps += 1",
    ],
    ["stats=Stats()"],
)
CONVERTS["mutable_default_list_is_one_list_every_call_appends_to"] = (
    """
    def train(model, loader, optimizer, history=[]):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            history.append(loss.item())


    for epoch in range(2):
        train(model, loader, optimizer)
    """,
    ["train_history = []\n", "self.train_history.append(loss.item())"],
    ["def train("],
)
CONVERTS["name_default_shadowed_by_a_local_of_the_caller_is_read_as_defined"] = (
    """
    scale = 1.0


    def train(model, loader, optimizer, factor=scale):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y) * factor
            loss.backward()
            optimizer.step()


    def main():
        scale = 100.0
        print(scale)
        for epoch in range(2):
            train(model, loader, optimizer)


    main()
    """,
    ["train_factor = scale\n", "loss = criterion(self(x), y) * train_factor"],
    ["def train(", "* scale"],
)
CONVERTS["name_default_rebound_after_the_def_is_read_as_defined"] = (
    """
    scale = 1.0


    def train(model, loader, optimizer, factor=scale):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y) * factor
            loss.backward()
            optimizer.step()


    scale = 100.0
    for epoch in range(2):
        train(model, loader, optimizer)
    """,
    ["train_factor = scale\n", "loss = self.criterion(self(x), y) * self.train_factor"],
    ["def train("],
)
CONVERTS["name_and_expression_defaults_keep_their_order"] = (
    """
    def make_stats():
        return {"steps": 0}


    def train(model, loader, optimizer, first=criterion, stats=make_stats(), last=print):
        for x, y in loader:
            optimizer.zero_grad()
            loss = first(model(x), y)
            loss.backward()
            optimizer.step()
            stats["steps"] += 1
        last(stats["steps"])


    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    for epoch in range(2):
        train(model, loader, optimizer)
    """,
    # `first` is read before `stats` is built: both are bound before the def, in that order;
    # `last` (the builtin, after them) is read at the call as it was
    [
        "train_first = criterion\ntrain_stats = make_stats()\n",
        "loss = self.train_first(self(x), y)",
        'print(self.train_stats["steps"])',
    ],
    ["train_last", "def train("],
)
CONVERTS["negative_number_default_is_a_constant"] = (
    """
    def train(model, loader, optimizer, limit=-1):
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            if i == limit:
                print("never")


    for epoch in range(2):
        train(model, loader, optimizer)
    """,
    ["limit = -1"],
    ["train_limit", "def train("],
)
CONVERTS["module_constant_default_is_read_at_the_call"] = (
    """
    SCALE = 0.5


    def train(model, loader, optimizer, factor=SCALE, make=torch.optim.SGD):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y) * factor
            loss.backward()
            optimizer.step()


    for epoch in range(2):
        train(model, loader, optimizer)
    """,
    ["loss = self.criterion(self(x), y) * SCALE"],
    ["train_factor", "train_make", "def train("],
)
UNCHANGED.update(
    {
        # its decorator is evaluated before its defaults: not built before it
        "default_object_of_a_decorated_helper": (
            """
            class Hits:
                def __init__(self):
                    self.total = 0


            @torch.no_grad()
            def evaluate(model, loader, hits=Hits()):
                for x, y in loader:
                    hits.total += (model(x).argmax(1) == y).sum().item()
                print(hits.total)


            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                evaluate(model, loader)
            """,
            "TL111",
        ),
        # inlined, the body would run without what the decorator wraps it in
        "helper_under_a_decorator_of_its_own": (
            """
            def twice(fn):
                def run(*args):
                    fn(*args)
                    return fn(*args)

                return run


            @twice
            def train(model, loader, optimizer):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()


            for epoch in range(2):
                train(model, loader, optimizer)
            """,
            "TL111",
        ),
    }
)
# the loop calling the helper is refused at another cause, the next one converts: the def is
# written back as it was (hoisted_defaults.restore), nothing reads the hoisted name
CONVERTS["default_hoisted_for_a_refused_loop_is_put_back"] = (
    _STATS.format(after="    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)\n")
    + """

other = nn.Linear(4, 2)
opt2 = torch.optim.SGD(other.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        opt2.zero_grad()
        loss = criterion(other(x), y)
        loss.backward()
        opt2.step()
""",
    [
        "        self.steps = 0\n\n\ndef train(model, loader, optimizer, stats=Stats()):",
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)",
        "opt2 = torch.optim.SGD(self.model.parameters(), lr=0.1)",
    ],
    ["train_stats"],
)

# the spatial-transformer tutorial's test(): its final `return` is the last statement of the
# `with torch.no_grad():` ending the helper; the exit of a grad mode only restores the mode, so
# that return is the helper's last act, as at its end: inlined, the `with` stays and the value
# is assigned where the call was, inside it
_TRAILING_WITH = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


def train(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


def test(model, loader):
    with {manager}:
        model.eval()
        test_loss = 0.0
        for x, y in loader:
            test_loss += criterion(model(x), y).item()
        test_loss /= len(loader)
        return test_loss{after}


for epoch in range(2):
    model.train()
    train(model, loader, optimizer)
    val_loss = test(model, val_loader)
    print(epoch, val_loss)
"""
CONVERTS["final_return_inside_a_trailing_no_grad"] = (
    _TRAILING_WITH.format(manager="torch.no_grad()", after=""),
    ["self.test_loss /= len(self.trainer.val_dataloaders)\n        val_loss = self.test_loss"],
    ["def test(", "return test_loss"],
)
UNCHANGED.update(
    {
        # statements follow the `with`: the return skips them
        "return_inside_a_with_followed_by_more_statements": (
            _TRAILING_WITH.format(
                manager="torch.no_grad()", after='\n    print("not reached")'
            ),
            "TL111",
        ),
        # an exit the migrator does not know may suppress, replace or observe the return
        "final_return_inside_an_unknown_context_manager": (
            _TRAILING_WITH.format(manager="timer()", after=""),
            "TL111",
        ),
    }
)

# a call statement drops the helper's result, not its computation: a returned value whose
# evaluation has effects (`return tracker.summary()`, `return save(model)`) still runs where the
# return stood; one that only reads (`return total / len(loader)`) goes with the result
_DISCARDED = """
class Tracker:
    def __init__(self):
        self.seen = 0

    def update(self, n):
        self.seen += n

    def summary(self):
        print("seen", self.seen)
        self.seen = 0


tracker = Tracker()


def train_one_epoch(model, loader, optimizer):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        tracker.update(len(x))
        total += loss.item()
    {ending}


for epoch in range(2):
    train_one_epoch(model, loader, optimizer)
"""
CONVERTS["discarded_result_with_effects_still_evaluated"] = (
    _DISCARDED.format(ending="return tracker.summary()"),
    ["def on_train_epoch_end(self):\n        self.tracker.summary()"],
    ["def train_one_epoch", "return tracker.summary()"],
)
CONVERTS["discarded_result_of_a_script_function_still_evaluated"] = (
    _DISCARDED.format(ending="return save(model)").replace(
        "tracker = Tracker()",
        'tracker = Tracker()\n\n\ndef save(net):\n    torch.save(net.state_dict(), "ckpt.pt")\n'
        "    return True",
    ),
    ["save(self.model)"],
    ["def train_one_epoch"],
)
CONVERTS["discarded_result_that_only_reads_is_dropped"] = (
    _DISCARDED.format(ending="return total / len(loader)"),
    [],
    ["def train_one_epoch", "total / len("],
)

# a helper ending in an `if` / `else` whose every branch ends in its `return`: every path
# ends in one of them with nothing after it, so each is replaced where it stands by the
# caller's use of the value; an `if` without an `else` past which the helper falls off its
# end, a branch going on after its return, or another return keep the refusal
_BRANCHES = """
def train_epoch(model, loader, optimizer, best):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    mean = total / len(loader){early}
    if mean < best:
        print("new best", mean)
        return mean{after}
{orelse}

best = float("inf")
for epoch in range(2):
    best = train_epoch(model, loader, optimizer, best)
    print(epoch, best)
"""
_ELSE = """    else:
        print("no better than", best)
        return best
"""
CONVERTS["final_returns_ending_each_branch_of_a_trailing_if_else"] = (
    _BRANCHES.format(early="", after="", orelse=_ELSE),
    [
        'print("new best", mean)\n            self.best = mean\n        else:\n'
        '            print("no better than", self.best)\n        print(epoch, self.best)',
    ],
    ["def train_epoch", "return mean", "return best"],
)
CONVERTS["final_returns_ending_each_branch_of_an_elif_chain"] = (
    _BRANCHES.format(
        early="",
        after="",
        orelse='    elif mean < 2 * best:\n        return best\n    else:\n'
        '        print("diverging")\n        return best\n',
    ),
    ["elif mean < 2 * self.best:\n            pass\n        else:"],
    ["def train_epoch", "return mean", "return best"],
)
CONVERTS["final_returns_in_branches_dropped_by_a_call_statement_keep_effects"] = (
    _BRANCHES.format(
        early="", after="", orelse="    else:\n        return tracker.summary()\n"
    ).replace("return mean", "return mean").replace(
        "    best = train_epoch(model, loader, optimizer, best)",
        "    train_epoch(model, loader, optimizer, best)",
    ).replace('best = float("inf")', 'tracker = Tracker()\nbest = float("inf")').replace(
        "def train_epoch", 'class Tracker:\n    def summary(self):\n        print("summary")'
        "\n\n\ndef train_epoch",
    ),
    ['print("new best", mean)\n        else:\n            self.tracker.summary()'],
    ["def train_epoch", "return mean", "return best"],
)
CONVERTS["final_returns_of_one_line_branches"] = (
    _BRANCHES.format(early="", after="", orelse="    else: return best\n").replace(
        'if mean < best:\n        print("new best", mean)\n        return mean',
        "if mean < best: return mean",
    ),
    ["if mean < self.best:\n            self.best = mean\n        else:\n            pass"],
    ["def train_epoch", "return mean", "return best"],
)
UNCHANGED.update(
    {
        # past an `if` without `else` the helper falls off its end returning None
        "return_in_a_trailing_if_without_else": (
            _BRANCHES.format(early="", after="", orelse=""),
            "TL111",
        ),
        # the return ending the `if` branch is followed by a statement of that branch
        "return_followed_by_more_statements_in_its_branch": (
            _BRANCHES.format(early="", after='\n        print("unreachable")', orelse=_ELSE),
            "TL111",
        ),
        # a return before the trailing `if` / `else`
        "early_return_before_a_trailing_if_else": (
            _BRANCHES.format(
                early="\n    if mean != mean:\n        return best", after="", orelse=_ELSE
            ),
            "TL111",
        ),
    }
)

# closures: `train(epoch)` defined in `main()` before its epoch loop, reading main's locals
_CLOSURE = """
def main():
    net = nn.Linear(4, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
{before}
    def train(epoch{params}):
{head}        net.train()
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()
        print(epoch, loss.item())
{between}
    for epoch in range(2):
        train(epoch)


main()
"""


def _closure(before="", params="", head="", between=""):
    return _CLOSURE.format(before=before, params=params, head=head, between=between)


CONVERTS.update(
    {
        "closure_of_the_function_holding_the_epoch_loop": (
            _closure(params=", scale=2"),
            [
                "lit_model = LitModel(net)",
                "trainer.fit(lit_model, loader)",
                "def on_train_epoch_end(self):\n        epoch = self.current_epoch\n"
                "        print(epoch, self.loss.item())",
            ],
            ["def train(", "train(epoch)"],
        ),
        # the closure shadows a module-level function of the same name
        "closure_shadowing_a_module_level_helper": (
            'def train(epoch):\n    print("module-level", epoch)\n\n' + _closure(),
            ["trainer.fit(lit_model, loader)", 'def train(epoch):\n    print("module-level", epoch)'],
            ["train(epoch)\n"],
        ),
    }
)

UNCHANGED.update(
    {
        # called, `train` is what the decorator returned, not the `def`'s body
        "closure_bound_again": (
            _closure(between="\n    train = functools.lru_cache(train)\n"),
            "TL111",
        ),
        # `net=net` was read when the `def` ran: inlined, it would be read at the call
        "closure_default_read_from_the_enclosing_function": (
            _closure(params=", model=net"),
            "TL111",
        ),
        # `global` makes `best` the module's; inlined into main() it would be main's local
        "closure_declaring_global_a_local_of_the_enclosing_function": (
            _closure(before="    best = 0\n", head="        global best\n        best = 1\n"),
            "TL117",
        ),
    }
)

# a closure's `nonlocal` names main()'s own local: inlined into main(), it is that local
CONVERTS.update(
    {
        # main()'s `best`, written by the inlined closure and read nowhere else: a local of
        # the hook it lands in
        "closure_assigning_nonlocal": (
            _closure(before="    best = 0\n", head="        nonlocal best\n        best = 1\n"),
            ["def on_train_epoch_start(self):\n        best = 1"],
            ["nonlocal", "def train("],
        ),
        "closure_counting_main_s_step_through_nonlocal": (
            _closure(
                before="    step = 0\n",
                head="        nonlocal step\n        step += 1\n",
                between="",
            ).replace("\n\nmain()", '\n    print("steps", step)\n\n\nmain()'),
            [
                "self.step += 1",
                "step = lit_model.step",
                'print("steps", step)',
            ],
            ["nonlocal", "def train("],
        ),
    }
)
UNCHANGED.update(
    {
        # another closure reads the counter while training: it would read main()'s local,
        # which the hooks no longer update
        "closure_nonlocal_read_by_another_closure": (
            _closure(
                before="    step = 0\n\n    def show():\n        print(step)\n",
                head="        nonlocal step\n        step += 1\n        show()\n",
            ),
            "TL117",
        ),
        # main() is itself nested: the `nonlocal` may name the outer function's local (the
        # loop in a nested function is refused first)
        "closure_nonlocal_of_an_outer_function": (
            """
            def outer():
                step = 0

                def main():
                    net = nn.Linear(4, 2)

                    def train(epoch):
                        nonlocal step
                        step += 1
                        for x, y in loader:
                            optimizer.zero_grad()
                            loss = criterion(net(x), y)
                            loss.backward()
                            optimizer.step()

                    for epoch in range(2):
                        train(epoch)

                main()


            outer()
            """,
            "TL103",
        ),
        # the closure is called after the loop too: its `def` stays, writing main()'s local
        "closure_nonlocal_called_after_the_loop_too": (
            _closure(
                before="    step = 0\n",
                head="        nonlocal step\n        step += 1\n",
            ).replace("\n\nmain()", "\n    train(9)\n\n\nmain()"),
            "TL117",
        ),
    }
)

# the helper's result used inside a statement: bound to a fresh name first, then used
_RESULT_USED = """
def train(model, loader, optimizer):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


losses = []
for epoch in range(2):
    {use}
print(losses)
"""
CONVERTS.update(
    {
        "result_appended_to_a_list": (
            _RESULT_USED.format(use="losses.append(train(model, loader, optimizer))"),
            [
                "train_result = self.total / len(self.trainer.train_dataloader)",
                "self.losses.append(train_result)",
            ],
            ["def train("],
        ),
        "result_printed_beside_the_epoch": (
            _RESULT_USED.format(use="print(epoch, train(model, loader, optimizer))"),
            ["train_result = self.total / len(self.trainer.train_dataloader)"],
            ["def train("],
        ),
    }
)
UNCHANGED.update(
    {
        # Python reads `epoch_losses` (the list before the call rebinds it) first
        "result_appended_to_a_list_the_helper_rebinds": (
            _RESULT_USED.format(use="epoch_losses.append(train(model, loader, optimizer))")
            .replace("    total = 0.0\n", "    global epoch_losses\n    epoch_losses = []\n    total = 0.0\n")
            .replace("losses = []", "epoch_losses = []"),
            "TL111",
        ),
        # the result inside a larger expression than a call's argument
        "result_in_an_arithmetic_expression": (
            _RESULT_USED.format(use="print(epoch, 2 * train(model, loader, optimizer))"),
            "TL111",
        ),
    }
)

# a bare `return` in the helper's batch loop, the loop ending the helper: a `break`
_LOOP_RETURN = """
def train(model, loader, optimizer, epoch):
    model.train()
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if i % 2 == 0:
            print(epoch, i, loss.item())
            if dry_run:
                return{after}


dry_run = True
for epoch in range(2):
    train(model, loader, optimizer, epoch)
"""
CONVERTS.update(
    {
        "dry_run_return_in_the_batch_loop_ending_the_helper": (
            _LOOP_RETURN.format(after=""),
            ["limit_train_batches=1"],
            ["def train(", "            return\n"],
        ),
    }
)
UNCHANGED.update(
    {
        # the return skips the print after the loop, a `break` would not
        "return_in_the_batch_loop_skipping_what_follows_it": (
            _LOOP_RETURN.format(after='\n    print("epoch done", epoch)'),
            "TL111",
        ),
    }
)

# a function the hooks call reading a name the LightningModule carries as `self.` state
# would read the value from before `fit`, not the one the loop has reached
UNCHANGED.update(
    {
        "module_function_reads_a_counter_the_loop_carries": (
            """
            step = 0


            def report(tag):
                print(tag, "at step", step)


            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    step += 1
                report(f"epoch {epoch}")
            print(step)
            """,
            "TL129",
        ),
        "closure_reads_a_local_the_loop_carries": (
            """
            def main():
                step = 0

                def report(tag):
                    print(tag, "at step", step)

                def show(epoch):
                    report(f"epoch {epoch}")

                for epoch in range(2):
                    for x, y in loader:
                        optimizer.zero_grad()
                        loss = criterion(model(x), y)
                        loss.backward()
                        optimizer.step()
                        step += 1
                    show(epoch)


            main()
            """,
            "TL129",
        ),
    }
)
CONVERTS.update(
    {
        # read only after `fit`, once the value is carried back
        "module_function_reads_a_counter_after_training": (
            """
            step = 0


            def report(tag):
                print(tag, "at step", step)


            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    step += 1
            report("done")
            """,
            ["step = lit_model.step", 'report("done")'],
            [],
        ),
    }
)
