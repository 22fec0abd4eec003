# corpus: run_lm_finetuning.py style masked LM: argparse defaults, mask_tokens() 80/10/10, AdamW no_decay groups, linear warmup LambdaLR stepped per update, gradient_accumulation_steps, clip_grad_norm_, global_step logging/save_steps, model_to_save
import argparse
import logging
import os
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, RandomSampler, SequentialSampler, TensorDataset
from tqdm import tqdm, trange

logger = logging.getLogger(__name__)

PAD, CLS, SEP, MASK = 0, 1, 2, 3
VOCAB_SIZE = 50


class TinyBertForMaskedLM(nn.Module):
    def __init__(self, vocab_size, hidden=32, layers=2, heads=2, max_len=24):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, hidden, padding_idx=PAD)
        self.position = nn.Embedding(max_len, hidden)
        self.LayerNorm = nn.LayerNorm(hidden)
        enc = nn.TransformerEncoderLayer(hidden, heads, hidden * 4, dropout=0.1, activation='gelu', batch_first=True)
        self.encoder = nn.TransformerEncoder(enc, layers)
        self.cls = nn.Linear(hidden, vocab_size)

    def forward(self, input_ids, attention_mask=None, masked_lm_labels=None):
        pos = torch.arange(input_ids.size(1), device=input_ids.device)
        h = self.LayerNorm(self.embeddings(input_ids) + self.position(pos))
        pad_mask = attention_mask == 0 if attention_mask is not None else None
        h = self.encoder(h, src_key_padding_mask=pad_mask)
        prediction_scores = self.cls(h)
        outputs = (prediction_scores,)
        if masked_lm_labels is not None:
            loss_fct = nn.CrossEntropyLoss(ignore_index=-100)
            masked_lm_loss = loss_fct(prediction_scores.view(-1, VOCAB_SIZE), masked_lm_labels.view(-1))
            outputs = (masked_lm_loss,) + outputs
        return outputs


def set_seed(args):
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.n_gpu > 0:
        torch.cuda.manual_seed_all(args.seed)


def load_and_cache_examples(args, n):
    ids = torch.randint(4, VOCAB_SIZE, (n, args.block_size))
    ids[:, 0] = CLS
    ids[:, -1] = SEP
    attn = torch.ones_like(ids)
    return TensorDataset(ids, attn)


def mask_tokens(inputs, args):
    """ Prepare masked tokens inputs/labels for masked language modeling: 80% MASK, 10% random, 10% original. """
    labels = inputs.clone()
    probability_matrix = torch.full(labels.shape, args.mlm_probability)
    special_tokens_mask = (inputs == CLS) | (inputs == SEP) | (inputs == PAD)
    probability_matrix.masked_fill_(special_tokens_mask, value=0.0)
    masked_indices = torch.bernoulli(probability_matrix).bool()
    labels[~masked_indices] = -100  # We only compute loss on masked tokens

    indices_replaced = torch.bernoulli(torch.full(labels.shape, 0.8)).bool() & masked_indices
    inputs[indices_replaced] = MASK

    indices_random = torch.bernoulli(torch.full(labels.shape, 0.5)).bool() & masked_indices & ~indices_replaced
    random_words = torch.randint(VOCAB_SIZE, labels.shape, dtype=torch.long)
    inputs[indices_random] = random_words[indices_random]
    return inputs, labels


def train(args, train_dataset, model):
    train_sampler = RandomSampler(train_dataset)
    train_dataloader = DataLoader(train_dataset, sampler=train_sampler, batch_size=args.train_batch_size)
    t_total = len(train_dataloader) // args.gradient_accumulation_steps * args.num_train_epochs

    no_decay = ['bias', 'LayerNorm.weight']
    optimizer_grouped_parameters = [
        {'params': [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], 'weight_decay': args.weight_decay},
        {'params': [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], 'weight_decay': 0.0}
    ]
    optimizer = torch.optim.AdamW(optimizer_grouped_parameters, lr=args.learning_rate, eps=args.adam_epsilon)

    def lr_lambda(current_step):
        if current_step < args.warmup_steps:
            return float(current_step) / float(max(1, args.warmup_steps))
        return max(0.0, float(t_total - current_step) / float(max(1, t_total - args.warmup_steps)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

    logger.info("***** Running training *****")
    logger.info("  Num examples = %d", len(train_dataset))
    logger.info("  Num Epochs = %d", args.num_train_epochs)
    logger.info("  Total optimization steps = %d", t_total)

    global_step = 0
    tr_loss, logging_loss = 0.0, 0.0
    model.zero_grad()
    train_iterator = trange(int(args.num_train_epochs), desc="Epoch", disable=True)
    set_seed(args)  # Added here for reproducibility
    for _ in train_iterator:
        epoch_iterator = tqdm(train_dataloader, desc="Iteration", disable=True)
        for step, batch in enumerate(epoch_iterator):
            input_ids, attention_mask = batch
            inputs, labels = mask_tokens(input_ids, args)
            inputs = inputs.to(args.device)
            labels = labels.to(args.device)
            attention_mask = attention_mask.to(args.device)
            model.train()
            outputs = model(inputs, attention_mask=attention_mask, masked_lm_labels=labels)
            loss = outputs[0]

            if args.n_gpu > 1:
                loss = loss.mean()  # mean() to average on multi-gpu parallel training
            if args.gradient_accumulation_steps > 1:
                loss = loss / args.gradient_accumulation_steps

            loss.backward()

            tr_loss += loss.item()
            if (step + 1) % args.gradient_accumulation_steps == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                scheduler.step()  # Update learning rate schedule
                model.zero_grad()
                global_step += 1

                if args.logging_steps > 0 and global_step % args.logging_steps == 0:
                    logger.info("step %d lr %.6f loss %.4f", global_step, scheduler.get_last_lr()[0],
                                (tr_loss - logging_loss) / args.logging_steps)
                    logging_loss = tr_loss

                if args.save_steps > 0 and global_step % args.save_steps == 0:
                    output_dir = os.path.join(args.output_dir, 'checkpoint-{}'.format(global_step))
                    if not os.path.exists(output_dir):
                        os.makedirs(output_dir)
                    model_to_save = model.module if hasattr(model, 'module') else model
                    torch.save(model_to_save.state_dict(), os.path.join(output_dir, 'pytorch_model.bin'))
                    torch.save(args, os.path.join(output_dir, 'training_args.bin'))
                    logger.info("Saving model checkpoint to %s", output_dir)

            if args.max_steps > 0 and global_step > args.max_steps:
                epoch_iterator.close()
                break
        if args.max_steps > 0 and global_step > args.max_steps:
            train_iterator.close()
            break

    return global_step, tr_loss / global_step


def evaluate(args, model, eval_dataset):
    eval_dataloader = DataLoader(eval_dataset, sampler=SequentialSampler(eval_dataset), batch_size=args.eval_batch_size)
    eval_loss = 0.0
    nb_eval_steps = 0
    model.eval()
    for batch in tqdm(eval_dataloader, desc="Evaluating", disable=True):
        input_ids, attention_mask = batch
        inputs, labels = mask_tokens(input_ids, args)
        with torch.no_grad():
            outputs = model(inputs.to(args.device), attention_mask=attention_mask.to(args.device), masked_lm_labels=labels.to(args.device))
            eval_loss += outputs[0].mean().item()
        nb_eval_steps += 1
    eval_loss = eval_loss / nb_eval_steps
    perplexity = torch.exp(torch.tensor(eval_loss))
    result = {"perplexity": perplexity}
    with open(os.path.join(args.output_dir, "eval_results.txt"), "w") as writer:
        for key in sorted(result.keys()):
            logger.info("  %s = %s", key, str(result[key]))
            writer.write("%s = %s\n" % (key, str(result[key])))
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output_dir", default="mlm_output", type=str)
    parser.add_argument("--mlm_probability", type=float, default=0.15)
    parser.add_argument("--block_size", default=20, type=int)
    parser.add_argument("--train_batch_size", default=16, type=int)
    parser.add_argument("--eval_batch_size", default=32, type=int)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=2)
    parser.add_argument("--learning_rate", default=5e-4, type=float)
    parser.add_argument("--weight_decay", default=0.01, type=float)
    parser.add_argument("--adam_epsilon", default=1e-8, type=float)
    parser.add_argument("--max_grad_norm", default=1.0, type=float)
    parser.add_argument("--num_train_epochs", default=3, type=int)
    parser.add_argument("--max_steps", default=-1, type=int)
    parser.add_argument("--warmup_steps", default=5, type=int)
    parser.add_argument('--logging_steps', type=int, default=5)
    parser.add_argument('--save_steps', type=int, default=20)
    parser.add_argument("--no_cuda", action='store_true')
    parser.add_argument('--seed', type=int, default=42)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() and not args.no_cuda else "cpu")
    args.n_gpu = torch.cuda.device_count() if not args.no_cuda else 0
    args.device = device
    logging.basicConfig(format='%(asctime)s - %(levelname)s - %(name)s -   %(message)s', datefmt='%m/%d/%Y %H:%M:%S', level=logging.INFO)
    set_seed(args)

    model = TinyBertForMaskedLM(VOCAB_SIZE, max_len=args.block_size)
    model.to(args.device)
    os.makedirs(args.output_dir, exist_ok=True)

    train_dataset = load_and_cache_examples(args, 320)
    eval_dataset = load_and_cache_examples(args, 64)
    global_step, tr_loss = train(args, train_dataset, model)
    logger.info(" global_step = %s, average loss = %s", global_step, tr_loss)

    model_to_save = model.module if hasattr(model, 'module') else model
    torch.save(model_to_save.state_dict(), os.path.join(args.output_dir, 'pytorch_model.bin'))
    result = evaluate(args, model, eval_dataset)
    print(result)


if __name__ == "__main__":
    main()
