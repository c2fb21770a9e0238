"""The C++ random engines MindSpore's data engine shuffles with, so that a seeded minims pipeline
visits the rows in the order MindSpore 2.10 visits them.

MindSpore's data engine is C++: a shuffled source (``NumpySlicesDataset(..., shuffle=True)``,
``MnistDataset``) draws a permutation with ``std::shuffle`` over ``std::mt19937`` seeded with the
data set seed, and ``dataset.shuffle(buffer_size)`` picks rows from its buffer with
``std::mt19937_64() % size``.  Both engines are the standard Mersenne Twisters (Matsumoto and
Nishimura, 1998; the 64-bit variant of 2004) with the standard's default initialisation, and
``std::shuffle``/``std::uniform_int_distribution`` are GCC's (libstdc++) algorithms.  The orders
they give were checked against MindSpore 2.10 (``tests/dataset/test_dataset_pipeline.py``).
"""
from __future__ import annotations

__all__ = ["MersenneTwister", "mt19937", "mt19937_64", "shuffle", "uniform_int"]


class MersenneTwister:
    """A Mersenne Twister engine: ``engine()`` returns the next ``w``-bit unsigned integer.

    The parameters are those of the C++ standard's ``mersenne_twister_engine``; :func:`mt19937` and
    :func:`mt19937_64` make the two engines C++ names.
    """

    def __init__(self, seed, *, w, n, m, r, a, u, d, s, b, t, c, l, f):
        self.w, self.n, self.m = w, n, m
        self.a, self.u, self.d, self.s, self.b, self.t, self.c, self.l = a, u, d, s, b, t, c, l
        self.mask = (1 << w) - 1
        self.upper = (self.mask << r) & self.mask          # the top w - r bits of a word
        self.lower = (1 << r) - 1
        state = [seed & self.mask]
        for i in range(1, n):                            # the standard's seeding recurrence
            prev = state[-1]
            state.append((f * (prev ^ (prev >> (w - 2))) + i) & self.mask)
        self.state = state
        self.index = n

    def _twist(self):
        st, n, m = self.state, self.n, self.m
        for k in range(n):
            y = (st[k] & self.upper) | (st[(k + 1) % n] & self.lower)
            st[k] = st[(k + m) % n] ^ (y >> 1) ^ (self.a if y & 1 else 0)
        self.index = 0

    def __call__(self) -> int:
        if self.index >= self.n:
            self._twist()
        y = self.state[self.index]
        self.index += 1
        y ^= (y >> self.u) & self.d                      # tempering
        y ^= (y << self.s) & self.b
        y ^= (y << self.t) & self.c
        y ^= y >> self.l
        return y & self.mask

    @property
    def max(self) -> int:
        return self.mask


def mt19937(seed: int) -> MersenneTwister:
    """C++'s ``std::mt19937(seed)`` (32-bit words)."""
    return MersenneTwister(seed, w=32, n=624, m=397, r=31, a=0x9908B0DF, u=11, d=0xFFFFFFFF,
                           s=7, b=0x9D2C5680, t=15, c=0xEFC60000, l=18, f=1812433253)


def mt19937_64(seed: int) -> MersenneTwister:
    """C++'s ``std::mt19937_64(seed)`` (64-bit words)."""
    return MersenneTwister(seed, w=64, n=312, m=156, r=31, a=0xB5026F5AA96619E9, u=29,
                           d=0x5555555555555555, s=17, b=0x71D67FFFEDA60000, t=37,
                           c=0xFFF7EEE000000000, l=43, f=6364136223846793005)


def uniform_int(engine: MersenneTwister, low: int, high: int) -> int:
    """libstdc++'s ``std::uniform_int_distribution(low, high)(engine)``: an integer in
    ``[low, high]``, by rejection: draws until one falls below the largest multiple of the range's
    size, then divides."""
    size = high - low + 1
    if size - 1 == engine.max:
        return low + engine()
    if size - 1 > engine.max:
        raise ValueError(f"uniform_int: the range [{low}, {high}] is wider than the engine's.")
    scaling = engine.max // size
    past = size * scaling
    while True:
        value = engine()
        if value < past:
            return low + value // scaling


def shuffle(items: list, engine: MersenneTwister) -> list:
    """libstdc++'s ``std::shuffle(items.begin(), items.end(), engine)``, in place; returns ``items``.

    A Fisher-Yates shuffle from the front.  When the engine's range is at least the square of the
    length, libstdc++ saves draws: one draw of ``uniform_int(0, k * (k + 1) - 1)`` gives the swap
    positions of two consecutive elements (after a first single swap when the length is even).
    """
    n = len(items)
    if n < 2:
        return items
    if engine.max // n >= n:
        i = 1
        if n % 2 == 0:
            j = uniform_int(engine, 0, 1)
            items[i], items[j] = items[j], items[i]
            i += 1
        while i < n:
            k = i + 1                                    # positions 0..i for the first, 0..i+1 next
            both = uniform_int(engine, 0, k * (k + 1) - 1)
            first, second = divmod(both, k + 1)
            items[i], items[first] = items[first], items[i]
            items[i + 1], items[second] = items[second], items[i + 1]
            i += 2
        return items
    for i in range(1, n):
        j = uniform_int(engine, 0, i)
        items[i], items[j] = items[j], items[i]
    return items
