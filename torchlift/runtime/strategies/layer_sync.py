"""`Trainer(sync_batchnorm=True)`, as Lightning's `TorchSyncBatchNorm` layer sync does it.

Lightning applies it in its parallel (DDP) strategies only, while fitting, whatever the
number of processes: the batch-norm layers become `SyncBatchNorm` before the model is wrapped
in DDP (which refuses them on CPU: "SyncBatchNorm layers only work with GPU modules"), and
when the fit ends, also by an error, they are turned back into plain batch norms
(`_BatchNormXd`, the weights and running statistics carried over), which is what the user's
model holds afterwards. A one-device run, validate, test and predict leave the layers alone.
"""

from __future__ import annotations

import torch
from torch import Tensor


def apply(model: torch.nn.Module) -> torch.nn.Module:
    return torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)


def revert(model: torch.nn.Module) -> torch.nn.Module:
    """Each `SyncBatchNorm` of `model` (in place below the top) -> a `_BatchNormXd` sharing its
    parameters and buffers."""
    converted = model
    if isinstance(model, torch.nn.SyncBatchNorm):
        converted = _BatchNormXd(
            model.num_features, model.eps, model.momentum, model.affine, model.track_running_stats
        )
        if model.affine:
            with torch.no_grad():
                converted.weight = model.weight
                converted.bias = model.bias
        converted.running_mean = model.running_mean
        converted.running_var = model.running_var
        converted.num_batches_tracked = model.num_batches_tracked
        if hasattr(model, "qconfig"):
            converted.qconfig = model.qconfig
    for name, child in model.named_children():
        converted.add_module(name, revert(child))
    return converted


class _BatchNormXd(torch.nn.modules.batchnorm._BatchNorm):
    """A batch norm of any dimension (BatchNorm1d/2d/3d differ only by this input check)."""

    def _check_input_dim(self, input: Tensor) -> None:
        return
