"""Name analysis and renaming used to move loop code into the LightningModule."""

import libcst as cst

from torchlift.migrator.names import collect_names, rename, self_attr


def test_reads_writes_and_read_first_in_source_order():
    use = collect_names(cst.parse_module("total += loss.item()\nx = f(y)\nprint(x, total)\n"))
    assert use.reads == {"total", "loss", "f", "y", "print", "x"}
    assert use.writes == {"total", "x"}
    assert use.read_first == {"total", "loss", "f", "y", "print"}


def test_attributes_and_keywords_are_not_variables():
    use = collect_names(cst.parse_module("a.loss = f(loss=b)\n"))
    assert use.reads == {"a", "f", "b"} and use.writes == set()


def test_rename_keeps_attributes_keywords_and_params():
    module = cst.parse_module("def f(crit):\n    pass\ny = crit(out, target=t).crit\n")
    new = rename(module, {"crit": self_attr("crit")})
    assert new.code == "def f(crit):\n    pass\ny = self.crit(out, target=t).crit\n"
