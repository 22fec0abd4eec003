# corpus: pt-BR translation of the PyTorch quickstart (blog/YouTube course): treinar(dataloader, modelo, funcao_perda, otimizador) / testar() per `epoca`, `dispositivo` idiom, ExponentialLR, checkpoint per epoch with an f-string filename, accented prints
# -*- coding: utf-8 -*-
# Tutorial: Início Rápido com PyTorch (tradução livre do quickstart oficial)
# Em vez do FashionMNIST usamos tensores aleatórios, para rodar sem internet.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

# Criando os dados "de mentira"
dados_treino = TensorDataset(torch.randn(200, 1, 12, 12), torch.randint(0, 5, (200,)))
dados_teste = TensorDataset(torch.randn(60, 1, 12, 12), torch.randint(0, 5, (60,)))

tamanho_lote = 25

# Criando os data loaders.
dataloader_treino = DataLoader(dados_treino, batch_size=tamanho_lote)
dataloader_teste = DataLoader(dados_teste, batch_size=tamanho_lote)

for X, y in dataloader_teste:
    print(f"Formato de X [N, C, H, W]: {X.shape}")
    print(f"Formato de y: {y.shape} {y.dtype}")
    break

# Pega o dispositivo de treinamento (GPU se tiver, senão CPU)
dispositivo = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Usando o dispositivo {dispositivo}")


# Definindo o modelo
class RedeNeural(nn.Module):
    def __init__(self):
        super().__init__()
        self.achatar = nn.Flatten()
        self.pilha_linear_relu = nn.Sequential(
            nn.Linear(12 * 12, 64),
            nn.ReLU(),
            nn.Linear(64, 64),
            nn.ReLU(),
            nn.Linear(64, 5),
        )

    def forward(self, x):
        x = self.achatar(x)
        logits = self.pilha_linear_relu(x)
        return logits


modelo = RedeNeural().to(dispositivo)
print(modelo)

funcao_perda = nn.CrossEntropyLoss()
otimizador = torch.optim.SGD(modelo.parameters(), lr=1e-1)
agendador = torch.optim.lr_scheduler.ExponentialLR(otimizador, gamma=0.9)


def treinar(dataloader, modelo, funcao_perda, otimizador):
    tamanho = len(dataloader.dataset)
    modelo.train()
    for lote, (X, y) in enumerate(dataloader):
        X, y = X.to(dispositivo), y.to(dispositivo)

        # Calcula o erro da predição
        pred = modelo(X)
        perda = funcao_perda(pred, y)

        # Retropropagação
        perda.backward()
        otimizador.step()
        otimizador.zero_grad()

        if lote % 4 == 0:
            perda, atual = perda.item(), (lote + 1) * len(X)
            print(f"perda: {perda:>7f}  [{atual:>5d}/{tamanho:>5d}]")


def testar(dataloader, modelo, funcao_perda):
    tamanho = len(dataloader.dataset)
    num_lotes = len(dataloader)
    modelo.eval()
    perda_teste, corretos = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(dispositivo), y.to(dispositivo)
            pred = modelo(X)
            perda_teste += funcao_perda(pred, y).item()
            corretos += (pred.argmax(1) == y).type(torch.float).sum().item()
    perda_teste /= num_lotes
    corretos /= tamanho
    print(f"Erro no teste: \n Acurácia: {(100*corretos):>0.1f}%, Perda média: {perda_teste:>8f} \n")


num_epocas = 4
for epoca in range(num_epocas):
    print(f"Época {epoca+1}\n-------------------------------")
    treinar(dataloader_treino, modelo, funcao_perda, otimizador)
    testar(dataloader_teste, modelo, funcao_perda)
    agendador.step()
    torch.save(modelo.state_dict(), f"checkpoint_epoca_{epoca+1}.pth")
print("Pronto! Taxa de aprendizado final: {:.4f}".format(agendador.get_last_lr()[0]))
