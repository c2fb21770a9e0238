"""``nn.LSTM``: a long short-term memory network over a sequence (MindSpore 2.10), written in minims ops.

Each step of each layer computes the four gates from the input and the previous hidden state,
``gates = x W_ih.T + b_ih + h W_hh.T + b_hh``, split in MindSpore's (and PyTorch's) order
``i, f, g, o``: ``c' = σ(f) c + σ(i) tanh(g)``, ``h' = σ(o) tanh(c')``.  The steps are an ordinary
Python loop over the time axis, so the gradient is backpropagation through time by the same
machinery as any composition; ``jit`` unrolls the loop.  A bidirectional layer runs a second set of
weights (names ending ``_reverse``) from the last step to the first and concatenates both outputs.

The Parameters are named and ordered as MindSpore's (all ``weight_ih_l*``, then ``weight_hh_l*``,
``bias_ih_l*``, ``bias_hh_l*``), each initialised ``U(-1/√hidden, 1/√hidden)``; the Cell prints
with MindSpore's two children, ``rnn`` (the recurrence) and ``dropout_op`` (between layers).
"""
from __future__ import annotations

import math

from ... import dtype as mstype
from ... import ops
from ...core.tensor import Tensor
from ...tensors.convert import _describe
from ...tensors.initializer import Uniform, initializer
from ...tensors.parameter import Parameter
from ..cell import Cell
from .basic import _check_bool, _positive_int
from .dropout import Dropout

__all__ = ["LSTM"]


def _step(x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One LSTM step: the new hidden and cell states, ``(N, H)`` each."""
    gates = ops.add(ops.matmul(x, ops.transpose(w_ih, (1, 0))), ops.matmul(h, ops.transpose(w_hh, (1, 0))))
    if b_ih is not None:
        gates = ops.add(gates, ops.add(b_ih, b_hh))
    size = h.shape[-1]
    i, f, g, o = (ops.getitem(gates, (slice(None), slice(k * size, (k + 1) * size))) for k in range(4))
    c = ops.add(ops.mul(ops.sigmoid(f), c), ops.mul(ops.sigmoid(i), ops.tanh(g)))
    return ops.mul(ops.sigmoid(o), ops.tanh(c)), c


class _DynamicLSTMCPUGPU(Cell):
    """The recurrence of one layer in one direction over ``(T, N, input)`` (MindSpore's child's name)."""

    def construct(self, x, h, c, w_ih, w_hh, b_ih, b_hh, reverse=False):
        steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
        outputs = [None] * x.shape[0]
        for t in steps:
            h, c = _step(ops.getitem(x, t), h, c, w_ih, w_hh, b_ih, b_hh)
            outputs[t] = h
        return ops.stack(outputs, 0), h, c


class LSTM(Cell):
    """``nn.LSTM(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
    bidirectional=False)``: ``construct(x, hx=None, seq_length=None)`` -> ``(output, (h_n, c_n))``
    with ``x`` ``(T, N, input_size)`` (``(N, T, input_size)`` when ``batch_first``), ``output``
    ``(T, N, directions * hidden_size)`` and ``h_n``, ``c_n`` ``(num_layers * directions, N,
    hidden_size)``; ``hx = (h_0, c_0)`` of that shape (zeros by default)."""

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, dtype=mstype.float32):
        super().__init__()
        self.input_size = _positive_int("LSTM", "input_size", input_size)
        self.hidden_size = _positive_int("LSTM", "hidden_size", hidden_size)
        self.num_layers = _positive_int("LSTM", "num_layers", num_layers)
        self.has_bias = _check_bool("LSTM", "has_bias", has_bias)
        self.batch_first = _check_bool("LSTM", "batch_first", batch_first)
        self.bidirectional = _check_bool("LSTM", "bidirectional", bidirectional)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise ValueError(f"LSTM: dropout must be a float in [0, 1), but got {dropout!r}.")
        self.dropout = float(dropout)
        self.rnn = _DynamicLSTMCPUGPU()
        self.dropout_op = Dropout(p=self.dropout)
        self._names = []               # per layer, per direction: the suffix of its Parameters' names
        directions = 2 if bidirectional else 1
        bound = 1 / math.sqrt(hidden_size)
        shapes = {}
        for layer in range(num_layers):
            width = input_size if layer == 0 else hidden_size * directions
            for suffix in ("", "_reverse")[:directions]:
                name = f"l{layer}{suffix}"
                self._names.append(name)
                shapes[name] = {"weight_ih": (4 * hidden_size, width), "weight_hh": (4 * hidden_size, hidden_size),
                                "bias_ih": (4 * hidden_size,), "bias_hh": (4 * hidden_size,)}
        kinds = ("weight_ih", "weight_hh") + (("bias_ih", "bias_hh") if has_bias else ())
        for kind in kinds:                       # MindSpore's order: by kind, then layer and direction
            for name in self._names:
                full = f"{kind}_{name}"
                setattr(self, full, Parameter(initializer(Uniform(bound), shapes[name][kind], dtype), name=full))

    def _initial(self, x, hx):
        count = self.num_layers * (2 if self.bidirectional else 1)
        shape = (count, x.shape[1], self.hidden_size)
        if hx is None:
            zeros = ops.zeros(shape, x.dtype)
            return zeros, zeros
        if not isinstance(hx, (tuple, list)) or len(hx) != 2 or any(
                not isinstance(s, Tensor) or tuple(s.shape) != shape for s in hx):
            raise ValueError(f"{self.path}: hx must be a pair (h_0, c_0) of Tensors of shape {list(shape)} "
                             f"(num_layers * directions, batch, hidden_size), but got {_describe(hx)}.")
        return hx

    def construct(self, x, hx=None, seq_length=None):
        if not isinstance(x, Tensor) or x.ndim != 3 or x.shape[-1] != self.input_size:
            raise ValueError(f"{self.path}: LSTM(input_size={self.input_size}, ...) expects a 3-D input "
                             f"({'N, T' if self.batch_first else 'T, N'}, {self.input_size}), but got {_describe(x)}. Fix: build "
                             f"LSTM(input_size=<size of the input's last axis>, ...), or batch_first=True for "
                             "(batch, time, features).")
        if seq_length is not None:
            raise NotImplementedError(f"{self.path}: seq_length (sequences of different lengths in one batch) is "
                                      "not supported by minims' LSTM. Fix: pad and run the sequences of equal "
                                      "length together, or one batch per length.")
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        h0, c0 = self._initial(x, hx)
        directions = 2 if self.bidirectional else 1
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            if layer:
                x = self.dropout_op(x)
            outputs = []
            for d in range(directions):
                k = layer * directions + d
                name = self._names[k]
                params = [getattr(self, f"{kind}_{name}") for kind in ("weight_ih", "weight_hh")]
                params += [getattr(self, f"{kind}_{name}") for kind in ("bias_ih", "bias_hh")] if self.has_bias \
                    else [None, None]
                out, h, c = self.rnn(x, ops.getitem(h0, k), ops.getitem(c0, k), *params, reverse=bool(d))
                outputs.append(out)
                h_n.append(h)
                c_n.append(c)
            x = outputs[0] if directions == 1 else ops.concat(outputs, 2)
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        return x, (ops.stack(h_n, 0), ops.stack(c_n, 0))
