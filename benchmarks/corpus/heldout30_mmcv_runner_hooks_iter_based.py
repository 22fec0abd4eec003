# corpus: mmcv/mmengine-like IterBasedRunner squeezed into one file: Hook classes (LrUpdaterHook with linear warmup + cosine per iter, OptimizerHook with grad_clip, CheckpointHook every N iters, TextLoggerHook with a log_buffer), runner.call_hook('before_train_iter'), model.train_step(data_batch, optimizer) returning outputs dict, IterLoader that restarts on StopIteration, Config as dict-with-attributes
import logging
import math
import os
import os.path as osp
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(format='%(asctime)s - %(name)s - %(levelname)s - %(message)s', level=logging.INFO)
logger = logging.getLogger('mmtiny')


class ConfigDict(dict):
    def __getattr__(self, name):
        value = self[name]
        return ConfigDict(value) if isinstance(value, dict) else value


cfg = ConfigDict(
    seed=2021,
    work_dir='./work_dirs/seg_tiny',
    model=dict(in_ch=3, num_classes=3, width=8),
    data=dict(samples_per_gpu=8, n=96),
    optimizer=dict(type='SGD', lr=0.02, momentum=0.9, weight_decay=5e-4),
    optimizer_config=dict(grad_clip=dict(max_norm=10.0, norm_type=2)),
    lr_config=dict(policy='CosineAnnealing', warmup='linear', warmup_iters=10, warmup_ratio=0.1, min_lr_ratio=0.01),
    runner=dict(type='IterBasedRunner', max_iters=48),
    checkpoint_config=dict(interval=16),
    log_config=dict(interval=8),
    evaluation=dict(interval=24),
)


class Hook:
    def before_run(self, runner): pass
    def after_run(self, runner): pass
    def before_train_iter(self, runner): pass
    def after_train_iter(self, runner): pass


class LrUpdaterHook(Hook):
    def __init__(self, warmup_iters, warmup_ratio, min_lr_ratio):
        self.warmup_iters = warmup_iters
        self.warmup_ratio = warmup_ratio
        self.min_lr_ratio = min_lr_ratio

    def before_run(self, runner):
        for group in runner.optimizer.param_groups:
            group.setdefault('initial_lr', group['lr'])
        self.base_lr = [group['initial_lr'] for group in runner.optimizer.param_groups]

    def get_lr(self, runner, base_lr):
        progress = runner.iter / runner.max_iters
        target = base_lr * self.min_lr_ratio
        return target + 0.5 * (base_lr - target) * (1 + math.cos(math.pi * progress))

    def before_train_iter(self, runner):
        regular = [self.get_lr(runner, lr) for lr in self.base_lr]
        if runner.iter < self.warmup_iters:
            k = (1 - runner.iter / self.warmup_iters) * (1 - self.warmup_ratio)
            lrs = [lr * (1 - k) for lr in regular]
        else:
            lrs = regular
        for group, lr in zip(runner.optimizer.param_groups, lrs):
            group['lr'] = lr


class OptimizerHook(Hook):
    def __init__(self, grad_clip=None):
        self.grad_clip = grad_clip

    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        runner.outputs['loss'].backward()
        if self.grad_clip is not None:
            params = [p for p in runner.model.parameters() if p.requires_grad and p.grad is not None]
            grad_norm = nn.utils.clip_grad_norm_(params, **self.grad_clip)
            runner.log_buffer.update({'grad_norm': float(grad_norm)}, runner.outputs['num_samples'])
        runner.optimizer.step()


class CheckpointHook(Hook):
    def __init__(self, interval):
        self.interval = interval

    def after_train_iter(self, runner):
        if (runner.iter + 1) % self.interval == 0:
            runner.save_checkpoint(runner.work_dir, 'iter_{}.pth'.format(runner.iter + 1))


class EvalHook(Hook):
    def __init__(self, dataloader, interval):
        self.dataloader = dataloader
        self.interval = interval
        self.best_miou = -1.0

    def after_train_iter(self, runner):
        if (runner.iter + 1) % self.interval != 0:
            return
        runner.model.eval()
        inter = torch.zeros(3)
        union = torch.zeros(3)
        with torch.no_grad():
            for img, seg in self.dataloader:
                pred = runner.model(img).argmax(1)
                for c in range(3):
                    inter[c] += ((pred == c) & (seg == c)).sum()
                    union[c] += ((pred == c) | (seg == c)).sum()
        miou = (inter / union.clamp(min=1)).mean().item()
        runner.logger.info('Iter(val) [%d] mIoU: %.4f', runner.iter + 1, miou)
        if miou > self.best_miou:
            self.best_miou = miou
            runner.save_checkpoint(runner.work_dir, 'best_mIoU.pth')
            runner.logger.info('Now best checkpoint is saved as best_mIoU.pth.')
        runner.model.train()


class LogBuffer:
    def __init__(self):
        self.val_history = OrderedDict()
        self.n_history = OrderedDict()
        self.output = OrderedDict()

    def update(self, vars, count=1):
        for key, var in vars.items():
            self.val_history.setdefault(key, []).append(var)
            self.n_history.setdefault(key, []).append(count)

    def average(self, n=0):
        for key in self.val_history:
            values = self.val_history[key][-n:]
            nums = self.n_history[key][-n:]
            self.output[key] = sum(v * c for v, c in zip(values, nums)) / sum(nums)

    def clear_output(self):
        self.output.clear()


class TextLoggerHook(Hook):
    def __init__(self, interval):
        self.interval = interval

    def after_train_iter(self, runner):
        if (runner.iter + 1) % self.interval == 0:
            runner.log_buffer.average(self.interval)
            items = ', '.join('{}: {:.4f}'.format(k, v) for k, v in runner.log_buffer.output.items())
            runner.logger.info('Iter [%d/%d]\tlr: %.3e, %s', runner.iter + 1, runner.max_iters,
                               runner.optimizer.param_groups[0]['lr'], items)
            runner.log_buffer.clear_output()


class IterLoader:
    def __init__(self, dataloader):
        self._dataloader = dataloader
        self.iter_loader = iter(self._dataloader)
        self._epoch = 0

    @property
    def epoch(self):
        return self._epoch

    def __next__(self):
        try:
            data = next(self.iter_loader)
        except StopIteration:
            self._epoch += 1
            self.iter_loader = iter(self._dataloader)
            data = next(self.iter_loader)
        return data

    def __len__(self):
        return len(self._dataloader)


class TinySegmentor(nn.Module):
    def __init__(self, in_ch, num_classes, width):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(in_ch, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
        )
        self.decode_head = nn.Conv2d(width, num_classes, 1)

    def forward(self, img):
        return self.decode_head(self.backbone(img))

    def train_step(self, data_batch, optimizer):
        img, gt = data_batch
        logits = self(img)
        loss_ce = F.cross_entropy(logits, gt)
        acc = (logits.argmax(1) == gt).float().mean()
        log_vars = OrderedDict(loss_ce=loss_ce.item(), acc_seg=acc.item() * 100)
        return dict(loss=loss_ce, log_vars=log_vars, num_samples=img.size(0))


class IterBasedRunner:
    def __init__(self, model, optimizer, work_dir, logger, max_iters):
        self.model = model
        self.optimizer = optimizer
        self.work_dir = work_dir
        self.logger = logger
        self.max_iters = max_iters
        self._iter = 0
        self._hooks = []
        self.log_buffer = LogBuffer()
        self.outputs = None
        os.makedirs(work_dir, exist_ok=True)

    @property
    def iter(self):
        return self._iter

    def register_hook(self, hook):
        self._hooks.append(hook)

    def call_hook(self, fn_name):
        for hook in self._hooks:
            getattr(hook, fn_name)(self)

    def train(self, data_loader):
        self.model.train()
        self.data_loader = data_loader
        data_batch = next(data_loader)
        self.call_hook('before_train_iter')
        outputs = self.model.train_step(data_batch, self.optimizer)
        self.log_buffer.update(outputs['log_vars'], outputs['num_samples'])
        self.outputs = outputs
        self.call_hook('after_train_iter')
        self._iter += 1

    def run(self, data_loader):
        iter_loader = IterLoader(data_loader)
        self.logger.info('Start running, work_dir: %s', self.work_dir)
        self.logger.info('max: %d iters', self.max_iters)
        self.call_hook('before_run')
        while self.iter < self.max_iters:
            self.train(iter_loader)
        self.call_hook('after_run')

    def save_checkpoint(self, out_dir, filename):
        checkpoint = {
            'meta': dict(iter=self.iter + 1, epoch=getattr(self.data_loader, 'epoch', 0)),
            'state_dict': self.model.state_dict(),
            'optimizer': self.optimizer.state_dict(),
        }
        torch.save(checkpoint, osp.join(out_dir, filename))


def build_dataset(n, seed):
    g = torch.Generator().manual_seed(seed)
    img = torch.randn(n, 3, 12, 12, generator=g)
    seg = torch.zeros(n, 12, 12, dtype=torch.long)
    seg[img[:, 0] > 0.5] = 1
    seg[img[:, 1] > 0.8] = 2
    return TensorDataset(img, seg)


def train_segmentor(model, dataset, val_dataset, cfg):
    data_loader = DataLoader(dataset, batch_size=cfg.data.samples_per_gpu, shuffle=True, drop_last=True)
    opt_cfg = dict(cfg.optimizer)
    opt_type = opt_cfg.pop('type')
    optimizer = getattr(torch.optim, opt_type)(model.parameters(), **opt_cfg)
    runner = IterBasedRunner(model, optimizer, cfg.work_dir, logger, cfg.runner.max_iters)
    lr_cfg = cfg.lr_config
    runner.register_hook(LrUpdaterHook(lr_cfg.warmup_iters, lr_cfg.warmup_ratio, lr_cfg.min_lr_ratio))
    runner.register_hook(OptimizerHook(**cfg.optimizer_config))
    runner.register_hook(CheckpointHook(cfg.checkpoint_config.interval))
    runner.register_hook(TextLoggerHook(cfg.log_config.interval))
    val_loader = DataLoader(val_dataset, batch_size=16, shuffle=False)
    runner.register_hook(EvalHook(val_loader, cfg.evaluation.interval))
    runner.run(data_loader)


if __name__ == '__main__':
    torch.manual_seed(cfg.seed)
    model = TinySegmentor(**cfg.model)
    train_segmentor(model, build_dataset(cfg.data.n, 0), build_dataset(32, 1), cfg)
