"""A device read from a config object: what it holds is known only at run time.

    args = parser.parse_args()                     device = args.device
    config = get_config()                          if config.trainer.device == "auto":
    config.merge_from_args(sys.argv[1:])               device = "cuda" if ... else "cpu"
    cfg = SimpleNamespace(device="auto")           else:
    cfg = json.load(f)                                 device = config.trainer.device
                                                   device = cfg.get("device", "cpu")

The value is a field of an object (an attribute, a string key, `.get("key", default)`, also
nested: `config.system.device`) whose name says it holds a device, of an object the script
binds itself (not an imported module or library). A command line, a JSON file or code
setting the field may give it any device ("cuda:1", "mps"), so the migrator does not read
it: device_intent.py makes the Trainer read the device the script computed from it, by the
name bound to it (`accelerator=torch.device(device).type`, `devices=` its GPU index), and
keeps that binding where it is. A config whose value the source does show (a dict literal
only read by key, a dataclass default: analysis/loader_length.py) is read as that value.

Anything else bound to a device name (a call of a function of the script or of a library,
an item of a list, a field named otherwise, `args.gpu`) is not read as a device: the moves
to it are refused (TL142, patterns/device_scope.py) at the statement binding it.
"""

from __future__ import annotations

import re

import libcst as cst

# a field naming one device: `device`, `DEVICE`, `train_device`, `device_type`, `device_name`
# (not `devices`, `device_ids`, `num_devices`: counts and lists)
_DEVICE_FIELD = re.compile(r"(\w+_)?device(_type|_name)?")


def config_device_read(ctx, value: cst.BaseExpression) -> bool:
    """`value` reads a field named as a device (`device`, `train_device`, `DEVICE`) from an
    object the script binds: `cfg.device`, `cfg.system.device`, `cfg["device"]`,
    `cfg.get("device")` (with a default or not)."""
    field, root = _field(value)
    if field is None or not _DEVICE_FIELD.fullmatch(field.lower()):
        return False
    while True:  # the object holding the field: itself a chain of fields of the root
        inner, inner_root = _field(root)
        if inner is None:
            break
        root = inner_root
    return isinstance(root, cst.Name) and root.value not in ctx.names.imports


def _field(value: cst.BaseExpression) -> tuple[str | None, cst.BaseExpression | None]:
    """(field name, object read) of `obj.name`, `obj["name"]` or `obj.get("name"[, d])`."""
    if isinstance(value, cst.Attribute):
        return value.attr.value, value.value
    if isinstance(value, cst.Subscript) and len(value.slice) == 1:
        index = value.slice[0].slice
        if isinstance(index, cst.Index) and _key(index.value) is not None:
            return _key(index.value), value.value
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "get"
        and 1 <= len(value.args) <= 2
        and all(arg.keyword is None and not arg.star for arg in value.args)
    ):
        return _key(value.args[0].value), value.func.value
    return None, None


def _key(node: cst.BaseExpression) -> str | None:
    """The text of a plain string literal (no f-string, no concatenation)."""
    if isinstance(node, cst.SimpleString):
        text = node.evaluated_value
        return text if isinstance(text, str) else None
    return None
