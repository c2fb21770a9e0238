"""The correctness check run before anything is timed: every peer must compute the same loss and
gradients as the reference (minims PyNative) on the same data and weights.

Outputs are dicts ``{name: array}`` (losses, gradients, parameters after a step).  Two arrays agree
when their largest difference, relative to the reference array's largest magnitude, is at most
``tol`` (float32 rounding through a few hundred operations stays far below the default 1e-4; a
wrong formula, a missing term or a transposed weight is off by tens of percent).
"""
from __future__ import annotations

import numpy as np

DEFAULT_TOL = 1e-4


class CheckFailed(AssertionError):
    """A peer computes something else than the reference: its timing would be worthless."""


def as_array(value) -> np.ndarray:
    """A NumPy array from a minims Tensor, a torch tensor, a NumPy array or a Python number."""
    if hasattr(value, "asnumpy"):                      # minims Tensor / Parameter
        return np.asarray(value.asnumpy())
    if hasattr(value, "detach"):                       # torch.Tensor
        return value.detach().cpu().numpy()
    return np.asarray(value)


def relative_error(got, want) -> float:
    got, want = as_array(got).astype(np.float64), as_array(want).astype(np.float64)
    if got.shape != want.shape:
        return float("inf")
    if not np.isfinite(got).all() or not np.isfinite(want).all():
        return float("inf")
    if want.size == 0:
        return 0.0
    scale = max(float(np.abs(want).max()), 1e-30)
    return float(np.abs(got - want).max()) / scale


def compare(peer: str, got: dict, reference: str, want: dict, tol: float = DEFAULT_TOL) -> dict:
    """``{"ok": True, "max_rel_err": e, "compared": [...]}``, or raise ``CheckFailed``."""
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    if missing or extra:
        raise CheckFailed(f"{peer} returns outputs {sorted(got)}, but {reference} returns {sorted(want)} "
                          f"(missing {missing}, extra {extra}).")
    worst, worst_name = 0.0, None
    for name in want:
        err = relative_error(got[name], want[name])
        if err > worst or worst_name is None:
            worst, worst_name = err, name
        if not err <= tol:
            g, w = as_array(got[name]), as_array(want[name])
            detail = (f"shape {list(g.shape)} vs {list(w.shape)}" if g.shape != w.shape else
                      f"max |difference| / max |reference| = {err:.3g} > {tol:g}; "
                      f"{peer}: {np.ravel(g)[:4]} ... vs {reference}: {np.ravel(w)[:4]} ...")
            raise CheckFailed(f"{peer} disagrees with {reference} on '{name}': {detail}")
    return {"ok": True, "max_rel_err": worst, "worst": worst_name, "compared": sorted(want)}
