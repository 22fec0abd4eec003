"""Launcher command line and failure classification, without starting processes."""

from __future__ import annotations

import datetime
import importlib.machinery
import os
import socket
import sys

import pytest

from torchlift.runtime.failure import is_peer_failure
from torchlift.runtime.launcher import reserve_port, script_command


@pytest.fixture
def main_module(monkeypatch):
    main = sys.modules["__main__"]

    def set_main(spec_name: str | None, argv: list[str]) -> None:
        spec = importlib.machinery.ModuleSpec(spec_name, None) if spec_name else None
        monkeypatch.setattr(main, "__spec__", spec, raising=False)
        monkeypatch.setattr(sys, "argv", argv)

    return set_main


def test_script_file_is_rerun_by_absolute_path(main_module, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    main_module(None, ["train.py", "--lr", "0.1"])
    assert script_command() == [
        sys.executable,
        os.path.join(str(tmp_path), "train.py"),
        "--lr",
        "0.1",
    ]


def test_module_is_rerun_with_dash_m(main_module):
    main_module("pkg.train", ["/abs/pkg/train.py", "--epochs=2"])
    assert script_command() == [sys.executable, "-m", "pkg.train", "--epochs=2"]
    main_module("pkg.__main__", ["/abs/pkg/__main__.py"])
    assert script_command() == [sys.executable, "-m", "pkg"]


def test_interactive_sessions_cannot_be_rerun(main_module):
    main_module(None, ["-c"])
    with pytest.raises(ValueError, match="interactive session or `python -c`"):
        script_command()


@pytest.mark.parametrize(
    "error, expected",
    [
        (
            RuntimeError("[gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]"),
            True,
        ),
        (RuntimeError("Connection reset by peer"), True),
        (ConnectionResetError("reset"), False),
        (ValueError("deliberate failure"), False),
        (RuntimeError("shape mismatch"), False),
    ],
)
def test_peer_failures_are_told_apart_from_original_errors(error, expected):
    assert is_peer_failure(error) is expected


def test_torch_distributed_errors_are_peer_failures():
    import torch.distributed as dist

    assert is_peer_failure(dist.DistNetworkError("store gone"))


def test_a_reserved_port_is_kept_from_others_but_open_to_the_store():
    # The launcher keeps MASTER_PORT reserved instead of closing a probe socket and hoping
    # nobody takes the number before rank 0 listens on it.
    import torch.distributed as dist

    with reserve_port() as reservation:
        port = reservation.getsockname()[1]
        for _ in range(200):  # the OS hands out ephemeral ports in turn: none may be ours
            with socket.socket() as other:
                other.bind(("", 0))
                assert other.getsockname()[1] != port
        with socket.socket() as other, pytest.raises(OSError):
            other.bind(("", port))
        store = dist.TCPStore("127.0.0.1", port, 1, True, timeout=datetime.timedelta(seconds=10))
        store.set("key", "value")
        assert store.get("key") == b"value"
