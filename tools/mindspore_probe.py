"""A diagnostic, never a figure: MindSpore's module layout faked over minims, to see what fails next (issue 25).

With plain aliasing (tools/mindspore_alias.py) a file that starts with ``from mindspore.ops import
operations as P`` stops there, hiding everything after it. ``install()`` here instead answers every
import of ``mindspore.<path>`` with a *view* module whose attributes come from the first of
``minims.<path>`` (when minims has that module), ``minims.ops`` (for paths under ``ops``),
``minims``, ``minims.nn``, ``minims.ops`` that has the name. So ``P.Mul``, ``C.GradOperation``,
``mstype.float32``, ``mindspore.common.api.jit`` resolve when minims has the object anywhere, and
what still fails is what minims lacks (or where it behaves differently). A name found nowhere is
handed out as a ``_Missing`` that fails when used, so a file importing it fails only in the tests
that use it.

Only paths that are modules in MindSpore 2.10 (``MODULES_FILE``, the module files of its
package up to four levels deep, written by ``python tools/mindspore_probe.py --list-modules`` run
with MindSpore's interpreter) or in minims become views: ``from mindspore.ops.functional import jet``
must fail on the missing function, not import a module called ``jet``.

Used with ``--probe`` by tools/run_mindspore_pages.py and tools/run_mindspore_tests.py; its results
are printed only, never recorded: the figures of issue 25 are measured with the plain alias.
"""
import importlib
import importlib.abc
import importlib.util
import os
import sys
import types
from pathlib import Path

SOURCE, TARGET = "mindspore", "minims"
MODULES_FILE = Path(__file__).resolve().parent / "mindspore_tests" / "mindspore_modules.txt"


def _module(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


class _View(types.ModuleType):
    """``mindspore.<path>`` seen through the minims modules most likely to hold its names."""

    def __init__(self, name):
        super().__init__(name)
        path = name[len(SOURCE):]
        order = [TARGET + path] + ([f"{TARGET}.ops"] if path.startswith(".ops") else []) + \
            [TARGET, f"{TARGET}.nn", f"{TARGET}.ops"]
        self.__path__ = []                       # a package: its submodules import as views too
        self._sources = [m for m in dict.fromkeys(order) if _module(m) is not None]

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        submodule = f"{self.__name__}.{attr}"
        if submodule in sys.modules or submodule in _PROBE.modules:
            return importlib.import_module(submodule)
        for source in self._sources:
            module = sys.modules[source]
            if hasattr(module, attr):
                return getattr(module, attr)
        return _Missing(self.__name__, attr)


class _Missing:
    """A name minims lacks, handed out so that only the code that *uses* it fails, with its name.

    A test file that imports a missing name at the top then fails in the tests that use it, not all.
    """

    def __init__(self, module, name):
        self._where = (module, name)

    def _fail(self, *args, **kwargs):
        module, name = self._where
        raise AttributeError(f"module '{module}' has no attribute '{name}' (probe: used here)")

    __call__ = __getattr__ = __getitem__ = __iter__ = __bool__ = __int__ = __float__ = _fail


class _Probe(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self):
        self.modules = {line for line in MODULES_FILE.read_text().splitlines() if line and line[0] != "#"}

    def find_spec(self, name, path=None, target=None):
        if name != SOURCE and not name.startswith(SOURCE + "."):
            return None
        if name in self.modules or _module(TARGET + name[len(SOURCE):]) is not None:
            return importlib.util.spec_from_loader(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return _View(spec.name)

    def exec_module(self, module):
        """A view has nothing to run."""


_PROBE = None


def install():
    global _PROBE
    importlib.import_module(TARGET)
    if _PROBE is None:
        _PROBE = _Probe()
        sys.meta_path.insert(0, _PROBE)


def list_modules(depth=4):
    """The module names of the installed MindSpore package, up to ``depth`` dotted parts."""
    root = Path(importlib.util.find_spec(SOURCE).origin).parent
    names = set()
    for folder, _, files in os.walk(root):
        parts = (SOURCE,) + Path(folder).relative_to(root).parts
        for file in files:
            stem, _, suffix = file.partition(".")
            if suffix == "py" or (suffix.startswith("cpython") and suffix.endswith(".so")):
                names.add(".".join(parts if stem == "__init__" else parts + (stem,)))
    return sorted(n for n in names if n.count(".") < depth)


if __name__ == "__main__" and sys.argv[1:] == ["--list-modules"]:
    import mindspore
    MODULES_FILE.write_text(f"# module names of MindSpore {mindspore.__version__} (tools/mindspore_probe.py)\n"
                            + "\n".join(list_modules()) + "\n")
