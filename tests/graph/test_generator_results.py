"""A generator a compiled function returns is the list of its items (issue 25, compile_statements block 20).

Expected values: MindSpore 2.10 (the oracle) prints ``ret:[4, 16, 36, 64, 100]`` for the page's
``jit`` function returning ``(x * x for x in range(1, 11) if x % 2 == 0)``.
"""
import minims as ms


def test_returned_generator_expression_is_a_list_on_every_call():
    """The page's block (oracle: ``ret:[4, 16, 36, 64, 100]``), called twice: the second call must not
    return a spent generator."""
    @ms.jit()
    def test():
        return (x * x for x in range(1, 11) if x % 2 == 0)

    assert test() == [4, 16, 36, 64, 100]
    assert test() == [4, 16, 36, 64, 100]


def test_generator_of_tensors_inside_a_tuple_follows_the_inputs():
    """Closed form: (x * i for i in range(3)) for x = [2.] is [0, 2, 4]."""
    @ms.jit
    def f(x):
        return (x * i for i in range(3)), 1

    f(ms.Tensor([1.0]))
    items, one = f(ms.Tensor([2.0]))
    assert [t.asnumpy().tolist() for t in items] == [[0.0], [2.0], [4.0]] and one == 1
