import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split
import torchlift.runtime as L

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


class LitSimpleModel(L.LightningModule):
    def __init__(self, model, criterion):
        super().__init__()
        self.model = model
        self.criterion = criterion

    def forward(self, x):
        return self.model(x)

    def training_step(self, batch, batch_idx):
        data, labels = batch
        outputs = self(data)
        loss = self.criterion(outputs, labels)
        self.log("train_loss", loss)
        return loss

    def on_validation_epoch_start(self):
        self.val_loss = 0

    def validation_step(self, batch, batch_idx):
        data, labels = batch
        outputs = self(data)
        self.val_loss += self.criterion(outputs, labels).item()

    def on_validation_epoch_end(self):
        epoch = self.current_epoch
        self.val_loss /= len(self.trainer.val_dataloaders)
        self.print(
            f"Epoch {epoch+1}/{self.trainer.max_epochs}, Validation Loss: {self.val_loss:.4f}"
        )
        self.log("val_loss", self.val_loss)

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        return optimizer


# Etapa 2: Preparação dos dados e dataloaders
dataset = TensorDataset(torch.randn(256, 1, 28, 28), torch.randint(0, 10, (256,)))
train_set, val_set = random_split(dataset, [192, 64])
train_dataloader = DataLoader(train_set, batch_size=64, shuffle=True)
val_dataloader = DataLoader(val_set, batch_size=64)

# Etapa 3: Inicialização do modelo, otimizador e dispositivo
model = SimpleModel()
criterion = nn.CrossEntropyLoss()

num_epochs = 3
lit_model = LitSimpleModel(model, criterion)
trainer = L.Trainer(
    accelerator="cuda" if torch.cuda.is_available() else "cpu",
    devices=1,
    max_epochs=num_epochs,
    num_sanity_val_steps=0,
)
trainer.fit(lit_model, train_dataloader, val_dataloader)
