"""Train LeNet-5 the MindSpore way — ``Model.train`` on a ``mindspore.dataset`` pipeline — on the
digits shipped with minims, written as MNIST files; print the loss per epoch and the accuracy.

    PYTHONPATH=. python tools/demo_model_train.py [--epochs 10] [--graph]

The pipeline is the one of MindSpore's LeNet tutorial: ``MnistDataset`` -> ``Resize((32, 32))``,
``Rescale(1/255)``, ``Rescale(1/0.3081, -0.1307/0.3081)``, ``HWC2CHW`` on the images,
``TypeCast(int32)`` on the labels -> ``shuffle`` -> ``batch(32, drop_remainder=True)`` (the test
split: in order, every image); the network
is the documentation's ``LeNet5`` with ``Momentum(0.01, 0.9)``.  Everything printed is determined
by the seed except the last line (the run time).
"""
import argparse
import os
import tempfile
import time

import minims as mindspore
from minims import nn
from minims.dataset import MnistDataset, transforms, vision, write_digits_as_mnist
from minims.train import Accuracy, EpochLog, Model


class LeNet5(nn.Cell):
    """The LeNet-5 of MindSpore's documentation (``docs/mindspore/code/lenet.py``)."""

    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def create_dataset(folder, usage, batch_size=32):
    """MindSpore's LeNet pipeline over the MNIST files in ``folder`` (the test split in order and
    whole, the training split shuffled in full batches)."""
    train = usage == "train"
    data = MnistDataset(folder, usage=usage, shuffle=train)
    image_ops = [vision.Resize((32, 32)), vision.Rescale(1.0 / 255.0, 0.0),
                 vision.Rescale(1 / 0.3081, -0.1307 / 0.3081), vision.HWC2CHW()]
    data = data.map(operations=transforms.TypeCast(mindspore.int32), input_columns="label")
    data = data.map(operations=image_ops, input_columns="image")
    if train:
        data = data.shuffle(buffer_size=1024)
    return data.batch(batch_size, drop_remainder=train)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--graph", action="store_true", help="train in Graph mode")
    args = parser.parse_args()
    if args.graph:
        mindspore.set_context(mode=mindspore.GRAPH_MODE)
    mindspore.set_seed(args.seed)              # the weights and the data set's shuffles
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        write_digits_as_mnist(folder)
        print("MNIST files:", sorted(os.listdir(folder)))
        train_set, test_set = create_dataset(folder, "train"), create_dataset(folder, "test")
        print(f"{train_set.get_dataset_size()} training batches, {test_set.get_dataset_size()} test batches, "
              f"columns {train_set.get_col_names()}")
        net = LeNet5()
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
        model = Model(net, loss_fn, optimizer, metrics={"accuracy": Accuracy()})
        log = EpochLog()
        model.train(args.epochs, train_set, callbacks=[log])
        print("test:", model.eval(test_set))
    print(f"run time {time.perf_counter() - start:.1f} s")    # the one line that changes from run to run


if __name__ == "__main__":
    main()
