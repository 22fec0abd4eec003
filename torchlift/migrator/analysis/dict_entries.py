"""The value a dict expression holds under a string key, when its code makes it certain.

    {"train": train_dl, "val": val_dl}                          a dict display
    dict(train=train_dl, val=val_dl)                            `dict(...)` of keywords
    {x: DataLoader(sets[x], shuffle=x == "train")               a comprehension over a literal
     for x in ["train", "val"]}                                 list (or tuple) of string keys

The comprehension's entry is its value expression as written (it mentions the key variable):
what kind of object it builds is the same for every key. Anything else (`**other` unpacked, a
key that is not a string literal, `dict(zip(...))`, a filtered comprehension) is unknown and
said so, as a reason a refusal can show.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

_LITERAL_KEYS = m.List() | m.Tuple()


def dict_entry(ctx, value: cst.BaseExpression, key: str) -> cst.BaseExpression | str:
    """The expression `value` holds under `key`, or why it cannot be read (a clause to
    follow the dict's name: "unpacks another dict ...")."""
    if isinstance(value, cst.Dict):
        return _display_entry(value, key)
    if isinstance(value, cst.DictComp):
        return _comprehension_entry(value, key)
    if isinstance(value, cst.Call) and "builtins.dict" in ctx.call_qualnames(value):
        if not value.args or any(a.keyword is None or a.star for a in value.args):
            return "is a `dict(...)` call of other than keyword arguments"
        found = [a.value for a in value.args if a.keyword.value == key]
        return found[0] if found else f"has no `{key}` entry"
    return "is not a dict display, `dict(...)` of keywords or a comprehension over literal keys"


def _display_entry(value: cst.Dict, key: str) -> cst.BaseExpression | str:
    if any(not isinstance(e, cst.DictElement) for e in value.elements):
        return "unpacks another dict (`**`), which could hold the key"
    if any(not isinstance(e.key, cst.SimpleString) for e in value.elements):
        return "has keys that are not strings"
    found = [e.value for e in value.elements if e.key.evaluated_value == key]
    return found[0] if len(found) == 1 else f"has no single `{key}` entry"


def _comprehension_entry(value: cst.DictComp, key: str) -> cst.BaseExpression | str:
    for_in = value.for_in
    if not (
        isinstance(for_in.target, cst.Name)
        and m.matches(value.key, m.Name(for_in.target.value))
        and not for_in.ifs
        and for_in.inner_for_in is None
        and for_in.asynchronous is None
        and m.matches(for_in.iter, _LITERAL_KEYS)
        and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.SimpleString)
            for e in for_in.iter.elements
        )
    ):
        return "is a dict comprehension that is not `{k: ... for k in [<string literals>]}`"
    keys = [e.value.evaluated_value for e in for_in.iter.elements]
    return value.value if key in keys else f"has no `{key}` entry (its keys are {keys})"
