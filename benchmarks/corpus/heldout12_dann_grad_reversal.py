# corpus: DANN domain adaptation repo: ReverseLayerF autograd.Function, source and target loaders walked by hand with iter()/next() over min(len) batches, alpha from the training progress, accuracy on both domains each epoch
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data

cuda = torch.cuda.is_available()
manual_seed = 7
random.seed(manual_seed)
torch.manual_seed(manual_seed)

lr = 1e-3
batch_size = 32
n_epoch = 4
model_root = "models"


class ReverseLayerF(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        output = grad_output.neg() * ctx.alpha
        return output, None


class CNNModel(nn.Module):
    def __init__(self):
        super(CNNModel, self).__init__()
        self.feature = nn.Sequential()
        self.feature.add_module("f_fc1", nn.Linear(20, 48))
        self.feature.add_module("f_bn1", nn.BatchNorm1d(48))
        self.feature.add_module("f_relu1", nn.ReLU(True))
        self.class_classifier = nn.Sequential()
        self.class_classifier.add_module("c_fc1", nn.Linear(48, 32))
        self.class_classifier.add_module("c_relu1", nn.ReLU(True))
        self.class_classifier.add_module("c_drop1", nn.Dropout())
        self.class_classifier.add_module("c_fc2", nn.Linear(32, 5))
        self.class_classifier.add_module("c_softmax", nn.LogSoftmax(dim=1))
        self.domain_classifier = nn.Sequential()
        self.domain_classifier.add_module("d_fc1", nn.Linear(48, 32))
        self.domain_classifier.add_module("d_relu1", nn.ReLU(True))
        self.domain_classifier.add_module("d_fc2", nn.Linear(32, 2))
        self.domain_classifier.add_module("d_softmax", nn.LogSoftmax(dim=1))

    def forward(self, input_data, alpha):
        feature = self.feature(input_data)
        reverse_feature = ReverseLayerF.apply(feature, alpha)
        class_output = self.class_classifier(feature)
        domain_output = self.domain_classifier(reverse_feature)
        return class_output, domain_output


def make_domain(n, shift, seed):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 5, (n,), generator=g)
    protos = torch.randn(5, 20, generator=torch.Generator().manual_seed(0))
    x = protos[labels] + 0.7 * torch.randn(n, 20, generator=g) + shift
    return torch.utils.data.TensorDataset(x, labels)


dataset_source = make_domain(192, 0.0, 1)
dataset_target = make_domain(160, 0.8, 2)
dataloader_source = torch.utils.data.DataLoader(dataset_source, batch_size=batch_size, shuffle=True, drop_last=True)
dataloader_target = torch.utils.data.DataLoader(dataset_target, batch_size=batch_size, shuffle=True, drop_last=True)


def test(dataset_name):
    dataset = dataset_source if dataset_name == "source" else dataset_target
    dataloader = torch.utils.data.DataLoader(dataset, batch_size=64, shuffle=False)
    my_net = torch.load(os.path.join(model_root, "mnist_mnistm_model_epoch_current.pth"), weights_only=False)
    my_net = my_net.eval()
    if cuda:
        my_net = my_net.cuda()
    n_total = 0
    n_correct = 0
    for t_img, t_label in dataloader:
        if cuda:
            t_img, t_label = t_img.cuda(), t_label.cuda()
        class_output, _ = my_net(input_data=t_img, alpha=0)
        pred = class_output.data.max(1, keepdim=True)[1]
        n_correct += pred.eq(t_label.data.view_as(pred)).cpu().sum()
        n_total += t_img.size(0)
    return n_correct.data.numpy() * 1.0 / n_total


my_net = CNNModel()
optimizer = optim.Adam(my_net.parameters(), lr=lr)
loss_class = torch.nn.NLLLoss()
loss_domain = torch.nn.NLLLoss()
if cuda:
    my_net = my_net.cuda()
    loss_class = loss_class.cuda()
    loss_domain = loss_domain.cuda()
for p in my_net.parameters():
    p.requires_grad = True

os.makedirs(model_root, exist_ok=True)
best_accu_t = 0.0
for epoch in range(n_epoch):
    len_dataloader = min(len(dataloader_source), len(dataloader_target))
    data_source_iter = iter(dataloader_source)
    data_target_iter = iter(dataloader_target)

    for i in range(len_dataloader):
        p = float(i + epoch * len_dataloader) / n_epoch / len_dataloader
        alpha = 2.0 / (1.0 + np.exp(-10 * p)) - 1

        # training model using source data
        s_img, s_label = next(data_source_iter)
        my_net.zero_grad()
        batch_size = len(s_label)
        domain_label = torch.zeros(batch_size).long()
        if cuda:
            s_img, s_label, domain_label = s_img.cuda(), s_label.cuda(), domain_label.cuda()
        class_output, domain_output = my_net(input_data=s_img, alpha=alpha)
        err_s_label = loss_class(class_output, s_label)
        err_s_domain = loss_domain(domain_output, domain_label)

        # training model using target data
        t_img, _ = next(data_target_iter)
        batch_size = len(t_img)
        domain_label = torch.ones(batch_size).long()
        if cuda:
            t_img, domain_label = t_img.cuda(), domain_label.cuda()
        _, domain_output = my_net(input_data=t_img, alpha=alpha)
        err_t_domain = loss_domain(domain_output, domain_label)
        err = err_t_domain + err_s_domain + err_s_label
        err.backward()
        optimizer.step()

        if i % 4 == 0:
            print("epoch: %d, [iter: %d / all %d], err_s_label: %f, err_s_domain: %f, err_t_domain: %f"
                  % (epoch, i + 1, len_dataloader, err_s_label.data.cpu().numpy(),
                     err_s_domain.data.cpu().numpy(), err_t_domain.data.cpu().item()))

    torch.save(my_net, "{0}/mnist_mnistm_model_epoch_current.pth".format(model_root))
    accu_s = test("source")
    print("Accuracy of the source dataset: %f" % accu_s)
    accu_t = test("target")
    print("Accuracy of the target dataset: %f" % accu_t)
    if accu_t > best_accu_t:
        best_accu_s = accu_s
        best_accu_t = accu_t
        torch.save(my_net, "{0}/mnist_mnistm_model_epoch_best.pth".format(model_root))

print("============ Summary ============")
print("Accuracy of the source dataset: %f" % best_accu_s)
print("Accuracy of the target dataset: %f" % best_accu_t)
print("Corresponding model was saved in " + model_root + "/mnist_mnistm_model_epoch_best.pth")
