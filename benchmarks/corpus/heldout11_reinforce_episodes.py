# corpus: pytorch/examples reinforcement_learning/reinforce.py on a tiny hand-written corridor env: Policy with saved_log_probs/rewards lists, select_action via Categorical, finish_episode() computing discounted returns and `torch.cat(policy_loss).sum().backward()`, running_reward over `for i_episode in count(1)` with a break
import argparse
from itertools import count

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

parser = argparse.ArgumentParser(description="PyTorch REINFORCE example")
parser.add_argument("--gamma", type=float, default=0.99, metavar="G",
                    help="discount factor (default: 0.99)")
parser.add_argument("--seed", type=int, default=543, metavar="N",
                    help="random seed (default: 543)")
parser.add_argument("--log-interval", type=int, default=10, metavar="N",
                    help="interval between training status logs (default: 10)")
parser.add_argument("--max-episodes", type=int, default=60, metavar="N",
                    help="stop after this many episodes (default: 60)")
args = parser.parse_args()


class CorridorEnv:
    """Walk right along a corridor of length 8; reward 1 per step survived, done at either end."""

    def __init__(self, length=8, max_steps=50):
        self.length = length
        self.max_steps = max_steps
        self.rng = np.random.RandomState(0)
        self.reward_threshold = 40.0

    def seed(self, s):
        self.rng = np.random.RandomState(s)

    def reset(self):
        self.pos = self.length // 2
        self.t = 0
        return self._obs()

    def _obs(self):
        obs = np.zeros(4, dtype=np.float32)
        obs[0] = self.pos / self.length
        obs[1] = self.t / self.max_steps
        obs[2:] = self.rng.randn(2) * 0.1
        return obs

    def step(self, action):
        self.pos += 1 if action == 1 else -1
        if self.rng.rand() < 0.2:
            self.pos += self.rng.choice([-1, 1])
        self.t += 1
        done = self.pos <= 0 or self.pos >= self.length or self.t >= self.max_steps
        return self._obs(), 1.0, done, {}


env = CorridorEnv()
env.seed(args.seed)
torch.manual_seed(args.seed)


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 128)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(128, 2)

        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + args.gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]


def main():
    running_reward = 10
    for i_episode in count(1):
        state, ep_reward = env.reset(), 0
        for t in range(1, 10000):  # Don't infinite loop while learning
            action = select_action(state)
            state, reward, done, _ = env.step(action)
            policy.rewards.append(reward)
            ep_reward += reward
            if done:
                break

        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        finish_episode()
        if i_episode % args.log_interval == 0:
            print("Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}".format(
                  i_episode, ep_reward, running_reward))
        if running_reward > env.reward_threshold:
            print("Solved! Running reward is now {} and "
                  "the last episode runs to {} time steps!".format(running_reward, t))
            break
        if i_episode >= args.max_episodes:
            break
    torch.save(policy.state_dict(), "reinforce_policy.pt")


if __name__ == "__main__":
    main()
