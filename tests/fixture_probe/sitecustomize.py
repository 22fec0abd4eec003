"""Loaded at start-up when this folder is on PYTHONPATH (see tests/test_fixture_features.py).

Records what a fixture's training actually does, so a test can prove each fixture exercises
the feature it is there for. Appends JSON lines to $TORCHLIFT_PROBE:
  {"event": "clip_norm", "norm": total norm before clipping, "max": max_norm}
  {"event": "clip_value", "max_abs": largest |grad| before clipping, "clip": clip_value}
  {"event": "step", "lrs": [lr of each param group], "backwards": backward calls since the
   previous optimizer step}
The fixture runs unchanged: the wrappers call the real functions and return their results.
"""

import json
import os
import sys

_path = os.environ.get("TORCHLIFT_PROBE")


def _install():
    import torch

    out = open(_path, "a", buffering=1)
    state = {"backwards": 0}

    def write(record):
        out.write(json.dumps(record) + "\n")

    clip_norm = torch.nn.utils.clip_grad_norm_
    clip_value = torch.nn.utils.clip_grad_value_

    def probed_clip_norm(parameters, max_norm, *args, **kwargs):
        parameters = list(parameters) if not isinstance(parameters, torch.Tensor) else parameters
        total = clip_norm(parameters, max_norm, *args, **kwargs)
        write({"event": "clip_norm", "norm": float(total), "max": float(max_norm)})
        return total

    def probed_clip_value(parameters, clip, *args, **kwargs):
        parameters = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
        grads = [p.grad.abs().max().item() for p in parameters if p.grad is not None]
        write({"event": "clip_value", "max_abs": max(grads, default=0.0), "clip": float(clip)})
        return clip_value(parameters, clip, *args, **kwargs)

    # Scripts reach them as nn.utils.X or torch.nn.utils.clip_grad.X: patch both names.
    for module in (torch.nn.utils, torch.nn.utils.clip_grad):
        module.clip_grad_norm_ = probed_clip_norm
        module.clip_grad_value_ = probed_clip_value

    backward = torch.Tensor.backward

    def probed_backward(self, *args, **kwargs):
        state["backwards"] += 1
        return backward(self, *args, **kwargs)

    torch.Tensor.backward = probed_backward

    def before_step(optimizer, args, kwargs):
        lrs = [group["lr"] for group in optimizer.param_groups]
        write({"event": "step", "lrs": lrs, "backwards": state["backwards"]})
        state["backwards"] = 0

    from torch.optim.optimizer import register_optimizer_step_pre_hook

    register_optimizer_step_pre_hook(before_step)


if _path:

    class _AfterTorchImport:
        """Install the probes right after the script imports torch (never import it early)."""

        def find_spec(self, name, path=None, target=None):
            if name != "torch":
                return None
            sys.meta_path.remove(self)
            import importlib.util

            spec = importlib.util.find_spec(name)
            exec_module = spec.loader.exec_module

            def exec_then_install(module):
                exec_module(module)
                _install()

            spec.loader.exec_module = exec_then_install
            return spec

    if "torch" in sys.modules:  # forked from a process that had imported it (fork_server.py)
        _install()
    else:
        sys.meta_path.insert(0, _AfterTorchImport())
