"""Objects shared by the layers above the interpreters.

* ``tensor.py`` — ``Tensor`` (and ``tensor_repr.py``, how it prints), as ``mindspore.common.tensor``;
* ``parameter.py`` — ``Parameter`` and ``ParameterTuple``;
* ``initializer.py`` — ``mindspore.common.initializer`` (Normal, XavierUniform, ...);
* ``undo.py`` — undo logs: a failing Cell or gradient call puts back the Parameters it wrote;
* ``running_cells.py`` — the Cells whose call is running (for messages that name a Cell path).
"""
