# corpus: physics-informed network for u''(x) = -pi^2 sin(pi x) on [0, 1] with u(0) = u(1) = 0: collocation points drawn fresh each Adam step with `torch.rand(N, 1, requires_grad=True)`, derivatives via `torch.autograd.grad(..., create_graph=True)`, PDE + boundary loss, an Adam phase then an LBFGS phase with a `closure()` on fixed points, relative L2 error against the exact solution, loss history saved with numpy
import math

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

N_COLLOC = 64
ADAM_ITERS = 150
LBFGS_ITERS = 5
PRINT_EVERY = 50


class PINN(nn.Module):
    def __init__(self, layers=(1, 20, 20, 1)):
        super().__init__()
        mods = []
        for i in range(len(layers) - 2):
            mods += [nn.Linear(layers[i], layers[i + 1]), nn.Tanh()]
        mods.append(nn.Linear(layers[-2], layers[-1]))
        self.net = nn.Sequential(*mods)
        for m in self.net:
            if isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.net(x)


def exact(x):
    return torch.sin(math.pi * x)


def pde_residual(model, x):
    u = model(x)
    u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, grad_outputs=torch.ones_like(u_x), create_graph=True)[0]
    f = -(math.pi ** 2) * torch.sin(math.pi * x)
    return u_xx - f


def compute_loss(model, x_colloc, x_bc):
    r = pde_residual(model, x_colloc)
    loss_pde = torch.mean(r ** 2)
    loss_bc = torch.mean(model(x_bc) ** 2)
    return loss_pde + 10.0 * loss_bc, loss_pde, loss_bc


model = PINN()
x_bc = torch.tensor([[0.0], [1.0]])
history = []

# ---- phase 1: Adam with fresh collocation points every iteration
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for it in range(ADAM_ITERS):
    x_colloc = torch.rand(N_COLLOC, 1, requires_grad=True)
    optimizer.zero_grad()
    loss, loss_pde, loss_bc = compute_loss(model, x_colloc, x_bc)
    loss.backward()
    optimizer.step()
    history.append(loss.item())
    if it % PRINT_EVERY == 0:
        print(f"Adam it {it:4d}  loss {loss.item():.3e}  pde {loss_pde.item():.3e}  bc {loss_bc.item():.3e}")

# ---- phase 2: LBFGS on a fixed set of points
x_fixed = torch.linspace(0, 1, 128).view(-1, 1).requires_grad_(True)
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=10, history_size=20,
                              line_search_fn="strong_wolfe")


def closure():
    optimizer.zero_grad()
    loss, _, _ = compute_loss(model, x_fixed, x_bc)
    loss.backward()
    return loss


for it in range(LBFGS_ITERS):
    loss = optimizer.step(closure)
    history.append(loss.item())
    print(f"LBFGS it {it}  loss {loss.item():.3e}")

x_test = torch.linspace(0, 1, 200).view(-1, 1)
with torch.no_grad():
    u_pred = model(x_test)
rel_l2 = (torch.norm(u_pred - exact(x_test)) / torch.norm(exact(x_test))).item()
print(f"relative L2 error: {rel_l2:.4e}")
np.save("pinn_loss_history.npy", np.array(history))
torch.save(model.state_dict(), "pinn.pt")
