# corpus: German course notebook (Übungsblatt): German identifiers with umlauts/ß (schrittgröße, geduld, verlust), tqdm bars with German desc/postfix, AMP enabled on CUDA only, CosineAnnealingLR per epoch, early stopping with break, best state_dict via copy.deepcopy
# -*- coding: utf-8 -*-
#
# Übungsblatt 6 – Aufgabe 2: Frühes Stoppen (Early Stopping)
#
# Wir trainieren ein kleines Netz für eine binäre Klassifikation und brechen das
# Training ab, sobald sich der Validierungsverlust `geduld` Epochen lang nicht
# mehr verbessert hat. Die Daten werden zufällig erzeugt (keine Downloads nötig).
#
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

torch.manual_seed(123)

# Hyperparameter
anzahl_epochen = 20
batchgröße = 32
schrittgröße = 5e-3        # Lernrate
geduld = 3                 # so viele Epochen ohne Verbesserung, dann Abbruch

gerät = torch.device("cuda" if torch.cuda.is_available() else "cpu")
amp_aktiv = gerät.type == "cuda"   # gemischte Präzision nur auf der GPU

# Zufällige Daten: Merkmal 0 bestimmt (mit Rauschen) die Klasse
merkmale = torch.randn(600, 8)
etiketten = ((merkmale[:, 0] + 0.5 * torch.randn(600)) > 0).float()

trainings_daten = TensorDataset(merkmale[:480], etiketten[:480])
validierungs_daten = TensorDataset(merkmale[480:], etiketten[480:])
trainings_lader = DataLoader(trainings_daten, batch_size=batchgröße, shuffle=True)
validierungs_lader = DataLoader(validierungs_daten, batch_size=batchgröße)

modell = nn.Sequential(
    nn.Linear(8, 32),
    nn.ReLU(),
    nn.Linear(32, 1),
).to(gerät)

verlustfunktion = nn.BCEWithLogitsLoss()
optimierer = torch.optim.AdamW(modell.parameters(), lr=schrittgröße, weight_decay=1e-4)
planer = torch.optim.lr_scheduler.CosineAnnealingLR(optimierer, T_max=anzahl_epochen)
skalierer = torch.amp.GradScaler("cuda", enabled=amp_aktiv)

bester_verlust = float("inf")
bester_zustand = None
epochen_ohne_verbesserung = 0

for epoche in range(1, anzahl_epochen + 1):
    # ---------- Training ----------
    modell.train()
    laufender_verlust = 0.0
    fortschritt = tqdm(trainings_lader, desc=f"Epoche {epoche:02d} [Training]", leave=False)
    for x, y in fortschritt:
        x, y = x.to(gerät), y.to(gerät)
        optimierer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=gerät.type, enabled=amp_aktiv):
            vorhersage = modell(x).squeeze(1)
            verlust = verlustfunktion(vorhersage, y)
        skalierer.scale(verlust).backward()
        skalierer.step(optimierer)
        skalierer.update()
        laufender_verlust += verlust.item()
        fortschritt.set_postfix(verlust=f"{verlust.item():.4f}")
    planer.step()
    trainingsverlust = laufender_verlust / len(trainings_lader)

    # ---------- Validierung ----------
    modell.eval()
    validierungsverlust = 0.0
    richtig = 0
    with torch.no_grad():
        for x, y in tqdm(validierungs_lader, desc=f"Epoche {epoche:02d} [Validierung]", leave=False):
            x, y = x.to(gerät), y.to(gerät)
            vorhersage = modell(x).squeeze(1)
            validierungsverlust += verlustfunktion(vorhersage, y).item()
            richtig += ((vorhersage > 0).float() == y).sum().item()
    validierungsverlust /= len(validierungs_lader)
    genauigkeit = richtig / len(validierungs_daten)

    print(f"Epoche {epoche:2d}: Trainingsverlust = {trainingsverlust:.4f}, "
          f"Validierungsverlust = {validierungsverlust:.4f}, Genauigkeit = {genauigkeit:.2%}")

    # ---------- Frühes Stoppen ----------
    if validierungsverlust < bester_verlust - 1e-4:
        bester_verlust = validierungsverlust
        bester_zustand = copy.deepcopy(modell.state_dict())
        epochen_ohne_verbesserung = 0
    else:
        epochen_ohne_verbesserung += 1
        print(f"  Keine Verbesserung seit {epochen_ohne_verbesserung} Epoche(n).")
        if epochen_ohne_verbesserung >= geduld:
            print(f"Frühes Stoppen nach Epoche {epoche}!")
            break

# bestes Modell wiederherstellen und speichern
modell.load_state_dict(bester_zustand)
torch.save(modell.state_dict(), "bestes_modell.pt")
print(f"Bester Validierungsverlust: {bester_verlust:.4f} – Modell gespeichert unter „bestes_modell.pt“.")
