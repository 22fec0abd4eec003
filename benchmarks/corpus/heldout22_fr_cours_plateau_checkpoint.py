# corpus: French university course (TP): config dict, accented identifiers (précision, époque), entrainer_une_epoque()/valider() returning tuples, logging with French messages, ReduceLROnPlateau on validation loss, full checkpoint each epoch + best, decimal-comma prints
# -*- coding: utf-8 -*-
"""
TP n°2 — Classification binaire avec un perceptron multicouche
==============================================================

Objectifs du TP :
    * écrire une boucle d'entraînement « à la main » ;
    * suivre la perte et la précision sur l'ensemble de validation ;
    * sauvegarder un point de contrôle (checkpoint) à chaque époque.

Les données sont générées aléatoirement : deux nuages de points gaussiens.
"""
import logging
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

logging.basicConfig(level=logging.INFO, format="%(levelname)s : %(message)s")
journal = logging.getLogger("tp2")

CONFIG = {
    "graine": 7,
    "taille_lot": 32,
    "nb_époques": 5,
    "taux_apprentissage": 1e-2,
    "dossier_sauvegarde": "points_de_controle",
}


def générer_données(n=400, graine=0):
    """Génère deux nuages gaussiens en dimension 2 (classe 0 et classe 1)."""
    g = torch.Generator().manual_seed(graine)
    moitié = n // 2
    classe0 = torch.randn(moitié, 2, generator=g) + torch.tensor([-1.0, -1.0])
    classe1 = torch.randn(moitié, 2, generator=g) + torch.tensor([1.0, 1.0])
    X = torch.cat([classe0, classe1])
    y = torch.cat([torch.zeros(moitié), torch.ones(moitié)]).unsqueeze(1)
    return TensorDataset(X, y)


class Perceptron(nn.Module):
    def __init__(self, dim_entrée=2, dim_cachée=16):
        super().__init__()
        self.réseau = nn.Sequential(
            nn.Linear(dim_entrée, dim_cachée),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Linear(dim_cachée, 1),
        )

    def forward(self, x):
        return self.réseau(x)  # logits (pas de sigmoïde ici, cf. BCEWithLogitsLoss)


def entrainer_une_epoque(modele, chargeur, critere, optimiseur, appareil):
    modele.train()
    perte_totale, nb_exemples = 0.0, 0
    for X, y in chargeur:
        X, y = X.to(appareil), y.to(appareil)
        optimiseur.zero_grad()
        logits = modele(X)
        perte = critere(logits, y)
        perte.backward()
        optimiseur.step()
        perte_totale += perte.item() * X.size(0)
        nb_exemples += X.size(0)
    return perte_totale / nb_exemples


@torch.no_grad()
def valider(modele, chargeur, critere, appareil):
    modele.eval()
    perte_totale, corrects, nb_exemples = 0.0, 0, 0
    for X, y in chargeur:
        X, y = X.to(appareil), y.to(appareil)
        logits = modele(X)
        perte_totale += critere(logits, y).item() * X.size(0)
        prédictions = (torch.sigmoid(logits) > 0.5).float()
        corrects += (prédictions == y).sum().item()
        nb_exemples += X.size(0)
    return perte_totale / nb_exemples, corrects / nb_exemples


def en_français(nombre, décimales=4):
    """Affiche un nombre avec une virgule décimale, à la française."""
    return f"{nombre:.{décimales}f}".replace(".", ",")


def main():
    torch.manual_seed(CONFIG["graine"])
    appareil = "cuda" if torch.cuda.is_available() else "cpu"
    journal.info("Entraînement sur : %s", appareil)

    données = générer_données(400, graine=CONFIG["graine"])
    données_entr, données_val = random_split(données, [320, 80], generator=torch.Generator().manual_seed(0))
    chargeur_entr = DataLoader(données_entr, batch_size=CONFIG["taille_lot"], shuffle=True)
    chargeur_val = DataLoader(données_val, batch_size=CONFIG["taille_lot"])

    modele = Perceptron().to(appareil)
    critere = nn.BCEWithLogitsLoss()
    optimiseur = torch.optim.SGD(modele.parameters(), lr=CONFIG["taux_apprentissage"], momentum=0.9)
    ordonnanceur = torch.optim.lr_scheduler.ReduceLROnPlateau(optimiseur, mode="min", factor=0.5, patience=1)

    os.makedirs(CONFIG["dossier_sauvegarde"], exist_ok=True)
    meilleure_perte = float("inf")

    for époque in range(1, CONFIG["nb_époques"] + 1):
        perte_entr = entrainer_une_epoque(modele, chargeur_entr, critere, optimiseur, appareil)
        perte_val, précision = valider(modele, chargeur_val, critere, appareil)
        ordonnanceur.step(perte_val)

        print(f"Époque {époque}/{CONFIG['nb_époques']} | perte entraînement : {en_français(perte_entr)} "
              f"| perte validation : {en_français(perte_val)} | précision : {en_français(100 * précision, 2)} %")

        point_de_contrôle = {
            "époque": époque,
            "état_du_modèle": modele.state_dict(),
            "état_de_l_optimiseur": optimiseur.state_dict(),
            "état_de_l_ordonnanceur": ordonnanceur.state_dict(),
            "perte_val": perte_val,
        }
        torch.save(point_de_contrôle, os.path.join(CONFIG["dossier_sauvegarde"], "dernier.pt"))
        if perte_val < meilleure_perte:
            meilleure_perte = perte_val
            torch.save(point_de_contrôle, os.path.join(CONFIG["dossier_sauvegarde"], "meilleur.pt"))
            journal.info("Nouveau meilleur modèle (perte de validation = %s)", en_français(perte_val))

    journal.info("Fin de l'entraînement. Meilleure perte de validation : %s", en_français(meilleure_perte))


if __name__ == "__main__":
    main()
