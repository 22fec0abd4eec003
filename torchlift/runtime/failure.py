"""When one rank fails, end every process of the job quickly and show the user one error.

A rank that raises prints its traceback as usual. Its peers then fail too, inside a collective
("connection closed by peer"): those secondary errors are reduced to one line so the original
traceback is the only one on screen. On the launching rank the hook also kills the children
(or, when a child failed first, leaves with that child's exit code) so nothing is left behind.
Children launched by rank 0 exit as soon as their parent is gone (`watch_parent`).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torchlift.runtime.launcher import SubprocessScriptLauncher

# Text that gloo / nccl / the c10d store put in errors caused by another process going away.
_PEER_LOST_MARKERS = (
    "connection closed by peer",
    "connection reset by peer",
    "broken pipe",
    "socket closed",
    "connection refused",
    "gloo",
    "nccl",
    "c10d",
    "timed out",
    "watchdog",
)
_GRACE_FOR_CHILD_SECONDS = 5.0


def is_peer_failure(exc: BaseException) -> bool:
    """Does `exc` look like a collective that failed because another rank went away?"""
    try:
        import torch.distributed as dist

        dist_errors: tuple[type[BaseException], ...] = (dist.DistError,)
    except (ImportError, AttributeError):
        dist_errors = ()
    if dist_errors and isinstance(exc, dist_errors):
        return True
    if isinstance(exc, (RuntimeError, ConnectionError, OSError)):
        text = str(exc).lower()
        return any(marker in text for marker in _PEER_LOST_MARKERS)
    return False


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


class _FailureHook:
    def __init__(self, rank: int, launcher: SubprocessScriptLauncher | None) -> None:
        self.rank = rank
        self.launcher = launcher

    def __call__(self, exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt) or not isinstance(exc, BaseException):
            self._stop_children()
            return sys.__excepthook__(exc_type, exc, tb)
        if is_peer_failure(exc):
            failed = self._wait_for_failed_child()
            if failed is not None or self.launcher is None:
                # The error that matters is already on screen, printed by the rank that raised.
                sys.stderr.write(
                    f"torchlift: rank {self.rank} stopped because another process failed "
                    f"({_first_line(exc)})\n"
                )
                if self.launcher is not None and failed is not None:
                    self.launcher.stop_all(failed[1])
                self._flush_and_exit(1)
        traceback.print_exception(exc_type, exc, tb)
        self._stop_children()
        self._flush_and_exit(1)

    def _wait_for_failed_child(self) -> tuple[int, int] | None:
        if self.launcher is None:
            return None
        deadline = time.monotonic() + _GRACE_FOR_CHILD_SECONDS
        while time.monotonic() < deadline:
            failed = self.launcher.failed_child()
            if failed is not None:
                return failed
            time.sleep(0.05)
        return None

    def _stop_children(self) -> None:
        if self.launcher is not None:
            self.launcher.kill_children()

    @staticmethod
    def _flush_and_exit(code: int) -> None:
        # os._exit: a normal exit would run atexit handlers and tear down process groups, which
        # can block on peers that are already gone.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - exiting anyway
                pass
        os._exit(code)


def install_failure_hook(rank: int, launcher: SubprocessScriptLauncher | None) -> None:
    """Route uncaught exceptions of this rank through the job-wide failure handling.

    Call it again after `init_process_group`, which installs its own hook that buffers stderr
    (and would swallow our output, since we leave with os._exit).
    """
    sys.excepthook = _FailureHook(rank, launcher)


def watch_parent(parent_pid: int, poll_seconds: float = 0.5) -> None:
    """In a launched child: exit as soon as the launching process is gone."""

    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:
                os._exit(1)
            time.sleep(poll_seconds)

    threading.Thread(target=watch, name="torchlift-parent", daemon=True).start()
