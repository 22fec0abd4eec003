"""Loaded by Python at start-up when this folder is on PYTHONPATH (see torchlift.verify.trace).

Records the value passed to every `torch.Tensor.backward()` in the process, whoever calls it
(a raw loop or a trainer), so the original and the converted script are traced from the same
place. Environment:
  TORCHLIFT_TRACE       file to append one JSON line per backward call: {"step": k, "loss": v}
  TORCHLIFT_TRACE_STEPS stop the process cleanly (exit 0) after this many backward calls
Only rank 0 writes when a distributed launcher sets RANK.
"""

import os

_path = os.environ.get("TORCHLIFT_TRACE")
if _path and os.environ.get("RANK", "0") == "0":
    import atexit
    import json
    import sys

    _limit = int(os.environ.get("TORCHLIFT_TRACE_STEPS", "0") or 0)
    _state = {"step": 0, "file": None}

    def _install():
        import torch

        original = torch.Tensor.backward

        def backward(self, *args, **kwargs):
            result = original(self, *args, **kwargs)
            _state["step"] += 1
            value = self.detach().float()
            loss = value.item() if value.numel() == 1 else value.sum().item()
            if _state["file"] is None:
                _state["file"] = open(_path, "a", buffering=1)
            _state["file"].write(json.dumps({"step": _state["step"], "loss": loss}) + "\n")
            if _limit and _state["step"] >= _limit:
                _state["file"].flush()
                os._exit(0)  # skip the rest of training and any trainer teardown
            return result

        torch.Tensor.backward = backward

    class _TorchImportHook:
        """Patch torch right after the script imports it, without importing it ourselves."""

        def find_spec(self, name, path=None, target=None):
            if name != "torch":
                return None
            sys.meta_path.remove(self)
            import importlib.util

            spec = importlib.util.find_spec("torch")
            if spec is None or spec.loader is None:
                return spec
            exec_module = spec.loader.exec_module

            def exec_then_install(module):
                exec_module(module)
                _install()

            spec.loader.exec_module = exec_then_install
            return spec

    sys.meta_path.insert(0, _TorchImportHook())
    atexit.register(lambda: _state["file"] and _state["file"].close())
