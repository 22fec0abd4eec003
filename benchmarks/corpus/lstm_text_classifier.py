# corpus: LSTM text classifier, embedding + LSTM, hidden state initialised per batch, clip_grad_norm_
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)

VOCAB_SIZE = 200
EMBED_DIM = 32
HIDDEN_DIM = 48
NUM_CLASSES = 4
SEQ_LEN = 20
BATCH_SIZE = 16
CLIP = 0.5

# token ids, label depends loosely on the first token so there is something to learn
tokens = torch.randint(1, VOCAB_SIZE, (320, SEQ_LEN))
labels = tokens[:, 0] % NUM_CLASSES
train_data = TensorDataset(tokens[:256], labels[:256])
valid_data = TensorDataset(tokens[256:], labels[256:])
train_loader = DataLoader(train_data, shuffle=True, batch_size=BATCH_SIZE, drop_last=True)
valid_loader = DataLoader(valid_data, shuffle=False, batch_size=BATCH_SIZE, drop_last=True)


class TextLSTM(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim, num_classes, n_layers=2):
        super(TextLSTM, self).__init__()
        self.n_layers = n_layers
        self.hidden_dim = hidden_dim
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, n_layers, dropout=0.2, batch_first=True)
        self.dropout = nn.Dropout(0.3)
        self.fc = nn.Linear(hidden_dim, num_classes)

    def forward(self, x, hidden):
        embeds = self.embedding(x)
        lstm_out, hidden = self.lstm(embeds, hidden)
        out = self.dropout(lstm_out[:, -1, :])
        out = self.fc(out)
        return out, hidden

    def init_hidden(self, batch_size):
        weight = next(self.parameters()).data
        hidden = (weight.new(self.n_layers, batch_size, self.hidden_dim).zero_(),
                  weight.new(self.n_layers, batch_size, self.hidden_dim).zero_())
        return hidden


model = TextLSTM(VOCAB_SIZE, EMBED_DIM, HIDDEN_DIM, NUM_CLASSES)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.005)

epochs = 3
counter = 0
print_every = 8

model.train()
for e in range(epochs):
    for inputs, targets in train_loader:
        counter += 1
        h = model.init_hidden(BATCH_SIZE)

        model.zero_grad()
        output, h = model(inputs, h)
        loss = criterion(output, targets)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        optimizer.step()

        if counter % print_every == 0:
            val_losses = []
            model.eval()
            with torch.no_grad():
                for inp, lab in valid_loader:
                    val_h = model.init_hidden(BATCH_SIZE)
                    out, val_h = model(inp, val_h)
                    val_losses.append(criterion(out, lab).item())
            model.train()
            print("Epoch: {}/{}...".format(e + 1, epochs),
                  "Step: {}...".format(counter),
                  "Loss: {:.6f}...".format(loss.item()),
                  "Val Loss: {:.6f}".format(sum(val_losses) / len(val_losses)))
