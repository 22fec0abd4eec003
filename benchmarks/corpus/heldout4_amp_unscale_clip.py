# corpus: mixed precision the current way: torch.amp.autocast(device_type=..., enabled=use_amp) + torch.amp.GradScaler(enabled=use_amp), scaler.unscale_(optimizer) before clip_grad_norm_, OneCycleLR per batch, validation loss per epoch
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 16, generator=g)
    w = torch.randn(16, 1, generator=g)
    y = x @ w + 0.1 * torch.randn(n, 1, generator=g)
    return TensorDataset(x, y)


def main():
    torch.manual_seed(7)
    device_type = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device_type)
    use_amp = device_type == "cuda"
    epochs = 3
    max_norm = 1.0

    train_loader = DataLoader(make_data(160, 0), batch_size=16, shuffle=True)
    val_loader = DataLoader(make_data(64, 1), batch_size=32)

    model = nn.Sequential(nn.Linear(16, 64), nn.SiLU(), nn.Dropout(0.1), nn.Linear(64, 1)).to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=5e-2, epochs=epochs, steps_per_epoch=len(train_loader)
    )
    scaler = torch.amp.GradScaler(enabled=use_amp)

    for epoch in range(epochs):
        model.train()
        running = 0.0
        for inputs, targets in train_loader:
            inputs = inputs.to(device)
            targets = targets.to(device)
            optimizer.zero_grad()
            with torch.amp.autocast(device_type=device_type, dtype=torch.float16, enabled=use_amp):
                preds = model(inputs)
                loss = criterion(preds, targets)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            running += loss.item()
        train_loss = running / len(train_loader)

        model.eval()
        val_loss = 0.0
        with torch.no_grad():
            for inputs, targets in val_loader:
                inputs, targets = inputs.to(device), targets.to(device)
                with torch.amp.autocast(device_type=device_type, dtype=torch.float16, enabled=use_amp):
                    val_loss += criterion(model(inputs), targets).item()
        val_loss /= len(val_loader)
        print(f"epoch {epoch + 1}/{epochs} train {train_loss:.4f} val {val_loss:.4f} lr {scheduler.get_last_lr()[0]:.5f}")

    torch.save({"model": model.state_dict(), "scaler": scaler.state_dict()}, "amp_regressor.pt")


if __name__ == "__main__":
    main()
