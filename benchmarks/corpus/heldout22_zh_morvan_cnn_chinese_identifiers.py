# corpus: Chinese blog rewrite of 莫烦Python 401_CNN with Chinese identifiers (训练数据, 损失函数, 优化器): EPOCH/BATCH_SIZE/LR globals, `for step, (b_x, b_y) in enumerate(...)`, forward returns (output, x), test accuracy every 5 steps via numpy, prediction print
# -*- coding: utf-8 -*-
"""
用中文变量名写一个卷积神经网络（仿照莫烦Python的CNN教程）
数据：随机生成的 1x28x28 “手写数字”，共 10 类
"""
import torch
import torch.nn as nn
import torch.utils.data as Data

torch.manual_seed(1)    # reproducible 可复现

# 超参数 Hyper Parameters
EPOCH = 2               # 训练整批数据多少次
BATCH_SIZE = 50
LR = 0.001              # 学习率

# 随机生成训练数据（代替 torchvision.datasets.MNIST）
训练图片 = torch.rand(400, 1, 28, 28)
训练标签 = torch.randint(0, 10, (400,))
训练数据 = Data.TensorDataset(训练图片, 训练标签)

# 批训练 50 samples, 1 channel, 28x28 (50, 1, 28, 28)
训练加载器 = Data.DataLoader(dataset=训练数据, batch_size=BATCH_SIZE, shuffle=True)

# 测试集：只取前 200 个
测试_x = torch.rand(200, 1, 28, 28)
测试_y = torch.randint(0, 10, (200,))


class 卷积网络(nn.Module):
    def __init__(self):
        super(卷积网络, self).__init__()
        self.conv1 = nn.Sequential(  # input shape (1, 28, 28)
            nn.Conv2d(
                in_channels=1,       # input height
                out_channels=16,     # n_filters
                kernel_size=5,       # filter size
                stride=1,            # filter movement/step
                padding=2,           # 如果想要 con2d 出来的图片长宽没有变化, padding=(kernel_size-1)/2 当 stride=1
            ),                       # output shape (16, 28, 28)
            nn.ReLU(),               # activation
            nn.MaxPool2d(kernel_size=2),  # 在 2x2 空间里向下采样, output shape (16, 14, 14)
        )
        self.conv2 = nn.Sequential(  # input shape (16, 14, 14)
            nn.Conv2d(16, 32, 5, 1, 2),  # output shape (32, 14, 14)
            nn.ReLU(),
            nn.MaxPool2d(2),         # output shape (32, 7, 7)
        )
        self.out = nn.Linear(32 * 7 * 7, 10)   # 全连接层，输出10个类

    def forward(self, x):
        x = self.conv1(x)
        x = self.conv2(x)
        x = x.view(x.size(0), -1)   # 展平多维的卷积图成 (batch_size, 32 * 7 * 7)
        output = self.out(x)
        return output, x            # 顺便返回 x，方便可视化


网络 = 卷积网络()
print(网络)  # 打印网络结构

优化器 = torch.optim.Adam(网络.parameters(), lr=LR)   # 优化所有参数
损失函数 = nn.CrossEntropyLoss()   # 目标标签不是 one-hot 形式的

# 训练和测试
for epoch in range(EPOCH):
    for step, (b_x, b_y) in enumerate(训练加载器):   # 分配 batch data, normalize x when iterate train_loader
        输出 = 网络(b_x)[0]             # cnn output
        损失 = 损失函数(输出, b_y)      # cross entropy loss
        优化器.zero_grad()              # 清空上一步的梯度
        损失.backward()                 # 反向传播，计算梯度
        优化器.step()                   # 更新参数

        if step % 5 == 0:
            测试输出, 最后一层 = 网络(测试_x)
            预测_y = torch.max(测试输出, 1)[1].data.numpy()
            准确率 = float((预测_y == 测试_y.data.numpy()).astype(int).sum()) / float(测试_y.size(0))
            print('Epoch: ', epoch, '| 训练损失: %.4f' % 损失.data.numpy(), '| 测试准确率: %.2f' % 准确率)

# 打印前 10 个测试数据的预测结果
测试输出, _ = 网络(测试_x[:10])
预测_y = torch.max(测试输出, 1)[1].data.numpy()
print(预测_y, '预测的数字')
print(测试_y[:10].numpy(), '真实的数字')
torch.save(网络.state_dict(), 'cnn_参数.pkl')
