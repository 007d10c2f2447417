"""How the sparse LU's refactorisation (``lu_refactor``) groups the rows it eliminates, from the
factor's storage: the test that the models reach every branch."""
from __future__ import annotations


def group_sizes(ptr, diag, col, paired) -> set[int]:
    """The sizes of the groups in which lu_refactor takes the rows k of each row's L part
    (``ptr``, ``diag``, ``col``: the factor's row storage; ``paired``: the rows that pair with
    the next one in a supernode, ``sparse.paired_rows``): four, three or two consecutive rows of
    a supernode at once, else one."""
    sizes = set()
    for i in range(len(diag)):
        p, d = ptr[i], diag[i]
        while p < d:
            k = col[p]
            if p + 3 < d and paired[k] and paired[k + 1] and paired[k + 2] and col[p + 3] == k + 3:
                g = 4
            elif p + 2 < d and paired[k] and paired[k + 1] and col[p + 2] == k + 2:
                g = 3
            elif p + 1 < d and paired[k] and col[p + 1] == k + 1:
                g = 2
            else:
                g = 1
            sizes.add(g)
            p += g
    return sizes
