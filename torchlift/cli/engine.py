"""Run the migrator over many files: one process per core, results in input order.

Everything that can go wrong for one file (unreadable, undecodable, a migrator bug, output
that would not compile) becomes that file's `InputError`; it never stops the other files.
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from itertools import repeat

from torchlift.cli.sources import EMPTY, SourceError, decode_source, read_source
from torchlift.migrator.result import InputError, MigrationResult


@dataclass
class Outcome:
    """What the CLI needs to print or write for one input."""

    result: MigrationResult
    encoding: str = "utf-8"

    @property
    def path(self) -> str:
        return self.result.path


def migrate_text(text: str, path: str, target: str, encoding: str = "utf-8") -> Outcome:
    """Migrate decoded source; never raises."""
    try:
        import torchlift.migrator as migrator  # late: `migrate --help` stays fast

        result = migrator.migrate_source(text, path=path, target=target)
    except Exception as exc:  # a migrator bug must not become a traceback or stop other files
        cause = f"internal error ({type(exc).__name__}: {exc}); please report it"
        return failed(path, text, InputError(path, 1, cause))
    if result.changed:
        # The migrator guarantees valid output; compiling again is cheap insurance.
        try:
            compile(result.output, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None) or 1
            cause = f"internal error: the converted code does not compile ({exc}); please report it"
            return failed(path, text, InputError(path, line, cause))
    return Outcome(result, encoding)


def migrate_bytes(data: bytes, path: str, target: str) -> Outcome:
    try:
        text, encoding = decode_source(data, path)
    except SourceError as exc:
        return failed(path, "", exc.error)
    return migrate_text(text, path, target, encoding)


def migrate_file(path: str, target: str, empty_ok: bool = False) -> Outcome:
    """Read, decode and migrate one file. `empty_ok`: an empty file is left unchanged instead
    of failing (a directory walk meets empty `__init__.py` files all the time)."""
    try:
        text, encoding = read_source(path)
    except SourceError as exc:
        if empty_ok and exc.error.cause == EMPTY:
            text = open(path, "rb").read().decode("utf-8", "surrogateescape")
            return Outcome(MigrationResult(path=path, source=text, output=text), "utf-8")
        return failed(path, "", exc.error)
    return migrate_text(text, path, target, encoding)


def migrate_files(
    paths: list[str],
    target: str,
    empty_ok: list[bool] | None = None,
    workers: int | None = None,
    progress: bool = False,
) -> list[Outcome]:
    """Migrate every path; several files go to a process pool. Order of `paths` is kept.
    `progress`: a tqdm bar on stderr (the CLI asks for it on a terminal)."""
    flags = empty_ok if empty_ok is not None else [False] * len(paths)
    workers = min(workers or os.cpu_count() or 1, len(paths))

    def counted(outcomes):
        if not progress:
            return list(outcomes)
        from tqdm import tqdm

        bar = tqdm(outcomes, total=len(paths), unit="file", file=sys.stderr, leave=False)
        return list(bar)

    if workers > 1:
        try:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                chunksize = max(1, len(paths) // (workers * 4))
                try:
                    return counted(
                        pool.map(migrate_file, paths, repeat(target), flags, chunksize=chunksize)
                    )
                except BaseException:  # Ctrl-C, SIGTERM: leaving the `with` would wait for
                    _end_workers(pool)  # every queued file; end the workers instead
                    raise
        except (OSError, NotImplementedError, BrokenProcessPool):
            pass  # no usable multiprocessing here (sandbox, no /dev/shm): do it in this process
    return counted(migrate_file(path, target, flag) for path, flag in zip(paths, flags))


def _end_workers(pool: ProcessPoolExecutor) -> None:
    # The pool's manager thread then fails the pending futures, which races their cancelling
    # by `map` (CPython 3.11: InvalidStateError in that thread): the dying pool's bookkeeping,
    # not the user's business, so that thread's errors are not printed.
    manager = getattr(pool, "_executor_manager_thread", None)
    report = threading.excepthook

    def quiet_manager(args) -> None:
        if args.thread is not manager:
            report(args)

    threading.excepthook = quiet_manager
    # SIGKILL: forked workers inherit our SIGTERM handler, and the pool's worker loop catches
    # what a handler raises. They hold no files: nothing is left half-done.
    kill = getattr(pool, "kill_workers", None)  # public from Python 3.14
    if kill is not None:
        kill()
        return
    for process in list((pool._processes or {}).values()):
        process.kill()
    # Wait for the manager thread to close its wake-up pipe: left running, it races the
    # interpreter's exit hook that writes to that pipe ("OSError: Bad file descriptor").
    pool.shutdown(wait=True)


def failed(path: str, source: str, error: InputError) -> Outcome:
    return Outcome(MigrationResult(path=path, source=source, output=source, error=error))
