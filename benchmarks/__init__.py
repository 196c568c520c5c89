"""The benchmark programs (`make bench`, `bench-cpu`, `bench-instructions`, `bench-paging`, `bench-mock`).

Each reports ratios against a baseline measured in the same run (docs/performance.md). They drive the reference
server from a checkout: `python -m benchmarks.bench ...`, as the Make targets do.
"""
