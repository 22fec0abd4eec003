# corpus: GRU sentiment classifier: variable-length reviews, custom collate_fn that pads and sorts the batch by length (descending), pack_padded_sequence, binary accuracy helper, best model by val loss, predict_sentiment() after
import random
import time

import torch
import torch.nn as nn
import torch.optim as optim
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence
from torch.utils.data import DataLoader, Dataset

SEED = 1234
random.seed(SEED)
torch.manual_seed(SEED)
torch.backends.cudnn.deterministic = True

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

PAD_IDX = 0
VOCAB_SIZE = 100
BATCH_SIZE = 16
N_EPOCHS = 3
EMBEDDING_DIM = 16
HIDDEN_DIM = 24


class ReviewDataset(Dataset):
    """Positive reviews use more tokens from the upper half of the vocabulary."""

    def __init__(self, n):
        self.samples = []
        for _ in range(n):
            length = random.randint(5, 20)
            label = random.randint(0, 1)
            low = 50 if label == 1 else 1
            toks = torch.randint(low, low + 50 if label == 1 else 60, (length,))
            self.samples.append((toks, float(label)))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        return self.samples[idx]


def collate_batch(batch):
    batch = sorted(batch, key=lambda x: len(x[0]), reverse=True)
    texts = [b[0] for b in batch]
    lengths = torch.tensor([len(t) for t in texts], dtype=torch.long)
    labels = torch.tensor([b[1] for b in batch], dtype=torch.float)
    padded = pad_sequence(texts, batch_first=True, padding_value=PAD_IDX)
    return padded, lengths, labels


train_iterator = DataLoader(ReviewDataset(128), batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch)
valid_iterator = DataLoader(ReviewDataset(32), batch_size=BATCH_SIZE, collate_fn=collate_batch)
test_iterator = DataLoader(ReviewDataset(32), batch_size=BATCH_SIZE, collate_fn=collate_batch)


class RNN(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim, n_layers, bidirectional, dropout, pad_idx):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_idx)
        self.rnn = nn.GRU(embedding_dim, hidden_dim, num_layers=n_layers, bidirectional=bidirectional,
                          dropout=dropout, batch_first=True)
        self.fc = nn.Linear(hidden_dim * 2, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, text, text_lengths):
        embedded = self.dropout(self.embedding(text))
        packed_embedded = pack_padded_sequence(embedded, text_lengths.cpu(), batch_first=True)
        packed_output, hidden = self.rnn(packed_embedded)
        hidden = self.dropout(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1))
        return self.fc(hidden)


model = RNN(VOCAB_SIZE, EMBEDDING_DIM, HIDDEN_DIM, 1, 2, True, 0.3, PAD_IDX)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


print(f"The model has {count_parameters(model):,} trainable parameters")

optimizer = optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.BCEWithLogitsLoss()
model = model.to(device)
criterion = criterion.to(device)


def binary_accuracy(preds, y):
    rounded_preds = torch.round(torch.sigmoid(preds))
    correct = (rounded_preds == y).float()
    return correct.sum() / len(correct)


def train(model, iterator, optimizer, criterion):
    epoch_loss = 0
    epoch_acc = 0
    model.train()
    for text, text_lengths, label in iterator:
        text, label = text.to(device), label.to(device)
        optimizer.zero_grad()
        predictions = model(text, text_lengths).squeeze(1)
        loss = criterion(predictions, label)
        acc = binary_accuracy(predictions, label)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        epoch_acc += acc.item()
    return epoch_loss / len(iterator), epoch_acc / len(iterator)


def evaluate(model, iterator, criterion):
    epoch_loss = 0
    epoch_acc = 0
    model.eval()
    with torch.no_grad():
        for text, text_lengths, label in iterator:
            text, label = text.to(device), label.to(device)
            predictions = model(text, text_lengths).squeeze(1)
            loss = criterion(predictions, label)
            acc = binary_accuracy(predictions, label)
            epoch_loss += loss.item()
            epoch_acc += acc.item()
    return epoch_loss / len(iterator), epoch_acc / len(iterator)


def epoch_time(start_time, end_time):
    elapsed_time = end_time - start_time
    elapsed_mins = int(elapsed_time / 60)
    elapsed_secs = int(elapsed_time - (elapsed_mins * 60))
    return elapsed_mins, elapsed_secs


best_valid_loss = float("inf")

for epoch in range(N_EPOCHS):
    start_time = time.time()
    train_loss, train_acc = train(model, train_iterator, optimizer, criterion)
    valid_loss, valid_acc = evaluate(model, valid_iterator, criterion)
    end_time = time.time()
    epoch_mins, epoch_secs = epoch_time(start_time, end_time)
    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        torch.save(model.state_dict(), "sentiment-model.pt")
    print(f"Epoch: {epoch+1:02} | Epoch Time: {epoch_mins}m {epoch_secs}s")
    print(f"\tTrain Loss: {train_loss:.3f} | Train Acc: {train_acc*100:.2f}%")
    print(f"\t Val. Loss: {valid_loss:.3f} |  Val. Acc: {valid_acc*100:.2f}%")

model.load_state_dict(torch.load("sentiment-model.pt"))
test_loss, test_acc = evaluate(model, test_iterator, criterion)
print(f"Test Loss: {test_loss:.3f} | Test Acc: {test_acc*100:.2f}%")


def predict_sentiment(model, tokens):
    model.eval()
    tensor = torch.LongTensor(tokens).unsqueeze(0).to(device)
    length = torch.LongTensor([len(tokens)])
    prediction = torch.sigmoid(model(tensor, length))
    return prediction.item()


print("positive-ish:", round(predict_sentiment(model, [60, 70, 80, 90, 55]), 4))
print("negative-ish:", round(predict_sentiment(model, [2, 3, 4, 5, 6]), 4))
