# corpus: research repo / blog (2018 LSTM sentence classifier): model.hidden = model.init_hidden() per batch with Variable zeros, deprecated clip_grad_norm, loss.data accumulations, per-epoch eval with volatile, best model by dev acc, checkpoint every epoch
import os
import random
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.autograd as autograd

torch.manual_seed(1)
random.seed(1)

USE_GPU = torch.cuda.is_available()
EMBEDDING_DIM = 24
HIDDEN_DIM = 32
BATCH_SIZE = 8
EPOCH = 3
VOCAB = 60
SEQ_LEN = 12


def load_sst_fake(n):
    # stand-in for the SST loader (torchtext.data.Field / BucketIterator, 2018)
    sents = torch.randint(1, VOCAB, (n, SEQ_LEN))
    labels = (sents[:, :3].sum(1) > (3 * VOCAB // 2)).long()
    return sents, labels


class LSTMClassifier(nn.Module):

    def __init__(self, embedding_dim, hidden_dim, vocab_size, label_size, batch_size, use_gpu):
        super(LSTMClassifier, self).__init__()
        self.hidden_dim = hidden_dim
        self.batch_size = batch_size
        self.use_gpu = use_gpu

        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim)
        self.hidden2label = nn.Linear(hidden_dim, label_size)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        if self.use_gpu:
            h0 = autograd.Variable(torch.zeros(1, self.batch_size, self.hidden_dim).cuda())
            c0 = autograd.Variable(torch.zeros(1, self.batch_size, self.hidden_dim).cuda())
        else:
            h0 = autograd.Variable(torch.zeros(1, self.batch_size, self.hidden_dim))
            c0 = autograd.Variable(torch.zeros(1, self.batch_size, self.hidden_dim))
        return (h0, c0)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        x = embeds.view(len(sentence), self.batch_size, -1)
        lstm_out, self.hidden = self.lstm(x, self.hidden)
        y = self.hidden2label(lstm_out[-1])
        log_probs = F.log_softmax(y, dim=1)
        return log_probs


def get_accuracy(truth, pred):
    assert len(truth) == len(pred)
    right = 0
    for i in range(len(truth)):
        if truth[i] == pred[i]:
            right += 1.0
    return right / len(truth)


def batches(sents, labels, shuffle):
    idx = list(range(len(sents)))
    if shuffle:
        random.shuffle(idx)
    for i in range(0, len(idx) - BATCH_SIZE + 1, BATCH_SIZE):
        b = idx[i:i + BATCH_SIZE]
        # (seq_len, batch) like torchtext's default batch_first=False
        yield sents[b].t().contiguous(), labels[b]


def train_epoch(model, train_data, loss_function, optimizer, i):
    model.train()
    avg_loss = 0.0
    count = 0
    truth_res = []
    pred_res = []
    for sent, label in batches(train_data[0], train_data[1], shuffle=True):
        truth_res += list(label.numpy())
        model.hidden = model.init_hidden()  # detaching it from its history on the last instance.
        if USE_GPU:
            sent, label = sent.cuda(), label.cuda()
        sent, label = autograd.Variable(sent), autograd.Variable(label)
        pred = model(sent)
        pred_label = pred.data.max(1)[1].cpu().numpy()
        pred_res += [x for x in pred_label]
        model.zero_grad()
        loss = loss_function(pred, label)
        avg_loss += loss.data.item()
        count += 1
        if count % 5 == 0:
            print('epoch: %d iterations: %d loss :%g' % (i, count * model.batch_size, loss.data.item()))
        loss.backward()
        nn.utils.clip_grad_norm(model.parameters(), 5.0)
        optimizer.step()
    avg_loss /= count
    print('epoch: %d done! \n train avg_loss:%g , acc:%g' % (i, avg_loss, get_accuracy(truth_res, pred_res)))


def evaluate(model, data, loss_function, name):
    model.eval()
    avg_loss = 0.0
    truth_res = []
    pred_res = []
    n = 0
    for sent, label in batches(data[0], data[1], shuffle=False):
        truth_res += list(label.numpy())
        model.hidden = model.init_hidden()
        sent = autograd.Variable(sent, volatile=True)
        label = autograd.Variable(label)
        if USE_GPU:
            sent, label = sent.cuda(), label.cuda()
        pred = model(sent)
        pred_label = pred.data.max(1)[1].cpu().numpy()
        pred_res += [x for x in pred_label]
        loss = loss_function(pred, label)
        avg_loss += loss.data.item()
        n += 1
    avg_loss /= n
    acc = get_accuracy(truth_res, pred_res)
    print(name + ' avg_loss:%g train acc:%g' % (avg_loss, acc))
    return acc


def train():
    train_data = load_sst_fake(96)
    dev_data = load_sst_fake(32)
    test_data = load_sst_fake(32)

    best_dev_acc = 0.0

    model = LSTMClassifier(embedding_dim=EMBEDDING_DIM, hidden_dim=HIDDEN_DIM,
                           vocab_size=VOCAB, label_size=2,
                           use_gpu=USE_GPU, batch_size=BATCH_SIZE)
    if USE_GPU:
        model = model.cuda()

    timestamp = str(int(time.time()))
    out_dir = os.path.join('runs', 'lstm')  # was: os.path.join(os.path.curdir, "runs", timestamp)
    if not os.path.exists(out_dir):
        os.makedirs(out_dir)
    print('Writing to {}\n'.format(out_dir))

    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    loss_function = nn.NLLLoss()
    no_up = 0
    for i in range(EPOCH):
        print('epoch: %d start!' % i)
        train_epoch(model, train_data, loss_function, optimizer, i)
        print('now best dev acc:', str(best_dev_acc)[:5])
        dev_acc = evaluate(model, dev_data, loss_function, 'dev')
        test_acc = evaluate(model, test_data, loss_function, 'test')
        if dev_acc > best_dev_acc:
            best_dev_acc = dev_acc
            os.system('rm ' + out_dir + '/best_model*.model')
            print('New Best Dev!!!')
            torch.save(model.state_dict(), out_dir + '/best_model' + str(int(test_acc * 10000)) + '.model')
            no_up = 0
        else:
            no_up += 1
            if no_up >= 10:
                exit()
        torch.save(model.state_dict(), out_dir + '/epoch_%d.model' % i)


if __name__ == '__main__':
    train()
