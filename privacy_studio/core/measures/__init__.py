"""Risk measures of metrics.md §2-§4, one module per family; numba kernels in core.kernels, orchestration in
core.runner."""
