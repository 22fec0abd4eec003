# corpus: PyTorch "static quantization / QAT" tutorial style: QuantStub/DeQuantStub model with fuse_model(), AverageMeter + accuracy(output, target, topk) helpers, train_one_epoch(model, criterion, optimizer, data_loader, device, ntrain_batches) breaking after ntrain_batches and printing '.', get_default_qat_qconfig + prepare_qat, observers disabled and BN stats frozen after some epochs, convert() a copy each epoch and evaluate the int8 model on CPU
import copy
import os
import time
import warnings

import torch
import torch.nn as nn
from torch.ao.quantization import QuantStub, DeQuantStub

warnings.filterwarnings(
    action='ignore',
    category=DeprecationWarning,
    module=r'.*'
)
warnings.filterwarnings(
    action='default',
    module=r'torch.ao.quantization'
)

# Specify random seed for repeatable results
torch.manual_seed(191009)


class ConvBNReLU(nn.Sequential):
    def __init__(self, in_planes, out_planes, kernel_size=3, stride=1):
        padding = (kernel_size - 1) // 2
        super(ConvBNReLU, self).__init__(
            nn.Conv2d(in_planes, out_planes, kernel_size, stride, padding, bias=False),
            nn.BatchNorm2d(out_planes, momentum=0.1),
            nn.ReLU(inplace=False)
        )


class TinyNet(nn.Module):
    def __init__(self, num_classes=4):
        super(TinyNet, self).__init__()
        self.quant = QuantStub()
        self.features = nn.Sequential(
            ConvBNReLU(3, 8, stride=2),
            ConvBNReLU(8, 16, stride=2),
        )
        self.classifier = nn.Linear(16, num_classes)
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.features(x)
        x = x.mean([2, 3])
        x = self.classifier(x)
        x = self.dequant(x)
        return x

    # Fuse Conv+BN and Conv+BN+Relu modules prior to quantization
    def fuse_model(self, is_qat=False):
        fuse_modules = torch.ao.quantization.fuse_modules_qat if is_qat else torch.ao.quantization.fuse_modules
        for m in self.modules():
            if type(m) == ConvBNReLU:
                fuse_modules(m, ['0', '1', '2'], inplace=True)


class AverageMeter(object):
    """Computes and stores the average and current value"""
    def __init__(self, name, fmt=':f'):
        self.name = name
        self.fmt = fmt
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        fmtstr = '{name} {val' + self.fmt + '} ({avg' + self.fmt + '})'
        return fmtstr.format(**self.__dict__)


def accuracy(output, target, topk=(1,)):
    """Computes the accuracy over the k top predictions for the specified values of k"""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)

        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))

        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


def evaluate(model, criterion, data_loader, neval_batches):
    model.eval()
    top1 = AverageMeter('Acc@1', ':6.2f')
    top2 = AverageMeter('Acc@2', ':6.2f')
    cnt = 0
    with torch.no_grad():
        for image, target in data_loader:
            output = model(image)
            loss = criterion(output, target)
            cnt += 1
            acc1, acc2 = accuracy(output, target, topk=(1, 2))
            print('.', end='')
            top1.update(acc1[0], image.size(0))
            top2.update(acc2[0], image.size(0))
            if cnt >= neval_batches:
                return top1, top2

    return top1, top2


def train_one_epoch(model, criterion, optimizer, data_loader, device, ntrain_batches):
    model.train()
    top1 = AverageMeter('Acc@1', ':6.2f')
    top2 = AverageMeter('Acc@2', ':6.2f')
    avgloss = AverageMeter('Loss', '1.5f')

    cnt = 0
    for image, target in data_loader:
        start_time = time.time()
        print('.', end='')
        cnt += 1
        image, target = image.to(device), target.to(device)
        output = model(image)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        acc1, acc2 = accuracy(output, target, topk=(1, 2))
        top1.update(acc1[0], image.size(0))
        top2.update(acc2[0], image.size(0))
        avgloss.update(loss, image.size(0))
        if cnt >= ntrain_batches:
            print('Loss', avgloss.avg)

            print('Training: * Acc@1 {top1.avg:.3f} Acc@2 {top2.avg:.3f}'
                  .format(top1=top1, top2=top2))
            return

    print('Full imagenet train set:  * Acc@1 {top1.global_avg:.3f} Acc@2 {top2.global_avg:.3f}'
          .format(top1=top1, top2=top2))
    return


def prepare_data_loaders():
    # synthetic "imagenet": the class sets the mean color of the image
    def make(n):
        target = torch.randint(0, 4, (n,))
        colors = torch.tensor([[1., 0, 0], [0, 1., 0], [0, 0, 1.], [1., 1., 0]])
        image = torch.randn(n, 3, 16, 16) * 0.7 + colors[target][:, :, None, None]
        return torch.utils.data.TensorDataset(image, target)

    dataset = make(256)
    dataset_test = make(96)

    train_sampler = torch.utils.data.RandomSampler(dataset)
    test_sampler = torch.utils.data.SequentialSampler(dataset_test)

    data_loader = torch.utils.data.DataLoader(
        dataset, batch_size=train_batch_size,
        sampler=train_sampler)

    data_loader_test = torch.utils.data.DataLoader(
        dataset_test, batch_size=eval_batch_size,
        sampler=test_sampler)

    return data_loader, data_loader_test


saved_model_dir = 'data/'
float_model_file = 'tinynet_pretrained_float.pth'
scripted_quantized_model_file = 'tinynet_quantization_scripted_quantized.pth'

train_batch_size = 16
eval_batch_size = 32
num_eval_batches = 3
num_train_batches = 8

data_loader, data_loader_test = prepare_data_loaders()
criterion = nn.CrossEntropyLoss()

# "pretrained" float weights, written here so that the QAT run can load them
os.makedirs(saved_model_dir, exist_ok=True)
torch.save(TinyNet().state_dict(), saved_model_dir + float_model_file)


def load_model(model_file):
    model = TinyNet()
    state_dict = torch.load(model_file, weights_only=True)
    model.load_state_dict(state_dict)
    model.to('cpu')
    return model


qat_model = load_model(saved_model_dir + float_model_file)
qat_model.fuse_model(is_qat=True)

optimizer = torch.optim.SGD(qat_model.parameters(), lr=0.01)
# The old 'fbgemm' is still available but 'x86' is the recommended default.
qat_model.qconfig = torch.ao.quantization.get_default_qat_qconfig('x86')
torch.backends.quantized.engine = 'x86'

torch.ao.quantization.prepare_qat(qat_model, inplace=True)
print('Inverted Residual Block: After preparation for QAT, note fake-quantization modules \n', qat_model.features[1])

num_epochs = 4

# QAT takes time and one needs to train over a few epochs.
# Train and check accuracy after each epoch
for nepoch in range(num_epochs):
    train_one_epoch(qat_model, criterion, optimizer, data_loader, torch.device('cpu'), num_train_batches)
    if nepoch > 2:
        # Freeze quantizer parameters
        qat_model.apply(torch.ao.quantization.disable_observer)
    if nepoch > 1:
        # Freeze batch norm mean and variance estimates
        qat_model.apply(torch.nn.intrinsic.qat.freeze_bn_stats)

    # Check the accuracy after each epoch
    quantized_model = torch.ao.quantization.convert(qat_model.eval(), inplace=False)
    quantized_model.eval()
    top1, top2 = evaluate(quantized_model, criterion, data_loader_test, neval_batches=num_eval_batches)
    print('Epoch %d :Evaluation accuracy on %d images, %2.2f' % (nepoch, num_eval_batches * eval_batch_size, top1.avg))

torch.jit.save(torch.jit.script(quantized_model), saved_model_dir + scripted_quantized_model_file)
