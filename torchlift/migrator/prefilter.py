"""A text check that rules out files without a training loop before any libcst parse.

Every training loop the migrator converts calls `.backward(` inside a `for` loop, so a file
lacking either token cannot contain one. Most real code (all of torch's own source but a few
autograd files) stops here.
"""

from __future__ import annotations

import re

_FOR = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:for|while)[ \t(]", re.M)


def may_contain_training_loop(text: str) -> bool:
    return "backward(" in text and _FOR.search(text) is not None
