"""Neural-network primitives: convolution, pooling, batch normalisation, dropout, softmax losses.

Layout is NCHW throughout, as MindSpore's default.  Every primitive here has a NumPy ``impl`` and a
``bprop`` written in minims ops, and the gradient primitives have ``bprop``s of their own, so every
op can be differentiated twice (and more):

* ``Conv2D``, ``Conv2DBackpropInput`` and ``Conv2DBackpropFilter`` are one *closed family*.  A
  convolution is linear in each of its two arguments, so the derivative of any member with respect
  to either argument is another member (with the same geometry):

  ====================  ========================  ==================================
  primitive             grad w.r.t. 1st input     grad w.r.t. 2nd input
  ====================  ========================  ==================================
  Conv2D(x, w)          BackpropInput(dy, w)      BackpropFilter(dy, x)
  BackpropInput(dy, w)  Conv2D(g, w)              BackpropFilter(dy, g)
  BackpropFilter(dy,x)  Conv2D(x, g)              BackpropInput(dy, g)
  ====================  ========================  ==================================

* ``MaxPool`` -> ``MaxPoolGrad`` (scatter ``dout`` to the first maximum of each window) ->
  ``MaxPoolGradGrad`` (gather from the same positions) -> ``MaxPoolGrad`` ...: scatter and gather
  through a fixed set of positions are each other's adjoint.  The positions depend on ``x`` only
  piecewise-constantly, so the gradient with respect to ``x`` of the two gradient primitives is 0.
* ``AvgPool`` <-> ``AvgPoolGrad``: a fixed linear map and its transpose.
* ``BatchNorm``, ``Dropout``/``Dropout2D`` and the softmax losses write their backward rules as
  compositions of minims ops, which are differentiable already.

Implementation (the NumPy path; ``minims.fast`` has Numba kernels for the same primitives):

* convolution works channel-first, on ``(C, N, H, W)`` views: for each kernel tap one strided slice
  of the padded input is copied into the column matrix (im2col, a loop over the kh*kw taps, never
  over pixels), and one BLAS product per group multiplies it with the weight for the whole batch;
  the transposed convolution adds each tap's product back into its slice (col2im);
* pooling reads the windows of the padded input as a strided *view*
  (``np.lib.stride_tricks.sliding_window_view``) and reduces over it; its adjoints add each tap's
  slice back the same way.
"""
from __future__ import annotations

from .conv import Conv2D, Conv2DBackpropInput, Conv2DTranspose, Conv2DBackpropFilter
from .pooling import MaxPool, MaxPoolGrad, MaxPoolGradGrad, MaxPoolArgmax, AvgPool, AvgPoolGrad
from .batch_norm import BatchNorm
from .dropout import Dropout, Dropout2D
from .cross_entropy import SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits
from ._geometry import _pair  # used by the functional pooling wrappers

__all__ = ["Conv2D", "Conv2DBackpropInput", "Conv2DTranspose", "Conv2DBackpropFilter", "MaxPool",
           "MaxPoolGrad", "MaxPoolGradGrad", "MaxPoolArgmax", "AvgPool", "AvgPoolGrad", "BatchNorm",
           "Dropout", "Dropout2D", "SoftmaxCrossEntropyWithLogits",
           "SparseSoftmaxCrossEntropyWithLogits"]
