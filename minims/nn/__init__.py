"""``minims.nn``: Cells (MindSpore's ``mindspore.nn``): layers, losses, training wrappers, optimizers."""
from .cell import Cell, HookHandle
from .layers import (AvgPool2d, BatchNorm1d, BatchNorm2d, CellList, Conv2d, Dense, Dropout, Dropout2d,
                     Flatten, LogSoftmax, MatMul, MaxPool2d, ReLU, ReLU6, SequentialCell, Sigmoid, Softmax,
                     Tanh, get_activation)
from .loss import L1Loss, LossBase, MSELoss, SoftmaxCrossEntropyWithLogits
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MAELoss, NLLLoss
from .wrap import TrainOneStepCell, WithLossCell
from .eval_cell import WithEvalCell
from . import learning_rate_schedule, optim
from .optim import dynamic_lr                      # mindspore.nn.dynamic_lr
from .learning_rate_schedule import (CosineDecayLR, ExponentialDecayLR, InverseDecayLR, LearningRateSchedule,
                                     NaturalExpDecayLR, PolynomialDecayLR, WarmUpLR)
from .optim import (SGD, Adam, Momentum, Optimizer, cosine_decay_lr, exponential_decay_lr, inverse_decay_lr,
                    natural_exp_decay_lr, piecewise_constant_lr, polynomial_decay_lr, warmup_lr)
from .value_and_grad import ForwardValueAndGrad  # noqa: E402 - issue 26
from .loss_scale import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,  # noqa: E402 - issue 26
                         TrainOneStepWithLossScaleCell)
from .layers import Conv2dTranspose, Embedding, GELU, LeakyReLU, LSTM   # issue 25 item 2
from . import grad                                  # mindspore.nn.grad: Jvp, Vjp
from .graph_cell import GraphCell                  # runs a graph minims.load read (issue 25)

from ..layout import missing_name  # noqa: E402
__getattr__ = missing_name(__name__, "mindspore.nn")
