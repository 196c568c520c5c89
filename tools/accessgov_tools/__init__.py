"""The reviewers' tools of the contract: bundle, validate, lint, overlay, diff, changelog, release-check, generate,
summary, check-generated, docs, mock (one console script, `accessgov-tools`; `accessgov_tools.cli`).

They work on a checkout of this repository (`accessgov_tools.paths`) and never import the reference server
(`accessgov`): an import-linter contract in `make lint` holds that.
"""
