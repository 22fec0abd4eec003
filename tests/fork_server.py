"""Fixture runs forked from a process that has already imported torch (and lightning).

Every fixture run is a fresh `python train.py`, and most of its time is the import of torch
(about 1.5 s) and, for the Lightning target, of lightning (1.5 s more): several hundred runs
per suite. A server process imports them once; each run is a child forked from it that sets
itself up as a fresh interpreter would for `python script.py` (its own session, cwd,
environment, argv, sys.path with PYTHONPATH in front, `sitecustomize` imported, then the
script run as `__main__`, exit functions run at the end) and exits with the script's code.

Client side, `ForkedRuns` is a `torchlift.verify.trace.LiveRuns` whose processes come from the
server, so `run_traced(..., live=ForkedRuns(...))` traces a forked run exactly as a spawned
one: the trace's and the probe's `sitecustomize` install themselves on a torch already
imported. Commands other than `python script.py ...` (a launcher: torchrun) are spawned.

The server: `python fork_server.py SOCKET MODULE...` (MODULE: what to import first). One
connection per run: the client sends one JSON line {script, args, cwd, env, stdout, stderr},
the server answers the child's pid, then its exit code when it ends.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from torchlift.verify.trace import LiveRuns

# What the servers import. A plain script's first optimizer step imports torch._dynamo (and
# with it sympy, torch._inductor, torch.distributed...): about 1 s of CPU, most of a small
# fixture's run, paid again by every run forked from a server holding torch alone. Importing
# lightning imports it too, so both servers hold the same torch.
TORCH = ("torch", "torch._dynamo")
LIGHTNING = (*TORCH, "lightning")


# -- the server ---------------------------------------------------------------------------------
def serve(path: str, modules: list[str]) -> None:
    import importlib
    import selectors

    for name in modules:
        importlib.import_module(name)
    base_path = [p for p in sys.path[1:] if p]  # the interpreter's own, not this file's folder
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    listener.setblocking(False)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    parent = os.getppid()
    waiting: dict[int, socket.socket] = {}
    while os.getppid() == parent:  # ends with the test session that started it
        for _ in selector.select(timeout=0.05):
            conn, _ = listener.accept()
            conn.setblocking(True)
            request = json.loads(conn.makefile("r").readline())
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                selector.close()
                listener.close()
                conn.close()
                _child(request, base_path)  # never returns
            conn.sendall(f"{pid}\n".encode())
            waiting[pid] = conn
        while waiting:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            conn = waiting.pop(pid, None)
            if conn is not None:
                try:
                    conn.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
                except OSError:
                    pass  # the client gave up on it (timeout)
                conn.close()


def _child(request: dict, base_path: list[str]) -> None:
    """Become `python script args...` in a fresh interpreter, run it, exit with its code."""
    code = 1
    try:
        os.setsid()  # a session of its own: the client ends the whole group on timeout
        for fd, name in ((1, "stdout"), (2, "stderr")):
            out = os.open(request[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(out, fd)
            os.close(out)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        script = os.path.abspath(request["script"])
        sys.argv = [request["script"], *request["args"]]
        extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = [os.path.dirname(script), *extra, *base_path]
        import importlib

        importlib.invalidate_caches()
        sys.modules.pop("sitecustomize", None)
        try:
            import sitecustomize  # noqa: F401  (as the interpreter does at start-up)
        except ImportError:
            pass
        code = _run_main(script)
    except BaseException:  # the set-up itself failed: say so where the run's stderr goes
        import traceback

        traceback.print_exc()
    finally:
        os._exit(_exit(code))


def _run_main(script: str) -> int:
    import runpy

    try:
        runpy.run_path(script, run_name="__main__")
        return 0
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1
    except BaseException:
        sys.excepthook(*sys.exc_info())
        return 1


def _exit(code: int) -> int:
    """What the interpreter does at exit: wait for non-daemon threads, run the exit functions
    (the trace writes its last records there), flush the streams."""
    import atexit

    try:
        threading._shutdown()  # type: ignore[attr-defined]
    except BaseException:
        pass
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    return code


# -- the client ---------------------------------------------------------------------------------
class ForkServer:
    """A server process importing `modules`, started on first use, ended with the session."""

    def __init__(self, folder: Path, modules: tuple[str, ...], env: dict[str, str]) -> None:
        self.path = str(folder / f"fork-{modules[-1]}.sock")  # AF_UNIX paths are short
        self._modules = modules
        self._env = env
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def connect(self) -> socket.socket:
        with self._lock:
            if self._proc is None:
                self._proc = subprocess.Popen(
                    [sys.executable, __file__, self.path, *self._modules],
                    env=self._env,
                    stdin=subprocess.DEVNULL,
                )
            deadline = time.monotonic() + 120
            while True:
                if self._proc.poll() is not None:
                    raise RuntimeError(f"the fork server for {self._modules} exited")
                try:
                    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    conn.connect(self.path)
                    return conn
                except (FileNotFoundError, ConnectionRefusedError):
                    conn.close()
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)

    def stop(self) -> None:
        with self._lock:
            if self._proc is not None:
                self._proc.kill()
                self._proc.wait()


class ForkedProcess:
    """The part of `subprocess.Popen` run_traced uses, for a child of the fork server."""

    def __init__(self, conn: socket.socket, folder: Path) -> None:
        self._conn = conn
        self._received = b""
        self._folder = folder
        self.pid = int(self._line())
        self.returncode: int | None = None

    def _line(self) -> str:
        """The server's next line ("" if it closed the connection); a timeout keeps what
        arrived, so the next call goes on (a file made from the socket would not)."""
        while b"\n" not in self._received:
            chunk = self._conn.recv(64)
            if not chunk:
                return ""
            self._received += chunk
        line, self._received = self._received.split(b"\n", 1)
        return line.decode()

    def communicate(self, timeout: float | None = None):
        if self.returncode is None:
            self._conn.settimeout(timeout)
            try:
                line = self._line()
            except (TimeoutError, socket.timeout):
                raise subprocess.TimeoutExpired("forked run", timeout) from None
            self.returncode = int(line) if line.strip() else -9
            self._conn.close()
        read = lambda name: (self._folder / name).read_text(errors="replace")  # noqa: E731
        return read("stdout.txt"), read("stderr.txt")


class ForkedRuns(LiveRuns):
    """LiveRuns starting `python script args...` as a child of `server`."""

    def __init__(self, server: ForkServer, folder: Path) -> None:
        super().__init__()
        self._server = server
        self._folder = folder

    def popen(self, command, cwd, env):
        if len(command) < 2 or command[0] != sys.executable or command[1].startswith("-"):
            return super().popen(command, cwd, env)
        self._folder.mkdir(parents=True, exist_ok=True)
        request = {
            "script": command[1],
            "args": list(command[2:]),
            "cwd": str(cwd),
            "env": dict(env),
            "stdout": str(self._folder / "stdout.txt"),
            "stderr": str(self._folder / "stderr.txt"),
        }
        conn = self._server.connect()
        conn.sendall((json.dumps(request) + "\n").encode())
        return ForkedProcess(conn, self._folder)


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2:])
