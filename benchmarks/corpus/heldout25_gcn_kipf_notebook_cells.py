# corpus: Jupyter notebook exported with nbconvert (# In[n]: cells): Kipf GCN by hand, dense D^-1/2 (A+I) D^-1/2, train(epoch) doing train+val full batch, fastmode global, weight decay on layer 1 only, Kipf window early stopping
#!/usr/bin/env python
# coding: utf-8

# # Semi-supervised node classification with a GCN (Kipf & Welling, 2017)
#
# We implement the graph convolution ourselves, no PyG.

# In[1]:


import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

# get_ipython().run_line_magic('matplotlib', 'inline')


# In[2]:


seed = 42
np.random.seed(seed)
torch.manual_seed(seed)

epochs = 120
lr = 0.01
weight_decay = 5e-4
hidden = 16
dropout = 0.5
fastmode = False
early_stopping = 10   # Kipf: stop if val loss > mean of the last 10


# ## A synthetic "Cora": planted partition graph with noisy bag-of-words features

# In[3]:


n_nodes, n_classes, n_feats = 300, 4, 50
labels = torch.randint(0, n_classes, (n_nodes,))
p_in, p_out = 0.08, 0.005
same = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
probs = same * p_in + (1 - same) * p_out
A = (torch.rand(n_nodes, n_nodes) < probs).float()
A = torch.triu(A, diagonal=1)
A = A + A.t()
print("edges:", int(A.sum().item() // 2))

centers = torch.randn(n_classes, n_feats)
features = (centers[labels] + 1.5 * torch.randn(n_nodes, n_feats) > 0.8).float()
features = features / features.sum(1, keepdim=True).clamp(min=1)   # row-normalize like pygcn
features.shape


# In[4]:


def normalize_adj(adj):
    """Symmetrically normalize adjacency matrix with self loops."""
    adj = adj + torch.eye(adj.shape[0])
    rowsum = adj.sum(1)
    d_inv_sqrt = torch.pow(rowsum, -0.5)
    d_inv_sqrt[torch.isinf(d_inv_sqrt)] = 0.
    d_mat_inv_sqrt = torch.diag(d_inv_sqrt)
    return d_mat_inv_sqrt @ adj @ d_mat_inv_sqrt


adj = normalize_adj(A)

perm = torch.randperm(n_nodes)
idx_train = perm[:60]
idx_val = perm[60:160]
idx_test = perm[160:]
train_mask = torch.zeros(n_nodes, dtype=torch.bool); train_mask[idx_train] = True
val_mask = torch.zeros(n_nodes, dtype=torch.bool); val_mask[idx_val] = True
test_mask = torch.zeros(n_nodes, dtype=torch.bool); test_mask[idx_test] = True


# ## Model

# In[5]:


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super(GraphConvolution, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = nn.Parameter(torch.FloatTensor(in_features, out_features))
        if bias:
            self.bias = nn.Parameter(torch.FloatTensor(out_features))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1. / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = torch.mm(input, self.weight)
        output = torch.mm(adj, support)
        if self.bias is not None:
            return output + self.bias
        return output

    def __repr__(self):
        return self.__class__.__name__ + ' (' + str(self.in_features) + ' -> ' + str(self.out_features) + ')'


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super(GCN, self).__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.gc2(x, adj)
        return F.log_softmax(x, dim=1)


# In[6]:


model = GCN(nfeat=features.shape[1], nhid=hidden, nclass=n_classes, dropout=dropout)
# as in the paper: L2 only on the first layer
optimizer = optim.Adam([
    {'params': model.gc1.parameters(), 'weight_decay': weight_decay},
    {'params': model.gc2.parameters(), 'weight_decay': 0.0},
], lr=lr)
model


# In[7]:


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    correct = correct.sum()
    return correct / len(labels)


cost_val = []


def train(epoch):
    t = time.time()
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[train_mask], labels[train_mask])
    acc_train = accuracy(output[train_mask], labels[train_mask])
    loss_train.backward()
    optimizer.step()

    if not fastmode:
        # Evaluate validation set performance separately,
        # deactivates dropout during validation run.
        model.eval()
        output = model(features, adj)

    loss_val = F.nll_loss(output[val_mask], labels[val_mask])
    acc_val = accuracy(output[val_mask], labels[val_mask])
    if epoch % 10 == 0:
        print('Epoch: {:04d}'.format(epoch + 1),
              'loss_train: {:.4f}'.format(loss_train.item()),
              'acc_train: {:.4f}'.format(acc_train.item()),
              'loss_val: {:.4f}'.format(loss_val.item()),
              'acc_val: {:.4f}'.format(acc_val.item()),
              'time: {:.4f}s'.format(time.time() - t))
    return loss_val.item()


def test():
    model.eval()
    output = model(features, adj)
    loss_test = F.nll_loss(output[test_mask], labels[test_mask])
    acc_test = accuracy(output[test_mask], labels[test_mask])
    print("Test set results:",
          "loss= {:.4f}".format(loss_test.item()),
          "accuracy= {:.4f}".format(acc_test.item()))
    return acc_test.item()


# ## Train

# In[8]:


t_total = time.time()
for epoch in range(epochs):
    cost_val.append(train(epoch))
    if epoch > early_stopping and cost_val[-1] > np.mean(cost_val[-(early_stopping + 1):-1]):
        print("Early stopping at epoch {}...".format(epoch + 1))
        break
print("Optimization Finished!")
print("Total time elapsed: {:.4f}s".format(time.time() - t_total))


# In[9]:


test_acc = test()


# In[10]:


torch.save(model.state_dict(), 'gcn_kipf.pt')
np.save('val_losses.npy', np.array(cost_val))
