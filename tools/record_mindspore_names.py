"""Record the public names of MindSpore 2.10's namespaces that minims mirrors (issue 25, item 1).

Run with MindSpore's interpreter (the oracle): ``/tmp/oracle/bin/python tools/record_mindspore_names.py``.
It writes ``minims/layout/mindspore_names.json``: for each module path, the names ``dir()`` shows
there that do not start with ``_``. minims reads it (``minims.layout``) to tell a name MindSpore has
and minims lacks from a misspelling, when an attribute is missing.
"""
import importlib
import json
from pathlib import Path

import mindspore

MODULES = ["mindspore", "mindspore.ops", "mindspore.ops.operations", "mindspore.ops.composite",
           "mindspore.ops.functional", "mindspore.ops.primitive", "mindspore.nn", "mindspore.common",
           "mindspore.common.dtype", "mindspore.common.api", "mindspore.common.initializer",
           "mindspore.common.parameter", "mindspore.common.tensor", "mindspore.train",
           "mindspore.train.serialization", "mindspore.context"]
OUT = Path(__file__).resolve().parent.parent / "minims" / "layout" / "mindspore_names.json"


def public_names(path):
    return sorted(n for n in dir(importlib.import_module(path)) if not n.startswith("_"))


if __name__ == "__main__":
    record = {"mindspore": mindspore.__version__, "how": "tools/record_mindspore_names.py",
              "modules": {path: public_names(path) for path in MODULES}}
    OUT.write_text(json.dumps(record, indent=0) + "\n")
