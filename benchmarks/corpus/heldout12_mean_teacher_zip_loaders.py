# corpus: mean-teacher semi-supervised paper code: batches from zip(labeled_loader, unlabeled_loader), sigmoid consistency ramp-up on the global step, teacher updated by hand after each step
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
np.random.seed(0)

# hyper-parameters
EPOCHS = 5
LR = 1e-3
BATCH = 32
EMA_DECAY = 0.99
CONSISTENCY = 10.0
RAMPUP_EPOCHS = 3
device = "cuda" if torch.cuda.is_available() else "cpu"

# synthetic two-moons-ish data
n_lab, n_unlab = 96, 480
X_all = torch.randn(n_lab + n_unlab + 200, 2)
y_all = ((X_all[:, 0] * X_all[:, 1]) > 0).long()
X_all = X_all + 0.05 * torch.randn_like(X_all)
lab_ds = TensorDataset(X_all[:n_lab], y_all[:n_lab])
unlab_ds = TensorDataset(X_all[n_lab:n_lab + n_unlab])
val_ds = TensorDataset(X_all[n_lab + n_unlab:], y_all[n_lab + n_unlab:])

labeled_loader = DataLoader(lab_ds, batch_size=BATCH // 2, shuffle=True, drop_last=True)
unlabeled_loader = DataLoader(unlab_ds, batch_size=BATCH, shuffle=True, drop_last=True)
val_loader = DataLoader(val_ds, batch_size=100)


def create_model(ema=False):
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
    if ema:
        for param in model.parameters():
            param.detach_()
    return model.to(device)


def sigmoid_rampup(current, rampup_length):
    if rampup_length == 0:
        return 1.0
    current = np.clip(current, 0.0, rampup_length)
    phase = 1.0 - current / rampup_length
    return float(np.exp(-5.0 * phase * phase))


def get_current_consistency_weight(epoch):
    return CONSISTENCY * sigmoid_rampup(epoch, RAMPUP_EPOCHS)


def update_ema_variables(model, ema_model, alpha, global_step):
    # use the true average until the exponential average is more correct
    alpha = min(1 - 1 / (global_step + 1), alpha)
    for ema_param, param in zip(ema_model.parameters(), model.parameters()):
        ema_param.data.mul_(alpha).add_(param.data, alpha=1 - alpha)


def add_noise(x):
    return x + 0.1 * torch.randn_like(x)


def validate(loader, model):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += y.size(0)
    return 100.0 * correct / total


model = create_model()
ema_model = create_model(ema=True)
ema_model.load_state_dict(model.state_dict())
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
class_criterion = nn.CrossEntropyLoss()

global_step = 0
history = {"class_loss": [], "cons_loss": [], "val_acc": [], "ema_acc": []}
for epoch in range(EPOCHS):
    model.train()
    ema_model.train()
    for i, ((x_l, y_l), (x_u,)) in enumerate(zip(labeled_loader, unlabeled_loader)):
        x_l, y_l, x_u = x_l.to(device), y_l.to(device), x_u.to(device)
        x = torch.cat([x_l, x_u])
        student_out = model(add_noise(x))
        with torch.no_grad():
            teacher_out = ema_model(add_noise(x))

        class_loss = class_criterion(student_out[: x_l.size(0)], y_l)
        consistency_weight = get_current_consistency_weight(epoch + i / len(labeled_loader))
        cons_loss = consistency_weight * F.mse_loss(F.softmax(student_out, 1), F.softmax(teacher_out, 1))
        loss = class_loss + cons_loss

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        global_step += 1
        update_ema_variables(model, ema_model, EMA_DECAY, global_step)

        history["class_loss"].append(class_loss.item())
        history["cons_loss"].append(cons_loss.item())

    acc = validate(val_loader, model)
    ema_acc = validate(val_loader, ema_model)
    history["val_acc"].append(acc)
    history["ema_acc"].append(ema_acc)
    print(f"epoch {epoch} step {global_step} class {np.mean(history['class_loss'][-i - 1:]):.4f} "
          f"cons {np.mean(history['cons_loss'][-i - 1:]):.4f} w {consistency_weight:.3f} acc {acc:.1f} ema_acc {ema_acc:.1f}")

np.save("mean_teacher_history.npy", history, allow_pickle=True)
torch.save({"student": model.state_dict(), "teacher": ema_model.state_dict()}, "mean_teacher.pt")
