"""The promise converted scripts rely on: the runtime reproduces a plain PyTorch loop's per-step
losses exactly (shuffled loader, dropout, validation each epoch, per-epoch scheduler), even with
the pre-training sanity check and with gradient accumulation."""

from __future__ import annotations

import pytest
import torch
from runtime_engines import fit, loaders, make_model

import torchlift.runtime as L


def _raw_losses(epochs: int, accumulate: int = 1, n: int = 48) -> tuple[list[float], dict]:
    L.seed_everything(7, verbose=False)
    model = make_model(L, scheduler="epoch")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    train, val = loaders(n=n)
    losses = []
    for _ in range(epochs):
        model.train()
        batches = len(train)
        for i, (x, y) in enumerate(train):
            loss = torch.nn.functional.mse_loss(model(x), y)
            losses.append(loss.item())
            (loss / accumulate).backward()
            if (i + 1) % accumulate == 0 or i + 1 == batches:
                optimizer.step()
                optimizer.zero_grad()
        model.eval()
        with torch.no_grad():
            for x, y in val:
                torch.nn.functional.mse_loss(model(x), y)
        scheduler.step()
    return losses, {k: v.detach().clone() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("accumulate,n", [(1, 48), (4, 56)])
def test_runtime_reproduces_the_raw_loop(accumulate, n):
    raw, raw_state = _raw_losses(3, accumulate, n)
    model, _ = fit(
        "ours",
        model_cfg=dict(scheduler="epoch"),
        trainer_cfg=dict(max_epochs=3, accumulate_grad_batches=accumulate),
        n=n,
    )
    torch.testing.assert_close(torch.tensor(model.losses), torch.tensor(raw), rtol=1e-6, atol=0)
    for key, value in model.state_dict().items():
        torch.testing.assert_close(value, raw_state[key], rtol=1e-6, atol=1e-7)
