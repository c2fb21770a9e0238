"""The layers of ``minims.nn`` (MindSpore's ``mindspore.nn`` layer classes), one file per family."""
from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, ReLU6, Sigmoid, Softmax, Tanh, get_activation
from .basic import Dense, Flatten, MatMul
from .container import CellList, SequentialCell
from .conv import Conv2d, Conv2dTranspose
from .dropout import Dropout, Dropout2d
from .normalization import BatchNorm1d, BatchNorm2d
from .pooling import AvgPool2d, MaxPool2d
from .embedding import Embedding
from .rnn import LSTM

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "get_activation", "Dense",
           "Flatten", "MatMul", "SequentialCell", "CellList", "Conv2d", "Dropout", "Dropout2d",
           "BatchNorm1d", "BatchNorm2d", "MaxPool2d", "AvgPool2d"]
__all__ += ["LeakyReLU", "GELU", "Conv2dTranspose", "Embedding", "LSTM"]   # issue 25 item 2
