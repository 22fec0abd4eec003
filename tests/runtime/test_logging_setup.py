"""The runtime's messages ("`Trainer.fit` stopped: ...") reach the script's logging as
Lightning's do: at import, `lightning.pytorch` gives its package logger a stderr handler and
stops propagation unless the root logger already has handlers. A script configuring
`logging.basicConfig(filename=...)` after the import keeps that file to its own lines."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.lightning

_SCRIPT = """
import logging
{configure_before}
import torch
import {package} as L
{configure_after}

class Tiny(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(2, 1)

    def training_step(self, batch, batch_idx):
        return self.layer(batch).sum()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)

loader = torch.utils.data.DataLoader(torch.randn(4, 2), batch_size=2)
trainer = L.Trainer(max_epochs=1, enable_progress_bar=False, enable_model_summary=False,
                    logger=False, enable_checkpointing=False)
trainer.fit(Tiny(), loader)
logging.info("script line")
"""
_CONFIGURE = 'logging.basicConfig(filename="train.log", level=logging.INFO, format="%(message)s")'
_STOPPED = "`Trainer.fit` stopped: `max_epochs=1` reached."
_ROOT = Path(__file__).resolve().parents[2]  # this checkout's torchlift, not an installed one


def _run(tmp_path, package: str, before: bool) -> tuple[str, str]:
    script = _SCRIPT.format(
        package=package,
        configure_before=_CONFIGURE if before else "",
        configure_after="" if before else _CONFIGURE,
    )
    folder = tmp_path / package.replace(".", "_")
    folder.mkdir()
    (folder / "script.py").write_text(textwrap.dedent(script))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(_ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "script.py"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return (folder / "train.log").read_text(), done.stderr


@pytest.mark.parametrize("package", ["torchlift.runtime", "lightning.pytorch"])
def test_configured_after_the_import_the_file_keeps_the_scripts_lines(tmp_path, package):
    written, stderr = _run(tmp_path, package, before=False)
    assert written == "script line\n"
    assert _STOPPED in stderr


@pytest.mark.parametrize("package", ["torchlift.runtime", "lightning.pytorch"])
def test_configured_before_the_import_the_messages_reach_the_root_handlers(tmp_path, package):
    written, _ = _run(tmp_path, package, before=True)
    assert _STOPPED in written.splitlines()
    assert written.endswith("script line\n")
