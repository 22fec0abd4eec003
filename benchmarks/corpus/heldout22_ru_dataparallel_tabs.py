# corpus: Russian course notebook export indented with tabs: Cyrillic identifiers (перемещение, устройство, модель), DataParallel when several GPUs, train()/test() functions, MSE regression, ReduceLROnPlateau, model.module-aware checkpoint, Russian prints
# -*- coding: utf-8 -*-
# Домашнее задание №4. Регрессия: предсказываем перемещение тела по начальной скорости,
# ускорению и времени (s = v0*t + a*t^2/2) с шумом.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(2023)

# ---- Данные ----
def сгенерировать_данные(n):
	скорость = torch.rand(n, 1) * 10
	ускорение = torch.rand(n, 1) * 2
	время = torch.rand(n, 1) * 5
	перемещение = скорость * время + ускорение * время ** 2 / 2
	перемещение = перемещение + 0.1 * torch.randn(n, 1)  # немного шума
	признаки = torch.cat([скорость, ускорение, время], dim=1)
	return признаки, перемещение


X_train, y_train = сгенерировать_данные(512)
X_test, y_test = сгенерировать_данные(128)

train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=64, shuffle=True)
test_loader = DataLoader(TensorDataset(X_test, y_test), batch_size=128, shuffle=False)

# ---- Устройство ----
устройство = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
print("Устройство:", устройство)


class Сеть(nn.Module):
	def __init__(self):
		super().__init__()
		self.fc1 = nn.Linear(3, 64)
		self.fc2 = nn.Linear(64, 64)
		self.fc3 = nn.Linear(64, 1)
		self.act = nn.Tanh()

	def forward(self, x):
		x = self.act(self.fc1(x))
		x = self.act(self.fc2(x))
		return self.fc3(x)


модель = Сеть()
if torch.cuda.device_count() > 1:
	print("Используем", torch.cuda.device_count(), "видеокарты!")
	модель = nn.DataParallel(модель)
модель.to(устройство)

критерий = nn.MSELoss()
оптимизатор = torch.optim.Adam(модель.parameters(), lr=3e-3)
планировщик = torch.optim.lr_scheduler.ReduceLROnPlateau(оптимизатор, mode="min", factor=0.5, patience=1)


def train(модель, loader):
	модель.train()
	сумма_потерь = 0.0
	for X_batch, y_batch in loader:
		X_batch = X_batch.to(устройство)
		y_batch = y_batch.to(устройство)
		оптимизатор.zero_grad()
		предсказание = модель(X_batch)
		потеря = критерий(предсказание, y_batch)
		потеря.backward()
		оптимизатор.step()
		сумма_потерь += потеря.item() * len(X_batch)
	return сумма_потерь / len(loader.dataset)


def test(модель, loader):
	модель.eval()
	сумма_потерь = 0.0
	with torch.no_grad():
		for X_batch, y_batch in loader:
			X_batch, y_batch = X_batch.to(устройство), y_batch.to(устройство)
			сумма_потерь += критерий(модель(X_batch), y_batch).item() * len(X_batch)
	return сумма_потерь / len(loader.dataset)


история = []
число_эпох = 6
for эпоха in range(1, число_эпох + 1):
	потеря_обучения = train(модель, train_loader)
	потеря_теста = test(модель, test_loader)
	планировщик.step(потеря_теста)
	история.append((потеря_обучения, потеря_теста))
	print(f"Эпоха {эпоха:2d} | потеря на обучении: {потеря_обучения:8.4f} | потеря на тесте: {потеря_теста:8.4f} | lr = {оптимизатор.param_groups[0]['lr']:.5f}")

# сохраняем веса (без обёртки DataParallel, чтобы потом загрузить на CPU)
состояние = модель.module.state_dict() if isinstance(модель, nn.DataParallel) else модель.state_dict()
torch.save(состояние, "модель_перемещение.pt")
torch.save(torch.tensor(история), "история.pt")
print("Готово! Веса сохранены в модель_перемещение.pt")
