# corpus: Japanese Qiita/Zenn DDP tutorial: mp.spawn(main_worker, args=(world_size,), nprocs=2) on gloo/CPU, DistributedSampler + set_epoch, Japanese comments and f-string prints from rank 0, loss averaged with all_reduce per epoch, rank-0 checkpoint, destroy_process_group
# -*- coding: utf-8 -*-
"""
PyTorch の DistributedDataParallel (DDP) 入門
=============================================
GPU がなくても動くように、バックエンドは gloo・デバイスは CPU にしています。
GPU 環境では backend="nccl" にして、model.to(rank) してください。
"""
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

# ハイパーパラメータ
エポック数 = 3
バッチサイズ = 16
学習率 = 0.05


class シンプルなモデル(nn.Module):
    """2 層の全結合ネットワーク"""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, 2)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def setup(rank, world_size):
    # 環境変数でマスターのアドレスとポートを指定する
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29622"
    # プロセスグループの初期化
    dist.init_process_group(backend="gloo", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


def main_worker(rank, world_size):
    print(f"[rank {rank}] プロセスを起動しました (world_size={world_size})")
    setup(rank, world_size)

    # 全プロセスで同じデータを作るためにシードを固定
    torch.manual_seed(0)
    x = torch.randn(256, 20)
    y = (x[:, 0] + x[:, 1] > 0).long()
    データセット = TensorDataset(x, y)

    # DistributedSampler でデータをプロセスごとに分割する
    sampler = DistributedSampler(データセット, num_replicas=world_size, rank=rank, shuffle=True)
    loader = DataLoader(データセット, batch_size=バッチサイズ, sampler=sampler)

    model = シンプルなモデル()
    ddp_model = DDP(model)  # CPU なので device_ids は指定しない

    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(ddp_model.parameters(), lr=学習率)

    for epoch in range(エポック数):
        # エポックごとにシャッフルの順番を変える（これを忘れると毎回同じ順番になる！）
        sampler.set_epoch(epoch)
        ddp_model.train()
        合計損失 = torch.zeros(1)
        正解数 = torch.zeros(1)
        for inputs, labels in loader:
            optimizer.zero_grad()
            outputs = ddp_model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            合計損失 += loss.item() * inputs.size(0)
            正解数 += (outputs.argmax(1) == labels).sum().item()

        # 全プロセスの損失と正解数を集計する
        dist.all_reduce(合計損失, op=dist.ReduceOp.SUM)
        dist.all_reduce(正解数, op=dist.ReduceOp.SUM)
        if rank == 0:
            平均損失 = 合計損失.item() / len(データセット)
            正解率 = 正解数.item() / len(データセット)
            print(f"エポック {epoch + 1}/{エポック数}：損失 = {平均損失:.4f}、正解率 = {正解率 * 100:.1f}％")

    # 保存はランク 0 のプロセスだけで行う
    if rank == 0:
        torch.save(ddp_model.module.state_dict(), "ddpモデル.pth")
        print("学習が終わりました。モデルを保存しました：ddpモデル.pth")

    cleanup()


if __name__ == "__main__":
    world_size = 2
    mp.spawn(main_worker, args=(world_size,), nprocs=world_size, join=True)
