"""Explain why a traced run failed, in one line the user can act on."""

from __future__ import annotations

import re

# Failures that mean "the script tried to fetch something over the network".
_NETWORK = re.compile(
    r"urllib\.error\.(URLError|HTTPError)|socket\.gaierror|Temporary failure in name resolution"
    r"|Name or service not known|nodename nor servname|Network is unreachable"
    r"|Connection refused|ConnectionError|ConnectTimeout|Max retries exceeded"
    r"|Failed to (download|establish)|HTTP Error \d{3}|ReadTimeout|No route to host"
    r"|Dataset not found\. You can use download=True"
)


def error_line(stderr: str) -> str:
    """The exception line of a traceback (or the last non-empty line of stderr)."""
    lines = [line.rstrip() for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b", line):
            return line
    return lines[-1] if lines else "(no error output)"


def needs_network(stderr: str) -> str | None:
    """The line showing a network download, when the failure is one (the exception line of a
    traceback rather than the source line that raised it)."""
    last = error_line(stderr)
    if _NETWORK.search(last):
        return last.strip()
    for line in reversed(stderr.splitlines()):
        if _NETWORK.search(line):
            return line.strip()
    return None


def stderr_tail(stderr: str, lines: int = 12) -> str:
    kept = [line for line in stderr.rstrip().splitlines() if line.strip()][-lines:]
    return "\n".join("    " + line for line in kept)
