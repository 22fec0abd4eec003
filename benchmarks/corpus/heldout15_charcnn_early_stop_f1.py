# corpus: research-repo char-CNN text classifier: one-hot characters, Conv1d stack, macro-F1 on validation computed by hand from a confusion matrix each epoch, early stopping with patience on val F1, best checkpoint dict, config dict + argparse
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "alphabet_size": 40,
    "max_len": 64,
    "num_classes": 3,
    "batch_size": 32,
    "epochs": 8,
    "lr": 1e-3,
    "patience": 2,
    "save_dir": "checkpoints",
}


def get_args():
    p = argparse.ArgumentParser()
    for k, v in CONFIG.items():
        p.add_argument("--" + k, type=type(v), default=v)
    return p.parse_args()


def make_split(n, alphabet, max_len, num_classes, g):
    # class k prefers characters from its own third of the alphabet
    y = torch.randint(0, num_classes, (n,), generator=g)
    chars = torch.randint(0, alphabet, (n, max_len), generator=g)
    band = alphabet // num_classes
    biased = torch.randint(0, band, (n, max_len), generator=g) + y[:, None] * band
    mask = torch.rand(n, max_len, generator=g) < 0.4
    chars = torch.where(mask, biased, chars)
    x = F.one_hot(chars, alphabet).float().transpose(1, 2)  # (N, alphabet, L)
    return TensorDataset(x, y)


class CharCNN(nn.Module):
    def __init__(self, alphabet_size, num_classes, max_len):
        super(CharCNN, self).__init__()
        self.conv1 = nn.Sequential(nn.Conv1d(alphabet_size, 64, kernel_size=7), nn.ReLU(), nn.MaxPool1d(3))
        self.conv2 = nn.Sequential(nn.Conv1d(64, 64, kernel_size=5), nn.ReLU(), nn.MaxPool1d(3))
        out_len = ((max_len - 6) // 3 - 4) // 3
        self.fc1 = nn.Sequential(nn.Linear(64 * out_len, 128), nn.ReLU(), nn.Dropout(0.5))
        self.fc2 = nn.Linear(128, num_classes)

    def forward(self, x):
        x = self.conv1(x)
        x = self.conv2(x)
        x = x.view(x.size(0), -1)
        return self.fc2(self.fc1(x))


def macro_f1(preds, labels, num_classes):
    cm = torch.zeros(num_classes, num_classes, dtype=torch.long)
    for p, t in zip(preds.tolist(), labels.tolist()):
        cm[t, p] += 1
    f1s = []
    for c in range(num_classes):
        tp = cm[c, c].item()
        fp = cm[:, c].sum().item() - tp
        fn = cm[c, :].sum().item() - tp
        precision = tp / (tp + fp) if tp + fp > 0 else 0.0
        recall = tp / (tp + fn) if tp + fn > 0 else 0.0
        f1s.append(2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0)
    return sum(f1s) / len(f1s)


def eval_model(model, loader, criterion, num_classes):
    model.eval()
    all_preds, all_labels, total_loss = [], [], 0.0
    with torch.no_grad():
        for x, y in loader:
            logits = model(x)
            total_loss += criterion(logits, y).item() * x.size(0)
            all_preds.append(logits.argmax(1))
            all_labels.append(y)
    preds, labels = torch.cat(all_preds), torch.cat(all_labels)
    return total_loss / len(loader.dataset), macro_f1(preds, labels, num_classes)


def main():
    args = get_args()
    torch.manual_seed(7)
    g = torch.Generator().manual_seed(7)
    train_ds = make_split(192, args.alphabet_size, args.max_len, args.num_classes, g)
    val_ds = make_split(96, args.alphabet_size, args.max_len, args.num_classes, g)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size)

    model = CharCNN(args.alphabet_size, args.num_classes, args.max_len)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    os.makedirs(args.save_dir, exist_ok=True)

    best_f1, bad_epochs = 0.0, 0
    for epoch in range(1, args.epochs + 1):
        model.train()
        for i_batch, (x, y) in enumerate(train_loader):
            logit = model(x)
            loss = criterion(logit, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if i_batch % 4 == 0:
                corrects = (torch.max(logit, 1)[1] == y).sum().item()
                print("Epoch[%d] Batch[%d] - loss: %.6f  acc: %.3f%%" % (epoch, i_batch, loss.item(), 100.0 * corrects / x.size(0)))
        val_loss, val_f1 = eval_model(model, val_loader, criterion, args.num_classes)
        print("\nEvaluation - loss: %.6f  macro-F1: %.4f\n" % (val_loss, val_f1))
        if val_f1 > best_f1:
            best_f1, bad_epochs = val_f1, 0
            torch.save({"epoch": epoch, "state_dict": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "best_f1": best_f1}, os.path.join(args.save_dir, "best_charcnn.pth.tar"))
        else:
            bad_epochs += 1
            if bad_epochs >= args.patience:
                print("Early stopping at epoch %d (best F1 %.4f)" % (epoch, best_f1))
                break
    print("best val macro-F1: %.4f" % best_f1)


if __name__ == "__main__":
    main()
