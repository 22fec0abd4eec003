# corpus: knowledge-distillation repo: Params object with dict-style hyper-parameters, teacher trained briefly then reloaded from 'teacher_best.pth.tar' and frozen in eval mode, loss_fn_kd(outputs, labels, teacher_outputs, params) with alpha and temperature (KLDiv * T*T), RunningAverage, train_kd()/evaluate() per epoch with metrics dicts, best student saved by val accuracy
import argparse
import logging
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument('--model_dir', default='experiments/cnn_distill', help='Directory for params and checkpoints')
parser.add_argument('--seed', default=230, type=int)


class Params():
    """Hyper-parameters, normally loaded from params.json"""
    def __init__(self, d):
        self.__dict__.update(d)

    @property
    def dict(self):
        return self.__dict__


class RunningAverage():
    def __init__(self):
        self.steps = 0
        self.total = 0

    def update(self, val):
        self.total += val
        self.steps += 1

    def __call__(self):
        return self.total / float(self.steps)


def make_net(width):
    return nn.Sequential(nn.Linear(40, width), nn.ReLU(), nn.Dropout(0.2), nn.Linear(width, width),
                         nn.ReLU(), nn.Linear(width, 5))


def loss_fn(outputs, labels):
    return nn.CrossEntropyLoss()(outputs, labels)


def loss_fn_kd(outputs, labels, teacher_outputs, params):
    alpha = params.alpha
    T = params.temperature
    KD_loss = nn.KLDivLoss(reduction='batchmean')(F.log_softmax(outputs / T, dim=1),
                                                  F.softmax(teacher_outputs / T, dim=1)) * (alpha * T * T) + \
        F.cross_entropy(outputs, labels) * (1. - alpha)
    return KD_loss


def accuracy(outputs, labels):
    outputs = np.argmax(outputs, axis=1)
    return np.sum(outputs == labels) / float(labels.size)


metrics = {'accuracy': accuracy}


def evaluate(model, loss_fn, dataloader, metrics, params):
    model.eval()
    summ = []
    with torch.no_grad():
        for data_batch, labels_batch in dataloader:
            if params.cuda:
                data_batch, labels_batch = data_batch.cuda(), labels_batch.cuda()
            output_batch = model(data_batch)
            loss = loss_fn(output_batch, labels_batch)
            output_batch = output_batch.data.cpu().numpy()
            labels_batch = labels_batch.data.cpu().numpy()
            summary_batch = {metric: metrics[metric](output_batch, labels_batch) for metric in metrics}
            summary_batch['loss'] = loss.item()
            summ.append(summary_batch)
    metrics_mean = {metric: np.mean([x[metric] for x in summ]) for metric in summ[0]}
    logging.info("- Eval metrics : " + " ; ".join("{}: {:05.3f}".format(k, v) for k, v in metrics_mean.items()))
    return metrics_mean


def train_teacher(model, optimizer, dataloader, params):
    model.train()
    for epoch in range(params.teacher_epochs):
        loss_avg = RunningAverage()
        for train_batch, labels_batch in dataloader:
            if params.cuda:
                train_batch, labels_batch = train_batch.cuda(), labels_batch.cuda()
            loss = loss_fn(model(train_batch), labels_batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_avg.update(loss.item())
        logging.info("teacher epoch {} loss {:05.3f}".format(epoch + 1, loss_avg()))


def train_kd(model, teacher_model, optimizer, loss_fn_kd, dataloader, metrics, params):
    model.train()
    teacher_model.eval()
    loss_avg = RunningAverage()
    summ = []
    for i, (train_batch, labels_batch) in enumerate(dataloader):
        if params.cuda:
            train_batch, labels_batch = train_batch.cuda(), labels_batch.cuda()
        output_batch = model(train_batch)
        with torch.no_grad():
            output_teacher_batch = teacher_model(train_batch)
        loss = loss_fn_kd(output_batch, labels_batch, output_teacher_batch, params)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % params.save_summary_steps == 0:
            output_np = output_batch.data.cpu().numpy()
            labels_np = labels_batch.data.cpu().numpy()
            summary_batch = {metric: metrics[metric](output_np, labels_np) for metric in metrics}
            summary_batch['loss'] = loss.item()
            summ.append(summary_batch)
        loss_avg.update(loss.item())
    metrics_mean = {metric: np.mean([x[metric] for x in summ]) for metric in summ[0]}
    logging.info("- Train metrics: " + " ; ".join("{}: {:05.3f}".format(k, v) for k, v in metrics_mean.items()))


if __name__ == '__main__':
    args = parser.parse_args()
    os.makedirs(args.model_dir, exist_ok=True)
    logging.basicConfig(level=logging.INFO, format='%(message)s')
    params = Params({'learning_rate': 1e-3, 'batch_size': 32, 'num_epochs': 4, 'teacher_epochs': 3,
                     'alpha': 0.9, 'temperature': 4, 'save_summary_steps': 2})
    params.cuda = torch.cuda.is_available()
    torch.manual_seed(args.seed)
    if params.cuda:
        torch.cuda.manual_seed(args.seed)

    x = torch.randn(480, 40)
    y = (x[:, :5].argmax(1) + (x[:, 5] > 1).long()) % 5
    train_dl = DataLoader(TensorDataset(x[:384], y[:384]), batch_size=params.batch_size, shuffle=True)
    dev_dl = DataLoader(TensorDataset(x[384:], y[384:]), batch_size=params.batch_size)

    logging.info("Training the teacher")
    teacher = make_net(128).cuda() if params.cuda else make_net(128)
    train_teacher(teacher, optim.Adam(teacher.parameters(), lr=params.learning_rate), train_dl, params)
    torch.save({'state_dict': teacher.state_dict()}, os.path.join(args.model_dir, 'teacher_best.pth.tar'))

    teacher_model = make_net(128).cuda() if params.cuda else make_net(128)
    checkpoint = torch.load(os.path.join(args.model_dir, 'teacher_best.pth.tar'))
    teacher_model.load_state_dict(checkpoint['state_dict'])
    for p in teacher_model.parameters():
        p.requires_grad = False

    model = make_net(16).cuda() if params.cuda else make_net(16)
    optimizer = optim.Adam(model.parameters(), lr=params.learning_rate)

    logging.info("Starting training for {} epoch(s)".format(params.num_epochs))
    best_val_acc = 0.0
    for epoch in range(params.num_epochs):
        logging.info("Epoch {}/{}".format(epoch + 1, params.num_epochs))
        train_kd(model, teacher_model, optimizer, loss_fn_kd, train_dl, metrics, params)
        val_metrics = evaluate(model, loss_fn, dev_dl, metrics, params)
        val_acc = val_metrics['accuracy']
        if val_acc >= best_val_acc:
            logging.info("- Found new best accuracy")
            best_val_acc = val_acc
            torch.save({'epoch': epoch + 1, 'state_dict': model.state_dict(), 'optim_dict': optimizer.state_dict()},
                       os.path.join(args.model_dir, 'best.pth.tar'))
    logging.info("teacher dev acc {:05.3f}".format(evaluate(teacher_model, loss_fn, dev_dl, metrics, params)['accuracy']))
