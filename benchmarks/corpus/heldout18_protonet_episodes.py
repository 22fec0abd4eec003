# corpus: few-shot research code (Prototypical Networks): N-way K-shot episodes sampled per iteration with torch.randint / randperm from a class-indexed tensor, `for episode in range(n_episodes)` with no DataLoader, prototypes = support embeddings averaged per class, euclidean_dist + log_softmax prototypical loss, StepLR every 20 episodes, val episodes every eval_every with best-acc save, test mean +- 95% CI
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument('-exp', '--experiment_root', type=str, default='output')
    parser.add_argument('-nep', '--n_episodes', type=int, default=100)
    parser.add_argument('-lr', '--learning_rate', type=float, default=0.001)
    parser.add_argument('-lrS', '--lr_scheduler_step', type=int, default=20)
    parser.add_argument('-lrG', '--lr_scheduler_gamma', type=float, default=0.5)
    parser.add_argument('-cTr', '--classes_per_it_tr', type=int, default=5)
    parser.add_argument('-nsTr', '--num_support_tr', type=int, default=5)
    parser.add_argument('-nqTr', '--num_query_tr', type=int, default=5)
    parser.add_argument('--eval_every', type=int, default=25)
    parser.add_argument('--n_val_episodes', type=int, default=10)
    parser.add_argument('--n_test_episodes', type=int, default=30)
    parser.add_argument('-seed', '--manual_seed', type=int, default=7)
    parser.add_argument('--cuda', action='store_true')
    return parser


def make_split(n_classes, n_per_class, dim=32):
    protos = torch.randn(n_classes, dim) * 0.3
    return protos.unsqueeze(1) + torch.randn(n_classes, n_per_class, dim)  # [C, N, D]


def sample_episode(data, n_way, n_support, n_query):
    classes = torch.randperm(data.size(0))[:n_way]
    support, query = [], []
    for c in classes:
        idx = torch.randint(0, data.size(1), (n_support + n_query,))
        support.append(data[c, idx[:n_support]])
        query.append(data[c, idx[n_support:]])
    support = torch.stack(support)  # [n_way, n_support, D]
    query = torch.stack(query)      # [n_way, n_query, D]
    return support, query


def conv_block(in_ch, out_ch):
    return nn.Sequential(nn.Conv1d(in_ch, out_ch, 3, padding=1), nn.BatchNorm1d(out_ch), nn.ReLU(), nn.MaxPool1d(2))


class ProtoNet(nn.Module):
    def __init__(self, hid_dim=16):
        super(ProtoNet, self).__init__()
        self.encoder = nn.Sequential(conv_block(1, hid_dim), conv_block(hid_dim, hid_dim))

    def forward(self, x):
        x = self.encoder(x.unsqueeze(1))
        return x.view(x.size(0), -1)


def euclidean_dist(x, y):
    n, m, d = x.size(0), y.size(0), x.size(1)
    x = x.unsqueeze(1).expand(n, m, d)
    y = y.unsqueeze(0).expand(n, m, d)
    return torch.pow(x - y, 2).sum(2)


def prototypical_loss(model, support, query, device):
    n_way, n_support, dim = support.shape
    n_query = query.size(1)
    x = torch.cat([support.reshape(-1, dim), query.reshape(-1, dim)], 0).to(device)
    z = model(x)
    z_proto = z[:n_way * n_support].view(n_way, n_support, -1).mean(1)
    zq = z[n_way * n_support:]
    log_p_y = F.log_softmax(-euclidean_dist(zq, z_proto), dim=1).view(n_way, n_query, -1)
    target_inds = torch.arange(0, n_way).view(n_way, 1, 1).expand(n_way, n_query, 1).long().to(device)
    loss_val = -log_p_y.gather(2, target_inds).squeeze().view(-1).mean()
    _, y_hat = log_p_y.max(2)
    acc_val = y_hat.eq(target_inds.squeeze(2)).float().mean()
    return loss_val, acc_val


def evaluate(model, data, opt, n_episodes, device):
    model.eval()
    accs = []
    with torch.no_grad():
        for _ in range(n_episodes):
            s, q = sample_episode(data, opt.classes_per_it_tr, opt.num_support_tr, opt.num_query_tr)
            _, acc = prototypical_loss(model, s, q, device)
            accs.append(acc.item())
    model.train()
    return np.mean(accs), 1.96 * np.std(accs) / np.sqrt(n_episodes)


def main():
    opt = get_parser().parse_args()
    os.makedirs(opt.experiment_root, exist_ok=True)
    torch.manual_seed(opt.manual_seed)
    np.random.seed(opt.manual_seed)
    device = 'cuda:0' if torch.cuda.is_available() and opt.cuda else 'cpu'

    train_data = make_split(20, 30)
    val_data = make_split(8, 30)
    test_data = make_split(8, 30)

    model = ProtoNet().to(device)
    optim = torch.optim.Adam(params=model.parameters(), lr=opt.learning_rate)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer=optim, gamma=opt.lr_scheduler_gamma,
                                                   step_size=opt.lr_scheduler_step)
    train_loss, train_acc = [], []
    best_acc = 0
    best_model_path = os.path.join(opt.experiment_root, 'best_model.pth')
    model.train()
    for episode in range(opt.n_episodes):
        support, query = sample_episode(train_data, opt.classes_per_it_tr, opt.num_support_tr, opt.num_query_tr)
        optim.zero_grad()
        loss, acc = prototypical_loss(model, support, query, device)
        loss.backward()
        optim.step()
        lr_scheduler.step()
        train_loss.append(loss.item())
        train_acc.append(acc.item())
        if (episode + 1) % opt.eval_every == 0:
            avg_loss = np.mean(train_loss[-opt.eval_every:])
            avg_acc = np.mean(train_acc[-opt.eval_every:])
            val_acc, _ = evaluate(model, val_data, opt, opt.n_val_episodes, device)
            postfix = ' (Best)' if val_acc >= best_acc else ' (Best: {:.4f})'.format(best_acc)
            print('Episode {}: Avg Train Loss: {:.4f}, Avg Train Acc: {:.4f}, Val Acc: {:.4f}{}'.format(
                episode + 1, avg_loss, avg_acc, val_acc, postfix))
            if val_acc >= best_acc:
                torch.save(model.state_dict(), best_model_path)
                best_acc = val_acc

    torch.save(model.state_dict(), os.path.join(opt.experiment_root, 'last_model.pth'))
    model.load_state_dict(torch.load(best_model_path))
    test_acc, ci = evaluate(model, test_data, opt, opt.n_test_episodes, device)
    print('Test Acc: {:.4f} +- {:.4f}'.format(test_acc, ci))
    np.save(os.path.join(opt.experiment_root, 'train_loss.npy'), np.array(train_loss))


if __name__ == '__main__':
    main()
