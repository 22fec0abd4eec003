"""SIGTERM as an exception, so `migrate` stops the way Ctrl-C stops it: through every
`finally` and `with` on the way out (temporary files removed, worker processes and script
runs ended) instead of dying where it stands."""

from __future__ import annotations

import contextlib
import signal
import threading


class Terminated(BaseException):
    """SIGTERM arrived. A BaseException, like KeyboardInterrupt: `except Exception` must not
    swallow it."""

    exit_code = 128 + signal.SIGTERM


@contextlib.contextmanager
def sigterm_raises():
    """Within the block, SIGTERM raises Terminated in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may install handlers; keep the default there
        return

    def raise_terminated(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut cleanup short
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
