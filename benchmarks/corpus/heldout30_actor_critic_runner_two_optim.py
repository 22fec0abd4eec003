# corpus: actor-critic inside a Runner class (research RL repo style): toy vectorized env written as a class, rollout of n_steps, GAE, actor and critic with their own Adam optimizers, entropy bonus, clip_grad_norm_, logger.info every N updates, set_seed, best mean-return checkpoint to best.pth
import logging
import os
import random
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical

logging.basicConfig(level=logging.INFO, format="[%(levelname)s] %(message)s")
logger = logging.getLogger(__name__)


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class ToyEnv:
    """Batched toy env: the state is a point on a line, actions move it left/stay/right,
    reward is minus the distance to a hidden target. Pure torch, seeded."""

    def __init__(self, n_envs, seed):
        self.n = n_envs
        self.g = torch.Generator().manual_seed(seed)
        self.reset()

    def reset(self):
        self.pos = torch.rand(self.n, generator=self.g) * 4 - 2
        self.target = torch.rand(self.n, generator=self.g) * 2 - 1
        self.t = torch.zeros(self.n)
        return self.obs()

    def obs(self):
        return torch.stack([self.pos, self.target, self.t / 20.0], dim=-1)

    def step(self, action):
        self.pos = self.pos + (action.float() - 1.0) * 0.25
        self.t += 1
        reward = -(self.pos - self.target).abs()
        done = self.t >= 20
        if done.any():
            idx = done.nonzero(as_tuple=True)[0]
            self.pos[idx] = torch.rand(len(idx), generator=self.g) * 4 - 2
            self.target[idx] = torch.rand(len(idx), generator=self.g) * 2 - 1
            self.t[idx] = 0
        return self.obs(), reward, done.float()


class Actor(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, n_actions))

    def forward(self, obs):
        return Categorical(logits=self.net(obs))


class Critic(nn.Module):
    def __init__(self, obs_dim, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, obs):
        return self.net(obs).squeeze(-1)


class Runner:
    def __init__(self, args):
        self.args = args
        self.env = ToyEnv(args.n_envs, args.seed)
        self.actor = Actor(3, 3)
        self.critic = Critic(3)
        self.actor_optim = torch.optim.Adam(self.actor.parameters(), lr=args.actor_lr)
        self.critic_optim = torch.optim.Adam(self.critic.parameters(), lr=args.critic_lr)
        self.obs = self.env.reset()
        self.best_return = -float("inf")
        os.makedirs(args.save_dir, exist_ok=True)

    def collect(self):
        obs_buf, act_buf, rew_buf, done_buf = [], [], [], []
        with torch.no_grad():
            for _ in range(self.args.n_steps):
                dist = self.actor(self.obs)
                action = dist.sample()
                next_obs, reward, done = self.env.step(action)
                obs_buf.append(self.obs)
                act_buf.append(action)
                rew_buf.append(reward)
                done_buf.append(done)
                self.obs = next_obs
            last_value = self.critic(self.obs)
        return (torch.stack(obs_buf), torch.stack(act_buf), torch.stack(rew_buf),
                torch.stack(done_buf), last_value)

    def compute_gae(self, rewards, values, dones, last_value):
        adv = torch.zeros_like(rewards)
        gae = torch.zeros(rewards.size(1))
        for t in reversed(range(rewards.size(0))):
            next_v = last_value if t == rewards.size(0) - 1 else values[t + 1]
            delta = rewards[t] + self.args.gamma * next_v * (1 - dones[t]) - values[t]
            gae = delta + self.args.gamma * self.args.lam * (1 - dones[t]) * gae
            adv[t] = gae
        return adv, adv + values

    def update(self, obs, actions, rewards, dones, last_value):
        values = self.critic(obs)
        adv, returns = self.compute_gae(rewards, values.detach(), dones, last_value)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)

        dist = self.actor(obs)
        logp = dist.log_prob(actions)
        entropy = dist.entropy().mean()
        actor_loss = -(logp * adv).mean() - self.args.ent_coef * entropy
        self.actor_optim.zero_grad()
        actor_loss.backward()
        nn.utils.clip_grad_norm_(self.actor.parameters(), self.args.max_grad_norm)
        self.actor_optim.step()

        critic_loss = 0.5 * (returns - values).pow(2).mean()
        self.critic_optim.zero_grad()
        critic_loss.backward()
        nn.utils.clip_grad_norm_(self.critic.parameters(), self.args.max_grad_norm)
        self.critic_optim.step()
        return actor_loss.item(), critic_loss.item(), entropy.item()

    def save_checkpoint(self, update, path):
        torch.save({
            "update": update,
            "actor": self.actor.state_dict(),
            "critic": self.critic.state_dict(),
            "actor_optim": self.actor_optim.state_dict(),
            "critic_optim": self.critic_optim.state_dict(),
        }, path)

    def run(self):
        for update in range(1, self.args.n_updates + 1):
            obs, actions, rewards, dones, last_value = self.collect()
            a_loss, c_loss, ent = self.update(obs, actions, rewards, dones, last_value)
            mean_reward = rewards.mean().item()
            if mean_reward > self.best_return:
                self.best_return = mean_reward
                self.save_checkpoint(update, os.path.join(self.args.save_dir, "best.pth"))
            if update % self.args.log_interval == 0:
                logger.info("update %d | mean reward %.4f | actor %.4f | critic %.4f | entropy %.4f",
                            update, mean_reward, a_loss, c_loss, ent)
        self.save_checkpoint(self.args.n_updates, os.path.join(self.args.save_dir, "final.pth"))
        logger.info("best mean reward %.4f", self.best_return)


if __name__ == "__main__":
    args = SimpleNamespace(seed=7, n_envs=8, n_steps=16, n_updates=30, gamma=0.95, lam=0.9,
                           actor_lr=3e-3, critic_lr=1e-2, ent_coef=0.01, max_grad_norm=0.5,
                           log_interval=5, save_dir="runs/a2c")
    set_seed(args.seed)
    Runner(args).run()
