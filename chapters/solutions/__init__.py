"""Solutions of the chapters' exercises, one module per chapter (``ch01.py`` ...).

Each module defines the answers under the names the chapter's stubs use, and ``SOLUTIONS``, a dict
from exercise id to the answer to pass to ``minims.testing.exercises.check``.  In a notebook,
``%load solutions/ch01.py`` shows one; ``tests/testing/test_exercises.py`` checks every one of them.
"""
