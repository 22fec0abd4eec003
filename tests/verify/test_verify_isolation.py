"""`migrate --verify` reads the script's folder but never writes into it: every file the runs
create, append to, overwrite or delete is their own copy."""

from __future__ import annotations

import io
import os
import textwrap

import torchlift.verify as verify
from torchlift.migrator.result import MigrationResult

WRITES = """
import os
import pathlib
import torch
import helpers_pkg.lr as lr_module

with open("log.txt", "a") as log:
    log.write("run started\\n")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=lr_module.LR)
for step in range(3):
    optimizer.zero_grad()
    loss = model(torch.ones(2, 3)).pow(2).mean()
    loss.backward()
    optimizer.step()
torch.save(model.state_dict(), "ckpt/model.pt")
os.remove("ckpt/old.pt")
os.rename("ckpt/keep.pt", "ckpt/renamed.pt")
os.makedirs("lightning_logs/version_1", exist_ok=True)
pathlib.Path("lightning_logs/version_0/metrics.csv").write_text("overwritten\\n")
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "log.txt"), "r+") as log:
    log.write("X")
"""


def snapshot(folder):
    """Every entry under `folder`: its kind and content (bytes, link target, or mode)."""
    seen = {}
    for parent, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = os.path.join(parent, name)
            key = os.path.relpath(path, folder)
            if os.path.islink(path):
                seen[key] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                seen[key] = ("dir", os.stat(path).st_mode)
            else:
                with open(path, "rb") as handle:
                    seen[key] = ("file", handle.read(), os.stat(path).st_mtime_ns)
    return seen


def user_folder(tmp_path):
    folder = tmp_path / "project"
    (folder / "ckpt").mkdir(parents=True)
    (folder / "ckpt" / "model.pt").write_bytes(b"the user's checkpoint")
    (folder / "ckpt" / "old.pt").write_bytes(b"old")
    (folder / "ckpt" / "keep.pt").write_bytes(b"keep")
    (folder / "log.txt").write_text("the user's log\n")
    (folder / "lightning_logs" / "version_0").mkdir(parents=True)
    (folder / "lightning_logs" / "version_0" / "metrics.csv").write_text("step,loss\n0,1.0\n")
    (folder / "helpers_pkg").mkdir()
    (folder / "helpers_pkg" / "__init__.py").write_text("")
    (folder / "helpers_pkg" / "lr.py").write_text("LR = 0.1\n")
    script = folder / "train.py"
    script.write_text(textwrap.dedent(WRITES))
    return folder, script


def run_verify_on(script, monkeypatch, converted):
    def fake_convert(text, path, target):
        return MigrationResult(path, text, converted, [])

    monkeypatch.setattr(verify, "convert", fake_convert)
    out = io.StringIO()
    code = verify.run_verify(str(script), [], out=out, steps=10, timeout=300)
    return code, out.getvalue()


def test_the_script_folder_is_byte_identical_after_verify(tmp_path, monkeypatch):
    folder, script = user_folder(tmp_path)
    before = snapshot(folder)
    code, out = run_verify_on(script, monkeypatch, script.read_text() + "\n")
    assert code == 0, out
    assert "verdict: identical" in out
    assert snapshot(folder) == before


def test_a_write_that_resolves_into_the_script_folder_is_refused(tmp_path, monkeypatch):
    # A path made absolute through the links (Path.resolve()) would reach the user's file:
    # the run fails with a clear reason instead of writing there.
    folder, script = user_folder(tmp_path)
    escape = "(pathlib.Path('helpers_pkg').resolve() / 'escaped.txt').write_text('x')\n"
    script.write_text(textwrap.dedent(WRITES) + escape)
    before = snapshot(folder)
    code, out = run_verify_on(script, monkeypatch, script.read_text() + "\n")
    assert code == 1
    assert "the original script failed" in out
    assert "migrate --verify runs may not write into the script's folder" in out
    assert snapshot(folder) == before
