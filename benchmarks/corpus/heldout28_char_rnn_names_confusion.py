# corpus: char-RNN name-classification tutorial adapted: letterToTensor/lineToTensor, randomTrainingExample with random.choice, per-character RNN cell loop, optimizer instead of p.data.add_, print_every/plot_every, checkpoint every N iters, confusion matrix
import math
import os
import random
import string
import time

import torch
import torch.nn as nn

random.seed(3)
torch.manual_seed(3)

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)

# "data/names/*.txt" generated instead of read
category_lines = {}
all_categories = ['English', 'French', 'Italian', 'Japanese']
_syllables = {
    'English': ['th', 'son', 'ley', 'wood', 'er'],
    'French': ['eau', 'ier', 'ois', 'du', 'ne'],
    'Italian': ['ini', 'ell', 'o', 'ucci', 'ra'],
    'Japanese': ['ka', 'to', 'mi', 'ya', 'shi'],
}
for cat in all_categories:
    names = []
    for _ in range(30):
        k = random.randint(2, 3)
        names.append(''.join(random.choice(_syllables[cat]) for _ in range(k)).capitalize())
    category_lines[cat] = names
n_categories = len(all_categories)


# Find letter index from all_letters, e.g. "a" = 0
def letterToIndex(letter):
    return all_letters.find(letter)


# Just for demonstration, turn a letter into a <1 x n_letters> Tensor
def letterToTensor(letter):
    tensor = torch.zeros(1, n_letters)
    tensor[0][letterToIndex(letter)] = 1
    return tensor


# Turn a line into a <line_length x 1 x n_letters>,
# or an array of one-hot letter vectors
def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()

        self.hidden_size = hidden_size

        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.i2o(combined)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


n_hidden = 32
rnn = RNN(n_letters, n_hidden, n_categories)


def categoryFromOutput(output):
    top_n, top_i = output.topk(1)
    category_i = top_i[0].item()
    return all_categories[category_i], category_i


def randomChoice(l):
    return l[random.randint(0, len(l) - 1)]


def randomTrainingExample():
    category = randomChoice(all_categories)
    line = randomChoice(category_lines[category])
    category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
    line_tensor = lineToTensor(line)
    return category, line, category_tensor, line_tensor


criterion = nn.NLLLoss()
learning_rate = 0.005  # If you set this too high, it might explode. If too low, it might not learn
optimizer = torch.optim.SGD(rnn.parameters(), lr=learning_rate)


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()

    optimizer.zero_grad()

    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)

    loss = criterion(output, category_tensor)
    loss.backward()

    # was: for p in rnn.parameters(): p.data.add_(p.grad.data, alpha=-learning_rate)
    optimizer.step()

    return output, loss.item()


n_iters = 600
print_every = 100
plot_every = 50
save_every = 200

# Keep track of losses for plotting
current_loss = 0
all_losses = []


def timeSince(since):
    now = time.time()
    s = now - since
    m = math.floor(s / 60)
    s -= m * 60
    return '%dm %ds' % (m, s)


start = time.time()
os.makedirs('ckpt', exist_ok=True)

for iter in range(1, n_iters + 1):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    output, loss = train(category_tensor, line_tensor)
    current_loss += loss

    # Print ``iter`` number, loss, name and guess
    if iter % print_every == 0:
        guess, guess_i = categoryFromOutput(output)
        correct = '✓' if guess == category else '✗ (%s)' % category
        print('%d %d%% (%s) %.4f %s / %s %s' % (iter, iter / n_iters * 100, timeSince(start), loss, line, guess, correct))

    # Add current loss avg to list of losses
    if iter % plot_every == 0:
        all_losses.append(current_loss / plot_every)
        current_loss = 0

    if iter % save_every == 0:
        torch.save({'iter': iter, 'rnn': rnn.state_dict(), 'optimizer': optimizer.state_dict(),
                    'all_losses': all_losses}, 'ckpt/char_rnn_%d.pt' % iter)

print('losses:', ' '.join('%.3f' % l for l in all_losses))

# Keep track of correct guesses in a confusion matrix
confusion = torch.zeros(n_categories, n_categories)
n_confusion = 200


# Just return an output given a line
def evaluate(line_tensor):
    hidden = rnn.initHidden()

    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)

    return output


# Go through a bunch of examples and record which are correctly guessed
with torch.no_grad():
    for i in range(n_confusion):
        category, line, category_tensor, line_tensor = randomTrainingExample()
        output = evaluate(line_tensor)
        guess, guess_i = categoryFromOutput(output)
        category_i = all_categories.index(category)
        confusion[category_i][guess_i] += 1

# Normalize by dividing every row by its sum
for i in range(n_categories):
    confusion[i] = confusion[i] / confusion[i].sum()

for i, cat in enumerate(all_categories):
    print('%-10s' % cat, ' '.join('%.2f' % v for v in confusion[i].tolist()))


def predict(input_line, n_predictions=2):
    print('\n> %s' % input_line)
    with torch.no_grad():
        output = evaluate(lineToTensor(input_line))

        # Get top N categories
        topv, topi = output.topk(n_predictions, 1, True)

        for i in range(n_predictions):
            value = topv[0][i].item()
            category_index = topi[0][i].item()
            print('(%.2f) %s' % (value, all_categories[category_index]))


predict('Dovesky')
predict('Jackson')
predict('Satoshi')
