"""Everything in this package is generated from spec/ by `make generate`. Do not edit by hand."""
