"""``arena.c_view`` trusts its caller for speed; compiled with bounds checks (the CI's
NUMBA_BOUNDSCHECK=1 run) it checks that the view fits in the buffer."""
import numba
import numpy as np
import pytest

from rtmbs.kernels.arena import c_view


@numba.njit(boundscheck=True)
def _checked_sum(a, n, m):
    return c_view(a, (n, m)).sum()


def test_a_view_larger_than_its_buffer_is_refused_under_boundscheck():
    a = np.arange(12.0)
    assert _checked_sum(a, 3, 4) == 66.0 and _checked_sum(a, 2, 5) == 45.0
    with pytest.raises(IndexError, match="c_view: shape larger than the buffer"):
        _checked_sum(a, 4, 4)
