# corpus: research knowledge-graph embedding repo (TransE): entity/relation nn.Embedding with a padding row, entity rows renormalised through .weight.data inside forward(), negatives by corrupting head or tail with torch.randint/torch.where in the batch loop, MarginRankingLoss(reduction='none') with loss.mean().backward(), hits@10 / MRR validation every N epochs, best checkpoint dict
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils import data as torch_data

parser = argparse.ArgumentParser()
parser.add_argument("--dataset_path", type=str, default="./synth_kg", help="Path to dataset.")
parser.add_argument("--seed", type=int, default=1234)
parser.add_argument("--batch_size", type=int, default=64)
parser.add_argument("--validation_batch_size", type=int, default=32)
parser.add_argument("--vector_length", type=int, default=32, help="Length of entity/relation vector.")
parser.add_argument("--margin", type=float, default=1.0, help="Margin value in margin-based ranking loss.")
parser.add_argument("--norm", type=int, default=1, help="Norm used for calculating dissimilarity metric.")
parser.add_argument("--epochs", type=int, default=6)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--validation_freq", type=int, default=2, help="Validate model every X epochs.")
parser.add_argument("--checkpoint_path", type=str, default="checkpoint.tar")


class TransE(nn.Module):
    def __init__(self, entity_count, relation_count, device, norm=1, dim=100, margin=1.0):
        super(TransE, self).__init__()
        self.entity_count = entity_count
        self.relation_count = relation_count
        self.device = device
        self.norm = norm
        self.dim = dim
        self.entities_emb = self._init_enitity_emb()
        self.relations_emb = self._init_relation_emb()
        self.criterion = nn.MarginRankingLoss(margin=margin, reduction="none")

    def _init_enitity_emb(self):
        entities_emb = nn.Embedding(num_embeddings=self.entity_count + 1, embedding_dim=self.dim, padding_idx=self.entity_count)
        uniform_range = 6 / np.sqrt(self.dim)
        entities_emb.weight.data.uniform_(-uniform_range, uniform_range)
        return entities_emb

    def _init_relation_emb(self):
        relations_emb = nn.Embedding(num_embeddings=self.relation_count + 1, embedding_dim=self.dim, padding_idx=self.relation_count)
        uniform_range = 6 / np.sqrt(self.dim)
        relations_emb.weight.data.uniform_(-uniform_range, uniform_range)
        # -1 to avoid nan for OOV vector
        relations_emb.weight.data[:-1, :].div_(relations_emb.weight.data[:-1, :].norm(p=1, dim=1, keepdim=True))
        return relations_emb

    def forward(self, positive_triplets: torch.LongTensor, negative_triplets: torch.LongTensor):
        """Return model losses based on the input."""
        # -1 to avoid nan for OOV vector
        self.entities_emb.weight.data[:-1, :].div_(self.entities_emb.weight.data[:-1, :].norm(p=2, dim=1, keepdim=True))

        assert positive_triplets.size()[1] == 3
        positive_distances = self._distance(positive_triplets)

        assert negative_triplets.size()[1] == 3
        negative_distances = self._distance(negative_triplets)

        return self.loss(positive_distances, negative_distances), positive_distances, negative_distances

    def predict(self, triplets: torch.LongTensor):
        """Calculated dissimilarity score for given triplets."""
        return self._distance(triplets)

    def loss(self, positive_distances, negative_distances):
        target = torch.tensor([-1], dtype=torch.long, device=self.device)
        return self.criterion(positive_distances, negative_distances, target)

    def _distance(self, triplets):
        """Triplets should have shape Bx3 where dim 3 are head id, relation id, tail id."""
        assert triplets.size()[1] == 3
        heads = triplets[:, 0]
        relations = triplets[:, 1]
        tails = triplets[:, 2]
        return (self.entities_emb(heads) + self.relations_emb(relations) - self.entities_emb(tails)).norm(p=self.norm, dim=1)


class FB15KDataset(torch_data.Dataset):
    """Stands in for the FB15k train.txt/valid.txt reader: (head, relation, tail) id triples."""

    def __init__(self, triples):
        self.triples = triples

    def __len__(self):
        return len(self.triples)

    def __getitem__(self, index):
        head_id, relation_id, tail_id = self.triples[index]
        return head_id, relation_id, tail_id


def make_triples(n_entities, n_relations, n):
    heads = torch.randint(n_entities, (n,))
    rels = torch.randint(n_relations, (n,))
    tails = (heads + 7 * rels + 1) % n_entities  # a learnable translation structure
    return [(int(h), int(r), int(t)) for h, r, t in zip(heads, rels, tails)]


def hit_at_k(predictions, ground_truth_idx, device, k=10):
    assert predictions.size(0) == ground_truth_idx.size(0)
    zero_tensor = torch.tensor([0], device=device)
    one_tensor = torch.tensor([1], device=device)
    _, indices = predictions.topk(k=k, largest=False)
    return torch.where(indices == ground_truth_idx, one_tensor, zero_tensor).sum().item()


def mrr(predictions, ground_truth_idx):
    indices = predictions.argsort()
    return (1.0 / (indices == ground_truth_idx).nonzero()[:, 1].float().add(1.0)).sum().item()


def test(model, data_generator, entities_count, device):
    examples_count = 0.0
    hits_at_10 = 0.0
    mrr_sum = 0.0
    entity_ids = torch.arange(end=entities_count, device=device).unsqueeze(0)
    for head, relation, tail in data_generator:
        current_batch_size = head.size()[0]
        head, relation, tail = head.to(device), relation.to(device), tail.to(device)
        all_entities = entity_ids.repeat(current_batch_size, 1)
        heads = head.reshape(-1, 1).repeat(1, all_entities.size()[1])
        relations = relation.reshape(-1, 1).repeat(1, all_entities.size()[1])
        # Check all possible tails
        triplets = torch.stack((heads, relations, all_entities), dim=2).reshape(-1, 3)
        tails_predictions = model.predict(triplets).reshape(current_batch_size, -1)
        ground_truth_entity_id = tail.reshape(-1, 1)
        hits_at_10 += hit_at_k(tails_predictions, ground_truth_entity_id, device=device, k=10)
        mrr_sum += mrr(tails_predictions, ground_truth_entity_id)
        examples_count += current_batch_size
    return hits_at_10 / examples_count * 100, mrr_sum / examples_count * 100


def main():
    args = parser.parse_args()
    torch.random.manual_seed(args.seed)
    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    entity_count, relation_count = 60, 6
    train_set = FB15KDataset(make_triples(entity_count, relation_count, 640))
    train_generator = torch_data.DataLoader(train_set, batch_size=args.batch_size)
    validation_set = FB15KDataset(make_triples(entity_count, relation_count, 64))
    validation_generator = torch_data.DataLoader(validation_set, batch_size=args.validation_batch_size)

    model = TransE(entity_count=entity_count, relation_count=relation_count, dim=args.vector_length,
                   margin=args.margin, device=device, norm=args.norm)
    model = model.to(device)
    optimizer = optim.SGD(model.parameters(), lr=args.lr)
    start_epoch_id, step, best_score = 1, 0, 0.0
    print(model)

    # Training loop
    for epoch_id in range(start_epoch_id, args.epochs + 1):
        print("Starting epoch: ", epoch_id)
        loss_impacting_samples_count = 0
        samples_count = 0
        model.train()

        for local_heads, local_relations, local_tails in train_generator:
            local_heads, local_relations, local_tails = (local_heads.to(device), local_relations.to(device), local_tails.to(device))
            positive_triples = torch.stack((local_heads, local_relations, local_tails), dim=1)

            # Preparing negatives.
            # Generate binary tensor to replace either head or tail. 1 means replace head, 0 means replace tail.
            head_or_tail = torch.randint(high=2, size=local_heads.size(), device=device)
            random_entities = torch.randint(high=entity_count, size=local_heads.size(), device=device)
            broken_heads = torch.where(head_or_tail == 1, random_entities, local_heads)
            broken_tails = torch.where(head_or_tail == 0, random_entities, local_tails)
            negative_triples = torch.stack((broken_heads, local_relations, broken_tails), dim=1)

            optimizer.zero_grad()

            loss, pd, nd = model(positive_triples, negative_triples)
            loss.mean().backward()

            loss = loss.data.cpu()
            loss_impacting_samples_count += loss.nonzero().size()[0]
            samples_count += loss.size()[0]

            optimizer.step()
            step += 1

        print("epoch %d: loss impacting samples %.2f%%" % (epoch_id, loss_impacting_samples_count / samples_count * 100))

        if epoch_id % args.validation_freq == 0:
            model.eval()
            hits_at_10, mrr_score = test(model=model, data_generator=validation_generator, entities_count=entity_count, device=device)
            print("validation hits@10 %.2f  mrr %.2f" % (hits_at_10, mrr_score))
            score = hits_at_10
            if score > best_score:
                best_score = score
                torch.save({"model_state_dict": model.state_dict(), "optim_state_dict": optimizer.state_dict(),
                            "epoch_id": epoch_id, "best_score": best_score, "step": step}, args.checkpoint_path)

    print("best hits@10 %.2f" % best_score)


if __name__ == "__main__":
    main()
