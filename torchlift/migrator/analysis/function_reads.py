"""What the script's functions read, directly or through the functions they call.

Which functions reach a name (the model: a call may run it, switch its mode) or do something
(seed torch's generator) themselves or through another: `functions_doing`.

Which module globals they read, for questions about code after training.

Lightning's `fit` hands the model back on the CPU (its strategy's teardown); a script whose
later code reaches the model or the device only through its own functions
(`check_accuracy(test_loader, model)` moving batches to the global `device`, `evaluate(loader)`
reading the global `model`) still expects the model where it put it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst
import libcst.matchers as m

from .names import definition_reads


def module_functions(module: cst.Module) -> dict[str, cst.FunctionDef]:
    return {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}


def functions_doing(
    functions: Iterable[cst.FunctionDef], does: Callable[[cst.FunctionDef, set[str]], bool]
) -> set[str]:
    """Names of the `functions` doing something directly or through another of them:
    `does(function, found)` tells whether `function` does it itself or calls one of the names
    `found` so far, and is asked again until nothing new is found. A name counts when any
    function spelled so does it (two classes' methods may share one)."""
    functions = list(functions)
    found: set[str] = set()
    while True:
        more = {f.name.value for f in functions if f.name.value not in found and does(f, found)}
        if not more:
            return found
        found |= more


def functions_reading(module: cst.Module, names: set[str]) -> set[str]:
    """Names of the script's module-level functions whose body reads one of `names` (a global
    model, or a parameter spelled the same: either way a call may run or switch it), or calls
    such a function (`sample()` calling `sample_timestep()`, which runs the global model)."""
    return names_reading(module_functions(module).values(), names)


def names_reading(functions, names: set[str]) -> set[str]:
    """Names of the `functions` mentioning one of `names`, directly or through another."""
    functions = list(functions)
    mentioned = {id(f): {n.value for n in m.findall(f.body, m.Name())} for f in functions}
    return functions_doing(functions, lambda f, found: bool(mentioned[id(f)] & (names | found)))


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


def reads_through_calls(defs: dict[str, cst.FunctionDef], names: set[str]) -> dict[str, set[str]]:
    """Each of `defs` that `names` mentions -> what it reads from the scope it is defined in,
    itself or through the others of `defs` it mentions, transitively: a module's functions
    and its globals, or a function's closures and its locals (symtable, analysis/names.py)."""
    own = {name: definition_reads(f) for name, f in defs.items()}
    found = {}
    for name in names & set(defs):
        seen, todo, reads = set(), [name], set()
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            reads |= own[current]
            todo += [n for n in own[current] if n in defs and n not in seen]
        found[name] = reads
    return found
