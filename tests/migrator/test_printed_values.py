"""analysis/printed_values.py: the values a print shows and the labels printed before them."""

from __future__ import annotations

import libcst as cst
import pytest

from torchlift.migrator.analysis.printed_values import label_of, shown_values


def _shown(code: str) -> list[tuple[str | None, str]]:
    call = cst.parse_expression(code)
    module = cst.Module([])
    return [(label, module.code_for_node(value)) for label, value in shown_values(call)]


@pytest.mark.parametrize(
    "code, expected",
    [
        (
            'print(f"epoch {epoch}: val loss {loss / n:.3f}, acc {acc}")',
            [("epoch", "epoch"), ("val_loss", "loss / n"), ("acc", "acc")],
        ),
        (
            'print("Average loss: {:.4f}, Accuracy: {}/{}".format(avg, correct, total))',
            [("average_loss", "avg"), ("accuracy", "correct"), (None, "total")],
        ),
        ('print("val loss", val_loss)', [("val_loss", "val_loss")]),
        ('print(f"val_acc={a:.3f} " f"lr={lr}")', [("val_acc", "a"), ("lr", "lr")]),
        ('print("{x} ({y:.0f}%)".format(x=1, y=p))', [(None, "1"), (None, "p")]),
        ('print("%.3f" % acc)', [(None, '"%.3f" % acc')]),
        ("print(*values)", []),
    ],
)
def test_shown_values(code, expected):
    assert _shown(code) == expected


@pytest.mark.parametrize(
    "text, label",
    [
        ("epoch 3: val loss ", "val_loss"),
        ("Test set: Average loss: ", "average_loss"),
        ("val_acc=", "val_acc"),
        (" (", None),
        ("", None),
        ("a very long label here ", None),
        ("loss % ", None),
    ],
)
def test_label_of(text, label):
    assert label_of(text) == label
