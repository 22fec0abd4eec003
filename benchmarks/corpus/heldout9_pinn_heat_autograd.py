# corpus: physics-informed network: MLP u(x,t), random collocation points with requires_grad, derivatives by torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True), PDE residual + initial/boundary loss, Adam for N iterations printing every 100, no DataLoader
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(1234)
np.random.seed(1234)

# 1-D heat equation u_t = alpha * u_xx on x in [0, 1], t in [0, 0.5]
# u(x, 0) = sin(pi x), u(0, t) = u(1, t) = 0
alpha = 0.1
N_f = 500   # collocation points
N_b = 50    # boundary / initial points
n_iter = 600
lr = 1e-3


class PINN(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.activation = nn.Tanh()
        self.linears = nn.ModuleList([nn.Linear(layers[i], layers[i + 1]) for i in range(len(layers) - 1)])
        for lin in self.linears:
            nn.init.xavier_normal_(lin.weight, gain=1.0)
            nn.init.zeros_(lin.bias)

    def forward(self, x, t):
        a = torch.cat([x, t], dim=1)
        for i in range(len(self.linears) - 1):
            a = self.activation(self.linears[i](a))
        return self.linears[-1](a)


def pde_residual(model, x, t):
    u = model(x, t)
    u_t = torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, grad_outputs=torch.ones_like(u_x), create_graph=True)[0]
    return u_t - alpha * u_xx


def exact(x, t):
    return torch.exp(-alpha * np.pi ** 2 * t) * torch.sin(np.pi * x)


# collocation points
x_f = torch.rand(N_f, 1, requires_grad=True)
t_f = (0.5 * torch.rand(N_f, 1)).requires_grad_(True)

# initial condition
x_0 = torch.rand(N_b, 1)
t_0 = torch.zeros(N_b, 1)
u_0 = torch.sin(np.pi * x_0)

# boundaries x = 0 and x = 1
t_b = 0.5 * torch.rand(N_b, 1)
x_lb = torch.zeros(N_b, 1)
x_ub = torch.ones(N_b, 1)

model = PINN([2, 20, 20, 20, 1])
optimizer = torch.optim.Adam(model.parameters(), lr=lr)
mse = nn.MSELoss()

loss_history = []
for it in range(n_iter):
    optimizer.zero_grad()

    f = pde_residual(model, x_f, t_f)
    loss_f = mse(f, torch.zeros_like(f))

    loss_ic = mse(model(x_0, t_0), u_0)
    loss_bc = mse(model(x_lb, t_b), torch.zeros_like(t_b)) + mse(model(x_ub, t_b), torch.zeros_like(t_b))

    loss = loss_f + loss_ic + loss_bc
    loss.backward()
    optimizer.step()
    loss_history.append(loss.item())

    if it % 100 == 0:
        print('It: %d, Loss: %.3e, Loss_f: %.3e, Loss_ic: %.3e, Loss_bc: %.3e'
              % (it, loss.item(), loss_f.item(), loss_ic.item(), loss_bc.item()))

# evaluate on a grid
x_star = torch.linspace(0, 1, 50).view(-1, 1)
t_star = torch.full_like(x_star, 0.25)
with torch.no_grad():
    u_pred = model(x_star, t_star)
u_true = exact(x_star, t_star)
err = torch.linalg.norm(u_pred - u_true) / torch.linalg.norm(u_true)
print('Relative L2 error at t=0.25: %e' % err.item())
np.save('loss_history.npy', np.array(loss_history))
