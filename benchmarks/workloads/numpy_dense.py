"""The hand-written NumPy peer's dense head, shared by W2 (LeNet-5) and W3 (the MLP).

Three Dense layers with ReLU between them and a mean softmax cross-entropy on sparse labels, forward
and backward by hand: the same maths the minims peers compute with their primitives.
"""
import numpy as np


def dense_head_loss_and_grads(f, p, labels):
    """Loss, weight gradients of fc1..fc3, and the gradient with respect to the input ``f``."""
    n = f.shape[0]
    h1 = f @ p["fc1.weight"].T + p["fc1.bias"]
    a1 = np.maximum(h1, 0)
    h2 = a1 @ p["fc2.weight"].T + p["fc2.bias"]
    a2 = np.maximum(h2, 0)
    z = a2 @ p["fc3.weight"].T + p["fc3.bias"]
    # softmax cross-entropy, mean over the batch, with a shift so exp never overflows
    shifted = z - z.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(n)
    loss = -(shifted[rows, labels] - np.log(s[:, 0])).mean()
    dz = e / s
    dz[rows, labels] -= 1
    dz /= n
    g = {"fc3.weight": dz.T @ a2, "fc3.bias": dz.sum(axis=0)}
    dh2 = (dz @ p["fc3.weight"]) * (h2 > 0)
    g["fc2.weight"], g["fc2.bias"] = dh2.T @ a1, dh2.sum(axis=0)
    dh1 = (dh2 @ p["fc2.weight"]) * (h1 > 0)
    g["fc1.weight"], g["fc1.bias"] = dh1.T @ f, dh1.sum(axis=0)
    return loss, g, dh1 @ p["fc1.weight"]
