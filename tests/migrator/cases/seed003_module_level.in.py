import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)


# Etapa 1: Definição do modelo
class SimpleModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer_1 = nn.Linear(28 * 28, 128)
        self.layer_2 = nn.Linear(128, 10)

    def forward(self, x):
        x = x.view(x.size(0), -1)
        x = self.layer_1(x)
        x = F.relu(x)
        x = self.layer_2(x)
        return x


# Etapa 2: Preparação dos dados e dataloaders
dataset = TensorDataset(torch.randn(256, 1, 28, 28), torch.randint(0, 10, (256,)))
train_set, val_set = random_split(dataset, [192, 64])
train_dataloader = DataLoader(train_set, batch_size=64, shuffle=True)
val_dataloader = DataLoader(val_set, batch_size=64)

# Etapa 3: Inicialização do modelo, otimizador e dispositivo
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = SimpleModel().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

num_epochs = 3
for epoch in range(num_epochs):
    # Laço de treino
    model.train()
    for batch_idx, (data, labels) in enumerate(train_dataloader):
        data, labels = data.to(device), labels.to(device)

        # Passagem para a frente, retropropagação e otimização
        optimizer.zero_grad()
        outputs = model(data)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()

    # Laço de validação
    model.eval()
    with torch.no_grad():
        val_loss = 0
        for data, labels in val_dataloader:
            data, labels = data.to(device), labels.to(device)
            outputs = model(data)
            val_loss += criterion(outputs, labels).item()
        val_loss /= len(val_dataloader)
        print(f"Epoch {epoch+1}/{num_epochs}, Validation Loss: {val_loss:.4f}")
