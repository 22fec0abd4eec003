"""How many batches a loader yields per epoch, when the script makes it certain.

    data = torch.randn(64, 12)                              64 samples
    loader = DataLoader(TensorDataset(data, y), batch_size=8)   -> 8 batches

Known only for a `DataLoader` over a tensor or a `TensorDataset` whose first tensor is built
by a torch factory with a constant first dimension (or is a constant slice of one, `x[:192]`), with a constant `batch_size` (a literal,
a name bound once to one, or `cfg["batch_size"]` of a config dict only ever read) and
`drop_last`, every name bound once before the loop and never rebound in it. Anything else
(a Dataset class, a sampler, a size read from a file) is unknown: None.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .dict_entries import dict_entry
from .globals_read import function_locals, rebound_through_global
from .names import collect_names, only_module_binding
from .qualnames import GRAD_MODES
from .statements import single_assign

_FACTORIES = {"randn", "rand", "zeros", "ones", "empty", "full", "randint", "arange"}
_COUNT_NEUTRAL = {
    "shuffle",
    "num_workers",
    "pin_memory",
    "generator",
    "collate_fn",
    "worker_init_fn",
}


def batches_per_epoch(ctx, loader: str) -> int | None:
    value = _bound_value(ctx, loader)
    if not isinstance(value, cst.Call) or not any(
        q.endswith(".DataLoader") for q in ctx.call_qualnames(value)
    ):
        return None
    positional = [a.value for a in value.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in value.args if a.keyword is not None}
    if any(a.star for a in value.args) or len(positional) > 2:
        return None
    if set(keywords) - _COUNT_NEUTRAL - {"dataset", "batch_size", "drop_last"}:
        return None  # a sampler, batch_sampler, ... decides the count
    dataset = positional[0] if positional else keywords.get("dataset")
    batch_size = positional[1] if len(positional) > 1 else keywords.get("batch_size")
    samples = _length(ctx, dataset)
    size = 1 if batch_size is None else constant_int(ctx, batch_size)
    drop_last = keywords.get("drop_last")
    if drop_last is not None and not (
        isinstance(drop_last, cst.Name) and drop_last.value in ("True", "False")
    ):
        return None
    if samples is None or not size:
        return None
    if drop_last is not None and drop_last.value == "True":
        return samples // size
    return -(-samples // size)


def constant_int(ctx, expr) -> int | None:
    """The value of an integer literal, of a name bound once to one, or of a research
    script's `cfg["key"]` holding one."""
    if isinstance(expr, cst.Name):
        expr = _bound_value(ctx, expr.value)
    if isinstance(expr, cst.Subscript):  # `accum_steps = cfg["accum_steps"]` too
        expr = config_item(ctx, expr)
    if isinstance(expr, cst.Attribute):  # a Kaggle notebook's `CFG.gradient_accumulation_steps`
        expr = class_setting(ctx, expr) or config_field(ctx, expr)
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    return None


def config_item(ctx, expr: cst.Subscript):
    """The value of `cfg["key"]` when `cfg` is a dict literal bound once that the file only
    ever reads by string keys (never assigns an item or calls a method of; passes it on only
    to its own functions that read it so: `model, loaders = load_train_objs(cfg)`)."""
    found = _config_entry(ctx, expr)
    return None if isinstance(found, str) else found


def config_item_problem(ctx, expr: cst.Subscript) -> str | None:
    """Why `config_item` cannot read `expr` (None when it can)."""
    found = _config_entry(ctx, expr)
    return found if isinstance(found, str) else None


def config_field(ctx, expr: cst.Attribute):
    """The default of `cfg.field` when `cfg` is bound once to `Config()` of a `@dataclass`
    of the file, given no argument, that sets the field by a plain annotated default read
    only from imported modules (`device: str = "cuda" if torch.cuda.is_available() else
    "cpu"`: the same value evaluated again) and no method setting fields (`__post_init__`,
    an `__init__` of its own), and the file only
    reads `cfg` by attribute (or hands it to its functions reading it so); else None."""
    if not isinstance(expr.value, cst.Name):
        return None
    name, field = expr.value.value, expr.attr.value
    value = _bound_value(ctx, name)
    if not m.matches(value, m.Call(func=m.Name(), args=[])):
        return None
    classes = [
        s
        for s in ctx.module.body
        if isinstance(s, cst.ClassDef) and s.name.value == value.func.value
    ]
    if len(classes) != 1 or not _is_dataclass(ctx, classes[0]):
        return None
    default = None
    for stmt in classes[0].body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in _FIELD_SETTERS | {field}:
            return None  # fields set by code of the class's own, or the field a property
        if m.matches(stmt, m.SimpleStatementLine([m.AnnAssign(target=m.Name(field))])):
            default = stmt.body[0].value
    if default is None or not _reads_imports_only(ctx, default):
        return None
    return None if _key_read_problem(ctx, name, _field) else default


def class_setting(ctx, expr: cst.Attribute):
    """The literal of `CFG.field` when `CFG` is a class of the module used as a namespace of
    settings (a Kaggle notebook's `class CFG: apex = False`): no bases, decorators or
    methods, its body plain assignments, `field` bound there once to a literal (a number, a
    string, True / False / None), the name never rebound, and the file only reading `CFG`
    by attribute (or handing it to its functions reading it so: `get_scheduler(CFG, opt)`),
    never storing into `field` (another field's store cannot change it). Else None."""
    if not isinstance(expr.value, cst.Name):
        return None
    name, field = expr.value.value, expr.attr.value
    classes = [s for s in ctx.module.body if isinstance(s, cst.ClassDef) and s.name.value == name]
    if len(classes) != 1 or not _settings_class(classes[0]):
        return None
    rebound = m.findall(ctx.module, m.AssignTarget(target=m.Name(name)) | m.Import() | m.ImportFrom())
    if any(m.findall(t, m.Name(name) | m.ImportAlias(asname=m.AsName(name=m.Name(name)))) for t in rebound):
        return None
    values = [
        small.value
        for line in classes[0].body.body
        for small in line.body
        if m.matches(small, m.Assign(targets=[m.AssignTarget(target=m.Name(field))]))
        or m.matches(small, m.AnnAssign(target=m.Name(field)))
    ]
    if len(values) != 1 or not _literal(values[0]):
        return None
    return None if _key_read_problem(ctx, name, _field, only=field) else values[0]


def setting_problem(ctx, expr: cst.Attribute) -> str | None:
    """Why `CFG.field` of a settings class of the module is not read (None when it is, or
    when `CFG` is no such class), for a message."""
    name = expr.value.value
    classes = [s for s in ctx.module.body if isinstance(s, cst.ClassDef) and s.name.value == name]
    if len(classes) != 1 or not _settings_class(classes[0]):
        return None
    return _key_read_problem(ctx, name, _field, only=expr.attr.value)


def _settings_class(cls: cst.ClassDef) -> bool:
    """A class statement holding only plain assignments (and a docstring)."""
    if cls.bases or cls.keywords or cls.decorators or not isinstance(cls.body, cst.IndentedBlock):
        return False
    plain = m.Assign(targets=[m.AssignTarget(target=m.Name())]) | m.AnnAssign(target=m.Name())
    return all(
        isinstance(line, cst.SimpleStatementLine)
        and all(
            m.matches(small, plain | m.Expr(value=m.SimpleString()) | m.Pass())
            for small in line.body
        )
        for line in cls.body.body
    )


def _literal(value) -> bool:
    return isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)) or m.matches(
        value, m.Name("True") | m.Name("False") | m.Name("None")
    )


# methods of a dataclass that may give a field another value than its default
_FIELD_SETTERS = frozenset(
    {"__init__", "__post_init__", "__setattr__", "__getattr__", "__getattribute__"}
)


def _is_dataclass(ctx, cls: cst.ClassDef) -> bool:
    if cls.bases or cls.keywords or len(cls.decorators) != 1:
        return False
    decorator = cls.decorators[0].decorator
    if isinstance(decorator, cst.Call):
        decorator = decorator.func
    return "dataclasses.dataclass" in ctx.qualnames(decorator)


def _reads_imports_only(ctx, value: cst.BaseExpression) -> bool:
    """Every name `value` reads is bound at module level only by an import."""
    for name in collect_names(value).reads:
        binders = [s for s in ctx.module.body if name in collect_names(s).writes]
        if not binders or not all(
            isinstance(s, cst.SimpleStatementLine)
            and all(isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body)
            for s in binders
        ):
            return False
    return True


def _config_entry(ctx, expr: cst.Subscript):
    """The entry's value, or a string saying why it cannot be read."""
    if not isinstance(expr.value, cst.Name) or len(expr.slice) != 1:
        return "not a dict read by one key"
    index = expr.slice[0].slice
    if not (isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)):
        return "not read by a string key"
    name = expr.value.value
    value = _bound_value(ctx, name) or _module_value(ctx, name)
    if not isinstance(value, cst.Dict) and not (
        isinstance(value, cst.Call) and "builtins.dict" in ctx.call_qualnames(value)
    ):
        return f"`{name}` is not bound once, before the loop, to a dict literal"
    problem = _key_read_problem(ctx, name)
    if problem:
        return problem
    found = dict_entry(ctx, value, index.value.evaluated_value)
    return f"`{name}` {found}" if isinstance(found, str) else found


def _key_read_problem(ctx, name: str, item=None, only=None) -> str | None:
    """None when every mention of `name` in the file but one (its binding) is `name["key"]`,
    read, or hands `name` to a function of the file that only reads its parameter so;
    otherwise what else the file does with it. `item`: how a read looks (default: by key;
    `_field` for a dataclass instance's `name.attr`). `only`: the one field read, which a
    store into another field (`if CFG.debug: CFG.epochs = 1`) leaves as it is."""
    module = ctx.module
    code = module.code_for_node
    item = item or _keyed
    how = "by key" if item is _keyed else "by attribute"
    reads = {id(found.value) for found in m.findall(module, item(name))}
    targets = m.findall(module, m.AssignTarget() | m.AugAssign() | m.AnnAssign() | m.Del())
    for target in targets:
        if m.matches(target.target, item(name)) and (
            only is None or m.matches(target.target, m.Attribute(attr=m.Name(only)))
        ):
            return f"the script sets `{code(target.target).strip()}`"
    handed = _handed_to_readers(ctx, name, item)
    if isinstance(handed, str):
        return handed
    # a notebook's display cell (`config` alone on a line): shown, only read
    shown = {
        id(line.body[0].value)
        for line in module.body
        if m.matches(line, m.SimpleStatementLine([m.Expr(value=m.Name(name))]))
    }
    others = [
        n for n in m.findall(module, m.Name(name)) if id(n) not in reads | handed | shown
    ]
    if len(others) != 1:
        return f"`{name}` is used other than read {how} or handed to the file's functions"
    return None


def _handed_to_readers(ctx, name: str, item, within=None, seen=None) -> set[int] | str:
    """ids of the `name` nodes that are positional arguments of calls to the file's own
    functions reading that parameter only by key (`item`) or handing it on so (and of those
    parameters' own nodes, which findall of `name` meets when they share the name); why not,
    when such a call hands `name` to a function that does more with it. A function decorated
    by torch's grad modes (`@torch.no_grad()`) is read like a plain one: they do not see the
    arguments."""
    seen = seen if seen is not None else set()
    functions = {
        s.name.value: s
        for s in ctx.module.body
        if isinstance(s, cst.FunctionDef)
        and all(_grad_mode(ctx, d.decorator) for d in s.decorators)
    }
    # a class of the file built with it (`CustomModel(CFG)`): its `__init__` reads it
    functions.update(
        (s.name.value, init)
        for s in ctx.module.body
        if isinstance(s, cst.ClassDef) and not s.decorators
        for init in s.body.body
        if isinstance(init, cst.FunctionDef) and init.name.value == "__init__"
        and not init.decorators
    )
    handed: set[int] = set()
    for call in m.findall(within or ctx.module, m.Call(func=m.Name())):
        for position, arg in enumerate(call.args):
            if not m.matches(arg, m.Arg(value=m.Name(name), keyword=None, star="")):
                continue
            function = functions.get(call.func.value)
            params = function.params.params if function is not None else ()
            if function is not None and function.name.value == "__init__":
                params = params[1:]  # `self`
            if function is None or any(a.star for a in call.args) or position >= len(params):
                continue  # not the file's function: an ordinary mention, counted
            param = params[position].name
            if (function.name.value, param.value) not in seen:
                seen.add((function.name.value, param.value))
                if not _reads_only_by_key(ctx, function, param.value, item, seen):
                    how = "by key" if item is _keyed else "by attribute"
                    return (
                        f"`{name}` is handed to `{call.func.value}()`, which does more than "
                        f"read it {how}"
                    )
            handed.add(id(arg.value))
            handed.add(id(param))
    return handed


def _grad_mode(ctx, decorator: cst.BaseExpression) -> bool:
    called = isinstance(decorator, cst.Call)
    found = ctx.call_qualnames(decorator) if called else ctx.qualnames(decorator)
    return bool(found) and found <= GRAD_MODES


def _keyed(name: str):
    return m.Subscript(
        value=m.Name(name), slice=[m.SubscriptElement(slice=m.Index(value=m.SimpleString()))]
    )


def _field(name: str):
    return m.Attribute(value=m.Name(name))


def _reads_only_by_key(ctx, function: cst.FunctionDef, name: str, item, seen) -> bool:
    """`function`'s parameter `name` is only read as `name["key"]` (`item`) in its body, or
    handed on to the file's functions reading it so (never rebound, stored into)."""
    keyed = {id(f.value) for f in m.findall(function.body, item(name))}
    # `self.cfg`'s `cfg` is an attribute's name, no mention of the parameter
    attributes = {id(a.attr) for a in m.findall(function.body, m.Attribute())}
    stores = m.AssignTarget() | m.AugAssign() | m.AnnAssign() | m.Del()
    for target in m.findall(function.body, stores):
        if any(id(n) not in attributes for n in m.findall(target.target, m.Name(name))):
            return False  # `cfg["lr"] = ...` or `cfg = ...`
    mentions = [n for n in m.findall(function.body, m.Name(name)) if id(n) not in attributes]
    keyed |= _kept_on_self(ctx, function, name, item)
    if all(id(n) in keyed for n in mentions):
        return True
    handed = _handed_to_readers(ctx, name, item, function.body, seen)
    return not isinstance(handed, str) and all(id(n) in keyed | handed for n in mentions)


def _kept_on_self(ctx, function: cst.FunctionDef, name: str, item) -> set[int]:
    """ids of the `name` nodes of `self.attr = name` in an `__init__` (a Kaggle model's
    `self.cfg = cfg`, given `CFG`) when the file mentions `.attr` nowhere else than there and
    in reads of it the same way (`self.cfg.hidden_size`), never stored into; else empty."""
    params = function.params.params
    if function.name.value != "__init__" or not params:
        return set()
    this = params[0].name.value
    kept = [
        line.body[0]
        for line in function.body.body
        if m.matches(
            line,
            m.SimpleStatementLine(
                [m.Assign([m.AssignTarget(m.Attribute(value=m.Name(this)))], m.Name(name))]
            ),
        )
    ]
    if len(kept) != 1:
        return set()
    store = kept[0].targets[0].target
    attr = store.attr.value
    module = ctx.module
    on_attr = m.Attribute(attr=m.Name(attr))
    if item is _keyed:
        read = m.Subscript(
            value=on_attr, slice=[m.SubscriptElement(slice=m.Index(value=m.SimpleString()))]
        )
    else:
        read = m.Attribute(value=on_attr)
    reads = {id(found.value) for found in m.findall(module, read)}
    others = [a for a in m.findall(module, on_attr) if id(a) not in reads and a is not store]
    targets = m.findall(module, m.AssignTarget() | m.AugAssign() | m.AnnAssign() | m.Del())
    if others or any(m.findall(t.target, read) for t in targets):
        return set()
    return {id(kept[0].value)}


def _module_value(ctx, name: str):
    """The value of the module global `name` the function holding the loop reads (a
    notebook's `config = dict(...)` read in `run_fold()`): the module's one plain binding of
    it, when no function rebinds it (`global`) and nothing may rebind globals behind it
    (`exec`, `globals()`, `vars()`); else None."""
    if ctx.function is None or name in ctx.params or name in function_locals(ctx):
        return None
    if not any(stmt is ctx.function for stmt in ctx.module.body):
        return None  # a nested function may read its enclosing function's `name`
    if name in rebound_through_global(ctx):
        return None
    dynamic = m.Name("exec") | m.Name("eval") | m.Name("globals") | m.Name("vars")
    if m.findall(ctx.module, m.Call(func=dynamic)):
        return None
    found = single_assign(only_module_binding(ctx.module, name))
    return found[1] if found is not None else None


def _bound_value(ctx, name: str):
    """The value `name` is bound to once before the loop and never rebound in the loop."""
    found, count = ctx.binding(name)
    if found is None or count != 1 or name in collect_names(ctx.loop).writes:
        return None
    return found[1]


def _length(ctx, expr) -> int | None:
    """len() of a tensor or a TensorDataset expression."""
    if isinstance(expr, cst.Name):
        expr = _bound_value(ctx, expr.value)
    if isinstance(expr, cst.Subscript):  # `x[:192]`: a split of a tensor built above
        return _sliced_length(ctx, expr)
    if not isinstance(expr, cst.Call):
        return None
    names = ctx.call_qualnames(expr)
    if any(q.endswith("TensorDataset") for q in names):
        first = expr.args[0] if expr.args else None
        if first is None or first.keyword is not None or first.star:
            return None
        return _length(ctx, first.value)
    factory = {q.rsplit(".", 1)[1] for q in names if q.startswith("torch.")} & _FACTORIES
    if len(factory) != 1:
        return None
    args = [a for a in expr.args if a.keyword is None and not a.star]
    if not args:
        return None
    kind = factory.pop()
    if kind == "arange":
        return constant_int(ctx, args[0].value) if len(args) == 1 else None
    # randint(low, high, size) / randint(high, size): the size is the last positional tuple
    shape = args[-1].value if kind == "randint" else args[0].value
    if isinstance(shape, (cst.Tuple, cst.List)):
        if not shape.elements or isinstance(shape.elements[0], cst.StarredElement):
            return None
        return constant_int(ctx, shape.elements[0].value)
    return None if kind == "randint" else constant_int(ctx, shape)


def _sliced_length(ctx, expr: cst.Subscript) -> int | None:
    """len() of `x[a:b:c]` (a slice of the first dimension, constant bounds) of a tensor
    whose length is known: Python's own slice arithmetic."""
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Slice):
        return None
    part = expr.slice[0].slice
    bounds = []
    for bound in (part.lower, part.upper, part.step):
        value = None if bound is None else constant_int(ctx, bound)
        if bound is not None and value is None:
            return None
        bounds.append(value)
    whole = _length(ctx, expr.value)
    if whole is None or bounds[2] == 0:
        return None
    return len(range(*slice(*bounds).indices(whole)))
