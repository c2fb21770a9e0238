"""The graph executor: a graph compiled to a flat plan of ``(impl, input slots, output slots)``.

Running a plan is one loop over NumPy calls reading and writing a list of slots: no interpreter
stack, no dtype promotion, no argument checks (those all happened while tracing).  That is where
Graph mode's lower per-op cost comes from.
"""
from __future__ import annotations

import numpy as np

from ..interpreters.stack import MinimsError
from .ir import Graph, Literal, Var


class Plan:
    """``run(arrays)`` evaluates ``graph`` on NumPy arrays and returns the flat outputs."""

    def __init__(self, graph: Graph):
        slots: dict[int, int] = {}
        template: list = []

        def slot_of_var(v: Var) -> int:
            s = slots.get(v.index)
            if s is None:
                s = slots[v.index] = len(template)
                template.append(None)
            return s

        def slot_of(x) -> int:
            if isinstance(x, Var):
                return slot_of_var(x)
            template.append(x.value._data if x.is_tensor else x.value)
            return len(template) - 1

        self.input_slots = [slot_of_var(v) for v in graph.inputs]
        steps = []
        for eq in graph.equations:
            ins = tuple(slot_of(a) for a in eq.ins)
            outs = tuple(slot_of_var(v) for v in eq.outs)
            steps.append((eq.prim.impl, ins, outs if eq.multiple else outs[0], eq.multiple, eq.prim))
        self.steps = steps
        self.output_slots = [slot_of(o) for o in graph.outputs]
        self.effects = [(p, slot_of(v)) for p, v in graph.effects]
        self.template = template

    def run(self, arrays) -> list:
        env = list(self.template)
        for s, a in zip(self.input_slots, arrays):
            env[s] = a
        step = None
        try:
            for step in self.steps:
                impl, ins, out, multiple, _ = step
                result = impl(*[env[i] for i in ins])
                if multiple:
                    for s, r in zip(out, result):
                        env[s] = r
                else:
                    env[out] = result
        except MinimsError:
            raise
        except (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError) as exc:
            raise step[4].explain_failure(exc, [env[i] for i in step[1]]) from None
        for param, s in self.effects:
            param._data = np.array(env[s], dtype=param._data.dtype)
        return [np.asarray(env[s]) for s in self.output_slots]
