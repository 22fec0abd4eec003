"""A text check that rules out files without a training loop before any parse.

Every training loop the migrator converts calls `.backward(` inside a `for` loop, so a file
lacking either token cannot contain one. Most real code (all of torch's own source but a few
autograd files) stops here, before the `ast` parse: for a 30 MB generated module that parse
costs a minute and gigabytes, the check milliseconds.

Lines end as Python's tokenizer says: LF, CRLF or a lone CR (old Mac files).
"""

from __future__ import annotations

import re

_FOR = re.compile(r"(?:^|(?<=\r))[ \t]*(?:async[ \t]+)?(?:for|while)[ \t(]", re.MULTILINE)

# A file with no training loop is still parsed when small, so that broken input is reported
# (syntax error, Python 2) as for any other file; a larger one is left as it is, unparsed.
SYNTAX_CHECK_CHARS = 1_000_000


def may_contain_training_loop(text: str) -> bool:
    return "backward(" in text and _FOR.search(text) is not None


def worth_a_syntax_check(text: str) -> bool:
    return len(text) <= SYNTAX_CHECK_CHARS
