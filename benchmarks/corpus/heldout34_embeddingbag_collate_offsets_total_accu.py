# corpus: text classification tutorial (AG_NEWS + EmbeddingBag) adapted: vocab built by hand, `collate_batch` returning (label, text, offsets), global model / optimizer read by `train(dataloader)` / `evaluate(dataloader)`, `clip_grad_norm_(..., 0.1)`, `if total_accu is not None and total_accu > accu_val: scheduler.step()`, log_interval prints with elapsed
import time

import torch
from torch import nn
from torch.utils.data import DataLoader
from torch.utils.data.dataset import random_split

torch.manual_seed(0)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# ---- synthetic AG_NEWS: (label in 1..4, text) ----
words = ("the of and to in a is that for it as was with be by on not he this are or his from at which "
         "but have an they you were her she there been one all we their has would when if so no will "
         "market shares stocks game team season win cup space nasa launch planet software chip apple").split()
topic_words = [words[:10], words[40:46], words[46:52], words[52:]]


def make_iter(n, seed):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        label = int(torch.randint(1, 5, (1,), generator=g))
        length = int(torch.randint(5, 15, (1,), generator=g))
        toks = []
        for _ in range(length):
            if torch.rand(1, generator=g).item() < 0.5:
                pool = topic_words[label - 1]
            else:
                pool = words
            toks.append(pool[int(torch.randint(0, len(pool), (1,), generator=g))])
        out.append((label, ' '.join(toks)))
    return out


train_iter = make_iter(600, 1)
test_iter = make_iter(200, 2)

tokenizer = str.split
vocab = {'<unk>': 0}
for _, text in train_iter:
    for tok in tokenizer(text):
        if tok not in vocab:
            vocab[tok] = len(vocab)

text_pipeline = lambda x: [vocab.get(tok, 0) for tok in tokenizer(x)]
label_pipeline = lambda x: int(x) - 1


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for (_label, _text) in batch:
        label_list.append(label_pipeline(_label))
        processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list.to(device), text_list.to(device), offsets.to(device)


class TextClassificationModel(nn.Module):

    def __init__(self, vocab_size, embed_dim, num_class):
        super(TextClassificationModel, self).__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


num_class = len(set([label for (label, text) in train_iter]))
vocab_size = len(vocab)
emsize = 32
model = TextClassificationModel(vocab_size, emsize, num_class).to(device)


def train(dataloader):
    model.train()
    total_acc, total_count = 0, 0
    log_interval = 10
    start_time = time.time()

    for idx, (label, text, offsets) in enumerate(dataloader):
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)
        if idx % log_interval == 0 and idx > 0:
            elapsed = time.time() - start_time
            print('| epoch {:3d} | {:5d}/{:5d} batches '
                  '| accuracy {:8.3f}'.format(epoch, idx, len(dataloader),
                                              total_acc / total_count))
            total_acc, total_count = 0, 0
            start_time = time.time()


def evaluate(dataloader):
    model.eval()
    total_acc, total_count = 0, 0

    with torch.no_grad():
        for idx, (label, text, offsets) in enumerate(dataloader):
            predicted_label = model(text, offsets)
            loss = criterion(predicted_label, label)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count


# Hyperparameters
EPOCHS = 4  # epoch
LR = 5  # learning rate
BATCH_SIZE = 16  # batch size for training

criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)
total_accu = None
train_dataset = train_iter  # to_map_style_dataset(train_iter)
test_dataset = test_iter
num_train = int(len(train_dataset) * 0.95)
split_train_, split_valid_ = \
    random_split(train_dataset, [num_train, len(train_dataset) - num_train])

train_dataloader = DataLoader(split_train_, batch_size=BATCH_SIZE,
                              shuffle=True, collate_fn=collate_batch)
valid_dataloader = DataLoader(split_valid_, batch_size=BATCH_SIZE,
                              shuffle=True, collate_fn=collate_batch)
test_dataloader = DataLoader(test_dataset, batch_size=BATCH_SIZE,
                             shuffle=True, collate_fn=collate_batch)

for epoch in range(1, EPOCHS + 1):
    epoch_start_time = time.time()
    train(train_dataloader)
    accu_val = evaluate(valid_dataloader)
    if total_accu is not None and total_accu > accu_val:
        scheduler.step()
    else:
        total_accu = accu_val
    print('-' * 59)
    print('| end of epoch {:3d} | '
          'valid accuracy {:8.3f} '.format(epoch, accu_val))
    print('-' * 59)

print('Checking the results of test dataset.')
accu_test = evaluate(test_dataloader)
print('test accuracy {:8.3f}'.format(accu_test))

ag_news_label = {1: "World", 2: "Sports", 3: "Business", 4: "Sci/Tec"}


def predict(text, text_pipeline):
    with torch.no_grad():
        text = torch.tensor(text_pipeline(text))
        output = model(text, torch.tensor([0]))
        return output.argmax(1).item() + 1


ex_text_str = "nasa space launch planet the of software"
model = model.to("cpu")
print("This is a %s news" % ag_news_label[predict(ex_text_str, text_pipeline)])
