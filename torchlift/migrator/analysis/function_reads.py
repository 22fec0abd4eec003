"""Module globals that module-level functions read, for questions about code after training.

Lightning's `fit` hands the model back on the CPU (its strategy's teardown); a script whose
later code reaches the model or the device only through its own functions
(`check_accuracy(test_loader, model)` moving batches to the global `device`, `evaluate(loader)`
reading the global `model`) still expects the model where it put it.
"""

from __future__ import annotations

import libcst as cst

from .names import definition_reads


def module_functions(module: cst.Module) -> dict[str, cst.FunctionDef]:
    return {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}


def reads_of_functions_called(module: cst.Module, names: set[str], skip=()) -> set[str]:
    """The globals read by the module-level functions `names` mentions, and by the ones those
    read, transitively (`skip`: functions not to count, e.g. the one holding the loop)."""
    defs = {name: f for name, f in module_functions(module).items() if name not in skip}
    seen: set[str] = set()
    todo = [name for name in names if name in defs]
    reads: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        found = definition_reads(defs[name])
        reads |= found
        todo += [n for n in found if n in defs and n not in seen]
    return reads


def reads_of_all_functions(module: cst.Module, skip=()) -> set[str]:
    """The globals read by every module-level function but those in `skip`."""
    reads: set[str] = set()
    for name, function in module_functions(module).items():
        if name not in skip:
            reads |= definition_reads(function)
    return reads
