"""Start the other local ranks of a plain `python train.py` by running the same command again.

As Lightning's default launcher does: local rank 0 (the process the user started) sets
MASTER_ADDR, MASTER_PORT (a free port unless given), NODE_RANK, WORLD_SIZE, LOCAL_RANK and RANK,
then runs `python train.py <same args>` (or `python -m pkg.train <same args>`) once per extra
local rank with LOCAL_RANK/RANK changed. Every process then runs the script from the top and
meets the others in `init_process_group`.

Failure handling lives here because only rank 0 sees every child:
- a thread polls the children; the first one that exits non-zero makes rank 0 kill the rest
  and exit with the same code (the child already printed its own error); one that exits 0
  before the process group is formed would leave rank 0 waiting in `init_process_group`
  until the timeout, so that ends the job too (exit code 1);
- rank 0 waits for its children at exit, so the command's exit code covers every rank;
- each child dies with its parent (PR_SET_PDEATHSIG on Linux, and failure.watch_parent).
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Callable

from torchlift.runtime.environments import (
    DistributedEnvironmentError,
    LocalEnvironment,
    is_port_in_use,
)
from torchlift.runtime.errors import MisconfigurationException

#: Set in every child so it can watch the process that launched it.
PARENT_PID_KEY = "TORCHLIFT_LAUNCHER_PID"
_POLL_SECONDS = 0.1


def script_command() -> list[str]:
    """The command line that started this process, runnable again by a child."""
    import __main__

    spec = getattr(__main__, "__spec__", None)
    if spec is None or not spec.name:
        if not getattr(__main__, "__file__", None) or sys.argv[0] in ("", "-c"):
            raise MisconfigurationException(
                "devices>1 re-runs your script once per process, which an interactive session "
                "or `python -c` cannot do; put the code in a script file and run it with python "
                "or torchrun"
            )
        return [sys.executable, os.path.abspath(sys.argv[0]), *sys.argv[1:]]
    # `python -m pkg.train`: re-run the module, not its file (relative imports need the package).
    name = spec.name[: -len(".__main__")] if spec.name.endswith(".__main__") else spec.name
    return [sys.executable, "-m", name, *sys.argv[1:]]


def _parent_death_signal() -> Callable[[], None] | None:
    """A preexec_fn that makes the child receive SIGKILL when its parent dies (Linux only).

    libc is resolved here, in the parent: loading a library between fork and exec can deadlock.
    """
    if sys.platform != "linux":
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def set_signal() -> None:
        prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG

    return set_signal


def reserve_port() -> socket.socket:
    """A socket bound to a free port, not listening, with SO_REUSEADDR: while it stays open no
    other bind(0) on this machine is given the port, yet rank 0's TCPStore (which also sets
    SO_REUSEADDR) can listen on it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("", 0))
    return sock


class SubprocessScriptLauncher:
    """Launch local ranks 1..N-1 of this machine; used only by local rank 0 of a plain run."""

    def __init__(self, environment: LocalEnvironment, num_processes: int, num_nodes: int) -> None:
        self.environment = environment
        self.num_processes = num_processes
        self.num_nodes = num_nodes
        self.procs: list[subprocess.Popen] = []
        self._lock = threading.Lock()
        self._stopping = False
        self._group_formed = False

    def launch(self) -> None:
        if self.procs:
            raise RuntimeError("the launcher already started its processes")
        command = script_command()  # fails for interactive sessions before anything is changed
        env = self.environment
        port_given = "MASTER_PORT" in os.environ
        if not port_given:
            # Choosing a free port and closing it before rank 0 listens is a race; the
            # reservation stays bound until this process exits (see reserve_port).
            self._port_reservation = reserve_port()
            os.environ["MASTER_PORT"] = str(self._port_reservation.getsockname()[1])
        port = env.main_port()
        if port_given and env.node_rank() == 0 and is_port_in_use(port):
            raise DistributedEnvironmentError(
                f"MASTER_PORT={port} is already in use on this machine; unset MASTER_PORT "
                f"(a free port is chosen) or pick a free one"
            )
        node_rank = env.node_rank()
        os.environ.update(
            MASTER_ADDR=env.main_address(),
            MASTER_PORT=str(port),
            NODE_RANK=str(node_rank),
            WORLD_SIZE=str(self.num_processes * self.num_nodes),
            LOCAL_RANK="0",
            RANK=str(node_rank * self.num_processes),
        )
        # Linux can kill a child when the thread that forked it dies: only safe from the main thread.
        on_main_thread = threading.current_thread() is threading.main_thread()
        preexec = _parent_death_signal() if on_main_thread else None
        for local_rank in range(1, self.num_processes):
            child_env = dict(os.environ)
            child_env["LOCAL_RANK"] = str(local_rank)
            child_env["RANK"] = str(node_rank * self.num_processes + local_rank)
            child_env[PARENT_PID_KEY] = str(os.getpid())
            self.procs.append(subprocess.Popen(command, env=child_env, preexec_fn=preexec))
        threading.Thread(
            target=self._watch_children, name="torchlift-children", daemon=True
        ).start()
        atexit.register(self._wait_children_at_exit)

    def group_formed(self) -> None:
        """Every rank joined the process group: a child ending with code 0 is now normal."""
        self._group_formed = True

    # --- failure handling -------------------------------------------------------------------
    def failed_child(self) -> tuple[int, int] | None:
        """(local rank, exit code) of the first child that exited non-zero, if any."""
        for local_rank, proc in enumerate(self.procs, start=1):
            code = proc.poll()
            if code:
                return local_rank, code
        return None

    def kill_children(self) -> None:
        with self._lock:
            self._stopping = True
        for proc in self.procs:
            if proc.poll() is None:
                try:
                    proc.kill()
                except OSError:
                    pass
        for proc in self.procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    def stop_all(self, code: int) -> None:
        """Kill every child and end this process now with `code` (no more Python code runs)."""
        self.kill_children()
        if code < 0:  # the child died from signal -code: exit as a shell reports that
            code = 128 - code
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - exiting anyway
                pass
        os._exit(code)

    def _watch_children(self) -> None:
        while True:
            time.sleep(_POLL_SECONDS)
            with self._lock:
                if self._stopping:
                    return
            failed = self.failed_child()
            if failed is not None:
                local_rank, code = failed
                sys.stderr.write(
                    f"torchlift: local rank {local_rank} exited with code {code}; "
                    f"stopping the other processes\n"
                )
                self.stop_all(code)
            if not self._group_formed:
                self._stop_if_a_child_left_early()
            elif all(proc.poll() == 0 for proc in self.procs):
                return

    def _stop_if_a_child_left_early(self) -> None:
        for local_rank, proc in enumerate(self.procs, start=1):
            if proc.poll() == 0:
                sys.stderr.write(
                    f"torchlift: local rank {local_rank} exited (code 0) before joining the "
                    f"process group; stopping the other processes\n"
                )
                self.stop_all(1)

    def _wait_children_at_exit(self) -> None:
        with self._lock:
            if self._stopping:  # they were killed on purpose (Ctrl-C): keep our exit code
                return
        for proc in self.procs:
            proc.wait()
        failed = self.failed_child()
        if failed is not None:
            local_rank, code = failed
            sys.stderr.write(f"torchlift: local rank {local_rank} exited with code {code}\n")
            self.stop_all(code)
