"""Can a call change the object a name is bound to when the name is one of its arguments?

shapes/epoch_batch.py's `maybe_changed` assumes a function of unknown code changes what it is
handed. Two kinds of argument it cannot change:

- an immutable value: a name every binding of which, in the scope it is read from, is an
  int / float / str / bool / None literal, a tuple of those, or arithmetic of such names
  (`bptt = 35`, `steps = epochs * 10`, `n = min(len(a), len(b))`): the callee receives the
  value, and no call changes an int. (Rebinding is another question, the caller's own
  statements': `collect_names(...).writes`.) A name some function declares `global` or
  `nonlocal`, a parameter, or a name bound any other way (a loop target, an import, ...) is
  not known to be immutable.
- an object handed to a function of the script that only reads it: its parameter is read as
  `p.attr` / `p[key]` (never stored into, deleted, or the receiver of a method call other
  than a reading one: the word-LM `get_batch`'s `source[i + 1 : j].view(-1)` reads, a
  `source[i:j].clamp_(0, 9)` does not, nor a `view` some class of the script defines), handed
  on only to such functions of the script or to `print` / `len` / `isinstance`, never
  returned, bound to another name, or captured; and the function reaches no global of the
  caller's name (the same object by another way).

Not followed: what an attribute's or a reading method's value undergoes once read
(`shuffle(cfg.order)` changes `cfg`'s list in place; a view returned and changed in place by
the caller changes the tensor), as `maybe_changed` does not follow it in the caller's own code.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .confined_effects import READ_METHODS, method
from .function_reads import module_functions, reads_of_functions_called
from .generator_body import READING_METHODS
from .names import collect_names
from .qualnames import is_grad_mode_decorator

# builtins that read their argument and keep no reference to it
_READING_BUILTINS = frozenset(
    f"builtins.{name}" for name in "print len isinstance hasattr str repr format type id".split()
)
# calls of immutable values returning immutable values
_IMMUTABLE_CALLS = frozenset(
    f"builtins.{name}" for name in "len int float str bool round abs min max".split()
)
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)


def call_cannot_change(ctx, call: cst.Call, name: str) -> bool:
    """`call`, given the name `name` as an argument, cannot change its object."""
    if name in immutable_names(ctx):
        return True
    return _hands_to_reader(ctx, call, name)


def rebound_by_calls(ctx, code: cst.CSTNode, names: set[str]) -> set[str]:
    """Those of `names` a function of the script that `code` calls declares `global` (and
    may rebind), itself or through the functions it calls: no argument says so."""
    if not names:
        return set()
    declared = _declared_globals(ctx)
    called = {c.func.value for c in m.findall(code, m.Call(func=m.Name()))}
    return names & set().union(*(declared.get(f, set()) for f in called))


def _declared_globals(ctx) -> dict[str, set[str]]:
    """Function of the script -> the names it or a function it calls declares `global`
    (computed once per loop)."""
    found = ctx.found.get("declared_globals_by")
    if found is not None:
        return found
    functions = module_functions(ctx.module)
    calls, found = {}, {}
    for name, function in functions.items():
        globals_ = m.findall(function.body, m.Global())
        found[name] = {n.name.value for node in globals_ for n in node.names}
        called = m.findall(function.body, m.Call(func=m.Name()))
        calls[name] = {c.func.value for c in called} & set(functions)
    changed = True
    while changed:  # through the functions each calls, to a fixed point
        changed = False
        for name, callees in calls.items():
            more = set().union(*(found[c] for c in callees)) - found[name]
            if more:
                found[name] |= more
                changed = True
    ctx.found["declared_globals_by"] = found
    return found


# -- immutable values ---------------------------------------------------------------------


def immutable_names(ctx) -> frozenset:
    """Names of the loop's scope (the function holding it, else the module) bound only to
    immutable values; computed once per loop."""
    found = ctx.found.get("immutable_names")
    if found is None:
        found = ctx.found["immutable_names"] = frozenset(_immutable_names(ctx))
    return found


def _immutable_names(ctx) -> set[str]:
    declared = {
        n.name.value
        for node in m.findall(ctx.module, m.Global() | m.Nonlocal())
        for n in node.names
    }
    found = _scope_immutables(ctx, ctx.module.body, declared, frozenset())
    function = getattr(ctx, "function", None) if getattr(ctx, "in_function", False) else None
    if function is None:
        return found
    # the function's locals (a parameter is not known), then the globals it does not hide
    params = {p.name.value for p in m.findall(function.params, m.Param())}
    values, other = _bindings(function.body.body)
    outer = found - set(values) - other - params
    given = _params_given_immutables(ctx, params - set(values) - other - declared, found)
    return outer | given | _scope_immutables(ctx, function.body.body, declared | params, outer | given)


def _params_given_immutables(ctx, params: set[str], module_immutables: set[str]) -> set[str]:
    """Those of `params` (never rebound in the function) that every call of the function
    holding the loop in this file gives an immutable value: a literal, or the name of a
    module-level immutable in a call at module level (`train(net, batch_size=batch_size)`
    after `batch_size = 8`); its default when a call passes nothing. The function must be
    used by plain calls only (else nothing is known of its other callers)."""
    from ..patterns.passed_in import _argument, _call_sites  # patterns build on analysis
    from ..rule import Unsupported

    if not params:
        return set()
    try:
        sites = _call_sites(ctx, ctx.loop)
    except Unsupported:
        return set()
    found = set()
    for param in params:
        for caller, call in sites:
            argument = _argument(ctx, call, param)
            known = module_immutables if caller is ctx.module else set()
            if argument is None or not _immutable(ctx, argument, known):
                break
        else:
            found.add(param)
    return found


def _scope_immutables(ctx, body, excluded: set[str], outer: frozenset | set) -> set[str]:
    """Names of one scope bound only to immutable values there; its values' names are its
    own or, not bound in it, the `outer` immutable ones."""
    values, other = _bindings(body)
    known = {n for n in values if n not in other and n not in excluded}
    # a value reads other names: immutable when those are (a fixed point from below)
    mine: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name in sorted(known - mine):
            if all(_immutable(ctx, v, set(outer) | mine) for v in values[name]):
                mine.add(name)
                changed = True
    return mine


def _bindings(body) -> tuple[dict[str, list], set[str]]:
    """(name -> values of its `name = value` / `name += value` / `name: T = value`
    bindings, names bound any other way) in one scope's statements (nested functions and
    classes are scopes of their own: only their names are bound here)."""
    values: dict[str, list] = {}
    other: set[str] = set()
    for stmt in _scope_statements(body):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            other.add(stmt.name.value)
            continue
        if not isinstance(stmt, cst.SimpleStatementLine):
            other |= _header_writes(stmt)
            continue
        for small in stmt.body:
            writes = collect_names(small).writes
            if not writes:
                continue
            pair = _simple_binding(small)
            if pair is None:
                other |= writes
                continue
            names, value = pair
            other |= writes - names
            for name in names:
                values.setdefault(name, []).append(value)
    return values, other


def _simple_binding(small) -> tuple[set[str], cst.BaseExpression] | None:
    """(names, value) of `a = b = value`, `a += value`, `a: T = value` with plain names."""
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
        if all(isinstance(t, cst.Name) for t in targets):
            return {t.value for t in targets}, small.value
    elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
        if isinstance(small.target, cst.Name) and small.value is not None:
            return {small.target.value}, small.value
    return None


def _header_writes(stmt) -> set[str]:
    """Names a compound statement binds in its header (a loop target, `with ... as x`, an
    exception name, a walrus in a test)."""
    parts: list = []
    if isinstance(stmt, cst.For):
        parts = [cst.AssignTarget(stmt.target), stmt.iter]
    elif isinstance(stmt, (cst.If, cst.While)):
        parts = [stmt.test]
    elif isinstance(stmt, cst.With):
        parts = list(stmt.items)
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        parts = [h for h in stmt.handlers if h.name is not None]
        return {n.value for h in parts for n in m.findall(h.name, m.Name())}
    elif isinstance(stmt, cst.Match):
        return collect_names(stmt).writes  # patterns bind: every name written, to be safe
    return set().union(*(collect_names(p).writes for p in parts)) if parts else set()


def _scope_statements(body) -> list:
    """The statements of a scope, nested blocks included, not the bodies of functions and
    classes defined in it."""
    out = []
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef)):
            continue
        for block in _blocks(stmt):
            out += _scope_statements(block)
    return out


def _blocks(stmt):
    from ..source.find_loops import _cst_blocks

    return _cst_blocks(stmt)


def _immutable(ctx, value, names: set[str]) -> bool:
    """`value` evaluates to an immutable value when each name in it is one of `names`."""
    if isinstance(value, (*_LITERALS, cst.FormattedString)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("None", "True", "False") or value.value in names
    if isinstance(value, cst.UnaryOperation):
        return _immutable(ctx, value.expression, names)
    if isinstance(value, (cst.BinaryOperation, cst.BooleanOperation)):
        return _immutable(ctx, value.left, names) and _immutable(ctx, value.right, names)
    if isinstance(value, cst.Comparison):  # of tensors, a tensor
        return _immutable(ctx, value.left, names) and all(
            _immutable(ctx, c.comparator, names) for c in value.comparisons
        )
    if isinstance(value, cst.IfExp):
        return _immutable(ctx, value.body, names) and _immutable(ctx, value.orelse, names)
    if isinstance(value, cst.Tuple):
        return all(
            not isinstance(e, cst.StarredElement) and _immutable(ctx, e.value, names)
            for e in value.elements
        )
    if isinstance(value, cst.Call) and ctx.call_qualnames(value) & _IMMUTABLE_CALLS:
        # len() is an int whatever it measures; int(x), min(a, b) of immutable values
        if "builtins.len" in ctx.call_qualnames(value):
            return True
        return all(not a.star and _immutable(ctx, a.value, names) for a in value.args)
    return False


# -- functions of the script that only read a parameter -------------------------------------


def _hands_to_reader(ctx, call: cst.Call, name: str, seen: set | None = None) -> bool:
    """`call` is a call of a function of the script that only reads the parameter(s) `name`
    is given to, and reaches no global `name` itself."""
    if not isinstance(call.func, cst.Name):
        return False
    functions = module_functions(ctx.module)
    function = functions.get(call.func.value)
    if function is None or call.func.value in _locally_bound(ctx):
        return False
    if name in reads_of_functions_called(ctx.module, {call.func.value}):
        return False  # the same object, reached by its global name
    params = _params_given(ctx, function, call, name)
    seen = set() if seen is None else seen
    return params is not None and all(only_reads(ctx, function, param, seen) for param in params)


def _locally_bound(ctx) -> set[str]:
    """Names the function holding the loop binds (they hide the module's functions)."""
    function = getattr(ctx, "function", None) if getattr(ctx, "in_function", False) else None
    return collect_names(function.body).writes if function is not None else set()


def _params_given(ctx, function: cst.FunctionDef, call: cst.Call, name: str) -> list[str] | None:
    """The parameters of `function` the call gives `name` to; None when it cannot be said
    (a `*` argument, *args / **kwargs parameters, a decorator other than a grad mode, which
    passes the arguments on as given: `@torch.inference_mode()` around a sampler)."""
    params = function.params
    if any(not is_grad_mode_decorator(ctx, d) for d in function.decorators):
        return None
    if any(a.star for a in call.args):
        return None
    if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
        return None
    positional = [*params.posonly_params, *params.params]
    by_name = {p.name.value for p in [*params.params, *params.kwonly_params]}
    given = []
    for position, arg in enumerate(call.args):
        if not m.matches(arg.value, m.Name(name)):
            continue
        if arg.keyword is None:
            if position >= len(positional):
                return None
            given.append(positional[position].name.value)
        elif arg.keyword.value in by_name:
            given.append(arg.keyword.value)
        else:
            return None
    return given


def only_reads(ctx, function: cst.FunctionDef, param: str, seen: set) -> bool:
    """`function` only reads its parameter `param`: `param.x` / `param[k]` read, or handed on
    to a builtin that reads it or to a function of the script that only reads it."""
    key = (id(function), param)
    if key in seen:
        return True  # recursion: what else the function does is asked where it was met
    seen.add(key)
    body = function.body
    if m.findall(body, m.FunctionDef() | m.Lambda() | m.ClassDef() | m.Global() | m.Nonlocal()):
        return False  # a closure or a scope declaration could keep or rebind it
    if param in collect_names(body).writes:
        return False  # rebound: later uses may be another object (kept simple)
    parents = _parents(body)
    hidden = collect_names(body).writes | {
        p.name.value for p in m.findall(function.params, m.Param())
    }
    for node in m.findall(body, m.Name(param)):
        if _spelled_only(node, parents):
            continue
        if not _read_use(ctx, node, parents, seen, hidden):
            return False
    return True


def first_change(ctx, root: cst.CSTNode, name: str, binding: cst.CSTNode) -> cst.CSTNode | None:
    """The first statement of `root` that may change the object `name` is bound to by the
    statement `binding` (a dict of loaders): a use of `name` that `_read_use` does not
    judge a read (an item stored or deleted, a method other than a reading one, handed to a
    call that may change it, rebound, aliased, returned, iterated); None when every other
    spelling reads it. Name-based in every scope of `root` (a local of another function
    spelled the same counts too), parameters' own names apart."""
    parents = _parents(root)
    own = {id(node) for node in m.findall(binding, m.Name(name))}
    for node in m.findall(root, m.Name(name)):
        if id(node) in own or _spelled_only(node, parents):
            continue
        if isinstance(parents.get(id(node)), cst.Param):
            continue
        if not _read_use(ctx, node, parents, set(), set()):
            stmt = node
            while not isinstance(stmt, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                stmt = parents[id(stmt)]
            return stmt
    return None


def _spelled_only(node: cst.Name, parents: dict) -> bool:
    """`node` is an attribute's or a keyword's name (`x.args`, `f(args=...)`), not a use."""
    parent = parents.get(id(node))
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return True
    return isinstance(parent, cst.Arg) and parent.keyword is node


def _read_use(ctx, node: cst.Name, parents: dict, seen: set, hidden: set[str]) -> bool:
    """`node` (the parameter) is read where it stands."""
    chain = node
    while True:
        parent = parents.get(id(chain))
        if isinstance(parent, cst.Attribute) and parent.value is chain:
            chain = parent
        elif isinstance(parent, cst.Subscript) and parent.value is chain:
            chain = parent
        else:
            break
    if isinstance(parent, cst.Call) and parent.func is chain:  # a method of it called
        return isinstance(chain, cst.Attribute) and _reading_method(ctx, chain.attr.value)
    if _is_target(chain, parents):
        return False
    if chain is not node:
        return True  # an attribute or item read (what it is then is not followed)
    if isinstance(parent, (cst.Comparison, cst.ComparisonTarget, cst.If, cst.IfExp)):
        return True
    if isinstance(parent, cst.Arg):
        call = parents.get(id(parent))
        if ctx.call_qualnames(call) & _READING_BUILTINS:
            return True
        if isinstance(call.func, cst.Name) and call.func.value in hidden:
            return False  # a local of the function, not the script's function of that name
        return _hands_to_reader(ctx, call, node.value, seen)
    return False  # returned, bound to another name, put in a container, iterated ...


# nn.Module's methods of these names change the module in place (and return it), where a
# tensor's return a new tensor: not reads when the object may be a model
_MODULE_IN_PLACE = frozenset("to cpu float double half".split())


def _reading_method(ctx, name: str) -> bool:
    """`name` is a method that leaves its object as it is: a plain reading one, or one of the
    tensor / array / str methods returning a new value or a view (`source[i:j].view(-1)`,
    `p.reshape(-1)`) that no class of the script defines (its own `view` may do anything)."""
    if name in READ_METHODS:
        return True
    if name not in READING_METHODS or name in _MODULE_IN_PLACE:
        return False
    classes = m.findall(ctx.module, m.ClassDef())  # nested ones too
    return all(method(c, name) is None for c in classes)


def _is_target(chain, parents) -> bool:
    """`chain` is (part of) what an assignment, augmented assignment or `del` stores into."""
    current = chain
    while id(current) in parents:
        parent = parents[id(current)]
        if isinstance(parent, (cst.AssignTarget, cst.Del)):
            return True
        if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is current:
            return True
        if isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
            current = parent
            continue
        return False
    return False


def _parents(root: cst.CSTNode) -> dict[int, cst.CSTNode]:
    parents: dict[int, cst.CSTNode] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.children:
            parents[id(child)] = node
            stack.append(child)
    return parents
