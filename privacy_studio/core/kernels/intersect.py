"""Anonymity sets as nested intersections of posting lists, held as sorted user lists or dense bitmaps.

A walk starts at one point's posting list and intersects it with further points' lists one at a time, so
the sizes for every prefix length p come out of one pass. ``state`` is a small int64 array:
``[mode, point, count, buffer]``; modes say where the current set lives (a posting list, a point's bitmap,
one of two scratch lists, or the scratch bitmap).
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

REF_LIST, REF_BITS, OWN_LIST, OWN_BITS = 0, 1, 2, 3


@intrinsic
def _ctpop(typingctx, x):
    """LLVM's population count (one instruction on current CPUs)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    """LLVM's count of trailing zero bits (x must not be 0)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.cttz", [args[0].type, ir.IntType(1)])
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])

    return sig, codegen


#: How many members ahead a walk over the members' traces asks for their trace (see :func:`prefetch`).
AHEAD = 8


@intrinsic
def prefetch(typingctx, array, i):
    """Ask the CPU to bring ``array[i]`` into its caches ahead of use: only a hint (nothing is read, an
    index past the end does no harm), for walks whose next addresses are known but far apart."""
    if not isinstance(array, types.Array):
        return None
    sig = types.void(array, types.intp)

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, value=args[0]).data
        byte_ptr = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
        # named by llvmlite for its pointer type (p0i8 with typed pointers, upgraded to p0 by LLVM >= 17)
        fn = builder.module.declare_intrinsic("llvm.prefetch", [byte_ptr], fnty)
        address = builder.bitcast(builder.gep(data, [args[1]]), byte_ptr)
        builder.call(fn, [address, i32(0), i32(3), i32(1)])  # a read, kept in every level, data
        return context.get_dummy_value()

    return sig, codegen


@nb.njit(inline="always")
def prefetch_traces_ahead(members: np.ndarray, s: int, trace_ptr: np.ndarray, trace_pts: np.ndarray) -> None:
    """While the trace of ``members[s]`` is walked, ask for the trace of the member :data:`AHEAD` later and
    for where the one ``2 * AHEAD`` later starts: members' traces lie far apart in memory."""
    n = len(members)
    if s + AHEAD < n:
        prefetch(trace_ptr, members[min(s + 2 * AHEAD, n - 1)])
        prefetch(trace_pts, trace_ptr[members[s + AHEAD]])


@nb.njit(cache=True, nogil=True)
def popcount64(x: np.uint64) -> int:
    return int(_ctpop(x))


@nb.njit(cache=True, nogil=True)
def has_bit(bits: np.ndarray, v: int) -> bool:
    return (bits[v >> 6] >> np.uint64(v & 63)) & np.uint64(1) != 0


@nb.njit(cache=True, nogil=True)
def and_count(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> int:
    """``out = a & b`` word-wise (``out`` may be ``a``); returns the number of set bits."""
    c = 0
    for w in range(len(out)):
        x = a[w] & b[w]
        out[w] = x
        c += _ctpop(x)
    return int(c)


@nb.njit(cache=True, nogil=True)
def and_popcount(a: np.ndarray, b: np.ndarray) -> int:
    c = 0
    for w in range(len(a)):
        c += _ctpop(a[w] & b[w])
    return int(c)


@nb.njit(cache=True, nogil=True)
def bits_to_list(bits: np.ndarray, out: np.ndarray) -> int:
    """Write the set bits' positions in ascending order; returns how many."""
    n = 0
    for w in range(len(bits)):
        x = bits[w]
        while x:
            out[n] = w * 64 + int(_cttz(x))
            n += 1
            x &= x - np.uint64(1)
    return n


@nb.njit(cache=True, nogil=True)
def filter_by_bits(src: np.ndarray, n: int, bits: np.ndarray, dst: np.ndarray) -> int:
    """Keep the users of ``src[:n]`` whose bit is set (``dst`` may be ``src``)."""
    m = 0
    for i in range(n):
        v = src[i]
        if has_bit(bits, v):
            dst[m] = v
            m += 1
    return m


#: Above this length ratio the longer list is galloped through; below it both are merged without branches.
GALLOP_RATIO = 8


@nb.njit(cache=True, nogil=True)
def merge_sorted(a: np.ndarray, na: int, b: np.ndarray, nb_: int, dst: np.ndarray) -> int:
    """Sorted intersection of two lists of alike lengths: every step advances past the smaller head (both on
    a match) by adding comparisons, not branching on them, so no step waits on a mispredicted branch.
    Every step writes ``dst`` (kept only on a match), so ``dst`` holds at least ``min(na, nb_)`` items and
    shares no memory with ``a`` or ``b``."""
    i = j = m = 0
    while i < na and j < nb_:
        x, y = a[np.uint64(i)], b[np.uint64(j)]  # unsigned: no negative-index wraparound per access
        dst[np.uint64(m)] = x
        m += x == y
        i += x <= y
        j += y <= x
    return m


@nb.njit(cache=True, nogil=True)
def first_not_below(b: np.ndarray, lo: int, hi: int, v: int) -> int:
    """The first index of ``b[lo:hi]`` (ascending) whose value is not below ``v``, ``hi`` if none: a
    bisection that moves by arithmetic, not branches (a branch on each halving is mispredicted half the
    time), reading ``b`` with unsigned indices (no negative-index wraparound)."""
    n = hi - lo
    if n <= 0:
        return lo
    while n > 1:
        half = n >> 1
        lo += half * (b[np.uint64(lo + half)] < v)
        n -= half
    return lo + (b[np.uint64(lo)] < v)


@nb.njit(cache=True, nogil=True)
def intersect_sorted(a: np.ndarray, na: int, b: np.ndarray, nb_: int, dst: np.ndarray) -> int:
    """Sorted intersection of ``a[:na]`` and ``b[:nb_]``: a branch-free merge when the lengths are alike,
    else walk the shorter and gallop through the longer.

    Galloping (doubling steps, then bisection) costs O(short x log(long / short)): a binary search when one
    is much shorter.
    """
    if na > nb_:
        a, na, b, nb_ = b, nb_, a, na
    if nb_ <= GALLOP_RATIO * na:
        return merge_sorted(a, na, b, nb_, dst)
    m = 0
    lo = 0
    for i in range(na):
        v = a[i]
        if lo >= nb_:
            break
        if b[lo] < v:
            step = 1
            hi = lo + 1
            while hi < nb_ and b[hi] < v:
                lo = hi
                step <<= 1
                hi = lo + step
            if hi > nb_:
                hi = nb_
            lo = first_not_below(b, lo + 1, hi, v)  # b[lo] < v is known
            if lo >= nb_:
                break
        if b[lo] == v:
            dst[m] = v
            m += 1
            lo += 1
    return m


@nb.njit(cache=True, nogil=True)
def walk_start(x: int, post_ptr: np.ndarray, dense_slot: np.ndarray, state: np.ndarray) -> int:
    """Start a walk at point ``x``: the set is D_x; returns its size."""
    state[0] = REF_BITS if dense_slot[x] >= 0 else REF_LIST
    state[1] = x
    state[2] = post_ptr[x + 1] - post_ptr[x]
    state[3] = 0
    return state[2]


@nb.njit(cache=True, nogil=True)
def walk_step(
    y: int,
    post_ptr: np.ndarray,
    post_users: np.ndarray,
    dense_slot: np.ndarray,
    bitmaps: np.ndarray,
    buf: np.ndarray,
    bits: np.ndarray,
    state: np.ndarray,
) -> int:
    """Intersect the current set with D_y; ``buf`` is (2, max list length), ``bits`` the scratch bitmap."""
    mode, x, c, cur = state[0], state[1], state[2], state[3]
    ya, yb = post_ptr[y], post_ptr[y + 1]
    dy = dense_slot[y]
    if mode == REF_LIST or mode == OWN_LIST:  # noqa: SIM109 (numba)
        src = post_users[post_ptr[x] : post_ptr[x + 1]] if mode == REF_LIST else buf[cur]
        if dy >= 0:
            dst = buf[cur] if mode == OWN_LIST else buf[0]
            c = filter_by_bits(src, c, bitmaps[dy], dst)
            cur = cur if mode == OWN_LIST else 0
        else:
            nxt = 1 - cur if mode == OWN_LIST else 0
            c = intersect_sorted(src, c, post_users[ya:yb], yb - ya, buf[nxt])
            cur = nxt
        mode = OWN_LIST
    else:
        cbits = bitmaps[dense_slot[x]] if mode == REF_BITS else bits
        if dy >= 0:
            c = and_count(cbits, bitmaps[dy], bits)
            mode = OWN_BITS
            if c <= len(bits):  # small enough that a list is cheaper than the bitmap from now on
                bits_to_list(bits, buf[0])
                mode, cur = OWN_LIST, 0
        else:
            c = filter_by_bits(post_users[ya:yb], yb - ya, cbits, buf[0])
            mode, cur = OWN_LIST, 0
    state[0], state[2], state[3] = mode, c, cur
    return c


@nb.njit(cache=True, nogil=True)
def walk_members(
    post_ptr: np.ndarray,
    post_users: np.ndarray,
    dense_slot: np.ndarray,
    bitmaps: np.ndarray,
    buf: np.ndarray,
    bits: np.ndarray,
    state: np.ndarray,
    out: np.ndarray,
) -> np.ndarray:
    """The current set as a sorted array of users (a view; ``out`` is used when the set is a bitmap)."""
    mode, x, c, cur = state[0], state[1], state[2], state[3]
    if mode == REF_LIST:
        return post_users[post_ptr[x] : post_ptr[x + 1]]
    if mode == OWN_LIST:
        return buf[cur][:c]
    src = bitmaps[dense_slot[x]] if mode == REF_BITS else bits
    n = bits_to_list(src, out)
    return out[:n]


@nb.njit(cache=True, nogil=True)
def walk_bitmap(
    dense_slot: np.ndarray, bitmaps: np.ndarray, bits: np.ndarray, state: np.ndarray
) -> np.ndarray:
    """The current set's bitmap when the walk holds one (modes REF_BITS / OWN_BITS)."""
    if state[0] == REF_BITS:
        return bitmaps[dense_slot[state[1]]]
    return bits
