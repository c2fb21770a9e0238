"""Writing a file so that it is either the old file or the complete new one, never a torn mix.

The data go to a temporary file in the same folder (so that the final rename stays on one file
system), are flushed to the disk, and only then does ``os.replace`` put the file in place; that
rename is atomic on POSIX and Windows.  If anything fails half-way (a full disk, an exception raised
while the data are produced, Ctrl-C) the temporary file is removed and the old file is untouched.
"""
from __future__ import annotations

import contextlib
import os
import secrets

__all__ = ["write_atomically"]


def write_atomically(path: str, chunks) -> None:
    """Write the byte strings ``chunks`` (any iterable) to ``path`` atomically."""
    folder = os.path.dirname(path) or "."
    temporary = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    # O_EXCL: never reuse someone else's file; mode 0o666 less the umask, as for any new file
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())                # the bytes are on the disk before the name points at them
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
