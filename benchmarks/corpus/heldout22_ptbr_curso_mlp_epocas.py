# corpus: Brazilian course (pt-BR): coding header, dispositivo/modelo/otimizador/funcao_perda, `for época in range(num_épocas)`, accented f-string prints, validation accuracy, best checkpoint
# -*- coding: utf-8 -*-
"""
Aula 05 - Treinando uma rede neural simples com PyTorch
Curso: Introdução ao Deep Learning

Nesta aula vamos:
  1. criar um conjunto de dados sintético (classificação com 3 classes);
  2. definir o modelo (uma MLP com duas camadas ocultas);
  3. escrever o laço de treinamento e validação;
  4. salvar o melhor modelo (checkpoint).
"""
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(42)

# ---------------------------------------------------------------
# Hiperparâmetros
# ---------------------------------------------------------------
taxa_aprendizado = 0.01
tamanho_lote = 32
num_épocas = 5

# Verifica se temos GPU disponível
dispositivo = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
print(f'Usando dispositivo: {dispositivo}')

# ---------------------------------------------------------------
# Dados sintéticos (em vez de baixar um dataset de verdade)
# ---------------------------------------------------------------
X_treino = torch.randn(320, 10)
y_treino = torch.randint(0, 3, (320,))
X_validação = torch.randn(96, 10)
y_validação = torch.randint(0, 3, (96,))

dados_treino = TensorDataset(X_treino, y_treino)
dados_validação = TensorDataset(X_validação, y_validação)

carregador_treino = DataLoader(dados_treino, batch_size=tamanho_lote, shuffle=True)
carregador_validação = DataLoader(dados_validação, batch_size=tamanho_lote, shuffle=False)


# ---------------------------------------------------------------
# Modelo
# ---------------------------------------------------------------
class RedeNeural(nn.Module):
    def __init__(self, entrada, oculta, saída):
        super().__init__()
        self.camadas = nn.Sequential(
            nn.Linear(entrada, oculta),
            nn.ReLU(),
            nn.Linear(oculta, oculta),
            nn.ReLU(),
            nn.Linear(oculta, saída),
        )

    def forward(self, x):
        return self.camadas(x)


modelo = RedeNeural(10, 32, 3).to(dispositivo)
print(modelo)

funcao_perda = nn.CrossEntropyLoss()
otimizador = optim.Adam(modelo.parameters(), lr=taxa_aprendizado)

# ---------------------------------------------------------------
# Laço de treinamento
# ---------------------------------------------------------------
melhor_acurácia = 0.0
histórico = {'perda_treino': [], 'perda_validação': [], 'acurácia': []}

for época in range(num_épocas):
    modelo.train()
    perda_acumulada = 0.0
    for entradas, rótulos in carregador_treino:
        entradas = entradas.to(dispositivo)
        rótulos = rótulos.to(dispositivo)

        # 1. zera os gradientes
        otimizador.zero_grad()
        # 2. passo para frente (forward)
        saídas = modelo(entradas)
        # 3. calcula a perda
        perda = funcao_perda(saídas, rótulos)
        # 4. retropropagação (backward)
        perda.backward()
        # 5. atualiza os pesos
        otimizador.step()

        perda_acumulada += perda.item() * entradas.size(0)

    perda_média = perda_acumulada / len(carregador_treino.dataset)

    # ----- validação -----
    modelo.eval()
    perda_val = 0.0
    acertos = 0
    with torch.no_grad():
        for entradas, rótulos in carregador_validação:
            entradas, rótulos = entradas.to(dispositivo), rótulos.to(dispositivo)
            saídas = modelo(entradas)
            perda_val += funcao_perda(saídas, rótulos).item() * entradas.size(0)
            _, previsões = torch.max(saídas, 1)
            acertos += (previsões == rótulos).sum().item()

    perda_val /= len(carregador_validação.dataset)
    acurácia = 100.0 * acertos / len(carregador_validação.dataset)

    histórico['perda_treino'].append(perda_média)
    histórico['perda_validação'].append(perda_val)
    histórico['acurácia'].append(acurácia)

    print(f'Época {época + 1}/{num_épocas} - perda: {perda_média:.4f} - perda de validação: {perda_val:.4f} - acurácia: {acurácia:.2f}%')

    # salva o melhor modelo
    if acurácia > melhor_acurácia:
        melhor_acurácia = acurácia
        torch.save(modelo.state_dict(), 'melhor_modelo.pth')
        print(f'  -> Modelo salvo! (acurácia = {acurácia:.2f}%)')

print(f'Treinamento concluído. Melhor acurácia na validação: {melhor_acurácia:.2f}%')
torch.save(histórico, 'histórico.pt')
