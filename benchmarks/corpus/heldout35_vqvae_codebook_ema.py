# corpus: VQ-VAE (Oord et al., zalandoresearch / rosinality style): VectorQuantizerEMA with codebook EMA updates in a no_grad block in forward, commitment loss, perplexity, epoch x loader, reconstruction eval, globals config
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1234)
np.random.seed(1234)

batch_size = 32
num_epochs = 3
num_hiddens = 32
embedding_dim = 16
num_embeddings = 64
commitment_cost = 0.25
decay = 0.99
learning_rate = 1e-3

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

# fake 1x16x16 "images"
train_x = torch.rand(256, 1, 16, 16)
val_x = torch.rand(64, 1, 16, 16)
data_variance = train_x.var().item()
training_loader = DataLoader(TensorDataset(train_x), batch_size=batch_size, shuffle=True)
validation_loader = DataLoader(TensorDataset(val_x), batch_size=batch_size, shuffle=False)


class VectorQuantizerEMA(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost, decay, epsilon=1e-5):
        super().__init__()
        self._embedding_dim = embedding_dim
        self._num_embeddings = num_embeddings
        self._embedding = nn.Embedding(self._num_embeddings, self._embedding_dim)
        self._embedding.weight.data.normal_()
        self._commitment_cost = commitment_cost
        self.register_buffer("_ema_cluster_size", torch.zeros(num_embeddings))
        self._ema_w = nn.Parameter(torch.Tensor(num_embeddings, self._embedding_dim))
        self._ema_w.data.normal_()
        self._decay = decay
        self._epsilon = epsilon

    def forward(self, inputs):
        inputs = inputs.permute(0, 2, 3, 1).contiguous()
        input_shape = inputs.shape
        flat_input = inputs.view(-1, self._embedding_dim)

        distances = (torch.sum(flat_input ** 2, dim=1, keepdim=True)
                     + torch.sum(self._embedding.weight ** 2, dim=1)
                     - 2 * torch.matmul(flat_input, self._embedding.weight.t()))
        encoding_indices = torch.argmin(distances, dim=1).unsqueeze(1)
        encodings = torch.zeros(encoding_indices.shape[0], self._num_embeddings, device=inputs.device)
        encodings.scatter_(1, encoding_indices, 1)

        quantized = torch.matmul(encodings, self._embedding.weight).view(input_shape)

        if self.training:
            with torch.no_grad():
                self._ema_cluster_size = self._ema_cluster_size * self._decay + \
                    (1 - self._decay) * torch.sum(encodings, 0)
                n = torch.sum(self._ema_cluster_size.data)
                self._ema_cluster_size = (
                    (self._ema_cluster_size + self._epsilon)
                    / (n + self._num_embeddings * self._epsilon) * n)
                dw = torch.matmul(encodings.t(), flat_input)
                self._ema_w = nn.Parameter(self._ema_w * self._decay + (1 - self._decay) * dw)
                self._embedding.weight = nn.Parameter(self._ema_w / self._ema_cluster_size.unsqueeze(1))

        e_latent_loss = F.mse_loss(quantized.detach(), inputs)
        loss = self._commitment_cost * e_latent_loss

        quantized = inputs + (quantized - inputs).detach()
        avg_probs = torch.mean(encodings, dim=0)
        perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))
        return loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings


class Residual(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self._block = nn.Sequential(nn.ReLU(True), nn.Conv2d(ch, ch, 3, 1, 1, bias=False),
                                    nn.ReLU(True), nn.Conv2d(ch, ch, 1, 1, bias=False))

    def forward(self, x):
        return x + self._block(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._encoder = nn.Sequential(
            nn.Conv2d(1, num_hiddens // 2, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(num_hiddens // 2, num_hiddens, 4, 2, 1), Residual(num_hiddens))
        self._pre_vq_conv = nn.Conv2d(num_hiddens, embedding_dim, 1, 1)
        self._vq_vae = VectorQuantizerEMA(num_embeddings, embedding_dim, commitment_cost, decay)
        self._decoder = nn.Sequential(
            nn.Conv2d(embedding_dim, num_hiddens, 3, 1, 1), Residual(num_hiddens), nn.ReLU(),
            nn.ConvTranspose2d(num_hiddens, num_hiddens // 2, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(num_hiddens // 2, 1, 4, 2, 1))

    def forward(self, x):
        z = self._pre_vq_conv(self._encoder(x))
        loss, quantized, perplexity, _ = self._vq_vae(z)
        x_recon = self._decoder(quantized)
        return loss, x_recon, perplexity


model = Model().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate, amsgrad=False)

train_res_recon_error = []
train_res_perplexity = []

for epoch in range(num_epochs):
    model.train()
    for i, (data,) in enumerate(training_loader):
        data = data.to(device)
        optimizer.zero_grad()
        vq_loss, data_recon, perplexity = model(data)
        recon_error = F.mse_loss(data_recon, data) / data_variance
        loss = recon_error + vq_loss
        loss.backward()
        optimizer.step()
        train_res_recon_error.append(recon_error.item())
        train_res_perplexity.append(perplexity.item())

    print('epoch %d: recon_error %.3f perplexity %.3f' % (
        epoch + 1, np.mean(train_res_recon_error[-len(training_loader):]),
        np.mean(train_res_perplexity[-len(training_loader):])))

    model.eval()
    with torch.no_grad():
        val_err = 0.0
        for (data,) in validation_loader:
            data = data.to(device)
            _, recon, _ = model(data)
            val_err += F.mse_loss(recon, data).item() * data.size(0)
        print('  val mse %.4f' % (val_err / len(validation_loader.dataset)))

torch.save(model.state_dict(), 'vqvae.pt')
np.save('train_recon_error.npy', np.array(train_res_recon_error))
