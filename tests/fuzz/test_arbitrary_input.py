"""No input escapes as an exception: arbitrary text and arbitrary valid Python, through the
library (`migrate_source`) and through the CLI (`migrate -` on stdin, click's CliRunner).

Bad input is an `InputError` value and the source comes back unchanged; valid Python without
torch comes back byte-identical.
"""

import os
import warnings

import hypothesmith
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from torchlift.cli import migrate_command
from torchlift.migrator import InputError, migrate_source

FUZZ = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
TEXT_EXAMPLES = int(os.environ.get("TORCHLIFT_FUZZ_TEXT", 5000 if FUZZ else 100))
PYTHON_EXAMPLES = int(os.environ.get("TORCHLIFT_FUZZ_PYTHON", 1500 if FUZZ else 20))

# Fragments that steer random text towards what the migrator looks at.
TORCHY = [
    "import torch\n",
    "import torch.nn as nn\n",
    "for x, y in loader:\n",
    "    loss.backward()\n",
    "    optimizer.step()\n",
    "    optimizer.zero_grad()\n",
    "for epoch in range(3):\n",
    "model = nn.Linear(2, 2)\n",
    "\t",
    "    ",
    "\n",
    "\r\n",
    "(",
    ")",
    ":",
    "# comment\n",
    '"""',
    "\\\n",
    "\x00",
    "\ufeff",
    "print 'py2'\n",
]
torchy_text = st.lists(st.sampled_from(TORCHY) | st.text(max_size=8), max_size=25).map("".join)
any_text = st.text() | torchy_text


def _grammar_python():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return hypothesmith.from_grammar()


def check_library(source: str):
    result = migrate_source(source, path="fuzz.py", target="runtime")
    if result.error is not None:
        assert isinstance(result.error, InputError)
        assert result.output == source and not result.changed
        event(f"input error: {result.error.cause.split('(')[0][:40]}")
        return result
    event("converted" if result.changed else "unchanged")
    if result.changed:
        compile(result.output, "fuzz.py", "exec", dont_inherit=True)
    return result


@settings(max_examples=TEXT_EXAMPLES)
@given(source=any_text)
def test_arbitrary_text_never_raises(source):
    check_library(source)


@settings(max_examples=PYTHON_EXAMPLES, suppress_health_check=list(HealthCheck))
@given(source=_grammar_python())
def test_valid_python_without_torch_comes_back_byte_identical(source):
    note(source)
    result = check_library(source)
    if not source.strip():
        assert result.error is not None and result.error.cause == "empty file"
    elif "torch" not in source:
        assert result.error is None, f"valid Python rejected: {result.error}"
        assert result.output == source


@settings(max_examples=PYTHON_EXAMPLES, suppress_health_check=list(HealthCheck))
@given(source=hypothesmith.from_node(), prefix=st.sampled_from(TORCHY[:3]))
def test_valid_python_importing_torch_never_raises(source, prefix):
    # from_node builds code from libcst nodes: more realistic statements than the grammar.
    note(source)
    check_library(prefix + source)


@settings(max_examples=max(10, PYTHON_EXAMPLES // 2), suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=200) | torchy_text.map(lambda t: t.encode("utf-8")))
def test_cli_on_stdin_never_shows_a_traceback(data):
    result = CliRunner().invoke(migrate_command, ["-"], input=data)
    note(result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code in (0, 123), result.output
    assert "Traceback" not in result.output
