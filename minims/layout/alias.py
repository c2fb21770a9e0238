"""``import minims as mindspore``, all the way down: ``import mindspore.common.dtype`` gives
``minims.common.dtype`` itself (issue 25, item 1).

A program that makes ``mindspore`` mean minims (``sys.modules["mindspore"] = minims``) and then
imports a submodule path (``import mindspore.common.dtype as mstype``, ``from mindspore.ops import
operations as P``) would otherwise have Python load minims' files a second time under the
``mindspore`` names: a second ``float32`` unequal to minims' own, a second ``Tensor`` class.
``SubmoduleAlias`` (on ``sys.meta_path`` from ``import minims``) answers ``mindspore.<path>`` with the
module object ``minims.<path>`` while ``sys.modules["mindspore"]`` is minims, and stays out of the
way otherwise (a real MindSpore imports as usual). A path minims does not have fails to import as
it would in a MindSpore without it. ``tools/mindspore_alias.py`` uses the same finder with
``always=True`` for ``import mindspore`` itself.
"""
import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["SubmoduleAlias", "install"]

SOURCE, TARGET = "mindspore", "minims"


class SubmoduleAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finder and loader of ``mindspore.*`` handing out the already-imported ``minims.*`` modules:
    always (``always=True``, also ``mindspore`` itself), or once ``mindspore`` is minims."""

    def __init__(self, always=False):
        self.always = always

    def find_spec(self, name, path=None, target=None):
        if not (name == SOURCE and self.always) and not name.startswith(SOURCE + "."):
            return None
        if not self.always and sys.modules.get(SOURCE) is not sys.modules.get(TARGET):
            return None
        real = TARGET + name[len(SOURCE):]
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as exc:
            if exc.name and (real == exc.name or real.startswith(exc.name + ".")):
                return None          # minims has no such module: the import fails as usual
            raise                    # a module minims has failed to import something else: show that
        return importlib.util.spec_from_loader(name, self, origin=getattr(module, "__file__", None),
                                               is_package=hasattr(module, "__path__"))

    def create_module(self, spec):
        module = importlib.import_module(TARGET + spec.name[len(SOURCE):])
        spec.loader_state = module.__spec__     # importlib overwrites __spec__; exec_module puts it back
        return module

    def exec_module(self, module):
        """The minims module ran when it was imported: only give it back its own spec."""
        module.__spec__ = module.__spec__.loader_state


def install(always=False):
    """Put a ``SubmoduleAlias`` first on ``sys.meta_path`` (idempotent for each kind)."""
    if not any(isinstance(f, SubmoduleAlias) and f.always == always for f in sys.meta_path):
        sys.meta_path.insert(0, SubmoduleAlias(always))
