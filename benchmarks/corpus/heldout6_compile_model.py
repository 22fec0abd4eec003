# corpus: current-recipe script: torch.compile(model) under a --compile flag, set_float32_matmul_precision, AdamW with fused flag off on CPU, evaluation per epoch, loss printed with running mean
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--compile", action="store_true")
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()

torch.set_float32_matmul_precision("high")
torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
train_dl = DataLoader(TensorDataset(torch.randn(256, 16), torch.randint(0, 4, (256,))), batch_size=32, shuffle=True)
val_dl = DataLoader(TensorDataset(torch.randn(64, 16), torch.randint(0, 4, (64,))), batch_size=32)
model = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 4)).to(device)
if args.compile:
    model = torch.compile(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=device == "cuda")
for epoch in range(args.epochs):
    model.train()
    running = 0.0
    for step, (x, y) in enumerate(train_dl):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        running = 0.9 * running + 0.1 * loss.item() if step else loss.item()
    model.eval()
    correct = 0
    with torch.inference_mode():
        for x, y in val_dl:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(-1) == y).sum().item()
    print(f"epoch {epoch} running loss {running:.4f} val acc {correct / len(val_dl.dataset):.3f}")
