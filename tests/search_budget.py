"""How long the property searches run: bounded and deterministic by default, a long randomised search
with ``MINIMS_DEEP=1`` (``MINIMS_DEEP_EXAMPLES=n`` examples, 2000 by default)."""
import os

from hypothesis import HealthCheck, settings

DEEP = os.environ.get("MINIMS_DEEP", "") not in ("", "0")
DEEP_EXAMPLES = int(os.environ.get("MINIMS_DEEP_EXAMPLES", "2000"))


def bounded(n):
    """Hypothesis settings for ``n`` examples (``DEEP_EXAMPLES`` in a deep run)."""
    return settings(max_examples=DEEP_EXAMPLES if DEEP else n, deadline=None, derandomize=not DEEP,
                    database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])
