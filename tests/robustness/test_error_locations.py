"""Where Graph mode's errors point: the user's file and line, and "a notebook cell" for a cell's code.

IPython compiles each notebook cell into a file named after a hash of its text
(``/tmp/ipykernel_<pid>/1980416151.py``); that name changes whenever the cell does, so it must not
appear in an error (stored notebook outputs would change with it).
"""
import linecache

import numpy as np
import pytest

from minims import Tensor, jit
from minims.graph import StaticGraphError

SOURCE = "def f(x):\n    if x.sum() > 0:\n        return x\n    return -x\n"


def compiled_from(filename):
    linecache.cache[filename] = (len(SOURCE), None, SOURCE.splitlines(True), filename)
    namespace = {}
    exec(compile(SOURCE, filename, "exec"), namespace)
    return namespace["f"]


@pytest.mark.parametrize("filename", ["/tmp/ipykernel_12345/1980416151.py", "<ipython-input-7-0123abcd>"])
def test_a_notebook_cell_is_named_as_such_not_by_its_hash(filename):
    with pytest.raises(StaticGraphError) as info:
        jit(compiled_from(filename), fullgraph=True, capture_mode="trace")(Tensor(np.array([1.0])))
    message = str(info.value)
    assert "at a notebook cell, line 2, in f: if x.sum() > 0:" in message
    assert "1980416151" not in message and "ipython-input" not in message


def test_a_file_is_named_by_its_base_name():
    with pytest.raises(StaticGraphError) as info:
        jit(compiled_from("/somewhere/models/shapes.py"), fullgraph=True, capture_mode="trace")(Tensor(np.array([1.0])))
    assert "at shapes.py, line 2, in f: if x.sum() > 0:" in str(info.value)
    assert "minims compiles by running the function once on placeholders" in str(info.value)
