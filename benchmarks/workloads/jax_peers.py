"""The ``JAX jit`` peers of the training workloads (W2, W3), written as JAX's users write a step.

A step is one ``jax.jit`` function ``(params, state, x, y) -> (params, state, loss, grads)``: the loss
and its gradients by ``jax.value_and_grad``, the optimiser's update in the same compiled function.
The parameters live in a dict named as PyTorch names them (``fc1.weight`` is ``(out, in)``), the same
weights every peer starts from.  The timed call runs one step and waits for its result
(``block_until_ready``: JAX dispatches asynchronously); the check runs two steps, as for every peer.
"""
from __future__ import annotations

import numpy as np


def dense_head(jnp, f, p):
    """fc1 - ReLU - fc2 - ReLU - fc3, PyTorch's layout of the weights."""
    h = jnp.maximum(f @ p["fc1.weight"].T + p["fc1.bias"], 0)
    h = jnp.maximum(h @ p["fc2.weight"].T + p["fc2.bias"], 0)
    return h @ p["fc3.weight"].T + p["fc3.bias"]


def cross_entropy(jax, logits, labels):
    """Mean softmax cross-entropy on sparse labels."""
    logp = jax.nn.log_softmax(logits, axis=1)
    return -jax.numpy.mean(jax.numpy.take_along_axis(logp, labels[:, None], axis=1))


def training_peer(jax, forward, weights, xb, yb, lr, momentum=None):
    """``(make, outputs)`` for ``forward(jax, params, x) -> logits``; SGD, or Momentum as MindSpore's
    ApplyMomentum (``accum = momentum * accum + g; p -= lr * accum``) when ``momentum`` is given."""
    def loss_fn(params, x, y):
        return cross_entropy(jax, forward(jax, params, x), y)

    @jax.jit
    def step(params, accum, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        if momentum is None:
            params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
        else:
            accum = jax.tree_util.tree_map(lambda a, g: momentum * a + g, accum, grads)
            params = jax.tree_util.tree_map(lambda p, a: p - lr * a, params, accum)
        return params, accum, loss, grads

    def fresh():
        params = {k: jax.device_put(v) for k, v in weights.items()}
        accum = {k: jax.numpy.zeros_like(v) for k, v in params.items()}
        return [params, accum], jax.device_put(xb), jax.device_put(yb.astype(np.int32))

    def make():
        state, x, y = fresh()

        def one_step():
            state[0], state[1], loss, _ = step(state[0], state[1], x, y)
            return jax.block_until_ready(loss)
        return one_step

    def outputs():
        (params, accum), x, y = fresh()
        params, accum, loss1, grads = step(params, accum, x, y)
        params, accum, loss2, _ = step(params, accum, x, y)
        out = {"loss 1": loss1, "loss 2": loss2}
        out.update({f"grad {k}": v for k, v in grads.items()})
        out.update({f"{k} after 2 steps": v for k, v in params.items()})
        return {k: np.asarray(v) for k, v in out.items()}
    return make, outputs


def lenet_forward(jax, p, x):
    """W2's LeNet-5: valid 5x5 convolutions without bias, ReLU, 2x2 max-pooling, the dense head."""
    lax, jnp = jax.lax, jax.numpy

    def conv(v, w):
        return lax.conv_general_dilated(v, w, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def pool(v):
        return lax.reduce_window(v, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    h = pool(jnp.maximum(conv(x, p["conv1.weight"]), 0))
    h = pool(jnp.maximum(conv(h, p["conv2.weight"]), 0))
    return dense_head(jnp, h.reshape(h.shape[0], -1), p)


def mlp_forward(jax, p, x):
    return dense_head(jax.numpy, x, p)
