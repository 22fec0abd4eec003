"""shapes/step_inline.py on its own: the flat script it hands to the loop shapes (the cases
table, patterns/step_inline_cases.py, checks what the conversion makes of it)."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchlift.migrator.shapes.step_inline import inline_step


def _flat(source: str) -> str:
    inlined = inline_step(cst.parse_module(textwrap.dedent(source).lstrip("\n")))
    assert inlined is not None
    return inlined.text


def test_local_named_like_a_global_a_nested_scope_of_the_caller_reads_is_renamed():
    flat = _flat(
        """
        out = "module"


        def train_step(x, y):
            optimizer.zero_grad()
            out = model(x)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()


        def main():
            show = lambda: print(out)
            for epoch in range(2):
                for x, y in loader:
                    train_step(x, y)
                show()
        """
    )
    assert "            train_step_out = model(x)\n" in flat
    assert "loss = criterion(train_step_out, y)" in flat
    assert "show = lambda: print(out)" in flat
    assert "def train_step" not in flat


def test_arguments_evaluated_once_in_order_before_the_body():
    flat = _flat(
        """
        def train_step(inputs, targets):
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            return loss.item()


        for x, y in loader:
            value = train_step(next(augment), y)
        """
    )
    body = flat[flat.index("for x, y in loader:") :]
    assert body.splitlines()[1:4] == [
        "    inputs = next(augment)",
        "    optimizer.zero_grad()",
        "    loss = criterion(model(inputs), y)",
    ]
    assert "    value = loss.item()" in body


def test_lines_map_back_to_the_function_and_the_call():
    source = textwrap.dedent(
        """
        def train_step(x, y):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            return loss.item()


        for x, y in loader:
            value = train_step(x, y)
        """
    ).lstrip("\n")
    inlined = inline_step(cst.parse_module(source))
    lines = inlined.text.splitlines()
    step = lines.index("    loss.backward()")
    assert inlined.origin[step] == 4  # `loss.backward()` in the function
    assert inlined.origin[lines.index("    value = loss.item()")] == 6  # its `return`
    assert inlined.at == (10, 4)
