# Loop under `if __name__ == "__main__":` with tqdm(enumerate(loader)), clip_grad_value_,
# a per-step OneCycleLR and a criterion object imported under another alias.
import torch
import torch.nn as tnn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

if __name__ == "__main__":
    torch.manual_seed(5)
    data = TensorDataset(torch.randn(40, 4), torch.randn(40, 1))
    train_loader = DataLoader(data, batch_size=10)
    model = tnn.Linear(4, 1)
    loss_fn = tnn.MSELoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=8)
    for epoch in range(2):
        for step, (x, y) in tqdm(enumerate(train_loader)):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            tnn.utils.clip_grad_value_(model.parameters(), 0.5)
            optimizer.step()
            scheduler.step()
            if step % 2 == 0:
                print(f"step {step}: {loss.item():.4f}")
    torch.save(model.state_dict(), "model.pt")
