"""Whole-array evaluation of user combine functions on Triton's CPU interpreter.

The interpreter evaluates `tl.reduce` and `tl.associative_scan` with a combine function other
than Triton's own sum/max/min one element at a time in Python (a left fold and a running scan),
so a [1, 8192] chunk costs 8192 interpreted calls. Generated kernels always pass their own
combine functions. `install()` replaces those two slow paths with evaluations that call the
combine function on whole slices: a reduction as a pairwise tree that keeps leaf order, a scan
as Hillis-Steele prefix steps (log2(n) calls each). Both are orders the GPU lowering may also
use: Triton requires these combine functions to be associative, not commutative.
"""
import numpy as np

ORIGINAL = None  # the interpreter's own (generic_reduce, generic_scan), once install() replaced them


def _unpack(ret, like):
    """The numpy arrays of a combine function's result (a tensor or a tuple), cast to `like`'s dtypes."""
    ret = ret if isinstance(ret, tuple) else (ret,)
    out = []
    for r, l in zip(ret, like):
        data = r.handle.data if hasattr(r, "handle") else np.asarray(getattr(r, "value", r))
        out.append(np.broadcast_to(data, l.shape).astype(l.dtype))
    return out


def _combine(op, dtypes, lhs, rhs):
    args = [op.to_tensor(d, t) for d, t in zip(lhs, dtypes)] + [op.to_tensor(d, t) for d, t in zip(rhs, dtypes)]
    return _unpack(op.combine_fn.fn(*args), lhs)


def tree_reduce(self, input):
    """ReduceOps.generic_reduce: adjacent pairs combined level by level (the interpreter's blocks
    are powers of two), so every leaf keeps its place left of its successors."""
    original_axis = self.axis
    input, axis = self.unravel(input, self.axis)
    dtypes = [a.dtype for a in input]
    data = [a.handle.data for a in input]
    while data[0].shape[axis] > 1:
        n = data[0].shape[axis]
        lhs = [np.take(d, np.arange(0, n, 2), axis=axis) for d in data]
        rhs = [np.take(d, np.arange(1, n, 2), axis=axis) for d in data]
        data = _combine(self, dtypes, lhs, rhs)
    ret = []
    for d, t in zip(data, dtypes):
        d = np.squeeze(d, axis=axis)
        if self.keep_dims:  # as the interpreter's own path: [1] after a reduction of everything
            d = np.expand_dims(d, axis if original_axis is not None else 0)
        elif original_axis is None:
            d = d.item()
        ret.append(self.to_tensor(d, t))
    return ret


def prefix_scan(self, input):
    """ScanOps.generic_scan: Hillis-Steele steps, element i combined with i - 2^k on the left."""
    axis = self.axis
    dtypes = [a.dtype for a in input]
    data = [np.array(a.handle.data) for a in input]
    n = data[0].shape[axis]
    step = 1
    while step < n:
        # Whole arrays (the interpreter's blocks are powers of two): the left operand rotated by
        # `step`; the first `step` places combine wrapped-around elements and are not kept.
        lhs = [np.roll(d, step, axis=axis) for d in data]
        new = _combine(self, dtypes, lhs, data)
        index = [slice(None)] * data[0].ndim
        index[axis] = slice(step, n)
        for d, v in zip(data, new):
            d[tuple(index)] = v[tuple(index)]
        step *= 2
    return [self.to_tensor(d, t) for d, t in zip(data, dtypes)]


def install():
    """Patches the interpreter's slow paths; False where this Triton lays them out otherwise."""
    try:
        from triton.runtime import interpreter as interp
    except ImportError:
        return False
    if not all(hasattr(c, f) for c, f in ((interp.ReduceOps, "generic_reduce"), (interp.ScanOps, "generic_scan"),
                                          (interp.ReduceOps, "unravel"), (interp.ReduceScanOpInterface, "to_tensor"))):
        return False
    global ORIGINAL
    if ORIGINAL is None:
        ORIGINAL = (interp.ReduceOps.generic_reduce, interp.ScanOps.generic_scan)
    interp.ReduceOps.generic_reduce = tree_reduce
    interp.ScanOps.generic_scan = prefix_scan
    return True
