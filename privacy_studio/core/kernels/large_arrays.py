"""Large arrays that kernels allocate, on huge pages where Linux offers them on request.

A kernel's array is freed when Python drops it, holding the GIL while the system takes back its pages: with
4 KiB pages a 2 GB array took 145 ms, a pause of the window whenever a worker let go of a matching score
matrix or an event column (issue #27). numpy asks for transparent huge pages for each array of 4 MiB or more
and frees the same 2 GB in 6 ms; ``empty_large`` asks the same for a kernel's array of :data:`HUGE_FROM` or
more. Elsewhere, or where huge pages are off, it is ``np.empty``. (Advising every allocation of numba's
runtime instead, at its allocator, would mean replacing CPython's raw allocator: not done.)
"""

from __future__ import annotations

import mmap
import sys

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

#: ``madvise`` advice asking for transparent huge pages (Linux's value).
MADV_HUGEPAGE = 14
#: Smallest array given the advice: above glibc's largest threshold for serving a request from its heap (32
#: MiB), so an advised array is a mapping of its own, handed back whole when freed; advice on heap memory
#: would keep its huge pages resident after smaller blocks in them are freed.
HUGE_FROM = 64 << 20
PAGE = mmap.PAGESIZE


@intrinsic
def _advise_huge_pages(typingctx, address, length):
    """``madvise(address, length, MADV_HUGEPAGE)`` on Linux (a hint: its result is ignored), else nothing."""
    sig = types.void(types.intp, types.intp)

    def codegen(context, builder, signature, args):
        if sys.platform.startswith("linux"):
            byte_ptr = ir.IntType(8).as_pointer()
            fnty = ir.FunctionType(ir.IntType(32), [byte_ptr, ir.IntType(64), ir.IntType(32)])
            madvise = cgutils.get_or_insert_function(builder.module, fnty, "madvise")
            advice = ir.Constant(ir.IntType(32), MADV_HUGEPAGE)
            builder.call(madvise, [builder.inttoptr(args[0], byte_ptr), args[1], advice])
        return context.get_dummy_value()

    return sig, codegen


@nb.njit(inline="always")
def empty_large(shape, dtype):
    """``np.empty(shape, dtype)`` inside a kernel, advised onto huge pages when it is 64 MiB or more; call it
    before anything writes the array (the advice applies to pages not yet touched)."""
    out = np.empty(shape, dtype)
    nbytes = out.size * out.itemsize
    if nbytes >= HUGE_FROM:
        start = (out.ctypes.data + PAGE - 1) // PAGE * PAGE
        _advise_huge_pages(start, out.ctypes.data + nbytes - start)
    return out
