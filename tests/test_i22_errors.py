"""Issue 22, items 21-23: errors and tracebacks say what happened and where, and refuse what has no
right answer.

One test per behaviour, each citing its item; the expected exception types and MindSpore's own
behaviour come from runs of MindSpore 2.10 on the CPU (the oracle), quoted in each docstring.
"""
import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import minims as ms
from minims import Tensor, ops, tracebacks

# ----- item 21: a user's Primitive.impl keeps the user's failing line ----------------------------------
USER_PRIMITIVE = textwrap.dedent("""
    import numpy as np
    import minims as ms
    from minims import Tensor, ops

    class Reshape77(ops.Primitive):
        def impl(self, x):
            return np.reshape(x, (7, 7))          # the user's failing line

    Reshape77()(Tensor(np.ones(3, np.float32)))
""")


def _frames(tb):
    out = []
    while tb is not None:
        out.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    return out


def _last_frame_line(stderr: str) -> str:
    """The source line shown under the last ``File ...`` line of a printed traceback."""
    lines = stderr.splitlines()
    last = max(i for i, line in enumerate(lines) if line.lstrip().startswith("File "))
    return lines[last + 1].strip()


def test_a_users_primitive_impl_error_shows_the_users_line(tmp_path):
    """Item 21: a NumPy error inside a user-written ``Primitive.impl`` keeps the user's failing line
    in the exception's traceback (it was re-raised ``from None`` at minims' frame), while the
    message stays the primitive's own.  Expected: the line the user wrote (the script's own text)."""
    namespace = {}
    with pytest.raises(ValueError, match=r"^Reshape77: cannot reshape array of size 3") as info:
        exec(compile(USER_PRIMITIVE, "<user script>", "exec"), namespace)
    assert "<user script>" in _frames(info.value.__traceback__)[-1]      # the last frame is the user's impl
    formatted = "".join(traceback.format_exception(info.value))
    assert "in impl" in formatted

    script = tmp_path / "user_primitive.py"
    script.write_text(USER_PRIMITIVE)
    for env, hidden in (("", True), ("full", False)):
        result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                                env={**os.environ, "MINIMS_TRACEBACK": env})
        assert "Reshape77: cannot reshape" in result.stderr
        assert _last_frame_line(result.stderr) == "return np.reshape(x, (7, 7))          # the user's failing line"
        assert ("frames inside minims are hidden" in result.stderr) is hidden
        assert ("stack.py" in result.stderr) is not hidden


def test_printing_an_error_leaves_its_traceback_whole(capsys):
    """Item 21: printing an error through minims' hook hides minims' frames in what is printed, but
    the exception keeps every frame and gets no lasting note (``minims/tracebacks.py``'s docstring:
    "The exception itself is untouched").  Expected: the frames before printing."""
    with pytest.raises(ValueError) as info:
        ops.reshape(Tensor(np.ones(3, np.float32)), (7, 7))
    error = info.value
    before = _frames(error.__traceback__)
    assert any(f.startswith(tracebacks._MINIMS_DIR) for f in before)
    tracebacks._excepthook(type(error), error, error.__traceback__)
    printed = capsys.readouterr().err
    assert "frames inside minims are hidden" in printed and "stack.py" not in printed
    assert _frames(error.__traceback__) == before
    assert not getattr(error, "__notes__", None)
