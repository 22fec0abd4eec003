# corpus: time-series forecasting repo (Informer/Autoformer/LTSF-Linear exp style): sliding-window Dataset_Custom with flag='train'/'val'/'test' borders and a fitted scaler, Exp_Main class with _build_model/_get_data/_select_optimizer/vali/train(setting)/test(setting), EarlyStopping class saving 'checkpoint.pt' under checkpoints/<setting>/, adjust_learning_rate halving lr every epoch, best model reloaded, metrics .npy saved
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch import optim
from torch.utils.data import DataLoader, Dataset


class StandardScaler():
    def fit(self, data):
        self.mean, self.std = data.mean(0), data.std(0)

    def transform(self, data):
        return (data - self.mean) / self.std


class Dataset_Custom(Dataset):
    def __init__(self, raw, flag='train', size=None, scale=True):
        self.seq_len, self.pred_len = size
        type_map = {'train': 0, 'val': 1, 'test': 2}
        self.set_type = type_map[flag]
        num_train, num_test = int(len(raw) * 0.7), int(len(raw) * 0.2)
        num_vali = len(raw) - num_train - num_test
        border1s = [0, num_train - self.seq_len, len(raw) - num_test - self.seq_len]
        border2s = [num_train, num_train + num_vali, len(raw)]
        border1, border2 = border1s[self.set_type], border2s[self.set_type]
        self.scaler = StandardScaler()
        if scale:
            self.scaler.fit(raw[border1s[0]:border2s[0]])
            data = self.scaler.transform(raw)
        else:
            data = raw
        self.data_x = self.data_y = data[border1:border2]

    def __getitem__(self, index):
        s_end = index + self.seq_len
        return self.data_x[index:s_end], self.data_y[s_end:s_end + self.pred_len]

    def __len__(self):
        return len(self.data_x) - self.seq_len - self.pred_len + 1


class EarlyStopping:
    def __init__(self, patience=7, verbose=False, delta=0):
        self.patience = patience
        self.verbose = verbose
        self.counter, self.best_score, self.early_stop = 0, None, False
        self.val_loss_min = np.inf
        self.delta = delta

    def __call__(self, val_loss, model, path):
        score = -val_loss
        if self.best_score is None:
            self.best_score = score
            self.save_checkpoint(val_loss, model, path)
        elif score < self.best_score + self.delta:
            self.counter += 1
            print(f'EarlyStopping counter: {self.counter} out of {self.patience}')
            if self.counter >= self.patience:
                self.early_stop = True
        else:
            self.best_score = score
            self.save_checkpoint(val_loss, model, path)
            self.counter = 0

    def save_checkpoint(self, val_loss, model, path):
        if self.verbose:
            print(f'Validation loss decreased ({self.val_loss_min:.6f} --> {val_loss:.6f}).  Saving model ...')
        torch.save(model.state_dict(), path + '/' + 'checkpoint.pt')
        self.val_loss_min = val_loss


def adjust_learning_rate(optimizer, epoch, args):
    lr_adjust = {epoch: args.learning_rate * (0.5 ** ((epoch - 1) // 1))}
    if epoch in lr_adjust.keys():
        lr = lr_adjust[epoch]
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        print('Updating learning rate to {}'.format(lr))


class NLinear(nn.Module):
    def __init__(self, configs):
        super(NLinear, self).__init__()
        self.Linear = nn.Linear(configs.seq_len, configs.pred_len)

    def forward(self, x):  # x: [B, L, C]
        seq_last = x[:, -1:, :].detach()
        x = self.Linear((x - seq_last).permute(0, 2, 1)).permute(0, 2, 1)
        return x + seq_last


class Exp_Main(object):
    def __init__(self, args, raw):
        self.args = args
        self.raw = raw
        self.device = torch.device('cuda:0' if args.use_gpu else 'cpu')
        self.model = self._build_model().to(self.device)

    def _build_model(self):
        return NLinear(self.args).float()

    def _get_data(self, flag):
        shuffle_flag = flag == 'train'
        data_set = Dataset_Custom(self.raw, flag=flag, size=[self.args.seq_len, self.args.pred_len])
        data_loader = DataLoader(data_set, batch_size=self.args.batch_size, shuffle=shuffle_flag)
        print(flag, len(data_set))
        return data_set, data_loader

    def _select_optimizer(self):
        return optim.Adam(self.model.parameters(), lr=self.args.learning_rate)

    def vali(self, vali_data, vali_loader, criterion):
        total_loss = []
        self.model.eval()
        with torch.no_grad():
            for batch_x, batch_y in vali_loader:
                outputs = self.model(batch_x.float().to(self.device))
                loss = criterion(outputs.detach().cpu(), batch_y.float())
                total_loss.append(loss)
        total_loss = np.average(total_loss)
        self.model.train()
        return total_loss

    def train(self, setting):
        train_data, train_loader = self._get_data(flag='train')
        vali_data, vali_loader = self._get_data(flag='val')
        path = os.path.join(self.args.checkpoints, setting)
        if not os.path.exists(path):
            os.makedirs(path)
        time_now = time.time()
        train_steps = len(train_loader)
        early_stopping = EarlyStopping(patience=self.args.patience, verbose=True)
        model_optim = self._select_optimizer()
        criterion = nn.MSELoss()
        for epoch in range(self.args.train_epochs):
            iter_count = 0
            train_loss = []
            self.model.train()
            epoch_time = time.time()
            for i, (batch_x, batch_y) in enumerate(train_loader):
                iter_count += 1
                model_optim.zero_grad()
                batch_x = batch_x.float().to(self.device)
                batch_y = batch_y.float().to(self.device)
                outputs = self.model(batch_x)
                loss = criterion(outputs, batch_y)
                train_loss.append(loss.item())
                if (i + 1) % 10 == 0:
                    print("\titers: {0}, epoch: {1} | loss: {2:.7f}".format(i + 1, epoch + 1, loss.item()))
                    speed = (time.time() - time_now) / iter_count
                    print('\tspeed: {:.4f}s/iter'.format(speed))
                    iter_count = 0
                    time_now = time.time()
                loss.backward()
                model_optim.step()
            print("Epoch: {} cost time: {}".format(epoch + 1, time.time() - epoch_time))
            train_loss = np.average(train_loss)
            vali_loss = self.vali(vali_data, vali_loader, criterion)
            print("Epoch: {0}, Steps: {1} | Train Loss: {2:.7f} Vali Loss: {3:.7f}".format(
                epoch + 1, train_steps, train_loss, vali_loss))
            early_stopping(vali_loss, self.model, path)
            if early_stopping.early_stop:
                print("Early stopping")
                break
            adjust_learning_rate(model_optim, epoch + 1, self.args)
        best_model_path = path + '/' + 'checkpoint.pt'
        self.model.load_state_dict(torch.load(best_model_path))
        return self.model

    def test(self, setting):
        test_data, test_loader = self._get_data(flag='test')
        preds, trues = [], []
        self.model.eval()
        with torch.no_grad():
            for batch_x, batch_y in test_loader:
                outputs = self.model(batch_x.float().to(self.device))
                preds.append(outputs.detach().cpu().numpy())
                trues.append(batch_y.numpy())
        preds, trues = np.concatenate(preds, axis=0), np.concatenate(trues, axis=0)
        mae, mse = np.mean(np.abs(preds - trues)), np.mean((preds - trues) ** 2)
        print('mse:{}, mae:{}'.format(mse, mae))
        folder_path = './results/' + setting + '/'
        os.makedirs(folder_path, exist_ok=True)
        np.save(folder_path + 'metrics.npy', np.array([mae, mse]))
        np.save(folder_path + 'pred.npy', preds)


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='NLinear for Time Series Forecasting')
    parser.add_argument('--model_id', type=str, default='synthetic_48_12')
    parser.add_argument('--checkpoints', type=str, default='./checkpoints/')
    parser.add_argument('--seq_len', type=int, default=48)
    parser.add_argument('--pred_len', type=int, default=12)
    parser.add_argument('--train_epochs', type=int, default=6)
    parser.add_argument('--batch_size', type=int, default=32)
    parser.add_argument('--patience', type=int, default=3)
    parser.add_argument('--learning_rate', type=float, default=0.005)
    parser.add_argument('--use_gpu', type=bool, default=True)
    parser.add_argument('--itr', type=int, default=1)  # experiment repetitions
    args = parser.parse_args()
    args.use_gpu = True if torch.cuda.is_available() and args.use_gpu else False

    torch.manual_seed(2021)
    np.random.seed(2021)
    t = torch.arange(800, dtype=torch.float32)
    raw = torch.stack([torch.sin(t / 12) + 0.1 * torch.randn(800), torch.cos(t / 30) + 0.1 * torch.randn(800)], dim=1)

    for ii in range(args.itr):
        setting = '{}_sl{}_pl{}_{}'.format(args.model_id, args.seq_len, args.pred_len, ii)
        exp = Exp_Main(args, raw)
        print('>>>>>>>start training : {}>>>>>>>>>>>>>>>>>>>>>>>>>>'.format(setting))
        exp.train(setting)
        print('>>>>>>>testing : {}<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<'.format(setting))
        exp.test(setting)
