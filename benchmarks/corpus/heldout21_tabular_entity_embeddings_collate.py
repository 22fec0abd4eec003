# corpus: Kaggle tabular notebook with entity embeddings: CFG dict, pandas-free synthetic categorical + continuous columns, emb_szs from the min(50, (n+1)//2) rule, TabDataset returning (cats, conts, y) and a collate_fn building a dict batch, ModuleList of nn.Embedding + BatchNorm1d on conts, AdamW + OneCycleLR stepped per batch, autocast/GradScaler enabled only on CUDA, train_fn/valid_fn returning (loss, auc-like score), early stopping on val loss with best state saved, test predictions written to submission.csv
import gc
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

CFG = {
    "seed": 2024,
    "epochs": 6,
    "batch_size": 64,
    "lr": 3e-3,
    "weight_decay": 1e-5,
    "emb_dropout": 0.05,
    "hidden": [64, 32],
    "dropout": 0.1,
    "patience": 3,
    "num_workers": 0,
    "output_dir": "./outputs",
}


def seed_everything(seed=42):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True


seed_everything(CFG["seed"])
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
os.makedirs(CFG["output_dir"], exist_ok=True)

# ------------------------------------------------------------------ data
cat_cols = ["workclass", "education", "marital_status", "occupation", "country"]
cardinalities = {"workclass": 8, "education": 16, "marital_status": 7, "occupation": 14, "country": 40}
cont_cols = ["age", "fnlwgt", "hours_per_week", "capital_gain"]


def make_frame(n):
    cats = torch.stack([torch.randint(0, cardinalities[c], (n,)) for c in cat_cols], dim=1)
    conts = torch.randn(n, len(cont_cols))
    logit = 0.8 * conts[:, 0] - 0.5 * conts[:, 2] + 0.3 * (cats[:, 1] % 4).float() - 0.6 * (cats[:, 3] > 7).float()
    y = (torch.sigmoid(logit) > torch.rand(n)).float()
    return cats.numpy(), conts.numpy(), y.numpy()


train_cats, train_conts, train_y = make_frame(768)
test_cats, test_conts, _ = make_frame(200)

# hold out last 20% for validation
n_val = len(train_y) // 5
val_cats, val_conts, val_y = train_cats[-n_val:], train_conts[-n_val:], train_y[-n_val:]
trn_cats, trn_conts, trn_y = train_cats[:-n_val], train_conts[:-n_val], train_y[:-n_val]

# standardize continuous with train stats
mu, sd = trn_conts.mean(0), trn_conts.std(0) + 1e-6
trn_conts = (trn_conts - mu) / sd
val_conts = (val_conts - mu) / sd
test_conts = (test_conts - mu) / sd

emb_szs = [(cardinalities[c] + 1, min(50, (cardinalities[c] + 1) // 2)) for c in cat_cols]
print("embedding sizes:", emb_szs)


class TabDataset(Dataset):
    def __init__(self, cats, conts, y=None):
        self.cats = cats
        self.conts = conts
        self.y = y

    def __len__(self):
        return len(self.cats)

    def __getitem__(self, idx):
        target = -1.0 if self.y is None else self.y[idx]
        return self.cats[idx], self.conts[idx], target


def collate_fn(batch):
    cats, conts, ys = zip(*batch)
    return {
        "cats": torch.as_tensor(np.stack(cats), dtype=torch.long),
        "conts": torch.as_tensor(np.stack(conts), dtype=torch.float32),
        "target": torch.as_tensor(ys, dtype=torch.float32),
    }


# ------------------------------------------------------------------ model
class TabularModel(nn.Module):
    def __init__(self, emb_szs, n_cont, hidden, emb_dropout, dropout):
        super().__init__()
        self.embeds = nn.ModuleList([nn.Embedding(ni, nf) for ni, nf in emb_szs])
        self.emb_drop = nn.Dropout(emb_dropout)
        self.bn_cont = nn.BatchNorm1d(n_cont)
        n_emb = sum(nf for _, nf in emb_szs)
        layers = []
        n_in = n_emb + n_cont
        for h in hidden:
            layers += [nn.Linear(n_in, h), nn.ReLU(inplace=True), nn.BatchNorm1d(h), nn.Dropout(dropout)]
            n_in = h
        layers.append(nn.Linear(n_in, 1))
        self.layers = nn.Sequential(*layers)

    def forward(self, x_cat, x_cont):
        x = [e(x_cat[:, i]) for i, e in enumerate(self.embeds)]
        x = torch.cat(x, 1)
        x = self.emb_drop(x)
        x_cont = self.bn_cont(x_cont)
        x = torch.cat([x, x_cont], 1)
        return self.layers(x).squeeze(1)


def rank_auc(y_true, y_score):
    # AUC via the rank statistic, no sklearn in the kernel
    order = np.argsort(y_score)
    ranks = np.empty(len(y_score))
    ranks[order] = np.arange(1, len(y_score) + 1)
    pos = y_true == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def train_fn(model, loader, optimizer, scheduler, scaler, criterion):
    model.train()
    losses = []
    for step, batch in enumerate(loader):
        cats = batch["cats"].to(DEVICE)
        conts = batch["conts"].to(DEVICE)
        target = batch["target"].to(DEVICE)
        with torch.autocast(device_type=DEVICE.type, enabled=(DEVICE.type == "cuda")):
            logits = model(cats, conts)
            loss = criterion(logits, target)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        losses.append(loss.item())
    return np.mean(losses)


@torch.no_grad()
def valid_fn(model, loader, criterion):
    model.eval()
    losses, preds, targets = [], [], []
    for batch in loader:
        cats = batch["cats"].to(DEVICE)
        conts = batch["conts"].to(DEVICE)
        target = batch["target"].to(DEVICE)
        logits = model(cats, conts)
        losses.append(criterion(logits, target).item())
        preds.append(torch.sigmoid(logits).cpu().numpy())
        targets.append(target.cpu().numpy())
    preds = np.concatenate(preds)
    targets = np.concatenate(targets)
    return np.mean(losses), rank_auc(targets, preds), preds


train_loader = DataLoader(TabDataset(trn_cats, trn_conts, trn_y), batch_size=CFG["batch_size"], shuffle=True,
                          collate_fn=collate_fn, num_workers=CFG["num_workers"], drop_last=True)
valid_loader = DataLoader(TabDataset(val_cats, val_conts, val_y), batch_size=CFG["batch_size"] * 2, shuffle=False,
                          collate_fn=collate_fn, num_workers=CFG["num_workers"])

model = TabularModel(emb_szs, len(cont_cols), CFG["hidden"], CFG["emb_dropout"], CFG["dropout"]).to(DEVICE)
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=CFG["lr"], epochs=CFG["epochs"],
                                                steps_per_epoch=len(train_loader), pct_start=0.3)
scaler = torch.cuda.amp.GradScaler(enabled=(DEVICE.type == "cuda"))

best_loss = np.inf
patience_counter = 0
for epoch in range(CFG["epochs"]):
    start = time.time()
    train_loss = train_fn(model, train_loader, optimizer, scheduler, scaler, criterion)
    val_loss, val_auc, _ = valid_fn(model, valid_loader, criterion)
    print(f"Epoch {epoch + 1}/{CFG['epochs']} - train_loss: {train_loss:.4f} - val_loss: {val_loss:.4f} - val_auc: {val_auc:.4f}")
    if val_loss < best_loss:
        best_loss = val_loss
        patience_counter = 0
        torch.save(model.state_dict(), os.path.join(CFG["output_dir"], "best_model.pth"))
        print(f"  --> saved best model (val_loss {best_loss:.4f})")
    else:
        patience_counter += 1
        if patience_counter >= CFG["patience"]:
            print("Early stopping")
            break

del train_loader
gc.collect()

# ------------------------------------------------------------------ inference
model.load_state_dict(torch.load(os.path.join(CFG["output_dir"], "best_model.pth"), map_location=DEVICE))
test_loader = DataLoader(TabDataset(test_cats, test_conts), batch_size=256, shuffle=False, collate_fn=collate_fn)
_, _, test_preds = valid_fn(model, test_loader, criterion)
with open("submission.csv", "w") as f:
    f.write("id,target\n")
    for i, p in enumerate(test_preds):
        f.write(f"{i},{p:.6f}\n")
print("submission written:", len(test_preds), "rows, mean", round(float(test_preds.mean()), 4))
