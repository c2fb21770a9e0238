"""``import mindspore`` imports minims: the one change a user makes, done by the import system (issue 25).

``install()`` puts a finder first on ``sys.meta_path`` that answers every import of ``mindspore`` or
``mindspore.<path>`` with the module ``minims.<path>``, the same module object (so
``mindspore.ops is minims.ops``): minims' own ``minims.layout.alias.SubmoduleAlias`` (which
``import minims`` installs for programs that alias by hand), here answering ``mindspore`` itself
too. Nothing else is mapped: a submodule minims does not have fails to import as it would in a MindSpore without it (``ModuleNotFoundError: No module named
'minims.ops.operations'``), and a missing attribute raises minims' own ``AttributeError``; the runners
(tools/run_mindspore_pages.py, tools/run_mindspore_tests.py) read those messages back as MindSpore
names with ``mindspore_name``.

Used by tools/mindspore_page_driver.py (pages) and tools/mindspore_suite_plugin.py (unit tests).
"""
from minims.layout.alias import SOURCE, TARGET
from minims.layout.alias import install as _install


def install():
    """Make ``import mindspore...`` import minims in this interpreter (idempotent)."""
    _install(always=True)


def mindspore_name(text):
    """A minims module path in an error message, spelled the MindSpore way (``minims.ops`` -> ``mindspore.ops``)."""
    return text.replace(TARGET + ".", SOURCE + ".").replace(f"'{TARGET}'", f"'{SOURCE}'")
