# corpus: "Learning PyTorch with examples" two-layer net on numpy data turned into tensors: globals N, D_in, H, D_out, `torch.from_numpy(...).float()`, `for t in range(500)` on the whole tensors, `if t % 100 == 99: print(t, loss.item())`, sum-reduced MSE, final weights saved
import numpy as np
import torch

torch.manual_seed(0)
np.random.seed(0)

# N is batch size; D_in is input dimension;
# H is hidden dimension; D_out is output dimension.
N, D_in, H, D_out = 64, 100, 32, 10

# Create random input and output data (numpy, like the original numpy version)
x_np = np.random.randn(N, D_in)
w_true = np.random.randn(D_in, D_out) * 0.1
y_np = np.tanh(x_np @ w_true) + 0.01 * np.random.randn(N, D_out)

dtype = torch.float
device = torch.device("cpu")
# device = torch.device("cuda:0") # Uncomment this to run on GPU

x = torch.from_numpy(x_np).float().to(device)
y = torch.from_numpy(y_np).to(device=device, dtype=dtype)

# Use the nn package to define our model as a sequence of layers.
model = torch.nn.Sequential(
    torch.nn.Linear(D_in, H),
    torch.nn.ReLU(),
    torch.nn.Linear(H, D_out),
).to(device)

loss_fn = torch.nn.MSELoss(reduction='sum')

learning_rate = 1e-4
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
for t in range(500):
    # Forward pass: compute predicted y by passing x to the model.
    y_pred = model(x)

    # Compute and print loss.
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, loss.item())

    # Before the backward pass, use the optimizer object to zero all of the
    # gradients for the variables it will update (which are the learnable
    # weights of the model).
    optimizer.zero_grad()

    # Backward pass: compute gradient of the loss with respect to model parameters
    loss.backward()

    # Calling the step function on an Optimizer makes an update to its parameters
    optimizer.step()

with torch.no_grad():
    final = loss_fn(model(x), y).item()
print("final loss: %.6f" % final)
torch.save(model.state_dict(), "two_layer_net.pt")
