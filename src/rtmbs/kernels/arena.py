"""Pack many small arrays into one flat buffer per dtype so a compiled call unboxes a handful of
arrays instead of dozens (each unboxed array costs ~0.1-0.2 µs: PERFORMANCE.md).

:func:`rtmbs.kernels.layouts.pack` returns the buffer and a layout (k × 6: offset, ndim, d0, d1,
d2, d3); the Python side keeps views into the buffer, so writing a view (e.g. an input channel)
writes the buffer the kernel reads. Inside numba, ``view1..view4`` carve the same views back with
:func:`c_view` (about 1 ns a view and C-contiguous, where ``reshape`` costs about 14 ns and
``as_strided`` gives layout 'A', whose indexing is slower in the Jacobian loops).
"""
from __future__ import annotations

from numba import njit, types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed, impl_ret_untracked
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


@intrinsic
def c_view(typingctx, arr, shape):
    """C-contiguous view of shape ``shape`` (a tuple of integers) on the start of the 1-D
    C-contiguous ``arr``, without the checks of ``reshape``: the caller guarantees
    ``arr.size >= prod(shape)``. Compiled with bounds checks (``NUMBA_BOUNDSCHECK=1`` or
    ``boundscheck=True``) it checks that guarantee and raises IndexError."""
    if not isinstance(arr, types.Array) or arr.ndim != 1 or arr.layout != 'C':
        return None
    if not isinstance(shape, types.UniTuple) or not isinstance(shape.dtype, types.Integer):
        return None
    sig = arr.copy(ndim=shape.count, layout='C')(arr, shape)

    def codegen(context, builder, sig, args):
        ary = make_array(sig.args[0])(context, builder, args[0])
        dims = [context.cast(builder, d, sig.args[1].dtype, types.intp)
                for d in cgutils.unpack_tuple(builder, args[1])]
        if context.enable_boundscheck:  # the view must fit in the buffer
            total = context.get_constant(types.intp, 1)
            for d in dims:
                total = builder.mul(total, d)
            with builder.if_then(builder.icmp_signed(">", total, ary.nitems), likely=False):
                context.call_conv.return_user_exc(builder, IndexError,
                                                  ("c_view: shape larger than the buffer",))
        st = ary.itemsize
        strides = []
        for d in reversed(dims):
            strides.insert(0, st)
            st = builder.mul(st, d)
        out = make_array(sig.return_type)(context, builder)
        populate_array(out, data=ary.data, shape=dims, strides=strides, itemsize=ary.itemsize,
                       meminfo=ary.meminfo, parent=ary.parent)
        return impl_ret_borrowed(context, builder, sig.return_type, out._getvalue())

    return sig, codegen


@intrinsic
def borrowed(typingctx, arr):
    """The same array without its reference-counted owner (meminfo NULL, as ``numba.carray``
    makes them). Every view carved from it then skips the atomic incref/decref that numba emits
    for each array view passed to a function (measured: a quarter of a model evaluation). The
    caller keeps the owner alive for as long as the borrowed array is used (the buffers of a
    compiled system outlive every call)."""
    if not isinstance(arr, types.Array):
        return None
    sig = arr(arr)

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        out = make_array(sig.return_type)(context, builder)
        populate_array(out, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize,
                       meminfo=None, parent=None)
        return impl_ret_untracked(context, builder, sig.return_type, out._getvalue())

    return sig, codegen


@njit(cache=True, inline="always")
def view1(buf, lay, k):
    o = lay[k, 0]
    return buf[o:o + lay[k, 2]]


@njit(cache=True, inline="always")
def view2(buf, lay, k):
    o = lay[k, 0]
    d0, d1 = lay[k, 2], lay[k, 3]
    return c_view(buf[o:o + d0 * d1], (d0, d1))


@njit(cache=True, inline="always")
def view3(buf, lay, k):
    o = lay[k, 0]
    d0, d1, d2 = lay[k, 2], lay[k, 3], lay[k, 4]
    return c_view(buf[o:o + d0 * d1 * d2], (d0, d1, d2))


@njit(cache=True, inline="always")
def view4(buf, lay, k):
    o = lay[k, 0]
    d0, d1, d2, d3 = lay[k, 2], lay[k, 3], lay[k, 4], lay[k, 5]
    return c_view(buf[o:o + d0 * d1 * d2 * d3], (d0, d1, d2, d3))
