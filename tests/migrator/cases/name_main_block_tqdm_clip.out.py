# Loop under `if __name__ == "__main__":` with tqdm(enumerate(loader)), clip_grad_value_,
# a per-step OneCycleLR and a criterion object imported under another alias.
import torch
import torch.nn as tnn
from torch.utils.data import DataLoader, TensorDataset
import torchlift.runtime as L


class LitModel(L.LightningModule):
    def __init__(self, model, loss_fn):
        super().__init__()
        self.model = model
        self.loss_fn = loss_fn

    def forward(self, *args, **kwargs):
        return self.model(*args, **kwargs)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = self.loss_fn(self(x), y)
        if batch_idx % 2 == 0:
            print(f"step {batch_idx}: {loss.item():.4f}")
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-2)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=0.1, total_steps=8
        )
        return {
            "optimizer": optimizer,
            "lr_scheduler": {"scheduler": scheduler, "interval": "step"},
        }


if __name__ == "__main__":
    torch.manual_seed(5)
    data = TensorDataset(torch.randn(40, 4), torch.randn(40, 1))
    train_loader = DataLoader(data, batch_size=10)
    model = tnn.Linear(4, 1)
    loss_fn = tnn.MSELoss()
    lit_model = LitModel(model, loss_fn)
    trainer = L.Trainer(
        accelerator="cpu",
        devices=1,
        max_epochs=2,
        gradient_clip_val=0.5,
        gradient_clip_algorithm="value",
    )
    trainer.fit(lit_model, train_loader)
    torch.save(model.state_dict(), "model.pt")
