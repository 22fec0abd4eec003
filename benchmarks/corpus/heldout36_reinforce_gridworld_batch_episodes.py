# corpus: REINFORCE with a value baseline on a 1-D gridworld written in the script (`class LineWorld` with reset()/step() returning obs, reward, done), an `Agent` class owning the policy and value nets and one Adam optimizer, `run_episode(env, agent)` collecting log_probs / values / rewards, reward-to-go returns normalized, a batch of episodes per update with an entropy bonus, moving-average reward printed, rewards list dumped with json
import json
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

SEED = 3
GAMMA = 0.97
LR = 1e-2
N_UPDATES = 25
EPISODES_PER_UPDATE = 4
ENTROPY_COEF = 0.01

random.seed(SEED)
np.random.seed(SEED)
torch.manual_seed(SEED)


class LineWorld:
    """Agent starts in the middle of a line of 9 cells; goal at the right end (+1), pit at the left end (-1)."""

    def __init__(self, size=9, max_steps=30):
        self.size = size
        self.max_steps = max_steps

    def reset(self):
        self.pos = self.size // 2
        self.t = 0
        return self._obs()

    def _obs(self):
        o = np.zeros(self.size, dtype=np.float32)
        o[self.pos] = 1.0
        return o

    def step(self, action):
        self.t += 1
        self.pos += 1 if action == 1 else -1
        if self.pos >= self.size - 1:
            return self._obs(), 1.0, True
        if self.pos <= 0:
            return self._obs(), -1.0, True
        return self._obs(), -0.01, self.t >= self.max_steps


class Agent:
    def __init__(self, obs_dim, n_actions):
        self.policy = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, n_actions))
        self.value = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, 1))
        self.optimizer = torch.optim.Adam(list(self.policy.parameters()) + list(self.value.parameters()), lr=LR)

    def act(self, obs):
        obs = torch.from_numpy(obs).unsqueeze(0)
        dist = Categorical(logits=self.policy(obs))
        action = dist.sample()
        return action.item(), dist.log_prob(action), dist.entropy(), self.value(obs).squeeze()


def run_episode(env, agent):
    obs = env.reset()
    log_probs, values, rewards, entropies = [], [], [], []
    done = False
    while not done:
        action, log_prob, entropy, value = agent.act(obs)
        obs, reward, done = env.step(action)
        log_probs.append(log_prob)
        values.append(value)
        rewards.append(reward)
        entropies.append(entropy)
    return log_probs, values, rewards, entropies


def reward_to_go(rewards, gamma):
    R, returns = 0.0, []
    for r in reversed(rewards):
        R = r + gamma * R
        returns.insert(0, R)
    return torch.tensor(returns)


env = LineWorld()
agent = Agent(env.size, 2)
all_rewards = []
running = None
for update in range(N_UPDATES):
    policy_losses, value_losses, entropy_terms = [], [], []
    for _ in range(EPISODES_PER_UPDATE):
        log_probs, values, rewards, entropies = run_episode(env, agent)
        returns = reward_to_go(rewards, GAMMA)
        values = torch.stack(values)
        advantages = returns - values.detach()
        if len(advantages) > 1:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        policy_losses.append(-(torch.cat(log_probs) * advantages).sum())
        value_losses.append(F.smooth_l1_loss(values, returns, reduction="sum"))
        entropy_terms.append(torch.cat(entropies).sum())
        ep_reward = sum(rewards)
        all_rewards.append(ep_reward)
        running = ep_reward if running is None else 0.9 * running + 0.1 * ep_reward

    loss = (torch.stack(policy_losses).sum() + 0.5 * torch.stack(value_losses).sum()
            - ENTROPY_COEF * torch.stack(entropy_terms).sum()) / EPISODES_PER_UPDATE
    agent.optimizer.zero_grad()
    loss.backward()
    agent.optimizer.step()

    if update % 5 == 0 or update == N_UPDATES - 1:
        print("update {}\tlast reward {:.2f}\trunning reward {:.3f}\tloss {:.4f}".format(
            update, all_rewards[-1], running, loss.item()))

with open("rewards.json", "w") as f:
    json.dump(all_rewards, f)
torch.save(agent.policy.state_dict(), "policy.pt")
