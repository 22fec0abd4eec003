# corpus: Discord snippet "linear warmup from scratch" — logging to train.log, a global_step counter incremented once per EPOCH (in the wrong loop) driving a per-batch warmup lr written into param_groups, optimizer.zero_grad() missing entirely (gradients accumulate over the whole run), optimizer.step() wrapped in `with torch.no_grad():`, checkpoint with the step
import logging
import math

import torch
import torch.nn as nn

logging.basicConfig(filename="train.log", filemode="w", level=logging.INFO,
                    format="%(levelname)s %(message)s")
log = logging.getLogger("warmup")

torch.manual_seed(31337)

BASE_LR = 2e-3
WARMUP_STEPS = 3
EPOCHS = 4
BATCH_SIZE = 20

data = torch.randn(160, 6)
target = (data[:, 0] * data[:, 1] > 0).long()

model = nn.Sequential(nn.Linear(6, 48), nn.GELU(), nn.Linear(48, 2))
optimizer = torch.optim.AdamW(model.parameters(), lr=BASE_LR, weight_decay=0.01)
loss_fn = nn.CrossEntropyLoss()

global_step = 0


def lr_at(step):
    if step < WARMUP_STEPS:
        return BASE_LR * (step + 1) / WARMUP_STEPS
    return BASE_LR * 0.5 * (1 + math.cos(math.pi * min(step, 10) / 10))


for epoch in range(EPOCHS):
    perm = torch.randperm(data.size(0))
    for b in range(0, data.size(0), BATCH_SIZE):
        idx = perm[b:b + BATCH_SIZE]
        x, y = data[idx], target[idx]

        for g in optimizer.param_groups:
            g["lr"] = lr_at(global_step)

        logits = model(x)
        loss = loss_fn(logits, y)
        loss.backward()
        with torch.no_grad():
            optimizer.step()

        if (b // BATCH_SIZE) % 4 == 0:
            log.info("epoch %d batch %d step %d lr %.6f loss %.4f", epoch, b // BATCH_SIZE, global_step, optimizer.param_groups[0]["lr"], loss.item())
    global_step += 1
    print(f"epoch {epoch} done, global_step={global_step}, last loss {loss.item():.4f}")

torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": global_step}, "ckpt.pt")
