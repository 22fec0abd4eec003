# corpus: MAML research repo (dragen1860/MAML-Pytorch style) on sine regression: Learner with self.vars = nn.ParameterList and forward(x, vars=None), Meta(nn.Module) whose forward(x_spt, y_spt, x_qry, y_qry) runs the inner loop with torch.autograd.grad and fast_weights lists and calls self.meta_optim.step() itself, finetunning() on a deepcopy for test, argparse with defaults, main()
import argparse
from copy import deepcopy

import numpy as np
import torch
from torch import nn
from torch import optim
from torch.nn import functional as F


class Learner(nn.Module):
    """
    a tiny MLP whose weights can be swapped for fast weights
    """

    def __init__(self, config):
        super(Learner, self).__init__()
        self.config = config
        # this dict contains all tensors needed to be optimized
        self.vars = nn.ParameterList()

        for i, (name, param) in enumerate(self.config):
            if name == 'linear':
                # [ch_out, ch_in]
                w = nn.Parameter(torch.ones(*param))
                torch.nn.init.kaiming_normal_(w)
                self.vars.append(w)
                # [ch_out]
                self.vars.append(nn.Parameter(torch.zeros(param[0])))
            elif name in ['relu', 'tanh']:
                continue
            else:
                raise NotImplementedError

    def forward(self, x, vars=None):
        if vars is None:
            vars = self.vars

        idx = 0
        for name, param in self.config:
            if name == 'linear':
                w, b = vars[idx], vars[idx + 1]
                x = F.linear(x, w, b)
                idx += 2
            elif name == 'relu':
                x = F.relu(x, inplace=param[0])
            elif name == 'tanh':
                x = torch.tanh(x)

        # make sure variable is used properly
        assert idx == len(vars)
        return x

    def zero_grad(self, vars=None):
        with torch.no_grad():
            if vars is None:
                for p in self.vars:
                    if p.grad is not None:
                        p.grad.zero_()
            else:
                for p in vars:
                    if p.grad is not None:
                        p.grad.zero_()

    def parameters(self):
        """
        override this function since initial parameters will return with a generator.
        """
        return self.vars


class Meta(nn.Module):
    """
    Meta Learner
    """

    def __init__(self, args, config):
        super(Meta, self).__init__()
        self.update_lr = args.update_lr
        self.meta_lr = args.meta_lr
        self.k_spt = args.k_spt
        self.k_qry = args.k_qry
        self.task_num = args.task_num
        self.update_step = args.update_step
        self.update_step_test = args.update_step_test

        self.net = Learner(config)
        self.meta_optim = optim.Adam(self.net.parameters(), lr=self.meta_lr)

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        """
        :param x_spt:   [b, setsz, 1]
        :param y_spt:   [b, setsz, 1]
        :param x_qry:   [b, querysz, 1]
        :param y_qry:   [b, querysz, 1]
        :return:
        """
        task_num = x_spt.size(0)
        losses_q = [0 for _ in range(self.update_step + 1)]  # losses_q[i] is the loss on step i

        for i in range(task_num):

            # 1. run the i-th task and compute loss for k=0
            logits = self.net(x_spt[i], vars=None)
            loss = F.mse_loss(logits, y_spt[i])
            grad = torch.autograd.grad(loss, self.net.parameters(), create_graph=True)
            fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, self.net.parameters())))

            # this is the loss before first update
            with torch.no_grad():
                logits_q = self.net(x_qry[i], self.net.parameters())
                loss_q = F.mse_loss(logits_q, y_qry[i])
                losses_q[0] += loss_q
            # this is the loss after the first update
            logits_q = self.net(x_qry[i], fast_weights)
            loss_q = F.mse_loss(logits_q, y_qry[i])
            losses_q[1] += loss_q

            for k in range(1, self.update_step):
                # 1. run the i-th task and compute loss for k=1~K-1
                logits = self.net(x_spt[i], fast_weights)
                loss = F.mse_loss(logits, y_spt[i])
                # 2. compute grad on theta_pi
                grad = torch.autograd.grad(loss, fast_weights, create_graph=True)
                # 3. theta_pi = theta_pi - train_lr * grad
                fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, fast_weights)))

                logits_q = self.net(x_qry[i], fast_weights)
                # loss_q will be overwritten and just keep the loss_q on last update step.
                loss_q = F.mse_loss(logits_q, y_qry[i])
                losses_q[k + 1] += loss_q

        # end of all tasks
        # sum over all losses on query set across all tasks
        loss_q = losses_q[-1] / task_num

        # optimize theta parameters
        self.meta_optim.zero_grad()
        loss_q.backward()
        self.meta_optim.step()

        losses = np.array([float(l) / task_num for l in losses_q])
        return losses

    def finetunning(self, x_spt, y_spt, x_qry, y_qry):
        losses_q = [0 for _ in range(self.update_step_test + 1)]

        # in order to not ruin the state of running_mean/variance and bn_weight/bias
        # we finetunning on the copied model instead of self.net
        net = deepcopy(self.net)

        logits = net(x_spt)
        loss = F.mse_loss(logits, y_spt)
        grad = torch.autograd.grad(loss, net.parameters())
        fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, net.parameters())))

        with torch.no_grad():
            losses_q[0] = F.mse_loss(net(x_qry, net.parameters()), y_qry).item()

        for k in range(1, self.update_step_test + 1):
            logits = net(x_spt, fast_weights)
            loss = F.mse_loss(logits, y_spt)
            grad = torch.autograd.grad(loss, fast_weights)
            fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, fast_weights)))
            with torch.no_grad():
                losses_q[k] = F.mse_loss(net(x_qry, fast_weights), y_qry).item()

        del net
        return np.array(losses_q)


class SineNShot:
    def __init__(self, batchsz, k_shot, k_query):
        self.batchsz = batchsz
        self.k_shot = k_shot
        self.k_query = k_query

    def next(self):
        amp = torch.rand(self.batchsz, 1, 1) * 4.9 + 0.1
        phase = torch.rand(self.batchsz, 1, 1) * np.pi
        x_spt = torch.rand(self.batchsz, self.k_shot, 1) * 10 - 5
        x_qry = torch.rand(self.batchsz, self.k_query, 1) * 10 - 5
        y_spt = amp * torch.sin(x_spt - phase)
        y_qry = amp * torch.sin(x_qry - phase)
        return x_spt, y_spt, x_qry, y_qry


def main():
    torch.manual_seed(222)
    np.random.seed(222)

    print(args)

    config = [
        ('linear', [40, 1]),
        ('relu', [True]),
        ('linear', [40, 40]),
        ('relu', [True]),
        ('linear', [1, 40]),
    ]

    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    maml = Meta(args, config).to(device)

    tmp = filter(lambda x: x.requires_grad, maml.parameters())
    num = sum(map(lambda x: np.prod(x.shape), tmp))
    print(maml)
    print('Total trainable tensors:', num)

    db_train = SineNShot(batchsz=args.task_num, k_shot=args.k_spt, k_query=args.k_qry)

    for step in range(args.epoch):

        x_spt, y_spt, x_qry, y_qry = db_train.next()
        x_spt, y_spt, x_qry, y_qry = x_spt.to(device), y_spt.to(device), x_qry.to(device), y_qry.to(device)

        # set traning=True to update running_mean, running_variance, bn_weights, bn_bias
        losses = maml(x_spt, y_spt, x_qry, y_qry)

        if step % 10 == 0:
            print('step:', step, '\ttraining loss:', np.round(losses, 4))

        if step % 20 == 0:
            losses = []
            for _ in range(2):
                x_spt, y_spt, x_qry, y_qry = db_train.next()
                x_spt, y_spt, x_qry, y_qry = x_spt.to(device), y_spt.to(device), x_qry.to(device), y_qry.to(device)

                # split to single task each time
                for x_spt_one, y_spt_one, x_qry_one, y_qry_one in zip(x_spt, y_spt, x_qry, y_qry):
                    test_loss = maml.finetunning(x_spt_one, y_spt_one, x_qry_one, y_qry_one)
                    losses.append(test_loss)

            # [b, update_step+1]
            losses = np.array(losses).mean(axis=0).astype(np.float32)
            print('Test loss:', np.round(losses, 4))

    torch.save(maml.state_dict(), 'maml_sine.pth')


if __name__ == '__main__':

    argparser = argparse.ArgumentParser()
    argparser.add_argument('--epoch', type=int, help='epoch number', default=41)
    argparser.add_argument('--k_spt', type=int, help='k shot for support set', default=10)
    argparser.add_argument('--k_qry', type=int, help='k shot for query set', default=15)
    argparser.add_argument('--task_num', type=int, help='meta batch size, namely task num', default=3)
    argparser.add_argument('--meta_lr', type=float, help='meta-level outer learning rate', default=1e-3)
    argparser.add_argument('--update_lr', type=float, help='task-level inner update learning rate', default=0.003)
    argparser.add_argument('--update_step', type=int, help='task-level inner update steps', default=3)
    argparser.add_argument('--update_step_test', type=int, help='update steps for finetunning', default=5)

    args = argparser.parse_args()

    main()
