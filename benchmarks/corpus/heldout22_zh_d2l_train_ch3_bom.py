# corpus: Chinese 动手学深度学习-style softmax regression (file saved with a UTF-8 BOM): Accumulator, evaluate_accuracy, train_epoch_ch3/train_ch3(net, train_iter, test_iter, loss, num_epochs, updater), `trainer`, Chinese comments and prints
# -*- coding: utf-8 -*-
# 3.7 softmax回归的简洁实现
# 参考《动手学深度学习》第三章。这里不下载Fashion-MNIST，而是用随机生成的数据代替，
# 图片大小为 1x28x28，一共 10 个类别。
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(0)


def load_array(data_arrays, batch_size, is_train=True):
    """构造一个PyTorch数据迭代器"""
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


def load_data_fake_mnist(batch_size):
    """生成“假的”Fashion-MNIST数据集，返回训练集和测试集的迭代器"""
    train_x = torch.randn(512, 1, 28, 28)
    train_y = torch.randint(0, 10, (512,))
    test_x = torch.randn(128, 1, 28, 28)
    test_y = torch.randint(0, 10, (128,))
    return (load_array((train_x, train_y), batch_size),
            load_array((test_x, test_y), batch_size, is_train=False))


batch_size = 64
train_iter, test_iter = load_data_fake_mnist(batch_size)

# PyTorch不会隐式地调整输入的形状。因此，
# 我们在线性层前定义了展平层（flatten），来调整网络输入的形状
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)

loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.1)


class Accumulator:  #@save
    """在n个变量上累加"""
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def reset(self):
        self.data = [0.0] * len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]


def accuracy(y_hat, y):  #@save
    """计算预测正确的数量"""
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


def evaluate_accuracy(net, data_iter):  #@save
    """计算在指定数据集上模型的精度"""
    if isinstance(net, torch.nn.Module):
        net.eval()  # 将模型设置为评估模式
    metric = Accumulator(2)  # 正确预测数、预测总数
    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


def train_epoch_ch3(net, train_iter, loss, updater):  #@save
    """训练模型一个迭代周期（定义见第3章）"""
    # 将模型设置为训练模式
    if isinstance(net, torch.nn.Module):
        net.train()
    # 训练损失总和、训练准确度总和、样本数
    metric = Accumulator(3)
    for X, y in train_iter:
        # 计算梯度并更新参数
        y_hat = net(X)
        l = loss(y_hat, y)
        if isinstance(updater, torch.optim.Optimizer):
            # 使用PyTorch内置的优化器和损失函数
            updater.zero_grad()
            l.mean().backward()
            updater.step()
        else:
            # 使用定制的优化器和损失函数
            l.sum().backward()
            updater(X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    # 返回训练损失和训练精度
    return metric[0] / metric[2], metric[1] / metric[2]


def train_ch3(net, train_iter, test_iter, loss, num_epochs, updater):  #@save
    """训练模型（定义见第3章）"""
    for epoch in range(num_epochs):
        train_metrics = train_epoch_ch3(net, train_iter, loss, updater)
        test_acc = evaluate_accuracy(net, test_iter)
        train_loss, train_acc = train_metrics
        print(f'第 {epoch + 1} 轮：训练损失 {train_loss:.3f}，训练精度 {train_acc:.3f}，测试精度 {test_acc:.3f}')
    assert train_acc <= 1 and train_acc > 0.0, train_acc
    assert test_acc <= 1 and test_acc > 0.0, test_acc


num_epochs = 3
train_ch3(net, train_iter, test_iter, loss, num_epochs, trainer)

# 保存模型参数，下次可以直接加载
torch.save(net.state_dict(), 'softmax_简洁实现.params')
print('模型参数已保存到 softmax_简洁实现.params')
