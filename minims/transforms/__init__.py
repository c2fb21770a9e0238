"""MindSpore's functional transforms, each a few lines over the core's interpreters: ``jvp``, ``vjp``,
``linearize``, ``jacfwd``, ``jacrev``, ``derivative`` (``transforms.py``), ``vmap`` (``vmap.py``) and ``jet`` (``jet.py``),
with MindSpore's argument checks and output structures."""
from .transforms import derivative, jacfwd, jacrev, jvp, linearize, vjp
from .vmap import VmapError, vmap
from .jet import jet

__all__ = ["jvp", "vjp", "linearize", "jacfwd", "jacrev", "derivative", "vmap", "VmapError", "jet"]
