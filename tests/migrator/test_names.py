"""Name analysis and renaming used to move loop code into the LightningModule."""

import libcst as cst

from torchlift.migrator.analysis.names import (
    collect_names,
    file_identifiers,
    names_read_before_bound,
    node_kinds,
    rename,
    self_attr,
)


def test_reads_writes_and_read_first_in_source_order():
    use = collect_names(cst.parse_module("total += loss.item()\nx = f(y)\nprint(x, total)\n"))
    assert use.reads == {"total", "loss", "f", "y", "print", "x"}
    assert use.writes == {"total", "x"}
    assert use.read_first == {"total", "loss", "f", "y", "print"}


def test_the_value_of_an_assignment_is_read_before_its_targets_are_bound():
    # `hidden = repackage_hidden(hidden)` carries hidden across steps (once: a local)
    for code in ("hidden = f(hidden)\n", "h: T = f(h)\n", "print(h := f(h))\n"):
        use = collect_names(cst.parse_module(code))
        assert {"f", "h" if "h" in use.writes else "hidden"} <= use.read_first, code


def test_a_name_bound_only_in_a_loop_body_may_be_read_from_before_the_loop():
    # a second training loop: with no batch, `print(loss)` reads the first loop's `loss`
    code = (
        "for epoch in range(2):\n"
        "    for x, y in loader:\n"
        "        loss = f(x, y)\n"
        "    print(epoch, loss)\n"
        "while go():\n"
        "    last = step()\n"
        "else:\n"
        "    done = True\n"
        "print(last, done)\n"
    )
    use = names_read_before_bound(cst.parse_module(code))
    assert {"loss", "last"} <= use.read_first
    assert not {"epoch", "x", "y", "done"} & use.read_first  # bound before each of their reads
    assert not {"loss", "last"} & collect_names(cst.parse_module(code)).read_first


def test_attributes_and_keywords_are_not_variables():
    use = collect_names(cst.parse_module("a.loss = f(loss=b)\n"))
    assert use.reads == {"a", "f", "b"} and use.writes == set()


def test_rename_keeps_attributes_keywords_and_params():
    module = cst.parse_module("def f(crit):\n    pass\ny = crit(out, target=t).crit\n")
    new = rename(module, {"crit": self_attr("crit")})
    assert new.code == "def f(crit):\n    pass\ny = self.crit(out, target=t).crit\n"


# -- Python's scopes (libcst's ScopeProvider decides where a name belongs) ------------------


def _use(code: str):
    return collect_names(cst.parse_module(code))


def test_comprehension_targets_belong_to_the_comprehension():
    use = _use("val = sum(loss_fn(net(xb), yb) for xb, yb in valid_dl)\n")
    assert use.reads == {"sum", "loss_fn", "net", "valid_dl"}
    assert use.writes == {"val"}
    assert "xb" not in use.read_first


def test_lambda_and_def_parameters_and_locals_are_not_the_scopes_names():
    use = _use("key = lambda item: item[0] + offset\ndef f(a):\n    b = a + scale\n    return b\n")
    assert use.reads == {"offset", "scale"}
    assert use.writes == {"key", "f"}


def test_a_nested_function_reads_a_name_bound_around_it():
    use = _use("total = 0\ndef show():\n    print(total)\n")
    assert use.reads == {"total", "print"} and use.writes == {"total", "show"}


def test_class_body_names_are_not_seen_by_its_methods():
    use = _use("class A:\n    train = True\n    def f(self, train=False):\n        return train\n")
    assert use.writes == {"A"} and use.reads == {"True", "False"}


def test_walrus_in_a_comprehension_binds_in_the_enclosing_scope():
    use = _use("any((found := x) > 0 for x in xs)\n")
    assert "found" in use.writes and "x" not in use.writes | use.reads


def test_rename_leaves_names_a_nested_scope_binds_for_itself():
    module = cst.parse_module("s = sum(f(x) for x in xs)\ng = lambda x: x + x0\n")
    mapping = {name: self_attr(name) for name in ("x", "xs", "f", "x0")}
    assert rename(module, mapping).code == (
        "s = sum(self.f(x) for x in self.xs)\ng = lambda x: x + self.x0\n"
    )


def test_return_in_a_nested_def_is_not_control_flow_of_the_code_around_it():
    loop = cst.parse_statement("for e in r:\n    def f():\n        return 1\n")
    assert "return" not in node_kinds(loop)
    assert "return" in node_kinds(cst.parse_statement("for e in r:\n    return 1\n"))


def test_file_identifiers_are_names_not_words_of_comments_or_strings():
    text = "# the trainer\nx = 'lit_model'\nobj.trainer = 1\ndef f():\n    local = x\n"
    assert file_identifiers(text, "t.py") == {"x", "obj", "f", "local"}


def test_reads_among_asks_whole_definitions_for_their_free_names_only():
    from torchlift.migrator.analysis.names import reads_among

    module = cst.parse_module(
        "@deco\nclass Net(Base):\n    device = 1\n    def f(self, device=default):\n"
        "        return [device for device in devices] + [train]\n"
    )
    wanted = {"deco", "Base", "default", "devices", "train", "device", "f"}
    assert reads_among(wanted, *module.body) == {"deco", "Base", "default", "devices", "train"}
