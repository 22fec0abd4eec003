# corpus: step-budget training over a DataLoader: `while global_step < max_steps:` re-iterating `for batch in train_loader:` with `global_step += 1` and a max-steps break in both loops, eval every `eval_every` steps, a per-step `log = []` of dicts saved with `torch.save` at the end, helper functions and `if __name__ == '__main__'`
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "seed": 7,
    "max_steps": 90,
    "batch_size": 16,
    "lr": 1e-3,
    "eval_every": 30,
    "log_every": 10,
}


def build_data(n_train=200, n_val=64, dim=12):
    w = torch.randn(dim, 1)
    xtr = torch.randn(n_train, dim)
    ytr = xtr @ w + 0.1 * torch.randn(n_train, 1)
    xva = torch.randn(n_val, dim)
    yva = xva @ w + 0.1 * torch.randn(n_val, 1)
    return TensorDataset(xtr, ytr), TensorDataset(xva, yva)


def evaluate(model, loader, loss_fn):
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            total += loss_fn(model(x), y).item() * x.size(0)
            count += x.size(0)
    model.train()
    return total / count


def main(cfg):
    torch.manual_seed(cfg["seed"])
    train_ds, val_ds = build_data()
    train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=64)

    model = nn.Sequential(nn.Linear(12, 32), nn.Tanh(), nn.Linear(32, 1))
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

    log = []
    global_step = 0
    epoch = 0
    model.train()
    while global_step < cfg["max_steps"]:
        for x, y in train_loader:
            pred = model(x)
            loss = loss_fn(pred, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            global_step += 1

            entry = {"step": global_step, "epoch": epoch, "loss": loss.item()}
            if global_step % cfg["log_every"] == 0:
                print(f"step {global_step:4d} epoch {epoch} loss {loss.item():.5f}")
            if global_step % cfg["eval_every"] == 0:
                val_loss = evaluate(model, val_loader, loss_fn)
                entry["val_loss"] = val_loss
                print(f"  eval @ {global_step}: val_loss {val_loss:.5f}")
            log.append(entry)

            if global_step >= cfg["max_steps"]:
                break
        epoch += 1

    print(f"done after {global_step} steps / {epoch} epochs")
    torch.save(log, "train_log.pt")
    torch.save(model.state_dict(), "model_final.pt")


if __name__ == '__main__':
    main(CONFIG)
