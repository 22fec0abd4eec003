"""Loaded by Python at start-up when this folder is on PYTHONPATH (see torchlift.verify.trace).

Records the value passed to every `torch.Tensor.backward()` / `torch.autograd.backward()` in
the process, whoever calls it (a raw loop or a trainer), so the original and the converted
script are measured from the same place. Environment:
  TORCHLIFT_TRACE        file to append JSON lines to: {"event": "torch"} when torch is imported,
                         {"step": k, "loss": v} per backward call, {"event": "limit" | "exit"}
  TORCHLIFT_TRACE_STEPS  stop the process cleanly (exit 0) when backward is called for the
                         (N+1)-th time, so N full training steps (backward + optimizer step) ran
  TORCHLIFT_TRACE_PARAMS file to torch.save the final values of every tensor that received a
                         gradient (found from the losses' autograd graphs), at the stop or at exit
  TORCHLIFT_TRACE_SEED   seed torch's, numpy's and Python's global RNGs as the script imports
                         them (torch seeds itself randomly per process), so that scripts which
                         never seed still compare run to run
Every rank records: rank 0 to TORCHLIFT_TRACE, rank r to TORCHLIFT_TRACE + ".rank<r>" (the rank
torch.distributed gives once the group exists, else RANK / LOCAL_RANK); rank 0 dumps the
parameters. Every rank stops after N steps so no rank waits for a peer that left.
With TORCHLIFT_RUN_DIR set, writes are also kept out of the script's folder
(_torchlift_write_guard.py).

Python imports one `sitecustomize`, the first on the path: this one shadows the environment's
own (or one given on PYTHONPATH), so it runs that one too, last -- the script starts as it
would without the trace.
"""

import os
import sys

if os.environ.get("TORCHLIFT_RUN_DIR"):
    import _torchlift_write_guard

    _torchlift_write_guard.install()

_path = os.environ.get("TORCHLIFT_TRACE")


def _rank_by_env():
    # torchrun / SLURM / Lightning's per-rank re-launch set these before the script starts.
    for key in ("RANK", "LOCAL_RANK"):
        value = os.environ.get(key, "")
        if value.isdigit():
            return int(value)
    return 0


if _path:
    import atexit
    import json

    _limit = int(os.environ.get("TORCHLIFT_TRACE_STEPS", "0") or 0)
    _params_path = os.environ.get("TORCHLIFT_TRACE_PARAMS", "")
    _seed = os.environ.get("TORCHLIFT_TRACE_SEED", "")
    _state = {"step": 0, "file": None, "inside": False, "dumped": False, "rank": None}
    _leaves = {}  # id -> tensor, in the order the autograd graphs reached them
    _owners = {}  # id of a leaf -> the module holding it (kept alive until the dump)

    def _rank():
        # the process group's rank once it exists (an mp.spawn worker has no RANK variable),
        # remembered after the group is destroyed
        dist = sys.modules.get("torch.distributed")
        try:
            if dist is not None and dist.is_available() and dist.is_initialized():
                _state["rank"] = dist.get_rank()
        except Exception:
            pass
        return _rank_by_env() if _state["rank"] is None else _state["rank"]

    def _is_rank_zero():
        return _rank() == 0

    def _write(record):
        rank = _rank()
        if _state["file"] is not None and _state["file_rank"] != rank:
            _state["file"].close()
            _state["file"] = None
        if _state["file"] is None:
            _state["file"] = open(_path if rank == 0 else f"{_path}.rank{rank}", "a", buffering=1)
            _state["file_rank"] = rank
        _state["file"].write(json.dumps(record) + "\n")

    def _collect_leaves(tensors):
        # Walk the autograd graph down to AccumulateGrad nodes: their `variable` is a tensor
        # that will receive a gradient, i.e. a parameter being trained.
        stack = [t.grad_fn for t in tensors if getattr(t, "grad_fn", None) is not None]
        seen = set()
        keep = []  # hold node objects so their ids stay unique during the walk
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            keep.append(node)
            variable = getattr(node, "variable", None)
            if variable is not None:
                _leaves.setdefault(id(variable), variable)
                continue
            for child, _ in reversed(node.next_functions):
                stack.append(child)

    def _dump_params():
        if _state["dumped"] or not _params_path or "torch" not in sys.modules or not _leaves:
            return  # (a launcher process that trained nothing leaves its workers' dump alone)
        if not _is_rank_zero():
            return
        _state["dumped"] = True
        import torch

        values = [t.detach().to("cpu", copy=True) for t in _leaves.values()]
        values += [b.detach().to("cpu", copy=True) for b in _buffers_of_trained_modules()]
        torch.save(values, _params_path)

    def _find_owners():
        # BatchNorm running statistics and other buffers change the model's results as much
        # as its weights, but autograd never reaches them: remember the module that directly
        # holds each trained parameter when the parameter is first seen (a module local to a
        # function may be gone by the time the run ends), and dump its buffers too.
        if len(_owners) == len(_leaves):
            return
        import gc

        import torch

        for obj in gc.get_objects():
            try:
                is_module = isinstance(obj, torch.nn.Module)
            except ReferenceError:  # a proxy whose referent is gone (torch.compile keeps some)
                continue
            if is_module:
                # the module's own dict, not obj.parameters(): a model may override that
                # method with another signature (a MAML learner's `parameters(self)`)
                for param in vars(obj).get("_parameters", {}).values():
                    if param is not None and id(param) in _leaves:
                        _owners.setdefault(id(param), obj)
        for key in _leaves:
            _owners.setdefault(key, None)  # a tensor no module holds: not looked up again

    def _buffers_of_trained_modules():
        seen, buffers = set(), []
        for key in _leaves:
            module = _owners.get(key)
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                buffers += [b for b in vars(module).get("_buffers", {}).values() if b is not None]
        return buffers

    def _finish(event):
        try:
            _dump_params()
            _write({"event": event, "steps": _state["step"]})
        finally:
            if _state["file"] is not None:
                _state["file"].close()
                _state["file"] = None

    def _record(tensors):
        if _limit and _state["step"] >= _limit:
            # The previous N steps (backward and optimizer step) are complete: stop here,
            # skipping the rest of training and any trainer teardown.
            _finish("limit")
            os._exit(0)
        _collect_leaves(tensors)
        _find_owners()
        total = 0.0
        for tensor in tensors:
            value = tensor.detach().float()
            total += value.item() if value.numel() == 1 else value.sum().item()
        _state["step"] += 1
        _write({"step": _state["step"], "loss": total})

    def _install():
        import torch

        tensor_backward = torch.Tensor.backward
        autograd_backward = torch.autograd.backward

        def backward(self, *args, **kwargs):
            if _state["inside"]:
                return tensor_backward(self, *args, **kwargs)
            _record([self])
            _state["inside"] = True
            try:
                return tensor_backward(self, *args, **kwargs)
            finally:
                _state["inside"] = False

        def autograd(tensors, *args, **kwargs):
            if _state["inside"]:
                return autograd_backward(tensors, *args, **kwargs)
            _record([tensors] if isinstance(tensors, torch.Tensor) else list(tensors))
            _state["inside"] = True
            try:
                return autograd_backward(tensors, *args, **kwargs)
            finally:
                _state["inside"] = False

        torch.Tensor.backward = backward
        torch.autograd.backward = autograd
        if _seed:
            torch.manual_seed(int(_seed))
        _write({"event": "torch"})

    def _seed_numpy():
        import numpy

        numpy.random.seed(int(_seed))

    _after_import = {"torch": _install}
    if _seed:
        import random

        random.seed(int(_seed))
        _after_import["numpy"] = _seed_numpy

    class _ImportHook:
        """Run a function right after the script imports a module, without importing it early."""

        def find_spec(self, name, path=None, target=None):
            action = _after_import.pop(name, None)
            if action is None:
                return None
            if not _after_import:
                sys.meta_path.remove(self)
            import importlib.util

            spec = importlib.util.find_spec(name)
            if spec is None or spec.loader is None:
                return spec
            exec_module = spec.loader.exec_module

            def exec_then_act(module):
                exec_module(module)
                action()

            spec.loader.exec_module = exec_then_act
            return spec

    sys.meta_path.insert(0, _ImportHook())
    atexit.register(lambda: _finish("exit"))
    # a process that imported torch before this ran (a child forked from a process that had
    # it, as the test suite's fixture runs are): act now, in the hook's order
    for _name in [n for n in _after_import if n in sys.modules]:
        _after_import.pop(_name)()
    if not _after_import and _ImportHook in map(type, sys.meta_path):
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _ImportHook)]


def _run_shadowed_sitecustomize():
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["_torchlift_shadowed_sitecustomize"] = module
    spec.loader.exec_module(module)


_run_shadowed_sitecustomize()
