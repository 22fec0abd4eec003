# corpus: pix2pix/CycleGAN research code: a plain Pix2PixModel class (not nn.Module) holding netG/netD, two optimizers and schedulers; set_input(), optimize_parameters(), backward_D(), backward_G(), set_requires_grad(nets, requires_grad); loop calls model.set_input(data); model.optimize_parameters(); model.update_learning_rate() per epoch
import os
import time

import torch
import torch.nn as nn
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, Dataset


class Options:
    """stand-in for the parsed options of train.py"""
    def __init__(self):
        self.input_nc = 3
        self.output_nc = 3
        self.ngf = 8
        self.ndf = 8
        self.lr = 0.0002
        self.beta1 = 0.5
        self.lambda_L1 = 100.0
        self.n_epochs = 2
        self.n_epochs_decay = 2
        self.epoch_count = 1
        self.batch_size = 4
        self.print_freq = 8
        self.checkpoints_dir = './checkpoints'
        self.name = 'facades_pix2pix'
        self.isTrain = True
        self.gpu_ids = []


class AlignedDataset(Dataset):
    def __init__(self, opt, n=32):
        g = torch.Generator().manual_seed(0)
        self.A = torch.rand(n, opt.input_nc, 16, 16, generator=g) * 2 - 1
        self.B = torch.tanh(self.A.flip(-1) * 1.5)

    def __len__(self):
        return len(self.A)

    def __getitem__(self, index):
        return {'A': self.A[index], 'B': self.B[index], 'A_paths': 'a_%d.png' % index, 'B_paths': 'b_%d.png' % index}


class UnetLikeGenerator(nn.Module):
    def __init__(self, input_nc, output_nc, ngf):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(input_nc, ngf, 4, 2, 1), nn.LeakyReLU(0.2, True))
        self.mid = nn.Sequential(nn.Conv2d(ngf, ngf * 2, 3, 1, 1), nn.BatchNorm2d(ngf * 2), nn.ReLU(True))
        self.up = nn.Sequential(nn.ConvTranspose2d(ngf * 2 + ngf, output_nc, 4, 2, 1), nn.Tanh())

    def forward(self, x):
        d = self.down(x)
        m = self.mid(d)
        return self.up(torch.cat([m, d], 1))


class NLayerDiscriminator(nn.Module):
    def __init__(self, input_nc, ndf):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(input_nc, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf * 2, 1, 3, 1, 1))

    def forward(self, x):
        return self.model(x)


def init_weights(net, init_gain=0.02):
    def init_func(m):
        classname = m.__class__.__name__
        if hasattr(m, 'weight') and (classname.find('Conv') != -1 or classname.find('Linear') != -1):
            nn.init.normal_(m.weight.data, 0.0, init_gain)
            if hasattr(m, 'bias') and m.bias is not None:
                nn.init.constant_(m.bias.data, 0.0)
        elif classname.find('BatchNorm2d') != -1:
            nn.init.normal_(m.weight.data, 1.0, init_gain)
            nn.init.constant_(m.bias.data, 0.0)
    net.apply(init_func)
    return net


class GANLoss(nn.Module):
    def __init__(self, target_real_label=1.0, target_fake_label=0.0):
        super().__init__()
        self.register_buffer('real_label', torch.tensor(target_real_label))
        self.register_buffer('fake_label', torch.tensor(target_fake_label))
        self.loss = nn.BCEWithLogitsLoss()

    def __call__(self, prediction, target_is_real):
        target_tensor = self.real_label if target_is_real else self.fake_label
        return self.loss(prediction, target_tensor.expand_as(prediction))


def get_scheduler(optimizer, opt):
    def lambda_rule(epoch):
        lr_l = 1.0 - max(0, epoch + opt.epoch_count - opt.n_epochs) / float(opt.n_epochs_decay + 1)
        return lr_l
    return lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda_rule)


class Pix2PixModel:
    def __init__(self, opt):
        self.opt = opt
        self.isTrain = opt.isTrain
        self.device = torch.device('cuda:{}'.format(opt.gpu_ids[0])) if opt.gpu_ids else torch.device('cpu')
        self.save_dir = os.path.join(opt.checkpoints_dir, opt.name)
        self.loss_names = ['G_GAN', 'G_L1', 'D_real', 'D_fake']
        self.model_names = ['G', 'D']
        self.netG = init_weights(UnetLikeGenerator(opt.input_nc, opt.output_nc, opt.ngf)).to(self.device)
        self.netD = init_weights(NLayerDiscriminator(opt.input_nc + opt.output_nc, opt.ndf)).to(self.device)
        self.criterionGAN = GANLoss().to(self.device)
        self.criterionL1 = torch.nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.optimizers = [self.optimizer_G, self.optimizer_D]

    def setup(self, opt):
        self.schedulers = [get_scheduler(optimizer, opt) for optimizer in self.optimizers]
        self.print_networks()

    def print_networks(self):
        for name in self.model_names:
            net = getattr(self, 'net' + name)
            num_params = sum(p.numel() for p in net.parameters())
            print('[Network %s] Total number of parameters : %.3f M' % (name, num_params / 1e6))

    def set_input(self, input):
        self.real_A = input['A'].to(self.device)
        self.real_B = input['B'].to(self.device)
        self.image_paths = input['A_paths']

    def forward(self):
        self.fake_B = self.netG(self.real_A)  # G(A)

    def set_requires_grad(self, nets, requires_grad=False):
        if not isinstance(nets, list):
            nets = [nets]
        for net in nets:
            if net is not None:
                for param in net.parameters():
                    param.requires_grad = requires_grad

    def backward_D(self):
        # Fake; stop backprop to the generator by detaching fake_B
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB.detach())
        self.loss_D_fake = self.criterionGAN(pred_fake, False)
        # Real
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        pred_real = self.netD(real_AB)
        self.loss_D_real = self.criterionGAN(pred_real, True)
        # combine loss and calculate gradients
        self.loss_D = (self.loss_D_fake + self.loss_D_real) * 0.5
        self.loss_D.backward()

    def backward_G(self):
        # First, G(A) should fake the discriminator
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB)
        self.loss_G_GAN = self.criterionGAN(pred_fake, True)
        # Second, G(A) = B
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * self.opt.lambda_L1
        # combine loss and calculate gradients
        self.loss_G = self.loss_G_GAN + self.loss_G_L1
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()                   # compute fake images: G(A)
        # update D
        self.set_requires_grad(self.netD, True)  # enable backprop for D
        self.optimizer_D.zero_grad()     # set D's gradients to zero
        self.backward_D()                # calculate gradients for D
        self.optimizer_D.step()          # update D's weights
        # update G
        self.set_requires_grad(self.netD, False)  # D requires no gradients when optimizing G
        self.optimizer_G.zero_grad()        # set G's gradients to zero
        self.backward_G()                   # calculate graidents for G
        self.optimizer_G.step()             # update G's weights

    def update_learning_rate(self):
        old_lr = self.optimizers[0].param_groups[0]['lr']
        for scheduler in self.schedulers:
            scheduler.step()
        lr = self.optimizers[0].param_groups[0]['lr']
        print('learning rate %.7f -> %.7f' % (old_lr, lr))

    def get_current_losses(self):
        errors_ret = {}
        for name in self.loss_names:
            errors_ret[name] = float(getattr(self, 'loss_' + name))
        return errors_ret

    def save_networks(self, epoch):
        os.makedirs(self.save_dir, exist_ok=True)
        for name in self.model_names:
            save_filename = '%s_net_%s.pth' % (epoch, name)
            net = getattr(self, 'net' + name)
            torch.save(net.state_dict(), os.path.join(self.save_dir, save_filename))


if __name__ == '__main__':
    torch.manual_seed(0)
    opt = Options()
    dataset = DataLoader(AlignedDataset(opt), batch_size=opt.batch_size, shuffle=True)
    dataset_size = len(dataset.dataset)
    print('The number of training images = %d' % dataset_size)

    model = Pix2PixModel(opt)
    model.setup(opt)
    total_iters = 0

    for epoch in range(opt.epoch_count, opt.n_epochs + opt.n_epochs_decay + 1):
        epoch_start_time = time.time()
        epoch_iter = 0

        for i, data in enumerate(dataset):
            total_iters += opt.batch_size
            epoch_iter += opt.batch_size
            model.set_input(data)
            model.optimize_parameters()

            if total_iters % opt.print_freq == 0:
                losses = model.get_current_losses()
                message = '(epoch: %d, iters: %d) ' % (epoch, epoch_iter)
                for k, v in losses.items():
                    message += '%s: %.3f ' % (k, v)
                print(message)

        model.update_learning_rate()
        if epoch % 2 == 0:
            print('saving the model at the end of epoch %d, iters %d' % (epoch, total_iters))
            model.save_networks('latest')
            model.save_networks(epoch)

        print('End of epoch %d / %d \t Time Taken: %d sec' % (epoch, opt.n_epochs + opt.n_epochs_decay, time.time() - epoch_start_time))
