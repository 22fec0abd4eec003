# corpus: Spanish course script saved on Windows (CRLF line endings): entrenar()/evaluar() functions per epoch, argparse in Spanish, StepLR, checkpoint dict with 'epoca', prints with ñ/accents
# -*- coding: utf-8 -*-
# =============================================================================
#  Práctica 3: Red convolucional pequeña para clasificación de imágenes
#  Asignatura: Aprendizaje Profundo - Universidad (curso 2023/2024)
#  Autor: equipo docente
# =============================================================================
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class RedConvolucional(nn.Module):
    """Red convolucional sencilla: dos capas conv + una capa lineal."""

    def __init__(self, num_clases=4):
        super(RedConvolucional, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, num_clases)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)   # 16x16 -> 8x8
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)   # 8x8 -> 4x4
        x = x.view(x.size(0), -1)
        return self.fc(x)


def entrenar(modelo, dispositivo, cargador, optimizador, criterio, epoca, args):
    """Entrena el modelo durante una época completa."""
    modelo.train()
    perdida_total = 0.0
    for indice_lote, (imagenes, etiquetas) in enumerate(cargador):
        imagenes, etiquetas = imagenes.to(dispositivo), etiquetas.to(dispositivo)
        optimizador.zero_grad()
        salida = modelo(imagenes)
        perdida = criterio(salida, etiquetas)
        perdida.backward()
        optimizador.step()
        perdida_total += perdida.item()
        if indice_lote % args.intervalo_log == 0:
            print('Época de entrenamiento: {} [{}/{} ({:.0f}%)]\tPérdida: {:.6f}'.format(
                epoca, indice_lote * len(imagenes), len(cargador.dataset),
                100. * indice_lote / len(cargador), perdida.item()))
    return perdida_total / len(cargador)


def evaluar(modelo, dispositivo, cargador, criterio):
    """Evalúa el modelo en el conjunto de prueba. Devuelve (pérdida, precisión)."""
    modelo.eval()
    perdida_prueba = 0
    correctos = 0
    with torch.no_grad():
        for imagenes, etiquetas in cargador:
            imagenes, etiquetas = imagenes.to(dispositivo), etiquetas.to(dispositivo)
            salida = modelo(imagenes)
            perdida_prueba += criterio(salida, etiquetas).item() * imagenes.size(0)
            prediccion = salida.argmax(dim=1, keepdim=True)
            correctos += prediccion.eq(etiquetas.view_as(prediccion)).sum().item()

    perdida_prueba /= len(cargador.dataset)
    precision = 100. * correctos / len(cargador.dataset)
    print('\nConjunto de prueba: pérdida media: {:.4f}, precisión: {}/{} ({:.1f}%)\n'.format(
        perdida_prueba, correctos, len(cargador.dataset), precision))
    return perdida_prueba, precision


def main():
    parser = argparse.ArgumentParser(description='Práctica 3 - CNN en PyTorch')
    parser.add_argument('--tamano-lote', type=int, default=32, help='tamaño del lote (por defecto: 32)')
    parser.add_argument('--epocas', type=int, default=3, help='número de épocas (por defecto: 3)')
    parser.add_argument('--tasa', type=float, default=0.05, help='tasa de aprendizaje (por defecto: 0.05)')
    parser.add_argument('--gamma', type=float, default=0.7, help='factor de decaimiento de la tasa')
    parser.add_argument('--sin-cuda', action='store_true', default=False, help='desactiva el entrenamiento en GPU')
    parser.add_argument('--semilla', type=int, default=1, help='semilla aleatoria')
    parser.add_argument('--intervalo-log', type=int, default=4, help='cada cuántos lotes se imprime el progreso')
    parser.add_argument('--guardar-modelo', action='store_true', default=True, help='guardar el modelo entrenado')
    args = parser.parse_args()

    usar_cuda = not args.sin_cuda and torch.cuda.is_available()
    torch.manual_seed(args.semilla)
    dispositivo = torch.device("cuda" if usar_cuda else "cpu")

    # Datos sintéticos: "imágenes" de 1x16x16 y 4 clases
    x_entrenamiento = torch.randn(256, 1, 16, 16)
    y_entrenamiento = torch.randint(0, 4, (256,))
    x_prueba = torch.randn(64, 1, 16, 16)
    y_prueba = torch.randint(0, 4, (64,))

    cargador_entrenamiento = DataLoader(TensorDataset(x_entrenamiento, y_entrenamiento),
                                        batch_size=args.tamano_lote, shuffle=True)
    cargador_prueba = DataLoader(TensorDataset(x_prueba, y_prueba), batch_size=64)

    modelo = RedConvolucional().to(dispositivo)
    criterio = nn.CrossEntropyLoss()
    optimizador = optim.SGD(modelo.parameters(), lr=args.tasa, momentum=0.9)
    planificador = StepLR(optimizador, step_size=1, gamma=args.gamma)

    for epoca in range(1, args.epocas + 1):
        perdida_media = entrenar(modelo, dispositivo, cargador_entrenamiento, optimizador, criterio, epoca, args)
        perdida_prueba, precision = evaluar(modelo, dispositivo, cargador_prueba, criterio)
        planificador.step()
        print('Época {} terminada: pérdida media de entrenamiento {:.4f}, tasa actual {:.5f}'.format(
            epoca, perdida_media, planificador.get_last_lr()[0]))

        if args.guardar_modelo:
            torch.save({
                'epoca': epoca,
                'estado_modelo': modelo.state_dict(),
                'estado_optimizador': optimizador.state_dict(),
                'perdida': perdida_prueba,
            }, 'punto_de_control.pt')

    print('¡Entrenamiento terminado!')


if __name__ == '__main__':
    main()
