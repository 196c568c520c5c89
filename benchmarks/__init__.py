"""The benchmark programs (`make bench`, `bench-cpu`, `bench-instructions`, `bench-paging`, `bench-mock`): ratios against
a baseline measured in the same run (docs/performance.md). Run from a checkout: `python -m benchmarks.bench ...`."""
