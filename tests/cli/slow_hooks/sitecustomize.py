"""Put on PYTHONPATH by test_cli_signals.py: makes `migrate` slow at one chosen place, so a
signal can be sent while it is there. TORCHLIFT_TEST_SLOW=migrate|write, and
TORCHLIFT_TEST_MARKS=DIR receives one empty file per process that reached the slow place
(named by its pid)."""

import os
import time

_slow = os.environ.get("TORCHLIFT_TEST_SLOW")
_marks = os.environ.get("TORCHLIFT_TEST_MARKS")


def _arrived():
    open(os.path.join(_marks, str(os.getpid())), "w").close()
    time.sleep(600)


if _slow == "migrate":
    import torchlift.migrator

    def _slow_migrate_source(source, path="<string>", target="runtime"):
        _arrived()

    torchlift.migrator.migrate_source = _slow_migrate_source
elif _slow == "write":
    _real_fsync = os.fsync

    def _slow_fsync(fd):
        _arrived()
        return _real_fsync(fd)

    os.fsync = _slow_fsync
