"""Risk measures of metrics.md §2-§4, one module per family; kernels here, orchestration in core.runner."""
