"""Pictures of graphs (minims.graph.draw): valid, deterministic PNGs, one box per equation.

Expected counts come from the graph's own equation list, itself known from the traced function
(e.g. ``(sin(x) * x).sum()`` is exactly Sin, Mul, ReduceSum).  Boxes are found by the ``gid`` the
drawing gives each patch (``equation-<k>``, ``parameter-<name>``, ``effect-<k>`` ...).
"""
import io

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

import matplotlib.image as mpimg                        # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg     # noqa: E402
from matplotlib.figure import Figure                     # noqa: E402

import minims as ms                                      # noqa: E402
from minims import Parameter, Tensor, ops                # noqa: E402
from minims.graph import draw                            # noqa: E402
from minims.graph.draw import draw_graph, draw_side_by_side, graph_png, graph_svg   # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def pynative_afterwards():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def sin_times_x():
    f = ms.jit(lambda x: (ops.sin(x) * x).sum())
    return f, Tensor(np.array([1.0, 2.0], np.float32))


def boxes(ax, prefix):
    return [p for p in ax.patches if (p.get_gid() or "").startswith(prefix)]


def texts(ax):
    return [t.get_text() for t in ax.texts]


def equation_names(ax):
    return [t.get_text() for t in ax.texts
            if (t.get_gid() or "").startswith("equation-") and t.get_gid().endswith("-label")
            and t.get_fontweight() == "bold"]


# ----- the PNG ----------------------------------------------------------------------------------
def test_png_is_valid_and_has_the_figure_size():
    f, x = sin_times_x()
    g = f.graph(x)
    png = graph_png(g)
    assert png.startswith(PNG_SIGNATURE)
    pixels = mpimg.imread(io.BytesIO(png), format="png")
    width, height = draw_graph(g).figure.get_size_inches() * draw.PNG_DPI
    assert abs(pixels.shape[1] - width) <= 1 and abs(pixels.shape[0] - height) <= 1
    assert pixels.shape[2] in (3, 4)
    assert 150 < pixels.shape[1] < 1000 and 200 < pixels.shape[0] < 1000     # a 3-equation picture


def test_png_is_byte_identical_across_calls_and_is_the_graphs_repr_png():
    f, x = sin_times_x()
    g = f.graph(x)
    first = graph_png(g)
    assert graph_png(g) == first
    assert g._repr_png_() == first
    backward = f.grad_graph(x)
    assert graph_png(backward) == graph_png(backward)


def test_png_has_no_software_version_metadata():
    f, x = sin_times_x()
    png = graph_png(f.graph(x))
    assert b"Software" not in png and b"matplotlib" not in png


def test_svg_is_deterministic_text():
    f, x = sin_times_x()
    g = f.graph(x)
    svg = graph_svg(g)
    assert isinstance(svg, str) and "<svg" in svg
    assert graph_svg(g) == svg


# ----- what is drawn ----------------------------------------------------------------------------
def test_one_box_per_equation_labelled_with_primitive_and_type():
    f, x = sin_times_x()
    g = f.graph(x)
    assert [eq.prim.name for eq in g.equations] == ["Sin", "Mul", "ReduceSum"]
    ax = draw_graph(g)
    assert len(boxes(ax, "equation-")) == 3
    assert equation_names(ax) == ["Sin", "Mul", "ReduceSum"]
    labels = texts(ax)
    assert "%3: Float32[]" in labels and "%1: Float32[2]" in labels       # output variable and type
    assert len(boxes(ax, "input-")) == 1 and len(boxes(ax, "output-")) == 1
    assert "input %0" in labels and "output" in labels


def test_backward_graph_has_one_box_per_equation():
    f, x = sin_times_x()
    backward = f.grad_graph(x)
    ax = draw_graph(backward)
    assert len(boxes(ax, "equation-")) == len(backward.equations) > 3
    assert sorted(equation_names(ax)) == sorted(eq.prim.name for eq in backward.equations)


def test_constants_are_drawn_as_their_own_nodes():
    f = ms.jit(lambda x: x * 2.0 + 1.0)
    ax = draw_graph(f.graph(Tensor(np.ones(3, np.float32))))
    assert len(boxes(ax, "equation-")) == 2
    constants = boxes(ax, "constant-") + boxes(ax, "static-")
    assert len(constants) == 2
    assert "2.0" in texts(ax) and "1.0" in texts(ax)


def test_parameter_names_label_the_implicit_inputs():
    w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="weight")
    f = ms.jit(lambda x: ops.matmul(x, w))
    g = f.graph(Tensor(np.ones((4, 2), np.float32)))
    ax = draw_graph(g)
    assert len(boxes(ax, "parameter-weight")) == 1
    assert "Parameter weight" in texts(ax)
    assert equation_names(ax) == ["MatMul"]
    assert "%2: Float32[4, 3]" in texts(ax)


def test_effects_are_marked():
    counter = Parameter(Tensor(0.0, ms.float32), name="counter")

    def step(x):
        ops.assign(counter, counter + x)
        return counter * 2.0
    g = ms.jit(step).graph(Tensor(1.0))
    assert len(g.effects) == 1
    ax = draw_graph(g)
    assert len(boxes(ax, "effect-")) == 1
    assert "assign counter" in texts(ax)
    assert len(boxes(ax, "equation-")) == len(g.equations)
    assert len(boxes(ax, "parameter-counter")) == 1
    assert graph_png(g).startswith(PNG_SIGNATURE)


def test_multi_output_equation_is_one_box_with_one_line_per_output():
    dropout = ops.Dropout(0.5)

    def f(x):
        out, mask = dropout(x)
        return out.sum(), mask
    g = ms.jit(f).graph(Tensor(np.ones((2, 3), np.float32)))
    [drop] = [eq for eq in g.equations if eq.prim.name == "Dropout"]
    assert drop.multiple and len(drop.outs) == 2
    ax = draw_graph(g)
    assert len(boxes(ax, "equation-")) == len(g.equations)
    labels = texts(ax)
    for v in drop.outs:                     # in the box, and at the start of its edge
        assert f"{v!r}: Float32[2, 3]" in labels and repr(v) in labels
    assert len(boxes(ax, "output-")) == 2 and "output 0" in labels and "output 1" in labels


def test_graph_with_no_equations_and_static_output_still_draws():
    for f in (ms.jit(lambda x: x), ms.jit(lambda x: 5)):
        g = f.graph(Tensor(np.ones(2, np.float32)))
        assert g.equations == []
        ax = draw_graph(g)
        assert boxes(ax, "equation-") == [] and len(boxes(ax, "output-")) == 1
        assert graph_png(g).startswith(PNG_SIGNATURE)


def test_title_defaults_to_the_graph_name_and_can_be_changed_or_removed():
    f, x = sin_times_x()
    g = f.graph(x)
    assert any(g.name in t and "3 equations" in t for t in texts(draw_graph(g)))
    assert "my title" in texts(draw_graph(g, title="my title"))
    assert not [t for t in draw_graph(g, title="").texts if t.get_gid() == "title"]


def test_large_graphs_draw_with_simplified_labels():
    def f(x):
        for _ in range(25):
            x = ops.tanh(x) * 0.5 + ops.sin(x)
        return x.sum()
    g = ms.jit(f).graph(Tensor(np.ones(3, np.float32)))
    assert len(g.equations) > draw.COMPACT_ABOVE
    ax = draw_graph(g)
    assert len(boxes(ax, "equation-")) == len(g.equations)
    assert not [t for t in texts(ax) if "Float32" in t and t.startswith("%")]   # names only
    width, height = ax.figure.get_size_inches()
    assert width <= draw.MAX_WIDTH + 1e-9 and height <= draw.MAX_HEIGHT + 1e-9


# ----- figures and global state -----------------------------------------------------------------
def test_side_by_side_gives_a_figure_with_two_axes():
    f, x = sin_times_x()
    forward, backward = f.graph(x), f.grad_graph(x)
    fig = draw_side_by_side(forward, backward)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    left, right = fig.axes
    assert len(boxes(left, "equation-")) == len(forward.equations)
    assert len(boxes(right, "equation-")) == len(backward.equations)
    assert any(t.startswith("forward") for t in texts(left))
    assert any(t.startswith("backward") for t in texts(right))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    assert buffer.getvalue().startswith(PNG_SIGNATURE)


def test_draw_graph_on_a_given_axes():
    fig = Figure(figsize=(4, 5))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    f, x = sin_times_x()
    assert draw_graph(f.graph(x), ax=ax) is ax
    assert len(boxes(ax, "equation-")) == 3
    fig.canvas.draw()


def test_drawing_creates_no_pyplot_figures_and_keeps_the_backend():
    plt = pytest.importorskip("matplotlib.pyplot")
    before, backend = plt.get_fignums(), matplotlib.get_backend()
    f, x = sin_times_x()
    draw_graph(f.graph(x))
    graph_png(f.grad_graph(x))
    graph_svg(f.graph(x))
    draw_side_by_side(f.graph(x), f.grad_graph(x))
    assert plt.get_fignums() == before
    assert matplotlib.get_backend() == backend
