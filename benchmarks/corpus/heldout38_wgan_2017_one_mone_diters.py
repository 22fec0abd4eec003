# corpus: GAN repo (original WGAN code, 2017): Diters schedule over gen_iterations, while i < len(dataloader) with next(data_iter), clamp_ weight clipping, errD.backward(one)/backward(mone), RMSprop, Variable(input, volatile) for the fixed-noise sample
from __future__ import print_function
import argparse
import os
import random
import torch
import torch.nn as nn
import torch.backends.cudnn as cudnn
import torch.optim as optim
import torch.utils.data
from torch.autograd import Variable

parser = argparse.ArgumentParser()
parser.add_argument('--batchSize', type=int, default=16, help='input batch size')
parser.add_argument('--nz', type=int, default=8, help='size of the latent z vector')
parser.add_argument('--niter', type=int, default=2, help='number of epochs to train for')
parser.add_argument('--lrD', type=float, default=0.00005, help='learning rate for Critic, default=0.00005')
parser.add_argument('--lrG', type=float, default=0.00005, help='learning rate for Generator, default=0.00005')
parser.add_argument('--cuda', action='store_true', help='enables cuda')
parser.add_argument('--clamp_lower', type=float, default=-0.01)
parser.add_argument('--clamp_upper', type=float, default=0.01)
parser.add_argument('--Diters', type=int, default=3, help='number of D iters per each G iter')
parser.add_argument('--experiment', default='wgan_samples', help='Where to store samples and models')
opt = parser.parse_args()
print(opt)

os.system('mkdir -p {0}'.format(opt.experiment))

opt.manualSeed = 1234
print("Random Seed: ", opt.manualSeed)
random.seed(opt.manualSeed)
torch.manual_seed(opt.manualSeed)

cudnn.benchmark = True

# toy 2-D "dataset": mixture of gaussians (instead of LSUN bedrooms)
centers = torch.tensor([[2., 0.], [-2., 0.], [0., 2.], [0., -2.]])
points = centers[torch.randint(0, 4, (256,))] + 0.1 * torch.randn(256, 2)
dataset = torch.utils.data.TensorDataset(points)
dataloader = torch.utils.data.DataLoader(dataset, batch_size=opt.batchSize, shuffle=True, num_workers=0)

nz = int(opt.nz)


class MLP_G(nn.Module):
    def __init__(self, nz, ngf=32):
        super(MLP_G, self).__init__()
        main = nn.Sequential(
            nn.Linear(nz, ngf), nn.ReLU(True),
            nn.Linear(ngf, ngf), nn.ReLU(True),
            nn.Linear(ngf, 2),
        )
        self.main = main
        self.nz = nz

    def forward(self, input):
        input = input.view(input.size(0), input.size(1))
        return self.main(input)


class MLP_D(nn.Module):
    def __init__(self, ndf=32):
        super(MLP_D, self).__init__()
        main = nn.Sequential(
            nn.Linear(2, ndf), nn.ReLU(True),
            nn.Linear(ndf, ndf), nn.ReLU(True),
            nn.Linear(ndf, 1),
        )
        self.main = main

    def forward(self, input):
        output = self.main(input)
        output = output.mean(0)
        return output.view(1)


netG = MLP_G(nz)
netD = MLP_D()
print(netG)
print(netD)

input = torch.FloatTensor(opt.batchSize, 2)
noise = torch.FloatTensor(opt.batchSize, nz, 1, 1)
fixed_noise = torch.FloatTensor(opt.batchSize, nz, 1, 1).normal_(0, 1)
one = torch.FloatTensor([1])
mone = one * -1

if opt.cuda:
    netD.cuda()
    netG.cuda()
    input = input.cuda()
    one, mone = one.cuda(), mone.cuda()
    noise, fixed_noise = noise.cuda(), fixed_noise.cuda()

# setup optimizer
optimizerD = optim.RMSprop(netD.parameters(), lr=opt.lrD)
optimizerG = optim.RMSprop(netG.parameters(), lr=opt.lrG)

gen_iterations = 0
for epoch in range(opt.niter):
    data_iter = iter(dataloader)
    i = 0
    while i < len(dataloader):
        ############################
        # (1) Update D network
        ###########################
        for p in netD.parameters():  # reset requires_grad
            p.requires_grad = True  # they are set to False below in netG update

        # train the discriminator Diters times
        if gen_iterations < 5 or gen_iterations % 50 == 0:
            Diters = 10
        else:
            Diters = opt.Diters
        j = 0
        while j < Diters and i < len(dataloader):
            j += 1

            # clamp parameters to a cube
            for p in netD.parameters():
                p.data.clamp_(opt.clamp_lower, opt.clamp_upper)

            data = next(data_iter)  # was: data_iter.next()
            i += 1

            # train with real
            real_cpu, = data
            netD.zero_grad()
            batch_size = real_cpu.size(0)

            if opt.cuda:
                real_cpu = real_cpu.cuda()
            input.resize_as_(real_cpu).copy_(real_cpu)
            inputv = Variable(input)

            errD_real = netD(inputv)
            errD_real.backward(one)

            # train with fake
            noise.resize_(opt.batchSize, nz, 1, 1).normal_(0, 1)
            noisev = Variable(noise, volatile=True)  # totally freeze netG
            fake = Variable(netG(noisev).data)
            inputv = fake
            errD_fake = netD(inputv)
            errD_fake.backward(mone)
            errD = errD_real - errD_fake
            optimizerD.step()

        ############################
        # (2) Update G network
        ###########################
        for p in netD.parameters():
            p.requires_grad = False  # to avoid computation
        netG.zero_grad()
        # in case our last batch was the tail batch of the dataloader,
        # make sure we feed a full batch of noise
        noise.resize_(opt.batchSize, nz, 1, 1).normal_(0, 1)
        noisev = Variable(noise)
        fake = netG(noisev)
        errG = netD(fake)
        errG.backward(one)
        optimizerG.step()
        gen_iterations += 1

        print('[%d/%d][%d/%d][%d] Loss_D: %f Loss_G: %f Loss_D_real: %f Loss_D_fake %f'
            % (epoch, opt.niter, i, len(dataloader), gen_iterations,
            errD.data[0], errG.data[0], errD_real.data[0], errD_fake.data[0]))
        if gen_iterations % 2 == 0:
            torch.save(real_cpu, '{0}/real_samples.pt'.format(opt.experiment))
            fake = netG(Variable(fixed_noise, volatile=True))
            torch.save(fake.data, '{0}/fake_samples_{1}.pt'.format(opt.experiment, gen_iterations))

    # do checkpointing
    torch.save(netG.state_dict(), '{0}/netG_epoch_{1}.pth'.format(opt.experiment, epoch))
    torch.save(netD.state_dict(), '{0}/netD_epoch_{1}.pth'.format(opt.experiment, epoch))
