# corpus: GAN inside a Solver class (StarGAN/CycleGAN-repo style): config Namespace from parse_args([]), build_G/build_D, two Adam optimizers, train() with d_step/g_step methods, AverageMeter dict, lr linear decay after half, save_checkpoint/restore_model with G/D/optimizers, sample grid tensor saved
import argparse
import datetime
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class Generator(nn.Module):
    def __init__(self, z_dim=8, conv_dim=16):
        super().__init__()
        self.fc = nn.Linear(z_dim, conv_dim * 2 * 4 * 4)
        self.main = nn.Sequential(
            nn.BatchNorm2d(conv_dim * 2), nn.ReLU(True),
            nn.ConvTranspose2d(conv_dim * 2, conv_dim, 4, 2, 1), nn.BatchNorm2d(conv_dim), nn.ReLU(True),
            nn.ConvTranspose2d(conv_dim, 1, 4, 2, 1), nn.Tanh(),
        )
        self.conv_dim = conv_dim

    def forward(self, z):
        h = self.fc(z).view(z.size(0), self.conv_dim * 2, 4, 4)
        return self.main(h)


class Discriminator(nn.Module):
    def __init__(self, conv_dim=16):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, conv_dim, 4, 2, 1), nn.LeakyReLU(0.01),
            nn.Conv2d(conv_dim, conv_dim * 2, 4, 2, 1), nn.LeakyReLU(0.01),
        )
        self.out = nn.Conv2d(conv_dim * 2, 1, 4, 1, 0)

    def forward(self, x):
        return self.out(self.main(x)).view(-1)


def get_loader(config):
    # "real" images: blurred blobs on a 16x16 canvas
    torch.manual_seed(config.seed)
    n = 128
    yy, xx = torch.meshgrid(torch.arange(16.), torch.arange(16.), indexing="ij")
    cx = torch.rand(n, 1, 1) * 8 + 4
    cy = torch.rand(n, 1, 1) * 8 + 4
    imgs = torch.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / 8.0) * 2 - 1
    ds = torch.utils.data.TensorDataset(imgs.unsqueeze(1))
    return torch.utils.data.DataLoader(ds, batch_size=config.batch_size, shuffle=True, drop_last=True)


class Solver(object):
    """Solver for training and testing the GAN."""

    def __init__(self, data_loader, config):
        self.data_loader = data_loader
        self.z_dim = config.z_dim
        self.g_conv_dim = config.g_conv_dim
        self.d_conv_dim = config.d_conv_dim
        self.g_lr = config.g_lr
        self.d_lr = config.d_lr
        self.beta1 = config.beta1
        self.beta2 = config.beta2
        self.num_epochs = config.num_epochs
        self.num_epochs_decay = config.num_epochs_decay
        self.n_critic = config.n_critic
        self.resume_epoch = config.resume_epoch
        self.log_step = config.log_step
        self.model_save_dir = config.model_save_dir
        self.sample_dir = config.sample_dir
        self.device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
        self.build_model()

    def build_model(self):
        self.G = Generator(self.z_dim, self.g_conv_dim)
        self.D = Discriminator(self.d_conv_dim)
        self.g_optimizer = torch.optim.Adam(self.G.parameters(), self.g_lr, [self.beta1, self.beta2])
        self.d_optimizer = torch.optim.Adam(self.D.parameters(), self.d_lr, [self.beta1, self.beta2])
        self.print_network(self.G, 'G')
        self.print_network(self.D, 'D')
        self.G.to(self.device)
        self.D.to(self.device)

    def print_network(self, model, name):
        num_params = 0
        for p in model.parameters():
            num_params += p.numel()
        print(name)
        print("The number of parameters: {}".format(num_params))

    def restore_model(self, resume_epoch):
        print('Loading the trained models from epoch {}...'.format(resume_epoch))
        path = os.path.join(self.model_save_dir, '{}-ckpt.pth'.format(resume_epoch))
        ckpt = torch.load(path, map_location=lambda storage, loc: storage)
        self.G.load_state_dict(ckpt['G'])
        self.D.load_state_dict(ckpt['D'])
        self.g_optimizer.load_state_dict(ckpt['g_optimizer'])
        self.d_optimizer.load_state_dict(ckpt['d_optimizer'])

    def save_checkpoint(self, epoch):
        path = os.path.join(self.model_save_dir, '{}-ckpt.pth'.format(epoch))
        torch.save({'epoch': epoch,
                    'G': self.G.state_dict(), 'D': self.D.state_dict(),
                    'g_optimizer': self.g_optimizer.state_dict(),
                    'd_optimizer': self.d_optimizer.state_dict()}, path)
        print('Saved model checkpoints into {}...'.format(path))

    def update_lr(self, g_lr, d_lr):
        for param_group in self.g_optimizer.param_groups:
            param_group['lr'] = g_lr
        for param_group in self.d_optimizer.param_groups:
            param_group['lr'] = d_lr

    def reset_grad(self):
        self.g_optimizer.zero_grad()
        self.d_optimizer.zero_grad()

    def d_step(self, x_real):
        z = torch.randn(x_real.size(0), self.z_dim, device=self.device)
        out_real = self.D(x_real)
        d_loss_real = F.binary_cross_entropy_with_logits(out_real, torch.ones_like(out_real))
        x_fake = self.G(z)
        out_fake = self.D(x_fake.detach())
        d_loss_fake = F.binary_cross_entropy_with_logits(out_fake, torch.zeros_like(out_fake))
        d_loss = d_loss_real + d_loss_fake
        self.reset_grad()
        d_loss.backward()
        self.d_optimizer.step()
        return {'D/loss_real': d_loss_real.item(), 'D/loss_fake': d_loss_fake.item()}

    def g_step(self, batch_size):
        z = torch.randn(batch_size, self.z_dim, device=self.device)
        x_fake = self.G(z)
        out = self.D(x_fake)
        g_loss = F.binary_cross_entropy_with_logits(out, torch.ones_like(out))
        self.reset_grad()
        g_loss.backward()
        self.g_optimizer.step()
        return {'G/loss_fake': g_loss.item()}

    def train(self):
        g_lr, d_lr = self.g_lr, self.d_lr
        start_epoch = 0
        if self.resume_epoch:
            start_epoch = self.resume_epoch
            self.restore_model(self.resume_epoch)

        fixed_z = torch.randn(16, self.z_dim, device=self.device)
        meters = {}
        print('Start training...')
        start_time = time.time()
        i = 0
        for epoch in range(start_epoch, self.num_epochs):
            for (x_real,) in self.data_loader:
                x_real = x_real.to(self.device)
                loss = self.d_step(x_real)
                if (i + 1) % self.n_critic == 0:
                    loss.update(self.g_step(x_real.size(0)))
                for k, v in loss.items():
                    meters.setdefault(k, AverageMeter()).update(v, x_real.size(0))
                if (i + 1) % self.log_step == 0:
                    et = str(datetime.timedelta(seconds=time.time() - start_time))[:-7]
                    log = "Elapsed [{}], Iteration [{}], Epoch [{}/{}]".format(et, i + 1, epoch + 1, self.num_epochs)
                    for tag, m in meters.items():
                        log += ", {}: {:.4f}".format(tag, m.avg)
                    print(log)
                i += 1

            with torch.no_grad():
                self.G.eval()
                samples = self.G(fixed_z)
                self.G.train()
            torch.save(samples.cpu(), os.path.join(self.sample_dir, '{}-images.pt'.format(epoch + 1)))
            self.save_checkpoint(epoch + 1)
            for m in meters.values():
                m.reset()

            # Decay learning rates.
            if (epoch + 1) > (self.num_epochs - self.num_epochs_decay):
                g_lr -= (self.g_lr / float(self.num_epochs_decay))
                d_lr -= (self.d_lr / float(self.num_epochs_decay))
                self.update_lr(g_lr, d_lr)
                print('Decayed learning rates, g_lr: {}, d_lr: {}.'.format(g_lr, d_lr))


def main(config):
    torch.manual_seed(config.seed)
    for d in (config.model_save_dir, config.sample_dir):
        if not os.path.exists(d):
            os.makedirs(d)
    loader = get_loader(config)
    solver = Solver(loader, config)
    if config.mode == 'train':
        solver.train()


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--z_dim', type=int, default=8)
    parser.add_argument('--g_conv_dim', type=int, default=16)
    parser.add_argument('--d_conv_dim', type=int, default=16)
    parser.add_argument('--batch_size', type=int, default=16)
    parser.add_argument('--num_epochs', type=int, default=4)
    parser.add_argument('--num_epochs_decay', type=int, default=2)
    parser.add_argument('--g_lr', type=float, default=0.0002)
    parser.add_argument('--d_lr', type=float, default=0.0002)
    parser.add_argument('--n_critic', type=int, default=2)
    parser.add_argument('--beta1', type=float, default=0.5)
    parser.add_argument('--beta2', type=float, default=0.999)
    parser.add_argument('--resume_epoch', type=int, default=None)
    parser.add_argument('--mode', type=str, default='train', choices=['train', 'test'])
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--log_step', type=int, default=8)
    parser.add_argument('--model_save_dir', type=str, default='gan/models')
    parser.add_argument('--sample_dir', type=str, default='gan/samples')
    config = parser.parse_args([])
    print(config)
    main(config)
