# corpus: PyImageSearch LeNet tutorial: config block of constants, H = {"train_loss": [], ...} history dict, time.time() timing, torch.save(model, path) of the whole model, matplotlib plot if installed, classification summary
# USAGE
# python train.py
# import the necessary packages
import time
import os

import numpy as np
import torch
from torch import nn
from torch.nn import Conv2d, Linear, MaxPool2d, ReLU, LogSoftmax
from torch import flatten
from torch.optim import Adam
from torch.utils.data import DataLoader, TensorDataset, random_split

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    plt = None

# ---- config.py ----
INIT_LR = 1e-3
BATCH_SIZE = 32
EPOCHS = 4
# define the train and val splits
TRAIN_SPLIT = 0.75
VAL_SPLIT = 1 - TRAIN_SPLIT
OUTPUT_DIR = "output"
MODEL_PATH = os.path.sep.join([OUTPUT_DIR, "model.pth"])
PLOT_PATH = os.path.sep.join([OUTPUT_DIR, "plot.png"])
# set the device we will be using to train the model
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
# ---- end config ----

torch.manual_seed(42)


class LeNet(nn.Module):
    def __init__(self, numChannels, classes):
        # call the parent constructor
        super(LeNet, self).__init__()
        # initialize first set of CONV => RELU => POOL layers
        self.conv1 = Conv2d(in_channels=numChannels, out_channels=6, kernel_size=(5, 5))
        self.relu1 = ReLU()
        self.maxpool1 = MaxPool2d(kernel_size=(2, 2), stride=(2, 2))
        # initialize second set of CONV => RELU => POOL layers
        self.conv2 = Conv2d(in_channels=6, out_channels=12, kernel_size=(3, 3))
        self.relu2 = ReLU()
        self.maxpool2 = MaxPool2d(kernel_size=(2, 2), stride=(2, 2))
        # initialize first (and only) set of FC => RELU layers
        self.fc1 = Linear(in_features=12 * 2 * 2, out_features=32)
        self.relu3 = ReLU()
        # initialize our softmax classifier
        self.fc2 = Linear(in_features=32, out_features=classes)
        self.logSoftmax = LogSoftmax(dim=1)

    def forward(self, x):
        x = self.conv1(x)
        x = self.relu1(x)
        x = self.maxpool1(x)
        x = self.conv2(x)
        x = self.relu2(x)
        x = self.maxpool2(x)
        x = flatten(x, 1)
        x = self.fc1(x)
        x = self.relu3(x)
        x = self.fc2(x)
        output = self.logSoftmax(x)
        return output


# load the KMNIST dataset (synthetic stand-in: 1x16x16 "characters")
print("[INFO] loading the KMNIST dataset...")
classNames = ["o", "ki", "su", "tsu", "na"]
trainX = torch.randn(320, 1, 16, 16)
trainY = torch.randint(0, len(classNames), (320,))
trainX[:, 0, 3, :] += trainY.float().unsqueeze(1) * 1.5
testX = torch.randn(80, 1, 16, 16)
testY = torch.randint(0, len(classNames), (80,))
testX[:, 0, 3, :] += testY.float().unsqueeze(1) * 1.5
trainData = TensorDataset(trainX, trainY)
testData = TensorDataset(testX, testY)

# calculate the train/validation split
print("[INFO] generating the train/validation split...")
numTrainSamples = int(len(trainData) * TRAIN_SPLIT)
numValSamples = int(len(trainData) * VAL_SPLIT)
(trainData, valData) = random_split(trainData, [numTrainSamples, numValSamples],
                                    generator=torch.Generator().manual_seed(42))

# initialize the train, validation, and test data loaders
trainDataLoader = DataLoader(trainData, shuffle=True, batch_size=BATCH_SIZE)
valDataLoader = DataLoader(valData, batch_size=BATCH_SIZE)
testDataLoader = DataLoader(testData, batch_size=BATCH_SIZE)
# calculate steps per epoch for training and validation set
trainSteps = len(trainDataLoader.dataset) // BATCH_SIZE
valSteps = len(valDataLoader.dataset) // BATCH_SIZE

# initialize the LeNet model
print("[INFO] initializing the LeNet model...")
model = LeNet(numChannels=1, classes=len(classNames)).to(device)
# initialize our optimizer and loss function
opt = Adam(model.parameters(), lr=INIT_LR)
lossFn = nn.NLLLoss()
# initialize a dictionary to store training history
H = {
    "train_loss": [],
    "train_acc": [],
    "val_loss": [],
    "val_acc": []
}
# measure how long training is going to take
print("[INFO] training the network...")
startTime = time.time()

# loop over our epochs
for e in range(0, EPOCHS):
    # set the model in training mode
    model.train()
    # initialize the total training and validation loss
    totalTrainLoss = 0
    totalValLoss = 0
    # initialize the number of correct predictions in the training
    # and validation step
    trainCorrect = 0
    valCorrect = 0
    # loop over the training set
    for (x, y) in trainDataLoader:
        # send the input to the device
        (x, y) = (x.to(device), y.to(device))
        # perform a forward pass and calculate the training loss
        pred = model(x)
        loss = lossFn(pred, y)
        # zero out the gradients, perform the backpropagation step,
        # and update the weights
        opt.zero_grad()
        loss.backward()
        opt.step()
        # add the loss to the total training loss so far and
        # calculate the number of correct predictions
        totalTrainLoss += loss
        trainCorrect += (pred.argmax(1) == y).type(torch.float).sum().item()
    # switch off autograd for evaluation
    with torch.no_grad():
        # set the model in evaluation mode
        model.eval()
        # loop over the validation set
        for (x, y) in valDataLoader:
            # send the input to the device
            (x, y) = (x.to(device), y.to(device))
            # make the predictions and calculate the validation loss
            pred = model(x)
            totalValLoss += lossFn(pred, y)
            # calculate the number of correct predictions
            valCorrect += (pred.argmax(1) == y).type(torch.float).sum().item()
    # calculate the average training and validation loss
    avgTrainLoss = totalTrainLoss / trainSteps
    avgValLoss = totalValLoss / valSteps
    # calculate the training and validation accuracy
    trainCorrect = trainCorrect / len(trainDataLoader.dataset)
    valCorrect = valCorrect / len(valDataLoader.dataset)
    # update our training history
    H["train_loss"].append(avgTrainLoss.cpu().detach().numpy())
    H["train_acc"].append(trainCorrect)
    H["val_loss"].append(avgValLoss.cpu().detach().numpy())
    H["val_acc"].append(valCorrect)
    # print the model training and validation information
    print("[INFO] EPOCH: {}/{}".format(e + 1, EPOCHS))
    print("Train loss: {:.6f}, Train accuracy: {:.4f}".format(avgTrainLoss, trainCorrect))
    print("Val loss: {:.6f}, Val accuracy: {:.4f}\n".format(avgValLoss, valCorrect))

# finish measuring how long training took
endTime = time.time()
print("[INFO] total time taken to train the model: {:.2f}s".format(endTime - startTime))

# we can now evaluate the network on the test set
print("[INFO] evaluating network...")
# turn off autograd for testing evaluation
with torch.no_grad():
    # set the model in evaluation mode
    model.eval()
    # initialize a list to store our predictions
    preds = []
    # loop over the test set
    for (x, y) in testDataLoader:
        # send the input to the device
        x = x.to(device)
        # make the predictions and add them to the list
        pred = model(x)
        preds.extend(pred.argmax(axis=1).cpu().numpy())

# generate a classification report (by hand: no sklearn here)
preds = np.array(preds)
targets = testData.tensors[1].cpu().numpy()
print("{:>10} {:>9} {:>9} {:>9}".format("", "precision", "recall", "support"))
for (i, name) in enumerate(classNames):
    tp = int(((preds == i) & (targets == i)).sum())
    precision = tp / max(int((preds == i).sum()), 1)
    recall = tp / max(int((targets == i).sum()), 1)
    print("{:>10} {:>9.2f} {:>9.2f} {:>9}".format(name, precision, recall, int((targets == i).sum())))
print("{:>10} {:>9.2f}".format("accuracy", float((preds == targets).mean())))

os.makedirs(OUTPUT_DIR, exist_ok=True)
# plot the training loss and accuracy
if plt is not None:
    plt.style.use("ggplot")
    plt.figure()
    plt.plot(H["train_loss"], label="train_loss")
    plt.plot(H["val_loss"], label="val_loss")
    plt.plot(H["train_acc"], label="train_acc")
    plt.plot(H["val_acc"], label="val_acc")
    plt.title("Training Loss and Accuracy on Dataset")
    plt.xlabel("Epoch #")
    plt.ylabel("Loss/Accuracy")
    plt.legend(loc="lower left")
    plt.savefig(PLOT_PATH)
else:
    np.save(os.path.join(OUTPUT_DIR, "history.npy"), np.array([H["train_loss"], H["val_loss"], H["train_acc"], H["val_acc"]]))
# serialize the model to disk
torch.save(model, MODEL_PATH)
