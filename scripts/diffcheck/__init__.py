"""Breaking-change report for the contract: compare `spec/` at a git ref with the working tree's.

Modules: `resolve` (reading bundles: `$ref`/`$dynamicRef`, `allOf`, unions), `checks` (the check registry),
`compare` (the walk that reports findings), `keywords` (JSON Schema 2020-12 keywords), `lifecycle` (deprecation,
sunset, stability), `sources` (bundle pointer -> spec file and line), `config` (policies, overrides, grace
periods from `severities.yaml`), `accepted` (review/accepted-breaking.yaml), `render` (text, markdown, JSON,
GitHub), `cli`; `score`, `oasdiff` and `coverage` measure the engine against oasdiff (docs/diff.md).
"""
