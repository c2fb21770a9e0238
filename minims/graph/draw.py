"""Pictures of graphs, drawn with matplotlib alone (no Graphviz program, no networkx).

``draw_graph(graph)`` draws a ``Graph`` top to bottom::

    inputs, Parameters          (blue: explicit arguments; amber: Parameters, by name)
          |
    [ Sin  %1: Float32[2] ]     one box per equation: primitive name, output variable and type
          |          (2.0)      constants (grey) sit just above the box that uses them
    [ Mul  %2: Float32[2] ]
          |
       output                   (green: outputs; red: ``assign name``, a Parameter write)

In Jupyter a Graph shows as this picture by itself (``Graph._repr_png_`` calls ``graph_png``);
``draw_side_by_side(f.graph(x), f.grad_graph(x))`` puts a forward graph next to its backward graph;
``draw_residuals(f.residual_graphs(x))`` draws the forward and backward graphs a gradient of ``f``
runs, with an edge from each residual the forward graph keeps to the backward input that reads it.
Each takes ``names=``, the function the graph was traced from (or its inputs' names), and then labels
the boxes after the Python variables — ``x``, ``w``, ``dout`` → ``dx``, ``dw`` — rather than
``input %0`` and ``output 2`` (see ``draw_names.py``).

The layout is the classic *layered* one (Sugiyama's method), in four small steps a reader can follow:

1. **layers** — a node's layer is the length of the longest path from an input to it, so every edge
   points downwards;
2. **dummy nodes** — an edge that skips layers gets an invisible node in each layer it crosses, so
   the layers below can make room for it instead of drawing it through other boxes;
3. **order** — each layer is sorted by the mean position of its neighbours in the layer above (then
   below, and so on: the *barycentre* heuristic), keeping the order with the fewest crossings;
4. **coordinates** — each box is moved as close as possible to the mean x of its neighbours
   without overlapping the boxes beside it.

Everything is deterministic (ties are broken by equation order), so the same graph always gives the
same picture, and ``graph_png`` returns byte-identical PNGs (notebooks tested with nbval stay stable).
Figures are ``matplotlib.figure.Figure`` objects with their own Agg canvas: drawing never touches
pyplot's global state, so no stray figure appears in a notebook and the user's backend is unchanged.
"""
from __future__ import annotations

import io

from ..core import install
from ..core.ir import Graph, Var
from .draw_names import Naming

try:        # matplotlib is an optional dependency (the ``notebooks`` extra)
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, PathPatch
    from matplotlib.path import Path
    from matplotlib.textpath import TextToPath
except ImportError:     # pragma: no cover - exercised only without matplotlib
    matplotlib = None

__all__ = ["draw_graph", "draw_side_by_side", "draw_residuals", "graph_png", "graph_svg", "COMPACT_ABOVE", "PNG_DPI"]

PNG_DPI = 100               # pixels per inch of ``graph_png``
MAX_WIDTH = 14.0            # inches: larger layouts are scaled down (fonts included) to fit
MAX_HEIGHT = 20.0
COMPACT_ABOVE = 60          # more equations than this: boxes show the primitive name only

# ----- sizes, in inches (layout) and points (fonts) ---------------------------------------------
# The layout is computed in inches at "natural" size; drawing multiplies everything (fonts too) by
# one scale factor, so a picture that has to shrink keeps its proportions.
_FONTS = {                  # role -> (family, size in points, weight)
    "name": ("DejaVu Sans", 9.0, "bold"),
    "type": ("DejaVu Sans Mono", 7.5, "normal"),
    "const": ("DejaVu Sans Mono", 7.0, "normal"),
    "title": ("DejaVu Sans", 11.0, "bold"),
}
_LINE_SPACING = 1.3         # line height as a multiple of the font size
_PAD_X, _PAD_Y = 0.09, 0.05         # space between a box's text and its border
_MIN_BOX_WIDTH = 0.55
_GAP = 0.22                 # horizontal space between two boxes of a layer
_DUMMY_GAP = 0.07           # ... next to an edge passing through the layer (narrower)
_DUMMY_WIDTH = 0.06
_LAYER_GAP = 0.42           # vertical space between layers, where the edges bend
_COMPACT_LAYER_GAP = 0.25   # ... in compact pictures (more than COMPACT_ABOVE equations)
_MARGIN = 0.15
_PORT_SPACING = 0.2         # distance between two edge ends on the same side of a box
_MAX_LABEL = 22             # characters of a constant's value shown (longer ones end in "...")

# Colours of each kind of node: (fill, border, border style).  The three kinds of graph input of
# ir.py (explicit arguments, Parameters, other implicit values) and constants each look different.
_STYLES = {
    "input": ("#dbeafe", "#1d4ed8", "solid"),
    "parameter": ("#fef3c7", "#b45309", "solid"),
    "outer": ("#ede9fe", "#6d28d9", "solid"),       # implicit input that is not a Parameter
    "constant": ("#f3f4f6", "#9ca3af", "dashed"),   # a Tensor computed at trace time
    "static": ("#ffffff", "#d1d5db", "dotted"),     # a Python value: an axis, a shape
    "equation": ("#ffffff", "#374151", "solid"),
    "effectful": ("#fff1f2", "#b91c1c", "solid"),   # a primitive with a side effect (Print ...)
    "output": ("#dcfce7", "#15803d", "solid"),
    "effect": ("#fee2e2", "#b91c1c", "solid"),      # ``assign name``: a Parameter write
}
_INPUT_KINDS = ("input", "parameter", "outer")
_EDGE_COLOUR = "#4b5563"
_EFFECT_EDGE_COLOUR = "#b91c1c"


def _require_matplotlib():
    if matplotlib is None:
        raise ImportError("Drawing graphs needs matplotlib. Fix: pip install 'minims[notebooks]' "
                          "(or pip install matplotlib); print(graph) shows the text form without it.")


# ================================================================================================
# 1. The nodes and edges to draw
# ================================================================================================
class _Node:
    """A box (or an invisible dummy) in the picture; ``lines`` are (text, font role) pairs."""

    __slots__ = ("kind", "lines", "gid", "seq", "layer", "width", "height", "x", "y",
                 "in_ports", "out_ports", "port_names", "up", "down")

    def __init__(self, kind, lines, gid, seq, in_ports=0, out_ports=1):
        self.kind, self.lines, self.gid, self.seq = kind, lines, gid, seq
        self.in_ports, self.out_ports = in_ports, out_ports
        self.port_names = []            # names of the outputs of a multi-output equation
        self.layer = 0
        self.width = self.height = self.x = self.y = 0.0
        self.up: list[_Link] = []       # links from the layer above
        self.down: list[_Link] = []     # links to the layer below

    @property
    def is_dummy(self) -> bool:
        return self.kind == "dummy"


class _Link:
    """One edge segment between adjacent layers, from a port of ``upper`` to a port of ``lower``.

    ``final`` links end at a real box (they get the arrowhead); the others end at a dummy node.
    """

    __slots__ = ("upper", "upper_port", "lower", "lower_port", "effect")

    def __init__(self, upper, upper_port, lower, lower_port, effect=False):
        self.upper, self.upper_port, self.lower, self.lower_port = upper, upper_port, lower, lower_port
        self.effect = effect

    @property
    def final(self) -> bool:
        return not self.lower.is_dummy


def _short(text: str) -> str:
    text = " ".join(text.split())           # a 2x2 constant prints on two lines
    return text if len(text) <= _MAX_LABEL else text[:_MAX_LABEL - 3] + "..."


def _build(graph: Graph, compact: bool, labels=({}, {})):
    """The nodes of ``graph`` and its edges as (source node, output port, consumer, input port).

    Each use of a constant gets its own small node (placed just above its consumer), so constants
    never need long edges across the picture.  ``labels``: names for inputs and outputs, by position
    (two dicts, from ``draw_names.Naming``); a named box shows its Var under the name.
    """
    input_names, output_names = labels
    nodes, edges, source = [], [], {}       # source: Var index -> (node, port)
    seq = iter(range(1 << 30))

    def typed(v):       # "%2: Float32[2, 3]", as in the text form "%2 = ... : Float32[2, 3]"
        return (f"{v!r}: {v.type}", "type")

    for i, v in enumerate(graph.inputs):
        if i in input_names:
            node = _Node("input", [(input_names[i], "name"), typed(v)], f"input-{i}", next(seq))
        elif i < graph.n_explicit:
            node = _Node("input", [(f"input {v!r}", "name"), (v.type, "type")], f"input-{i}", next(seq))
        else:
            obj = graph.implicit[i - graph.n_explicit]
            pname = getattr(obj, "name", None) if hasattr(obj, "requires_grad") else None
            if pname:
                node = _Node("parameter", [(f"Parameter {pname}", "name"), typed(v)],
                             f"parameter-{pname}", next(seq))
            else:       # a value of an outer gradient level that the function closes over
                node = _Node("outer", [("outer value", "name"), typed(v)], f"outer-{i}", next(seq))
        if compact:                 # big graphs: names only
            node.lines = node.lines[:1]
        nodes.append(node)
        source[v.index] = (node, 0)

    def connect(arg, consumer, port, effect=False):
        """An edge into ``consumer``'s input ``port`` from a Var, or from a new constant node."""
        if isinstance(arg, Var):
            node, out = source[arg.index]
        else:
            kind = "constant" if arg.is_tensor else "static"
            node, out = _Node(kind, [(_short(repr(arg)), "const")], f"{kind}-{len(nodes)}", next(seq)), 0
            nodes.append(node)
        edges.append((node, out, consumer, port, effect))

    for k, eq in enumerate(graph.equations):
        # Compact pictures leave constants out: their values are in the text form anyway.
        shown = [a for a in eq.ins if isinstance(a, Var) or not compact]
        kind = "effectful" if getattr(eq.prim, "has_effect", False) else "equation"
        name = getattr(eq.prim, "name", type(eq.prim).__name__)
        lines = [(name, "name")] + ([] if compact else [typed(v) for v in eq.outs])
        node = _Node(kind, lines, f"equation-{k}", 0, in_ports=len(shown), out_ports=len(eq.outs))
        for port, arg in enumerate(shown):
            connect(arg, node, port)
        node.seq = next(seq)        # numbered after its constants: producers before consumers
        nodes.append(node)
        for port, v in enumerate(eq.outs):
            source[v.index] = (node, port)
        if len(eq.outs) > 1:
            node.port_names = [repr(v) for v in eq.outs]

    n = graph.n_outputs
    set_labels = [f"set {name}" for _, name, _, count in graph.attributes for _ in range(count)]
    for i, out in enumerate(graph.outputs):
        label = output_names.get(i, "output" if n == 1 else f"output {i}")
        if i >= n:                  # a Cell attribute the function set (``Graph.attributes``)
            label = set_labels[i - n]
        type_line = out.type if isinstance(out, Var) else "constant"
        node = _Node("output", [(label, "name"), (type_line, "type")], f"output-{i}", next(seq), 1, 0)
        if compact:
            node.lines = node.lines[:1]
        nodes.append(node)
        connect(out, node, 0)
    if not graph.outputs and graph.out_tree[0] == "static":    # e.g. ``return 5``: no edge into it
        nodes.append(_Node("output", [("output", "name"), (_short(repr(graph.out_tree[1])), "type")],
                           "output-0", next(seq), 1, 0))
    for i, (param, value) in enumerate(graph.effects):
        node = _Node("effect", [(f"assign {param.name}", "name")], f"effect-{i}", next(seq), 1, 0)
        nodes.append(node)
        connect(value, node, 0, effect=True)
    return nodes, edges


# ================================================================================================
# 2. Layout: layers, dummy nodes, order within layers, coordinates
# ================================================================================================
def _text_width(text: str, role: str) -> float:
    """Width of ``text`` in inches at natural size (measured from the font's glyphs, not guessed)."""
    family, size, weight = _FONTS[role]
    width, _, _ = TextToPath().get_text_width_height_descent(
        text, FontProperties(family=family, size=size, weight=weight), ismath=False)
    return width / 72.0


def _line_height(role: str) -> float:
    return _FONTS[role][1] * _LINE_SPACING / 72.0


def _size_boxes(nodes):
    for n in nodes:
        if n.is_dummy:
            n.width = _DUMMY_WIDTH
            continue
        text_w = max(_text_width(t, role) for t, role in n.lines)
        n.width = max(text_w + 2 * _PAD_X, _MIN_BOX_WIDTH if n.kind not in ("constant", "static") else 0)
        n.width = max(n.width, (max(n.in_ports, n.out_ports) - 1) * _PORT_SPACING + 2 * _PAD_X)
        n.height = sum(_line_height(role) for _, role in n.lines) + 2 * _PAD_Y


def _port_x(node: _Node, port: int, count: int) -> float:
    """Offset from the box centre of edge end ``port`` of ``count`` (spread along the border)."""
    if count <= 1:
        return 0.0
    spacing = min(_PORT_SPACING, 0.8 * node.width / (count - 1))
    return (port - (count - 1) / 2) * spacing


def _assign_layers(nodes, edges):
    """Layer = longest path from an input; constants sit one layer above their consumer."""
    preds = {id(n): [] for n in nodes}
    for src, _, dst, _, _ in edges:
        preds[id(dst)].append(src)
    constants = {id(src) for src, _, _, _, _ in edges if src.kind in ("constant", "static")}
    # Nodes were created in an order where every producer comes before its consumers.
    for n in nodes:
        if n.kind in ("equation", "effectful"):
            n.layer = 1 + max((p.layer for p in preds[id(n)] if id(p) not in constants), default=0)
    bottom = 1 + max((n.layer for n in nodes if n.kind in ("equation", "effectful")), default=0)
    for n in nodes:
        if n.kind in ("output", "effect"):
            n.layer = bottom
    for src, _, dst, _, _ in edges:
        if id(src) in constants:
            src.layer = dst.layer - 1


def _add_dummies(nodes, edges):
    """Turn edges into links between adjacent layers, adding dummy nodes where an edge skips layers.

    All the long edges leaving the same output share their dummies (one "bus" per value, going down
    as far as its lowest consumer), which keeps pictures of backward graphs — where an input is
    used in many layers — narrow.
    """
    buses = {}          # (source node id, port) -> {layer: dummy node}
    for src, out, dst, port, effect in edges:
        upper, upper_port = src, out
        bus = buses.setdefault((id(src), out), {})
        for layer in range(src.layer + 1, dst.layer):
            dummy = bus.get(layer)
            if dummy is None:
                # Numbered just after its source, so it starts out next to it.
                dummy = bus[layer] = _Node("dummy", [], "dummy", src.seq + 0.5, 1, 1)
                dummy.layer = layer
                nodes.append(dummy)
                link = _Link(upper, upper_port, dummy, 0, effect)
                upper.down.append(link)
                dummy.up.append(link)
            upper, upper_port = dummy, 0
        link = _Link(upper, upper_port, dst, port, effect)
        upper.down.append(link)
        dst.up.append(link)


def _crossings(layers) -> int:
    """How many pairs of links cross, counted between each pair of adjacent layers."""
    total = 0
    for upper, lower in zip(layers, layers[1:]):
        above = {id(n): i for i, n in enumerate(upper)}
        below = {id(n): i for i, n in enumerate(lower)}
        ends = [((above[id(l.upper)], l.upper_port), (below[id(l.lower)], l.lower_port))
                for n in upper for l in n.down]
        for a, (top_a, bottom_a) in enumerate(ends):
            for top_b, bottom_b in ends[a + 1:]:
                if (top_a < top_b and bottom_a > bottom_b) or (top_a > top_b and bottom_a < bottom_b):
                    total += 1
    return total


def _order(nodes) -> list[list[_Node]]:
    """The layers, each sorted by the barycentre of its neighbours (fewest crossings found)."""
    depth = max((n.layer for n in nodes), default=-1) + 1
    layers = [[] for _ in range(depth)]
    for n in sorted(nodes, key=lambda n: n.seq):
        layers[n.layer].append(n)
    layers = [layer for layer in layers if layer]       # e.g. no outputs: no bottom layer
    if not layers:
        return layers
    for i, layer in enumerate(layers):
        for n in layer:
            n.layer = i

    def sweep(indices, step):
        """Sort layer ``i`` by the mean position of each node's link ends in layer ``i - step``.

        A link end's position is its node's rank nudged by its port, so that the edge into the
        left argument of a box comes from the left.
        """
        for i in indices:
            other = layers[i - step]
            rank = {id(m): j for j, m in enumerate(other)}
            scale = len(layers[i]) / len(other)     # compare ranks of layers of different sizes
            own = {id(n): j for j, n in enumerate(layers[i])}

            def end(link):
                node, port, count = ((link.upper, link.upper_port, link.upper.out_ports) if step > 0
                                     else (link.lower, link.lower_port, link.lower.in_ports))
                return (rank[id(node)] + (port + 1) / (count + 1)) * scale

            def key(n):
                links = n.up if step > 0 else n.down
                if not links:               # nothing to align with: keep its place
                    return (own[id(n)] + 0.5, n.seq)
                return (sum(end(l) for l in links) / len(links), n.seq)
            layers[i].sort(key=key)
        # Inputs keep their argument order (%0, %1, ... left to right) and outputs theirs; the
        # constants in the top layer and the equations in the bottom one still move freely.
        for layer, kinds in ((layers[0], _INPUT_KINDS), (layers[-1], ("output", "effect"))):
            slots = [j for j, n in enumerate(layer) if n.kind in kinds]
            for j, n in zip(slots, sorted((layer[j] for j in slots), key=lambda n: n.seq)):
                layer[j] = n

    best, fewest = [list(layer) for layer in layers], _crossings(layers)
    for _ in range(4):
        sweep(range(1, len(layers)), 1)
        sweep(range(len(layers) - 2, -1, -1), -1)
        crossings = _crossings(layers)
        if crossings < fewest:
            best, fewest = [list(layer) for layer in layers], crossings
    return best


def _isotonic(values, weights):
    """The non-decreasing sequence closest to ``values`` (weighted least squares).

    "Pool adjacent violators": walk left to right, and whenever a value is smaller than the block
    before it, merge the two blocks into one at their weighted mean.
    """
    blocks = []             # [weighted sum, total weight, count]
    for v, w in zip(values, weights):
        blocks.append([v * w, w, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, w2, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += w2
            blocks[-1][2] += c
    out = []
    for s, w, c in blocks:
        out += [s / w] * c
    return out


def _place_row(layer, desired):
    """Put the boxes of ``layer`` as near ``desired`` x as possible, in order, without overlaps.

    With ``start[i]`` the least distance from the first box to box ``i``, x[i] - start[i] must not
    decrease along the layer: that is the isotonic problem above.
    """
    start = [0.0]
    for a, b in zip(layer, layer[1:]):
        gap = _DUMMY_GAP if a.is_dummy or b.is_dummy else _GAP
        start.append(start[-1] + (a.width + b.width) / 2 + gap)
    weights = [0.5 if n.is_dummy else 1.0 for n in layer]      # real boxes get their way first
    shifted = _isotonic([d - s for d, s in zip(desired, start)], weights)
    for n, x, s in zip(layer, shifted, start):
        n.x = x + s


def _desired_x(n: _Node, links, from_upper: bool) -> float:
    """The mean x that makes ``n``'s links in one direction vertical (``n.x`` if it has none)."""
    if not links:
        return n.x
    total = 0.0
    for l in links:
        upper_end = l.upper.x + _port_x(l.upper, l.upper_port, l.upper.out_ports)
        lower_end = l.lower.x + _port_x(l.lower, l.lower_port, l.lower.in_ports)
        total += (n.x + upper_end - lower_end) if from_upper else (n.x + lower_end - upper_end)
    return total / len(links)


def _place(layers, title_height: float, layer_gap: float):
    """x and y of every node; returns the picture's width and height (inches, natural size)."""
    for layer in layers:                    # start packed, centred on 0
        _place_row(layer, [0.0] * len(layer))
    for _ in range(6):                      # then pull boxes towards their neighbours, both ways
        for layer in layers[1:]:
            _place_row(layer, [_desired_x(n, n.up, True) for n in layer])
        for layer in reversed(layers[:-1]):
            _place_row(layer, [_desired_x(n, n.down, False) for n in layer])
    for layer in layers[1:]:
        _place_row(layer, [_desired_x(n, n.up, True) for n in layer])

    y = -_MARGIN - title_height
    for layer in layers:
        height = max((n.height for n in layer if not n.is_dummy), default=0.25)
        y -= height / 2
        for n in layer:
            n.y = y
            if n.is_dummy:                  # an edge passes straight down through the layer
                n.height = height
        y -= height / 2 + layer_gap
    boxes = [n for layer in layers for n in layer]
    left = min((n.x - n.width / 2 for n in boxes), default=0.0)
    right = max((n.x + n.width / 2 for n in boxes), default=0.0)
    for n in boxes:
        n.x += _MARGIN - left
    return right - left + 2 * _MARGIN, -y - layer_gap + _MARGIN


class _Layout:
    """Where everything goes, in inches at natural size (y grows upwards, so it is negative)."""

    def __init__(self, graph: Graph, title: str, parts=None, labels=({}, {})):
        """``parts``: ready-made ``(nodes, edges)`` to lay out instead of ``graph``'s (draw_tape.py);
        ``labels``: names of inputs and outputs (see ``_build``)."""
        _require_matplotlib()
        self.compact = parts is None and len(graph.equations) > COMPACT_ABOVE
        nodes, edges = _build(graph, self.compact, labels) if parts is None else parts
        _assign_layers(nodes, edges)
        _add_dummies(nodes, edges)
        _size_boxes(nodes)
        self.layers = _order(nodes)
        self.title = title
        title_height = _line_height("title") + 0.1 if title else 0.0
        self.width, self.height = _place(self.layers, title_height,
                                         _COMPACT_LAYER_GAP if self.compact else _LAYER_GAP)
        if title:                           # a title wider than the graph widens the picture
            title_width = _text_width(title, "title") + 2 * _MARGIN
            if title_width > self.width:
                for n in self.nodes:
                    n.x += (title_width - self.width) / 2
                self.width = title_width
        self.height = max(self.height, 2 * _MARGIN + title_height)

    @property
    def nodes(self):
        return [n for layer in self.layers for n in layer]

    def natural_scale(self, max_width=MAX_WIDTH, max_height=MAX_HEIGHT) -> float:
        """1 (natural size) unless the picture must shrink to fit ``max_width`` x ``max_height``."""
        return min(1.0, max_width / self.width, max_height / self.height)


# ================================================================================================
# 3. Drawing a layout on an Axes
# ================================================================================================
def _link_path(l: _Link) -> "Path":
    """A smooth curve leaving the upper box straight down and entering the lower box straight down."""
    x0 = l.upper.x + _port_x(l.upper, l.upper_port, l.upper.out_ports)
    y0 = l.upper.y - l.upper.height / 2
    x1 = l.lower.x + _port_x(l.lower, l.lower_port, l.lower.in_ports)
    y1 = l.lower.y + l.lower.height / 2
    bend = (y0 - y1) / 2
    return Path([(x0, y0), (x0, y0 - bend), (x1, y1 + bend), (x1, y1)],
                [Path.MOVETO, Path.CURVE4, Path.CURVE4, Path.CURVE4])


def _font(role: str, scale: float) -> dict:
    family, size, weight = _FONTS[role]
    return {"family": family, "size": size * scale, "weight": weight}


def _render(layout: _Layout, ax, scale: float):
    """Draw ``layout`` on ``ax``, where one inch of the layout is ``scale`` inches on the page."""
    ax.set_xlim(0, layout.width)
    ax.set_ylim(-layout.height, 0)
    ax.set_aspect("equal", adjustable="box")   # boxes keep their shape in any Axes
    ax.set_axis_off()
    lw = max(0.4, 1.0 * scale)

    # The pieces of edges that end at a dummy node, and the straight pieces through dummies, are
    # joined into one path per colour: one artist instead of thousands for a big backward graph.
    pieces = {False: [], True: []}          # is it an effect's edge? -> paths
    for n in layout.nodes:
        for l in n.down:
            if not l.final:
                pieces[l.effect].append(_link_path(l))
                continue
            # The last piece of an edge carries the arrowhead.
            ax.add_patch(FancyArrowPatch(
                path=_link_path(l), arrowstyle="-|>", mutation_scale=9 * scale, linewidth=lw,
                linestyle="dashed" if l.effect else "solid", zorder=1, gid="edge",
                color=_EFFECT_EDGE_COLOUR if l.effect else _EDGE_COLOUR))
        if n.is_dummy:
            pieces[n.up[0].effect].append(Path([(n.x, n.y + n.height / 2), (n.x, n.y - n.height / 2)]))
    for effect, paths in pieces.items():
        if paths:
            ax.add_patch(PathPatch(Path.make_compound_path(*paths), fill=False, linewidth=lw,
                                   linestyle="dashed" if effect else "solid", zorder=1, gid="edge",
                                   edgecolor=_EFFECT_EDGE_COLOUR if effect else _EDGE_COLOUR))

    for n in layout.nodes:
        if n.is_dummy:
            continue
        fill, border, style = _STYLES[n.kind]
        rounding = 0.02 if n.kind in ("equation", "effectful") else 0.07
        box = FancyBboxPatch((n.x - n.width / 2, n.y - n.height / 2), n.width, n.height,
                             boxstyle=f"round,pad=0,rounding_size={rounding}", facecolor=fill,
                             edgecolor=border, linewidth=lw, linestyle=style, zorder=2, gid=n.gid)
        ax.add_patch(box)
        top = n.y + n.height / 2 - _PAD_Y
        for text, role in n.lines:
            height = _line_height(role)
            colour = "#6b7280" if role == "const" else "#111827"
            ax.text(n.x, top - height / 2, text, ha="center", va="center", color=colour,
                    fontproperties=FontProperties(**_font(role, scale)), parse_math=False,
                    zorder=3, gid=f"{n.gid}-label")
            top -= height
        # Which edge is which output of a multi-output equation (Dropout's output and mask ...).
        for port, name in enumerate(n.port_names):
            ax.text(n.x + _port_x(n, port, n.out_ports) + 0.03, n.y - n.height / 2 - 0.03, name,
                    ha="left", va="top", color="#6b7280", parse_math=False, zorder=3,
                    fontproperties=FontProperties(**_font("const", scale * 0.9)), gid=f"{n.gid}-port")
    if layout.title:
        ax.text(layout.width / 2, -_MARGIN - _line_height("title") / 2, layout.title, ha="center",
                va="center", color="#111827", fontproperties=FontProperties(**_font("title", scale)),
                parse_math=False, gid="title")


def _new_figure(width: float, height: float) -> "Figure":
    """A Figure with its own Agg canvas: not registered with pyplot, so no global state changes."""
    fig = Figure(figsize=(width, height), dpi=PNG_DPI, facecolor="white")
    FigureCanvasAgg(fig)
    return fig


def _default_title(graph: Graph) -> str:
    n = len(graph.equations)
    return f"graph {graph.name}  ({n} equation{'s' if n != 1 else ''})"


# ================================================================================================
# 4. The public functions
# ================================================================================================
def _figure(layout: _Layout):
    """A new Figure exactly as large as ``layout`` (shrunk to fit the maximum size), drawn."""
    scale = layout.natural_scale()
    fig = _new_figure(layout.width * scale, layout.height * scale)
    _render(layout, fig.add_axes((0, 0, 1, 1)), scale)
    return fig


def _is_backward(graph: Graph) -> bool:
    """A backward graph (``f.grad_graph``): named ``<forward>_grad``, its inputs the forward inputs
    (one gradient output each) followed by the cotangents of the forward outputs."""
    return graph.name.endswith("_grad") and len(graph.inputs) > len(graph.outputs)


def _labels(graph: Graph, naming: Naming, forward: Graph | None = None):
    """The labels of ``graph``'s boxes: as a backward graph (of ``forward``, if given) or a forward one."""
    if not naming:
        return {}, {}
    if forward is not None and graph.name == f"{forward.name}_grad" or forward is None and _is_backward(graph):
        return naming.backward(graph, len(forward.inputs) if forward is not None else len(graph.outputs))
    naming.learn(graph)
    return naming.forward(graph)


def draw_graph(graph: Graph, ax=None, title=None, names=None):
    """Draw ``graph`` on ``ax`` (a new Figure sized to the graph if None); returns the Axes.

    ``title`` defaults to the graph's name and size; ``title=""`` draws none.  The picture shrinks
    to fit ``ax``; graphs of more than ``COMPACT_ABOVE`` equations show primitive names only (no
    types, no constants) so that they stay readable.  The Figure of a new drawing is ``ax.figure``.
    ``names``: the function the graph was traced from, or its inputs' names: the boxes are labelled
    after the variables (``x`` ... ``dout`` → ``dx`` ... for a backward graph; see ``draw_names.py``).
    """
    layout = _Layout(graph, _default_title(graph) if title is None else title,
                     labels=_labels(graph, Naming(names)))
    if ax is None:
        return _figure(layout).axes[0]
    box = ax.get_position()
    width, height = ax.figure.get_size_inches()
    scale = min(box.width * width / layout.width, box.height * height / layout.height)
    _render(layout, ax, scale)
    return ax


def _titled(graph: Graph, title: str, parts=None, labels=({}, {})) -> _Layout:
    return _Layout(graph, f"{title}: {_default_title(graph)}" if title else "", parts, labels)


def _figure_of(layouts, lefts, tops, width: float, height: float):
    """A Figure ``width`` x ``height`` (inches, natural size; shrunk to fit) holding each layout in
    an Axes exactly its size, its top-left corner at (``left``, ``top``) from the figure's top-left;
    returns the Figure and the scale."""
    scale = min(1.0, 2 * MAX_WIDTH / width, MAX_HEIGHT / height)     # two pictures: twice as wide
    fig = _new_figure(width * scale, height * scale)
    for layout, left, top in zip(layouts, lefts, tops):
        # an Axes exactly as large as its layout: every picture is drawn at the same scale
        ax = fig.add_axes((left / width, 1 - (top + layout.height) / height, layout.width / width,
                           layout.height / height))
        _render(layout, ax, scale)
    return fig, scale


def draw_side_by_side(forward: Graph, backward: Graph, titles=("forward", "backward"), names=None):
    """A Figure with ``forward`` and ``backward`` (e.g. ``f.grad_graph(x)``) next to each other.

    ``names`` as in ``draw_graph``; the forward graph's Parameters name the backward graph's inputs
    too.  (Two forward graphs, such as a graph before and after fusion, are both labelled as forward.)
    """
    naming = Naming(names)
    labels = [_labels(forward, naming), _labels(backward, naming, forward)]
    layouts = [_titled(g, t, labels=lab) for g, t, lab in zip((forward, backward), titles, labels)]
    gap = 0.3
    width = sum(l.width for l in layouts) + gap
    height = max(l.height for l in layouts)
    return _figure_of(layouts, (0.0, layouts[0].width + gap), (0.0, 0.0), width, height)[0]


_RESIDUAL_COLOUR = "#c2410c"
_RESIDUAL_GAP = 0.6         # horizontal space between the forward and the backward picture
_RESIDUAL_BAND = 0.5        # vertical space the residual edges cross, plus _RESIDUAL_STEP a residual
_RESIDUAL_STEP = 0.12


def _residual_parts(split, naming: Naming):
    """The nodes and edges of both graphs, their boxes named for the roles they play in the split:
    the forward graph's extra outputs and the backward graph's first inputs are residuals, the
    backward graph's other inputs are the output cotangents.  With names (``naming``), the inputs,
    outputs, cotangents (``dout``) and gradients (``dx``) are labelled after the variables, and a
    residual that is an input after that input (``residual w``)."""
    forward, backward = split.forward, split.backward
    labels = (({}, {}), ({}, {}))             # (input, output) labels of each graph
    if naming:
        naming.learn(forward)
        labels = (naming.forward(forward, split.n_outputs),
                  naming.backward(backward, len(forward.inputs), split.residuals, split.positions))
    parts = []
    for graph, kind, roles, (ins, outs) in (
            (forward, "output", {split.n_outputs + k: "residual" for k in range(split.n_residuals)}, labels[0]),
            (backward, "input", {i: "residual" if i < split.n_residuals else "cotangent"
                                 for i in range(len(backward.inputs))}, labels[1])):
        nodes, edges = _build(graph, len(graph.equations) > COMPACT_ABOVE, (ins, outs))
        values = graph.outputs if kind == "output" else graph.inputs
        named = outs if kind == "output" else ins
        for n in nodes:
            i = int(n.gid.rsplit("-", 1)[1]) if n.gid.startswith(kind + "-") else None
            if i in roles and i not in named:
                name = naming.by_index.get(values[i].index) if roles[i] == "residual" else None
                n.lines[0] = (f"residual {name}" if name else f"{roles[i]} {values[i]!r}", "name")
        parts.append((nodes, edges))
    return parts


def draw_residuals(split, titles=("forward", "backward"), names=None):
    """The forward and backward graphs of a Graph-mode gradient (``f.residual_graphs(x)``, a
    ``ResidualSplit``) side by side, with an edge from each residual the forward graph returns to
    the backward graph's input that receives it, labelled with the residual's name and type.

    The backward picture sits lower, its inputs just below the forward graph's outputs, so that
    every edge of the figure points downwards; the titles share the top line.  Returns the Figure:
    its first two Axes are the pictures (boxes named as in ``draw_graph``: ``output-<i>`` and
    ``input-<i>``), the third holds the titles and the residual edges (``residual-<k>``, from
    ``output-<n_outputs + k>`` of the forward picture to ``input-<k>`` of the backward picture),
    in inches of the figure at natural size.  ``names`` as in ``draw_graph`` (for the split's
    forward graph, whose inputs are the Tensor arguments and then the Parameters).
    """
    (fwd_parts, bwd_parts), k = _residual_parts(split, Naming(names)), split.n_residuals
    layouts = (_Layout(split.forward, "", fwd_parts), _Layout(split.backward, "", bwd_parts))
    fwd, bwd = layouts
    heads = [f"{t}: {_default_title(g)}" if t else "" for g, t in zip((split.forward, split.backward), titles)]
    # each picture centred in a column wide enough for its title too
    columns = [max(l.width, _text_width(h, "title") + 2 * _MARGIN if h else 0.0) for l, h in zip(layouts, heads)]
    head = _line_height("title") + 0.1 if any(heads) else 0.0
    lefts = ((columns[0] - fwd.width) / 2, columns[0] + _RESIDUAL_GAP + (columns[1] - bwd.width) / 2)
    outputs_bottom = min(n.y - n.height / 2 for n in fwd.nodes if n.kind == "output")
    inputs_top = max((n.y + n.height / 2 for n in bwd.nodes if n.kind in _INPUT_KINDS), default=-_MARGIN)
    # depths below the figure's top: the backward inputs start a band below the forward outputs
    tops = (head, head + max(0.0, -outputs_bottom + _RESIDUAL_BAND + _RESIDUAL_STEP * k + inputs_top))
    width = columns[0] + _RESIDUAL_GAP + columns[1]
    height = max(top + l.height for top, l in zip(tops, layouts))
    fig, scale = _figure_of(layouts, lefts, tops, width, height)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(-height, 0)
    ax.set_axis_off()
    for h, centre in zip(heads, (columns[0] / 2, columns[0] + _RESIDUAL_GAP + columns[1] / 2)):
        if h:
            ax.text(centre, -_MARGIN - _line_height("title") / 2, h, ha="center", va="center", color="#111827",
                    fontproperties=FontProperties(**_font("title", scale)), parse_math=False, gid="title")
    lw = max(0.4, 1.0 * scale)
    boxes = [{n.gid: n for n in l.nodes} for l in layouts]
    for r, v in enumerate(split.residuals):
        out, inp = boxes[0][f"output-{split.n_outputs + r}"], boxes[1][f"input-{r}"]
        x0, y0 = out.x + lefts[0], out.y - out.height / 2 - tops[0]
        x1, y1 = inp.x + lefts[1], inp.y + inp.height / 2 - tops[1]
        bend = (y0 - y1) / 2
        points = [(x0, y0), (x0, y0 - bend), (x1, y1 + bend), (x1, y1)]
        path = Path(points, [Path.MOVETO, Path.CURVE4, Path.CURVE4, Path.CURVE4])
        ax.add_patch(FancyArrowPatch(path=path, arrowstyle="-|>", mutation_scale=9 * scale, linewidth=lw,
                                     linestyle="dashed", color=_RESIDUAL_COLOUR, shrinkA=0, shrinkB=0,
                                     zorder=1, gid=f"residual-{r}"))
        # each label at its own point along its curve, so that labels of neighbouring edges part
        t = (r + 1) / (k + 1)
        weights = ((1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t ** 2, t ** 3)    # Bezier at t
        lx, ly = (sum(w * p[i] for w, p in zip(weights, points)) for i in (0, 1))
        ax.text(lx, ly, f"{v!r}: {v.type}", ha="center", va="center", color=_RESIDUAL_COLOUR,
                fontproperties=FontProperties(**_font("const", scale)), parse_math=False, zorder=3,
                gid=f"residual-{r}-label", bbox={"boxstyle": "round,pad=0.15", "facecolor": "white",
                                                 "edgecolor": "none"})
    return fig


def _save(fig, fmt: str, **metadata) -> bytes:
    buffer = io.BytesIO()
    # Fixed size and no tight bounding box (whatever the user's rcParams say), no timestamps or
    # version strings, a fixed SVG id salt: the same graph gives the same bytes every time.
    with matplotlib.rc_context({"savefig.bbox": "standard", "svg.hashsalt": "minims"}):
        fig.savefig(buffer, format=fmt, dpi=PNG_DPI, facecolor="white", transparent=False,
                    metadata=metadata)
    return buffer.getvalue()


def graph_png(graph: Graph) -> bytes | None:
    """``graph`` as PNG bytes (what Jupyter shows for a Graph); None without matplotlib, so that
    Jupyter falls back to the text form."""
    if matplotlib is None:
        return None
    return _save(draw_graph(graph).figure, "png", Software=None)


def graph_svg(graph: Graph) -> str:
    """``graph`` as an SVG document (text); deterministic like ``graph_png``."""
    _require_matplotlib()
    return _save(draw_graph(graph).figure, "svg", Date=None, Creator=None).decode("utf-8")


install(Graph, _repr_png_=graph_png)       # a graph shows as a picture in Jupyter
