"""Printed tracebacks leave out minims' own frames (as JAX's traceback filtering does).

A script and an IPython shell that hit an error inside minims print the user's frames, the error
and one line saying how many frames were hidden; ``MINIMS_TRACEBACK=full`` prints them all.  The
exception object seen by ``except`` is not changed.
"""
import os
import subprocess
import sys
import textwrap

import pytest

import minims as ms
import minims.nn as nn
from minims import Tensor
from minims import tracebacks

SCRIPT = textwrap.dedent("""
    import minims as ms, minims.nn as nn
    from minims import Tensor

    class Net(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return dout                      # not a tuple: a BpropError

    ms.grad(Net())(Tensor([1.0]))
""")


def run(code, **env):
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, **env})
    assert result.returncode != 0
    return result.stderr


@pytest.mark.slow
def test_a_script_prints_the_users_frames_only():
    err = run(SCRIPT)
    assert "BpropError" in err and "return (dx,)" in err
    for internal in ("custom_bprop.py", "tape.py", "grad_api.py", "stack.py"):
        assert internal not in err
    assert "frames inside minims are hidden" in err
    assert 'line 12, in <module>' in err


@pytest.mark.slow
def test_full_tracebacks_on_request():
    err = run(SCRIPT, MINIMS_TRACEBACK="full")
    assert "custom_bprop.py" in err and "frames inside minims are hidden" not in err


@pytest.mark.slow
def test_an_ipython_shell_shows_the_short_traceback():
    code = textwrap.dedent('''
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        shell.run_cell("import minims as ms")
        shell.run_cell(''' + repr(SCRIPT) + ''')
        raise SystemExit(1)
    ''')
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    out = result.stdout + result.stderr
    assert "BpropError" in out and "frames inside minims are hidden" in out
    assert "custom_bprop.py" not in out


def test_the_exception_itself_keeps_every_frame():
    class Net(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return dout

    with pytest.raises(TypeError) as info:
        ms.grad(Net())(Tensor([1.0]))
    names = []
    tb = info.value.__traceback__
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert any(n.endswith("custom_bprop.py") for n in names)
    short, hidden = tracebacks.filtered(info.value.__traceback__)
    assert hidden > 3
    kept = []
    while short is not None:
        kept.append(short.tb_frame.f_code.co_filename)
        short = short.tb_next
    assert kept and not any(os.path.abspath(k).startswith(tracebacks._MINIMS_DIR) for k in kept)
