"""``import mindspore`` imports minims: the one change a user makes, done by the import system (issue 25).

``install()`` puts a finder first on ``sys.meta_path`` that answers every import of ``mindspore`` or
``mindspore.<path>`` with the module ``minims.<path>``, the same module object (so
``mindspore.ops is minims.ops``). Nothing else is mapped: a submodule minims does not have fails
to import as it would in a MindSpore without it (``ModuleNotFoundError: No module named
'minims.ops.operations'``), and a missing attribute raises minims' own ``AttributeError``; the runners
(tools/run_mindspore_pages.py, tools/run_mindspore_tests.py) read those messages back as MindSpore
names with ``mindspore_name``.

Used by tools/mindspore_page_driver.py (pages) and tools/mindspore_suite_plugin.py (unit tests);
never imported by minims itself.
"""
import importlib
import importlib.abc
import importlib.util
import sys

SOURCE, TARGET = "mindspore", "minims"


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finder and loader of ``mindspore.*`` that hand out the already-imported ``minims.*`` module."""

    def find_spec(self, name, path=None, target=None):
        if name != SOURCE and not name.startswith(SOURCE + "."):
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


def install():
    """Make ``import mindspore...`` import minims in this interpreter (idempotent)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias())


def mindspore_name(text):
    """A minims module path in an error message, spelled the MindSpore way (``minims.ops`` -> ``mindspore.ops``)."""
    return text.replace(TARGET + ".", SOURCE + ".").replace(f"'{TARGET}'", f"'{SOURCE}'")
