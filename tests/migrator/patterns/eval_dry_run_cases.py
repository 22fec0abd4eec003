"""Cases of patterns/eval_dry_run.py: a dry-run `break` in an evaluation loop."""

_LOOP = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
dry_run = True
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    val_loss = 0.0
    with torch.no_grad():
        for i, (x, y) in enumerate(val_loader):
            val_loss += criterion(model(x), y).item()
            {stop}
    print(f"val loss {{val_loss:.3f}}")
"""

_TEST = """
test_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
dry_run = True
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
hits = 0
with torch.no_grad():
    for x, y in test_loader:
        hits += (model(x).argmax(1) == y).sum().item()
        {stop}
print(hits)
"""

CONVERTS = {
    "flag_break_is_limit_val_batches": (
        _LOOP.format(stop="if dry_run:\n                break"),
        ["limit_val_batches=1 if dry_run else 1.0", "self.val_loss += self.criterion"],
        ["break", "if dry_run:"],
    ),
    "first_batch_test_and_flag": (
        _LOOP.format(stop="if i == 0:\n                if dry_run:\n                    break"),
        ["limit_val_batches=1 if dry_run else 1.0"],
        ["break"],
    ),
    "unconditional_break_is_one_batch": (
        _LOOP.format(stop="break"),
        ["limit_val_batches=1,"],
        ["break"],
    ),
    "test_pass_break_is_limit_test_batches": (
        _TEST.format(stop="if dry_run:\n            break"),
        ["limit_test_batches=1 if dry_run else 1.0", "trainer.test(lit_model, test_loader)"],
        ["break"],
    ),
}

UNCHANGED = {
    "break_on_a_metric": (
        _LOOP.format(stop="if val_loss > 10:\n                break"),
        "TL180",
    ),
    "break_after_some_batches": (
        _LOOP.format(stop="if i == 3:\n                break"),
        "TL180",
    ),
    "flag_changed_by_the_loop": (
        _LOOP.format(stop="if dry_run:\n                break").replace(
            'print(f"val loss', 'dry_run = epoch < 1\n    print(f"val loss'
        ),
        "TL180",
    ),
    "code_after_the_break_on_that_batch": (
        _LOOP.format(stop="if dry_run:\n                break\n            print(i)"),
        "TL180",
    ),
}

# a hand counter from 0 ending the pass after K batches (the quantization tutorials' evaluate)
_COUNTED = """
val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
neval_batches = 2
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    cnt = 0
    val_loss = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            val_loss += criterion(model(x), y).item()
            cnt += 1
            if cnt {compare} neval_batches:
                break
    print(f"val loss {{val_loss:.3f}}")
"""
CONVERTS["hand_counter_break_is_limit_val_batches"] = (
    _COUNTED.format(compare=">="),
    ["limit_val_batches=neval_batches", "self.cnt += 1"],
    ["break"],
)
UNCHANGED["hand_counter_past_the_limit"] = (_COUNTED.format(compare=">"), "TL180")
UNCHANGED["hand_counter_limit_maybe_a_float"] = (
    _COUNTED.format(compare=">=").replace("neval_batches = 2", "neval_batches = 2.5"),
    "TL180",
)

# the `if` prints a closing line before its `break` (Umar Jamil's run_validation): it runs on
# batch K, the pass's last under limit_val_batches=K, so it stays under the `if`
_CLOSING = _COUNTED.replace(
    "                break", '                print("-" * 20)\n                {ending}'
)
CONVERTS["hand_counter_break_after_a_closing_line"] = (
    _CLOSING.format(compare="==", ending="break"),
    [
        "limit_val_batches=neval_batches",
        'if self.cnt == self.hparams.neval_batches:\n            print("-" * 20)',
    ],
    ["break"],
)
# a closing block that may end the pass on its own: not the K-th batch's closing line
UNCHANGED["hand_counter_closing_block_with_its_own_break"] = (
    _CLOSING.format(compare="==", ending="break").replace(
        'print("-" * 20)', 'if val_loss > 9:\n                    break'
    ),
    "TL180",
)
